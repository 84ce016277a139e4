"""The NKI kernel nki_trace_bench times (bench/README.md, "nki_trace_bench"), and how.

matmul_blocked: C[M, N] = lhsT[K, M]^T @ rhs[K, N] in bf16 with fp32 PSUM accumulation, blocked
as a large matmul should be for the current NKI generation: a [K, 512] block of lhsT (four
128-wide stationary tiles per K tile) stays resident in SBUF for a whole sweep over N; each
moving strip rhs[K, 512] is loaded once per block with one dma_copy; every [128, 512] output
tile accumulates its K/128 matmuls in its own PSUM tile, then ACT/DVE copy it to SBUF as bf16
and it is stored. For 4096^3: 8 blocks x 8 strips x 4 tiles x 32 K tiles = 8192 nc_matmul
calls (each a load_stationary + multiply_moving), 256 PSUM evacuations and stores, 72 loads.

trace_and_build(n) runs what a kernel call does when its NEFF is not cached — trace the body,
allocate SBUF/PSUM, compute dependencies, lower and emit through the C++ kernel builder and
write the NEFF — without converting inputs or executing. The chip comes from
NEURON_PLATFORM_TARGET_OVERRIDE (set here to trn2), so no runtime is started.

Run by hand (prints seconds per build, and the cProfile hot spots with --profile):
  PYTHONPATH=<src>/python:<build>/python /usr/bin/python3 bench/python/nki_trace_bench.py [n]
"""
import inspect
import os
import sys
import time

os.environ.setdefault("NEURON_PLATFORM_TARGET_OVERRIDE", "trn2")

import nki  # noqa: E402
import nki.isa as nisa  # noqa: E402
import nki.language as nl  # noqa: E402
from trnsim_nki import dtypes  # noqa: E402
from trnsim_nki.kernel import launch_lnc, target_chip  # noqa: E402

import numpy as np  # noqa: E402

TILE_K, TILE_M, TILE_N = 128, 128, 512
BLOCK_M = 4 * TILE_M


def _k_tiled(t, col0, ncols):
    """HBM t[:, col0:col0 + ncols] as [128, K / 128, ncols]: [p, k, j] = t[k*128 + p, col0 + j]."""
    strip = t[:, col0:col0 + ncols]
    return strip.reshape_dim(0, (t.shape[0] // TILE_K, TILE_K)).permute((1, 0, 2))


def matmul_blocked(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    KT = K // TILE_K
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for mb in nl.affine_range(M // BLOCK_M):
        a_blk = nl.ndarray((TILE_K, KT, BLOCK_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a_blk, src=_k_tiled(lhsT, mb * BLOCK_M, BLOCK_M))
        for n in nl.affine_range(N // TILE_N):
            b_strip = nl.ndarray((TILE_K, KT, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_strip, src=_k_tiled(rhs, n * TILE_N, TILE_N))
            for mt in nl.affine_range(BLOCK_M // TILE_M):
                acc = nl.ndarray((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(KT):
                    nisa.nc_matmul(dst=acc, stationary=a_blk[:, k, mt * TILE_M:(mt + 1) * TILE_M],
                                   moving=b_strip[:, k, :], accumulate=(k > 0))
                res = nl.ndarray((TILE_M, TILE_N), dtype=out.dtype, buffer=nl.sbuf)
                nisa.tensor_copy(dst=res, src=acc)
                row = mb * BLOCK_M + mt * TILE_M
                nisa.dma_copy(dst=out[row:row + TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res)
    return out


_ARGUMENTS = {}


def prepare(n=4096):
    """Makes the arguments of size n ahead of the timed builds."""
    _arguments(n)


def _arguments(n):
    """bf16 HBM arguments of n x n given as raw bits (made once: only their shapes and dtype
    matter to the trace)."""
    if n not in _ARGUMENTS:
        zeros = np.zeros((n, n), np.uint16)
        _ARGUMENTS[n] = (dtypes.Bits(zeros, "bfloat16"), dtypes.Bits(zeros, "bfloat16"))
    return _ARGUMENTS[n]


def trace_and_build(n=4096):
    """Traces and builds matmul_blocked for n x n x n; returns (NEFF bytes, instructions)."""
    lhsT, rhs = _arguments(n)
    kernel = nki.jit(matmul_blocked)  # a fresh kernel: nothing cached
    bound = inspect.signature(matmul_blocked).bind(lhsT, rhs)
    arrays = {name: (value, value.dtype) for name, value in bound.arguments.items()}
    compiled = kernel._trace((), target_chip(), launch_lnc(()), bound, arrays)
    return len(compiled.neff), sum(len(core) for core in compiled.trace.cores)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 4096
    if "--profile" in sys.argv:
        import cProfile
        import pstats
        _arguments(n)
        profiler = cProfile.Profile()
        profiler.enable()
        trace_and_build(n)
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(30)
        return
    _arguments(n)
    for _ in range(3):
        start = time.perf_counter()
        size, count = trace_and_build(n)
        print(f"{n}^3: {time.perf_counter() - start:.3f} s, {count} instructions, "
              f"NEFF {size} bytes")


if __name__ == "__main__":
    main()
