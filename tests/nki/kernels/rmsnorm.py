"""RMSNorm over the free dimension: out[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + eps) * w.

rmsnorm(x, w, eps=1e-6)
    x: [R, D], w: [D], float32 or bfloat16 (one dtype). Rows on partitions, 128 at a time (the
    last tile may be partial). w is loaded once into a [128, D] tile with every partition a copy
    of w, by one DMA from the stride-0 HBM view w.reshape((1, D)).broadcast(0, 128). Per tile:
      1. nisa.activation(op=nl.square, reduce_op=nl.add, reduce_cmd=reset_reduce,
                         reduce_res=ss)                      -> ss = sum(x^2) per row (fp32)
      2. nisa.activation(op=nl.rsqrt, data=ss, scale=1/D, bias=eps) -> rsqrt(ss / D + eps)
         (a scalar bias is allowed from NeuronCore-v3 on)
      3. nisa.scalar_tensor_tensor(data=x, op0=nl.multiply, operand0=rstd,
                                   op1=nl.multiply, operand1=w) -> (x * rstd) * w, cast to x.dtype

API used: HBM views reshape + broadcast (partition broadcast by DMA), nisa.activation (square
with reduction; rsqrt with scale and scalar bias), nisa.scalar_tensor_tensor, range().
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def rmsnorm(x, w, eps=1e-6):
    R, D = x.shape
    assert w.shape == (D,), f"w must be [{D}], got {w.shape}"
    pmax = nl.tile_size.pmax
    out = nl.ndarray((R, D), dtype=x.dtype, buffer=nl.shared_hbm)

    w_rows = nl.ndarray((pmax, D), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=w_rows, src=w.reshape((1, D)).broadcast(0, pmax))

    for t in range((R + pmax - 1) // pmax):
        rows = min(pmax, R - t * pmax)
        r0 = t * pmax
        x_tile = nl.ndarray((rows, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[r0:r0 + rows, :])

        squares = nl.ndarray((rows, D), dtype=nl.float32, buffer=nl.sbuf)
        sum_sq = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=squares, op=nl.square, data=x_tile, reduce_op=nl.add,
                        reduce_res=sum_sq, reduce_cmd=nisa.reduce_cmd.reset_reduce)

        rstd = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=rstd, op=nl.rsqrt, data=sum_sq, scale=1.0 / D, bias=eps)

        y_tile = nl.ndarray((rows, D), dtype=x.dtype, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(dst=y_tile, data=x_tile, op0=nl.multiply, operand0=rstd,
                                  op1=nl.multiply, operand1=w_rows[0:rows, :])
        nisa.dma_copy(dst=out[r0:r0 + rows, :], src=y_tile)
    return out


def reference(x, w, eps=1e-6):
    """RMSNorm in float64 of the given (already rounded) inputs."""
    x64 = np.asarray(x, np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x64 * x64, axis=1, keepdims=True) + eps)
    return x64 * rstd * np.asarray(w, np.float64)[None, :]
