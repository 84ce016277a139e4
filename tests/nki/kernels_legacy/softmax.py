"""Row softmax over the free dimension, previous NKI generation, with the nl.* tile operations:
out[r, :] = exp(x[r, :] - max_r) / sum(exp(x[r, :] - max_r)).

softmax_rows_kernel(x) / softmax_rows
    x: [R, F] (one row in one partition). Rows in tiles of 128 indexed with nl.arange; the last
    tile is partial: mask=(i_p < R) on every load, operation and store. Per tile:
    nl.max(axis=1, keepdims=True) -> [128, 1]; nl.subtract broadcasting it along the free
    dimension; nl.exp; nl.sum(axis=1, keepdims=True); nl.reciprocal; nl.multiply. Intermediates
    are requested as float32 (dtype=nl.float32) so a bf16 input is rounded only on output.
"""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def softmax_rows_kernel(x):
    R, F = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    i_f = nl.arange(F)[None, :]
    for t in nl.affine_range((R + P - 1) // P):
        i_p = t * P + nl.arange(P)[:, None]
        valid = i_p < R
        x_tile = nl.load(x[i_p, i_f], mask=valid)
        row_max = nl.max(x_tile, axis=1, keepdims=True, dtype=nl.float32, mask=valid)
        shifted = nl.subtract(x_tile, row_max, dtype=nl.float32, mask=valid)
        exps = nl.exp(shifted, dtype=nl.float32, mask=valid)
        row_sum = nl.sum(exps, axis=1, keepdims=True, dtype=nl.float32, mask=valid)
        inv_sum = nl.reciprocal(row_sum, dtype=nl.float32, mask=valid)
        y_tile = nl.multiply(exps, inv_sum, dtype=x.dtype, mask=valid)
        nl.store(out[i_p, i_f], value=y_tile, mask=valid)
    return out


softmax_rows = nki.jit(softmax_rows_kernel)


def reference(x):
    """Row softmax in float64 of the given (already rounded) inputs."""
    x64 = np.asarray(x, np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
