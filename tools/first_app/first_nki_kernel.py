"""make run's NKI kernel: a matmul written for AWS's Neuron Kernel Interface, run unmodified on
trnsim's emulated Trainium2 — traced into a NEFF, executed through libnrt — then checked
against numpy, with the simulated latency and the PE utilisation (MFU) it reached.

C[M, N] = A^T · B for A [K, M] and B [K, N] in bf16, accumulated in fp32 PSUM: a block of A
stays resident in SBUF while 512-wide strips of B stream past it, so the PE never waits for
data once the first strip has landed.

Usage: python3 first_nki_kernel.py [size]   (default 2048; needs trnsim's python packages on
PYTHONPATH: docs/nki.md)
"""
import sys

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl
import trnsim_nki
from trnsim_nki.dtypes import round_to


@nki.jit
def matmul_blocked(a, b):
    K, M = a.shape
    _, N = b.shape
    P, TN, BM = 128, 512, 512  # contraction tile, moving width, A block width
    KT = K // P
    c = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for mb in nl.affine_range(M // BM):
        a_blk = nl.ndarray((P, KT, BM), dtype=a.dtype, buffer=nl.sbuf)
        # a_blk[p, k, j] = a[k * P + p, mb * BM + j]
        nisa.dma_copy(dst=a_blk, src=a[:, mb * BM:(mb + 1) * BM].reshape_dim(0, (KT, P))
                      .permute((1, 0, 2)))
        for n in nl.affine_range(N // TN):
            b_strip = nl.ndarray((P, KT, TN), dtype=b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b_strip, src=b[:, n * TN:(n + 1) * TN].reshape_dim(0, (KT, P))
                          .permute((1, 0, 2)))
            for mt in nl.affine_range(BM // P):
                acc = nl.ndarray((P, TN), dtype=nl.float32, buffer=nl.psum)
                for k in nl.affine_range(KT):
                    nisa.nc_matmul(dst=acc, stationary=a_blk[:, k, mt * P:(mt + 1) * P],
                                   moving=b_strip[:, k, :])
                res = nl.ndarray((P, TN), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_copy(dst=res, src=acc)
                row = mb * BM + mt * P
                nisa.dma_copy(dst=c[row:row + P, n * TN:(n + 1) * TN], src=res)
    return c


def main():
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    rng = np.random.default_rng(2026)
    a = round_to(rng.uniform(-1, 1, (size, size)).astype(np.float32), "bfloat16")
    b = round_to(rng.uniform(-1, 1, (size, size)).astype(np.float32), "bfloat16")
    c = matmul_blocked(trnsim_nki.host_array(a, "bfloat16"), trnsim_nki.host_array(b, "bfloat16"))
    want = a.astype(np.float64).T @ b.astype(np.float64)
    # fp32 accumulation over K terms: |error| <= K * 2^-24 * (|A|^T |B|) (Higham §3.1)
    bound = size * 2.0 ** -24 * (np.abs(a).astype(np.float64).T @ np.abs(b).astype(np.float64))
    worst = float(np.max(np.abs(c - want) - bound))
    ok = worst <= 0
    report = matmul_blocked.report
    print(f"NKI matmul_blocked {size}x{size}x{size} bf16 on {report.chip}: "
          f"{'PASS' if ok else 'FAIL'} (every element within the fp32 accumulation bound)")
    print(f"  simulated latency {report.latency_us:.1f} us, {report.flops / 1e9:.1f} GFLOP, "
          f"MFU {100 * report.mfu:.1f}% of the PE peak, PE busy "
          f"{100 * report.utilization('pe'):.1f}%")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
