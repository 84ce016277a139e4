"""The public names of nki.isa (current generation: `dst` first), from ops_isa."""

from trnsim_nki.ops_isa import (  # noqa: F401 - re-exported
    engine, reduce_cmd, dge_mode, oob_mode, matmul_perf_mode, nc_version, dma_engine,
    dma_copy, dma_transpose, tensor_copy, memset, iota, nc_matmul, nc_transpose,
    tensor_tensor, tensor_scalar, scalar_tensor_tensor, reciprocal, tensor_copy_predicated,
    tensor_reduce, tensor_partition_reduce, tensor_scalar_reduce, tensor_tensor_scan, bn_stats,
    bn_aggr, max8, nc_find_index8, nc_match_replace8, activation, activation_reduce,
    affine_select, core_barrier, sendrecv, get_nc_version, get_nc_sub_version)
from trnsim_nki.errors import NkiError as NkiValidationError  # noqa: F401
from trnsim_nki.registers import (  # noqa: F401 - re-exported
    VirtualRegister, register_alloc, register_move, register_load, register_store)

# Engine shorthands the legacy generation spells as module constants.
tensor_engine = engine.tensor
vector_engine = engine.vector
scalar_engine = engine.scalar
gpsimd_engine = engine.gpsimd
unknown_engine = engine.unknown
