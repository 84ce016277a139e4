"""Element-wise tensor add, previous NKI generation: out = a + b.

tensor_add_kernel(a, b) / tensor_add
    Any 2-D shape [R, C]: rows in tiles of nl.tile_size.pmax, columns in chunks of 512, indexed
    with nl.arange expressions; the last row tile and column chunk are partial and handled with
    mask=((i_p < R) & (i_f < C)) on the loads, the add and the store (the pattern of the legacy
    programming model's "varying input size" example). The add is nl.add (Vector Engine, fp32,
    one rounding to the output dtype).
tensor_add_spmd_kernel(a, b) / tensor_add_spmd[grid](a, b)
    SPMD: launched on a 1-D grid kernel[gx] or a 2-D grid kernel[gx, gy]; program
    (nl.program_id(0), nl.program_id(1)) adds the [R/gx, C/gy] block it owns (one tile: at most
    128 x 512), indexed with nl.mgrid and written as `a_tile + b_tile`. program_id values are
    index expressions in this generation, so they are only used in index arithmetic.
"""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

COLS_PER_TILE = 512


def tensor_add_kernel(a_input, b_input):
    assert a_input.shape == b_input.shape, "a and b differ in shape"
    R, C = a_input.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((R, C), dtype=a_input.dtype, buffer=nl.shared_hbm)
    for p in nl.affine_range((R + P - 1) // P):
        for f in nl.affine_range((C + COLS_PER_TILE - 1) // COLS_PER_TILE):
            i_p = p * P + nl.arange(P)[:, None]
            i_f = f * COLS_PER_TILE + nl.arange(COLS_PER_TILE)[None, :]
            valid = (i_p < R) & (i_f < C)
            a_tile = nl.load(a_input[i_p, i_f], mask=valid)
            b_tile = nl.load(b_input[i_p, i_f], mask=valid)
            c_tile = nl.add(a_tile, b_tile, mask=valid)
            nl.store(out[i_p, i_f], value=c_tile, mask=valid)
    return out


def tensor_add_spmd_kernel(a_input, b_input):
    assert a_input.shape == b_input.shape, "a and b differ in shape"
    R, C = a_input.shape
    two_d = nl.program_ndim() >= 2
    rows = R // nl.num_programs(0)
    cols = C // nl.num_programs(1) if two_d else C
    assert rows * nl.num_programs(0) == R and rows <= nl.tile_size.pmax, \
        f"{R} rows do not split into <= 128-row blocks over the grid"
    assert cols <= COLS_PER_TILE, f"{cols} columns per program exceed one tile"
    out = nl.ndarray((R, C), dtype=a_input.dtype, buffer=nl.shared_hbm)
    row0 = nl.program_id(0) * rows
    col0 = nl.program_id(1) * cols if two_d else 0
    i_p, i_f = nl.mgrid[0:rows, 0:cols]
    a_tile = nl.load(a_input[row0 + i_p, col0 + i_f])
    b_tile = nl.load(b_input[row0 + i_p, col0 + i_f])
    nl.store(out[row0 + i_p, col0 + i_f], value=a_tile + b_tile)
    return out


tensor_add = nki.jit(tensor_add_kernel)
tensor_add_spmd = nki.jit(tensor_add_spmd_kernel)


def reference(a, b, round_out):
    """a + b in fp32, rounded once to the output dtype by `round_out` (float32 -> float32)."""
    return round_out(np.asarray(a, np.float32) + np.asarray(b, np.float32))
