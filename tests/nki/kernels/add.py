"""Element-wise tensor add: out = a + b.

tensor_add(a, b)
    a, b: 2-D HBM tensors of one shape [R, C] and dtype. Rows go to partitions in tiles of
    nl.tile_size.pmax (the last tile may be partial), columns in chunks of up to 512 elements.
    The add runs on the Vector Engine (nisa.tensor_tensor, op=nl.add) in fp32 and is rounded
    once to the output dtype (= a.dtype).

tensor_add_spmd[g](a, b)
    The same, with the rows split evenly over the g programs of the launch grid: program
    nl.program_id(0) of nl.num_programs(0) adds rows [pid * R/g, (pid + 1) * R/g). In the current
    generation the launch bracket is the LNC degree (nki.jit docstring; get-started/about/lnc.rst):
    g = 1 (or no bracket) runs one program, g = 2 one program per physical core of an LNC=2
    logical core, both writing disjoint rows of the one shared_hbm output.

API used: nl.ndarray (sbuf, shared_hbm), nl.ds slicing of HBM tensors, nl.affine_range,
nl.program_id / nl.num_programs, nisa.dma_copy, nisa.tensor_tensor.
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

COLS_PER_TILE = 512


def _add_rows(a, b, out, row0, nrows):
    """Adds rows [row0, row0 + nrows) of a and b into the same rows of out (all columns).

    Inlined into the kernels at trace time; every argument other than the tensors is a Python
    int.
    """
    pmax = nl.tile_size.pmax
    ncols = a.shape[1]
    for rt in nl.affine_range((nrows + pmax - 1) // pmax):
        rows = min(pmax, nrows - rt * pmax)
        r_start = row0 + rt * pmax
        for ct in nl.affine_range((ncols + COLS_PER_TILE - 1) // COLS_PER_TILE):
            cols = min(COLS_PER_TILE, ncols - ct * COLS_PER_TILE)
            c_start = ct * COLS_PER_TILE
            a_tile = nl.ndarray((rows, cols), dtype=a.dtype, buffer=nl.sbuf)
            b_tile = nl.ndarray((rows, cols), dtype=b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a_tile, src=a[nl.ds(r_start, rows), nl.ds(c_start, cols)])
            nisa.dma_copy(dst=b_tile, src=b[nl.ds(r_start, rows), nl.ds(c_start, cols)])
            sum_tile = nl.ndarray((rows, cols), dtype=out.dtype, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=sum_tile, data1=a_tile, data2=b_tile, op=nl.add)
            nisa.dma_copy(dst=out[nl.ds(r_start, rows), nl.ds(c_start, cols)], src=sum_tile)


@nki.jit
def tensor_add(a, b):
    assert a.shape == b.shape, f"a {a.shape} and b {b.shape} differ in shape"
    assert a.dtype == b.dtype, f"a {a.dtype} and b {b.dtype} differ in dtype"
    assert len(a.shape) == 2, f"expected 2-D inputs, got {a.shape}"
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    _add_rows(a, b, out, 0, a.shape[0])
    return out


@nki.jit
def tensor_add_spmd(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    assert len(a.shape) == 2, f"expected 2-D inputs, got {a.shape}"
    programs = nl.num_programs(0)
    pid = nl.program_id(0)
    assert a.shape[0] % programs == 0, f"{a.shape[0]} rows do not split over {programs} programs"
    rows_per_program = a.shape[0] // programs
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    _add_rows(a, b, out, pid * rows_per_program, rows_per_program)
    return out


def reference(a, b, round_out):
    """a + b in fp32, rounded once to the output dtype by `round_out` (float32 -> float32)."""
    return round_out(np.asarray(a, np.float32) + np.asarray(b, np.float32))
