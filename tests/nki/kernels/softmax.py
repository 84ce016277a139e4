"""Row softmax over the free dimension:
out[r, :] = exp(x[r, :] - max_r) / sum(exp(x[r, :] - max_r)).

softmax_rows(x)
    x: [R, F] float32 or bfloat16 (F elements of one row fit in one SBUF partition). Rows go to
    partitions, 128 at a time (the last tile may be partial). Per tile:
      1. nisa.tensor_reduce(op=nl.maximum, axis=1, negate=True)  -> -max per row  (Vector Engine)
      2. nisa.activation(op=nl.exp, bias=-max, reduce_op=nl.add,
                         reduce_cmd=reset_reduce, reduce_res=sum) -> e = exp(x - max), sum(e)
         in one Scalar Engine instruction (fp32 math, e kept in fp32)
      3. nisa.reciprocal(sum)                                      -> 1/sum  (Vector Engine)
      4. nisa.tensor_scalar(e, op0=nl.multiply, operand0=1/sum)    -> e / sum, cast to x.dtype
    The row vectors (max, sum, 1/sum) are [rows, 1] fp32 tiles used as per-partition operands.

API used: nisa.tensor_reduce (negate), nisa.activation (bias vector, reduce_res with
nisa.reduce_cmd.reset_reduce), nisa.reciprocal, nisa.tensor_scalar (vector operand),
nl.affine_range.
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def softmax_rows(x):
    R, F = x.shape
    pmax = nl.tile_size.pmax
    out = nl.ndarray((R, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range((R + pmax - 1) // pmax):
        rows = min(pmax, R - t * pmax)
        r0 = t * pmax
        x_tile = nl.ndarray((rows, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[r0:r0 + rows, :])

        neg_max = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=x_tile, axis=1, negate=True)

        exps = nl.ndarray((rows, F), dtype=nl.float32, buffer=nl.sbuf)
        row_sum = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=exps, op=nl.exp, data=x_tile, bias=neg_max, scale=1.0,
                        reduce_op=nl.add, reduce_res=row_sum,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)

        inv_sum = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.reciprocal(dst=inv_sum, data=row_sum)

        y_tile = nl.ndarray((rows, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=y_tile, data=exps, op0=nl.multiply, operand0=inv_sum)
        nisa.dma_copy(dst=out[r0:r0 + rows, :], src=y_tile)
    return out


def reference(x):
    """Row softmax in float64 of the given (already rounded) inputs."""
    x64 = np.asarray(x, np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
