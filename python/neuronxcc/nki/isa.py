"""neuronxcc.nki.isa for trnsim: the legacy generation's instruction calls, which return their
result tile (trnsim_nki.legacy_isa). docs/nki.md lists every name of AWS's reference and its
status here."""

import types as _types

from trnsim_nki.legacy_isa import (  # noqa: F401
    engine, reduce_cmd, dge_mode, oob_mode, nc_version, tensor_engine, vector_engine,
    scalar_engine, gpsimd_engine, unknown_engine, get_nc_version, nc_matmul, nc_transpose,
    activation, activation_reduce, tensor_tensor, tensor_scalar, scalar_tensor_tensor,
    tensor_copy, reciprocal, tensor_reduce, tensor_scalar_reduce, tensor_tensor_scan,
    tensor_partition_reduce, bn_stats, bn_aggr, max8, nc_find_index8, nc_match_replace8, iota,
    memset, affine_select, tensor_copy_predicated, dma_copy, dma_transpose)
from trnsim_nki.unsupported import module_getattr as _module_getattr

fp32 = _types.SimpleNamespace(min=-3.4028234663852886e38)  # bit pattern 0xff7fffff

__getattr__ = _module_getattr("neuronxcc.nki.isa", globals())
