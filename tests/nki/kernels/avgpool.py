"""2-D average pooling, square window `pool`, stride = pool, no padding:
out[c, i, j] = mean(x[c, i*pool:(i+1)*pool, j*pool:(j+1)*pool]).

x: [C, H, W] float32 or bfloat16 with H and W multiples of pool; channels go to partitions,
128 at a time (the last tile may be partial), each channel's H x W image in the free dimension.
Output [C, H/pool, W/pool] in x's dtype. The window sums are fp32; the mean is the sum times
1/pool^2 (one rounding more than a division when pool is not a power of two).

avgpool2d(x, pool)
    One reduction over a 5-D view: the [c, H, W] tile reshaped (a free view) to
    [c, Ho, pool, Wo, pool] and permuted to [c, Ho, Wo, pool, pool], then
    nisa.tensor_reduce(op=nl.add, axis=(3, 4)).
avgpool2d_separable(x, pool)
    The same result in two reductions over 4-D views: along W inside each window
    ([c, H, Wo, pool], axis 3), then along H ([c, Ho, pool, Wo] permuted to [c, Ho, Wo, pool],
    axis 3). Useful next to avgpool2d when an access pattern of 4 free dimensions is the
    problem.

API used: on-chip views (reshape, permute), nisa.tensor_reduce over several axes,
nisa.tensor_scalar, 3-D HBM <-> SBUF DMAs, nl.static_range.
"""
import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


def _check(x, pool):
    C, H, W = x.shape
    assert H % pool == 0 and W % pool == 0, f"{H}x{W} image does not tile by {pool}"
    return C, H, W, H // pool, W // pool


def _finish(sums, out, c0, pool):
    """out[c0:c0+ch] = sums * (1 / pool^2), cast to out.dtype."""
    ch, Ho, Wo = sums.shape
    means = nl.ndarray((ch, Ho, Wo), dtype=out.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=means, data=sums, op0=nl.multiply, operand0=1.0 / (pool * pool))
    nisa.dma_copy(dst=out[c0:c0 + ch, :, :], src=means)


@nki.jit
def avgpool2d(x, pool):
    C, H, W, Ho, Wo = _check(x, pool)
    pmax = nl.tile_size.pmax
    out = nl.ndarray((C, Ho, Wo), dtype=x.dtype, buffer=nl.shared_hbm)
    for ct in nl.static_range((C + pmax - 1) // pmax):
        ch = min(pmax, C - ct * pmax)
        c0 = ct * pmax
        x_tile = nl.ndarray((ch, H, W), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[c0:c0 + ch, :, :])
        windows = x_tile.reshape((ch, Ho, pool, Wo, pool)).permute((0, 1, 3, 2, 4))
        sums = nl.ndarray((ch, Ho, Wo), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=sums, op=nl.add, data=windows, axis=(3, 4))
        _finish(sums, out, c0, pool)
    return out


@nki.jit
def avgpool2d_separable(x, pool):
    C, H, W, Ho, Wo = _check(x, pool)
    pmax = nl.tile_size.pmax
    out = nl.ndarray((C, Ho, Wo), dtype=x.dtype, buffer=nl.shared_hbm)
    for ct in nl.static_range((C + pmax - 1) // pmax):
        ch = min(pmax, C - ct * pmax)
        c0 = ct * pmax
        x_tile = nl.ndarray((ch, H, W), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=x_tile, src=x[c0:c0 + ch, :, :])
        # Pass 1: sum the pool columns of every window row: [ch, H, Wo].
        row_sums = nl.ndarray((ch, H, Wo), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=row_sums, op=nl.add, data=x_tile.reshape((ch, H, Wo, pool)),
                           axis=3)
        # Pass 2: sum the pool rows of every window: [ch, Ho, pool, Wo] -> [ch, Ho, Wo, pool].
        sums = nl.ndarray((ch, Ho, Wo), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=sums, op=nl.add,
                           data=row_sums.reshape((ch, Ho, pool, Wo)).permute((0, 1, 3, 2)),
                           axis=3)
        _finish(sums, out, c0, pool)
    return out


def reference(x, pool):
    """Window means in float64 of the given (already rounded) inputs."""
    C, H, W = x.shape
    x64 = np.asarray(x, np.float64).reshape(C, H // pool, pool, W // pool, pool)
    return x64.mean(axis=(2, 4))
