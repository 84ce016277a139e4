"""C-6: the NKI kernel-optimisation tutorial's matmul ladder, fp32, on one Trainium2 core.

Source: nki/guides/tutorials/kernel-optimization.rst (the four kernels and the figures quoted in
its text) and its profile screenshots nki/img/how-to/v{2,3,4,5}-{pe,dma,vec}.png (the summary
panels: TensorE / DMA / VectorE active time, matmul and TensorE instruction counts).

The kernels below are written to the tutorial's structure (trnsim's own code): lhsT [K, M] and
rhs [K, N] fp32 in HBM, result [M, N] fp32; stationary tiles 128 x 128, moving tiles 128 x 512,
one PSUM [128, 512] fp32 tile accumulating over K.
  v2  tiled: loops m, n, k; both operand tiles loaded inside the k loop, then nc_matmul;
      after k, PSUM -> SBUF (tensor_copy) -> HBM.
  v3  hoisted: the K tiles of one 128-column strip of lhsT loaded once per m, the K tiles of
      one 512-column strip of rhs once per (m, n).
  v4  the free dimensions blocked 2 x 2 tiles: lhsT strips of 2 m tiles, rhs strips of 2 n
      tiles, the 4 output tiles of a block computed from them.
  v5  M, N, K blocked 16, 2, 8 tiles: per n block, SBUF partial sums (memset to 0) for every
      output tile; per K block the rhs block loaded as 8 [128, 1024] rows and, per m block, the
      lhsT block as 8 [128, 2048] rows; each output tile's 8 matmuls accumulate in PSUM and are
      added into its SBUF partial sum (tensor_tensor add); the partial sums of a row are packed
      into one [128, 1024] tile (tensor_copy) and stored with one DMA.
Two deviations, because the tutorial's fp32 code needs more SBUF than a kernel gets (NKI's
total_available_sbuf_size: 212,984 bytes per partition on trn2), and trnsim's allocator refuses
it rather than guess what AWS's compiler did:
  v4  keeps both rhs strips of a block live (2 x 64 tiles x 2 KiB) next to the two lhsT strips
      (2 x 64 x 512 B): 320 KiB per partition. Here the block's rhs strips are loaded one at a
      time and the block's output tiles computed strip by strip (bn outside bm): the same
      loads, matmuls and stores.
  v5  keeps the partial sums of both M blocks (2 x 16 x 2 tiles x 2 KiB = 128 KiB) next to the
      operand rows (64 + 32 KiB) and the packing tile: 228 KiB per partition. Here the M block
      loop is outermost (one M block's partial sums live at a time): the same matmuls and
      lhsT loads, the rhs rows loaded once per M block (twice in all, +25% DMA bytes). With
      only ~44 KiB free, the next K block's operand rows cannot all be loaded while the current
      one computes, so the PE waits at each K block boundary: the simulated total is ~8% over
      the measurement while the TensorE active time is within 1% (AWS's compiler evidently
      overlapped them).
Every dma_copy is issued from GpSimd with software descriptor generation (`engine=gpsimd,
dge_mode=swdge`): the tutorial's kernels leave both unset, and its profiles show the DMAs as
"dynamic" (software DGE: "Dynamic Dma Packet Percent 100%") with GpSimd issuing one burst per
matmul in v2 (v2-zoom.png).

Rows: each version's total (the execution's simulated duration) and TensorE active time (the
union of the PE's instruction intervals: the device profile's busy time of the pe engine, equal
to the execution statistics' PE busy time); v2's matmul instruction count (multiply_moving rows
in the device profile: an fp32 nc_matmul is two matmul instructions on the hardware); the DMA
active time (union of every transfer's [start, end) in the profile) of v2–v5; v5's VectorE
active time.

Size: each version multiplies [4096 x 8192] by [8192 x 8192] — 550 GFLOP of fp32 arithmetic the
emulator really does: 45 s (v4, v5), 59 s (v3) and 103 s (v2) of host time, tracing and
profile included — about 4.2 minutes for the four — on the 2-core development VM at a load
average of ~4 (v2 took 350 s at ~8). `TRNSIM_FIDELITY_C6_SCALE=16` (or 2, 4, 8) divides M
by that factor for a quick look — the same kernels on fewer m tiles; times are multiplied back
by the factor and the rows are not counted. v5 needs a factor of at most 2 (its M block is 16
tiles) and is skipped otherwise; v3 and v4 come out a few % high scaled because their start-up
(loading the first lhsT strips before the first matmul) is multiplied too.
"""

import os

import numpy as np

from fidelity import Row

import nki
import nki.isa as nisa
import nki.language as nl

CASES = ("C-6",)

K_FULL, M_FULL, N_FULL = 8192, 4096, 8192
MS = 1e-9  # ps -> ms

# Software-DGE DMAs issued from GpSimd, as the tutorial's profiles show them.
DMA = dict(engine=nisa.engine.gpsimd, dge_mode=nisa.dge_mode.swdge)


def _tiles(lhsT, rhs):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2, f"contraction mismatch {K} != {K2}"
    tm = nl.tile_size.gemm_stationary_fmax  # 128
    tk = nl.tile_size.pmax  # 128
    tn = nl.tile_size.gemm_moving_fmax  # 512
    assert M % tm == 0 and N % tn == 0 and K % tk == 0
    return K, M, N, tk, tm, tn


def _store(result, acc, row0, col0):
    tm, tn = acc.shape
    out = nl.ndarray((tm, tn), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=out, src=acc)
    nisa.dma_copy(dst=result[row0:row0 + tm, col0:col0 + tn], src=out)


@nki.jit
def matmul_v2(lhsT, rhs):
    K, M, N, TK, TM, TN = _tiles(lhsT, rhs)
    result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                a = nl.ndarray((TK, TM), dtype=lhsT.dtype, buffer=nl.sbuf)
                b = nl.ndarray((TK, TN), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a, src=lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM], **DMA)
                nisa.dma_copy(dst=b, src=rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN], **DMA)
                nisa.nc_matmul(dst=acc, stationary=a, moving=b)
            _store(result, acc, m * TM, n * TN)
    return result


@nki.jit
def matmul_v3(lhsT, rhs):
    K, M, N, TK, TM, TN = _tiles(lhsT, rhs)
    result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        a_strip = []
        for k in nl.affine_range(K // TK):
            a = nl.ndarray((TK, TM), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a, src=lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM], **DMA)
            a_strip.append(a)
        for n in nl.affine_range(N // TN):
            b_strip = []
            for k in nl.affine_range(K // TK):
                b = nl.ndarray((TK, TN), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b, src=rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN], **DMA)
                b_strip.append(b)
            acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                nisa.nc_matmul(dst=acc, stationary=a_strip[k], moving=b_strip[k])
            _store(result, acc, m * TM, n * TN)
    return result


@nki.jit
def matmul_v4(lhsT, rhs):
    K, M, N, TK, TM, TN = _tiles(lhsT, rhs)
    BM, BN = 2, 2  # tiles per block in M and N
    assert M % (BM * TM) == 0 and N % (BN * TN) == 0
    result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // (BM * TM)):
        a_block = []
        for bm in nl.affine_range(BM):
            col = (m * BM + bm) * TM
            strip = []
            for k in nl.affine_range(K // TK):
                a = nl.ndarray((TK, TM), dtype=lhsT.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=a, src=lhsT[k * TK:(k + 1) * TK, col:col + TM], **DMA)
                strip.append(a)
            a_block.append(strip)
        for n in nl.affine_range(N // (BN * TN)):
            for bn in nl.affine_range(BN):
                col = (n * BN + bn) * TN
                strip = []
                for k in nl.affine_range(K // TK):
                    b = nl.ndarray((TK, TN), dtype=rhs.dtype, buffer=nl.sbuf)
                    nisa.dma_copy(dst=b, src=rhs[k * TK:(k + 1) * TK, col:col + TN], **DMA)
                    strip.append(b)
                for bm in nl.affine_range(BM):
                    acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(K // TK):
                        nisa.nc_matmul(dst=acc, stationary=a_block[bm][k], moving=strip[k])
                    _store(result, acc, (m * BM + bm) * TM, col)
    return result


@nki.jit
def matmul_v5(lhsT, rhs):
    K, M, N, TK, TM, TN = _tiles(lhsT, rhs)
    BM, BN, BK = 16, 2, 8  # tiles per block in M, N and K
    assert M % (BM * TM) == 0 and N % (BN * TN) == 0 and K % (BK * TK) == 0
    n_blocks_k = K // (BK * TK)
    result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    # One M block at a time (the module docstring says why): `m` is the tutorial's M block loop,
    # taken outermost.
    for m in range(M // (BM * TM)):
        for n in nl.affine_range(N // (BN * TN)):
            # SBUF partial sums of every output tile of this (m, n) block, zeroed.
            sums = []
            for bm in range(BM):
                row = []
                for bn in range(BN):
                    s = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.sbuf)
                    nisa.memset(dst=s, value=0.0)
                    row.append(s)
                sums.append(row)
            for k in nl.sequential_range(n_blocks_k):
                b_rows = []
                for bk in range(BK):
                    b = nl.ndarray((TK, BN * TN), dtype=rhs.dtype, buffer=nl.sbuf)
                    k0 = (k * BK + bk) * TK
                    nisa.dma_copy(dst=b, src=rhs[k0:k0 + TK, n * BN * TN:(n + 1) * BN * TN],
                                  **DMA)
                    b_rows.append(b)
                a_rows = []
                for bk in nl.affine_range(BK):
                    a = nl.ndarray((TK, BM * TM), dtype=lhsT.dtype, buffer=nl.sbuf)
                    k0 = (k * BK + bk) * TK
                    nisa.dma_copy(dst=a, src=lhsT[k0:k0 + TK, m * BM * TM:(m + 1) * BM * TM],
                                  **DMA)
                    a_rows.append(a)
                for bn in nl.affine_range(BN):
                    for bm in nl.affine_range(BM):
                        acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
                        for bk in nl.affine_range(BK):
                            nisa.nc_matmul(dst=acc,
                                           stationary=a_rows[bk][0:TK, bm * TM:(bm + 1) * TM],
                                           moving=b_rows[bk][0:TK, bn * TN:(bn + 1) * TN])
                        nisa.tensor_tensor(dst=sums[bm][bn], data1=sums[bm][bn], data2=acc,
                                           op=nl.add)
            for bm in nl.affine_range(BM):
                packed = nl.ndarray((TM, BN * TN), dtype=nl.float32, buffer=nl.sbuf)
                for bn in nl.affine_range(BN):
                    nisa.tensor_copy(dst=packed[0:TM, bn * TN:(bn + 1) * TN], src=sums[bm][bn])
                row0 = (m * BM + bm) * TM
                nisa.dma_copy(dst=result[row0:row0 + TM, n * BN * TN:(n + 1) * BN * TN],
                              src=packed)
    return result


# (version, kernel, measured total ms, measured TensorE active ms, measured DMA active %)
LADDER = (
    ("v2", matmul_v2, 39.89, 34.82, 99.93),
    ("v3", matmul_v3, 28.20, 28.16, 99.73),
    ("v4", matmul_v4, 28.41, 28.28, 95.70),
    ("v5", matmul_v5, 28.30, 28.16, 21.54),
)
V2_MATMUL_INSTRUCTIONS = 65536  # v2-pe.png "Matmul Instruction Count"
V5_VECTOR_ACTIVE_MS = 2.99      # v5-vec.png "Vector Engine Active Time"


def scale():
    value = int(os.environ.get("TRNSIM_FIDELITY_C6_SCALE", "1"))
    if value not in (1, 2, 4, 8, 16):
        raise ValueError(f"TRNSIM_FIDELITY_C6_SCALE={value}: 1, 2, 4, 8 or 16")
    return value


def inputs(m_scale=1, seed=6):
    rng = np.random.default_rng(seed)
    lhsT = rng.random((K_FULL, M_FULL // m_scale), dtype=np.float32)
    rhs = rng.random((K_FULL, N_FULL), dtype=np.float32)
    return lhsT, rhs


def union_ps(intervals):
    """Total length of the union of [start, end) intervals (any unit)."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def dma_active_ps(profile):
    """Union of the profile's transfers (its `dma` rows: timestamp and duration in ns)."""
    return 1e3 * union_ps((float(d["timestamp"]), float(d["timestamp"]) + float(d["duration"]))
                          for d in profile.dma())


def rows(ctx):
    factor = scale()
    lhsT, rhs = inputs(factor)
    out = []
    for name, kernel, total_ms, pe_ms, dma_pct in LADDER:
        if name == "v5" and factor > 2:
            continue  # v5's m block is 16 tiles: M / 2048 blocks
        prof = ctx.profile(kernel, lhsT, rhs)
        report = prof.report
        pe = report.engines[0]["pe"]
        total_ps = report.duration_ps
        counted = factor == 1
        label = "" if counted else f" (M/{factor}, scaled x{factor})"
        out.append(Row("C-6", "H", f"{name} total{label}", total_ms,
                       total_ps * factor * MS, "ms", counted))
        out.append(Row("C-6", "H", f"{name} TensorE active time{label}", pe_ms,
                       int(pe["busy_ps"]) * factor * MS, "ms", counted))
        out.append(Row("C-6", "H", f"{name} DMA active % of total{label}", dma_pct,
                       100.0 * dma_active_ps(prof) / total_ps, "%", counted))
        if name == "v2":
            matmuls = len(prof.instructions("pe", "multiply_moving"))
            out.append(Row("C-6", "H", f"v2 matmul instructions (profile){label}",
                           V2_MATMUL_INSTRUCTIONS, matmuls * factor, "count", counted))
        if name == "v5":
            out.append(Row("C-6", "H", f"v5 VectorE active time{label}", V5_VECTOR_ACTIVE_MS,
                           int(report.engines[0]["dve"]["busy_ps"]) * factor * MS, "ms",
                           counted))
    return out
