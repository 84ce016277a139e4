"""The current-generation NKI kernel suite (tests/nki/kernels/) on every chip, against NumPy.

Every case calls one kernel with numpy inputs (bf16 inputs are float32 arrays holding bf16
values, passed through suite_support.device_array), checks every output against the kernel
module's float64 reference, and fails with the worst element and the first mismatches.
Cases are ordered by (chip, LNC) and named "<chip>-<kernel>_<dtype>_<shape>", so
`pytest -k trn3`, `-k matmul` or `-k "trn2 and attention"` select them. Environment per case:
suite_support.use_platform (NEURON_PLATFORM_TARGET_OVERRIDE, NEURON_LOGICAL_NC_CONFIG and, in
process, TRNSIM_INSTANCE). With TRNSIM_DAEMON set the calls go through that neurond, whose
instance type must be the selected chip's.

Tolerances. The reference is float64 arithmetic on exactly the (already rounded) values the
kernel receives, so every difference is rounding inside the kernel. Each family bounds it from
the operations the kernel performs, in units of u32 = 2^-24 (fp32 unit roundoff; PE products,
PSUM accumulation and the ACT/DVE/Pool datapaths are fp32) plus u_out, the unit roundoff of the
output dtype (2^-24 fp32, 2^-8 bf16) for the final cast. The bounds are worst-case: they hold
for any summation order inside an instruction (the hardware's order is not published), so a
logic error (a wrong tile, a missed rescale, a bf16 intermediate in an fp32 kernel) exceeds them
by orders of magnitude while correct kernels stay far inside. trnsim evaluates activation
functions (exp, rsqrt) to within an ulp of the exact value (docs/numerics.md §6); the hardware's
table approximation is unpublished, so these bounds are for trnsim, not a Trainium.
"""
import math
import os
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_support as S  # noqa: E402
from kernels import (add, attention, avgpool, layernorm, lnc2, matmul, register_loop,  # noqa: E402
                     rmsnorm, softmax, transpose)

U32 = S.UNIT_ROUNDOFF["float32"]


@dataclass(frozen=True)
class Case:
    name: str                                  # "<kernel>_<dtype>_<shape>"
    lnc: int                                   # the launch's LNC degree (1, or 2 for kernel[2])
    run: Callable[[np.random.Generator], None]  # builds inputs, calls, checks


def _u_out(dtype):
    return S.UNIT_ROUNDOFF[dtype]


def _launch(kernel, grid):
    """kernel for grid None (plain call), else kernel[grid]."""
    return kernel if grid is None else kernel[grid]


# ---------------------------------------------------------------------------------------------
# tensor add. DVE: fp32 a + b (IEEE, correctly rounded), then one round-to-nearest-even cast to
# the output dtype; the reference performs the same two roundings in NumPy, so results must be
# bit-identical (tolerance 0).

def _add_case(kernel, grid, dtype, shape):
    def run(rng):
        a = S.uniform(rng, shape, dtype, -4, 4)
        b = S.uniform(rng, shape, dtype, -4, 4)
        got = _launch(kernel, grid)(S.device_array(a, dtype), S.device_array(b, dtype))
        S.check_equal(got, add.reference(a, b, lambda v: S.round_to(v, dtype)), "a + b")
    return run


# ---------------------------------------------------------------------------------------------
# matmul C = lhsT^T rhs. Inner product of length K in fp32 (bf16 products are exact in fp32;
# fp32 products round once): |C_hat - C| <= gamma_K * (|lhsT|^T |rhs|), gamma_K = K u32 / (1 -
# K u32) (Higham, Accuracy and Stability, §3.1), for any order of the sum (PE rows, PSUM
# accumulation over K tiles). A bf16 output adds one rounding: + u_out |C|.

def _matmul_tolerance(lhsT, rhs, out_dtype):
    """(atol array, rtol) for C = lhsT^T rhs accumulated in fp32 and stored as out_dtype."""
    K = lhsT.shape[0]
    gamma = K * U32 / (1 - K * U32)
    magnitude = np.abs(lhsT.astype(np.float64)).T @ np.abs(rhs.astype(np.float64))
    if out_dtype == "float32":
        return gamma * magnitude, 0.0   # PSUM fp32 -> SBUF fp32 copy is exact
    u = _u_out(out_dtype)
    return (1 + u) * gamma * magnitude, u


def _matmul_case(kernel, dtype, M, K, N, **kwargs):
    def run(rng):
        lhsT = S.uniform(rng, (K, M), dtype)
        rhs = S.uniform(rng, (K, N), dtype)
        got = kernel(S.device_array(lhsT, dtype), S.device_array(rhs, dtype), **kwargs)
        atol, rtol = _matmul_tolerance(lhsT, rhs, dtype)
        S.check_close(got, matmul.reference(lhsT, rhs), atol, rtol, f"C [{M}, {N}]")
    return run


# ---------------------------------------------------------------------------------------------
# transpose: data movement only (PE transpose is bit-accurate from NeuronCore-v3 on, DMA copies
# bytes): tolerance 0.

def _transpose_case(kernel, dtype, shape):
    def run(rng):
        x = S.uniform(rng, shape, dtype, -100, 100)
        got = kernel(S.device_array(x, dtype))
        S.check_equal(got, transpose.reference(x), "x^T")
    return run


# ---------------------------------------------------------------------------------------------
# softmax over F columns, inputs in [-4, 4) so |x - max| <= 8. x - max: one fp32 rounding
# (u32 |x - max| absolute in the exponent argument -> <= 8 u32 relative in exp); exp: 1 u32;
# the row sum of F positive terms: (F - 1) u32 relative; reciprocal and the final multiply:
# 1 u32 each. Relative error <= (F + 16) u32 (rounded up), plus the output cast u_out.

def _softmax_case(dtype, shape):
    def run(rng):
        x = S.uniform(rng, shape, dtype, -4, 4)
        got = softmax.softmax_rows(S.device_array(x, dtype))
        rtol = (shape[1] + 16) * U32 + _u_out(dtype)
        S.check_close(got, softmax.reference(x), 0.0, rtol, "softmax")
    return run


# ---------------------------------------------------------------------------------------------
# RMSNorm over D columns. sum(x^2): squares 1 u32 (exact for bf16), D-term positive sum
# (D - 1) u32; * (1/D) and + eps: 3 u32 (1/D itself rounds); rsqrt halves the relative error of
# its argument and adds 1 u32; * rstd and * w: 1 u32 each. Relative error <= (D/2 + 6) u32; we
# allow (D + 16) u32 (twice the D term) plus the output cast u_out. Relative to each element,
# so atol = 0 (x = 0 gives exactly 0).

def _rmsnorm_case(dtype, shape):
    def run(rng):
        R, D = shape
        x = S.uniform(rng, shape, dtype, -2, 2)
        w = S.uniform(rng, (D,), dtype, 0.5, 1.5)
        got = rmsnorm.rmsnorm(S.device_array(x, dtype), S.device_array(w, dtype))
        rtol = (D + 16) * U32 + _u_out(dtype)
        S.check_close(got, rmsnorm.reference(x, w), 0.0, rtol, "rmsnorm")
    return run


# ---------------------------------------------------------------------------------------------
# LayerNorm over D columns, mean and variance from bn_stats/bn_aggr (internal order and
# algorithm unpublished). Whatever the order, a D-term mean errs by <= D u32 max|x| and the
# variance by <= 2 D u32 mean(x^2) (relative to var + eps after the rsqrt halves it: our
# inputs, uniform in [-1, 1), have no cancellation, var ~ mean(x^2)); the elementwise steps
# (subtract, * rstd, * gamma, + beta) add 4 u32 of their operands. Per row, with
# z = (x - mean) * rstd: error <= (4 D + 32) u32 * (max|x| rstd + max|z|) max|gamma|
# + 4 u32 max|beta|, plus the output cast u_out |y|.

def _layernorm_case(dtype, shape):
    def run(rng):
        R, D = shape
        x = S.uniform(rng, shape, dtype)
        gamma = S.uniform(rng, (D,), dtype, 0.5, 1.5)
        beta = S.uniform(rng, (D,), dtype, -0.5, 0.5)
        got = layernorm.layernorm(*(S.device_array(t, dtype) for t in (x, gamma, beta)))
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=1, keepdims=True)
        rstd = 1 / np.sqrt(((x64 - mean) ** 2).mean(axis=1, keepdims=True) + 1e-5)
        zmax = (np.abs(x64 - mean) * rstd).max(axis=1, keepdims=True)
        xmax = np.abs(x64).max(axis=1, keepdims=True)
        atol = ((4 * D + 32) * U32 * (xmax * rstd + zmax) * np.abs(gamma).max()
                + 4 * U32 * np.abs(beta).max())
        S.check_close(got, layernorm.reference(x, gamma, beta), atol, _u_out(dtype), "layernorm")
    return run


# ---------------------------------------------------------------------------------------------
# Flash attention. Scores: d-term fp32 inner products, |ds| <= gamma_d * A with
# A = max_ij sum_t |q_it k_jt|; the exponent argument scale * (s - m) adds 2 u32 of
# 2 scale max|s|; so every p_j carries relative error <= e_p = scale (gamma_d A + 4 u32 max|s|)
# + 2 u32. The running rescales add <= 8 u32 per KV block; the Skv-term sums of p and of p v,
# Skv u32 each. The output is a p-weighted mean of v rows, so the error is at most
# 2 (e_p + (Skv + 8 blocks + 8) u32) max|v|. bf16: p is rounded to bf16 as the PE operand of
# p @ v. Relative weight perturbations |delta_j| <= u_bf16 move a weighted mean of v rows by at
# most 2 u_bf16 max|v| (even if the normaliser also sums the rounded p: the reference does not
# say whether ACT reduces before or after the output cast), and the output cast adds
# u_bf16 |out| <= u_bf16 max|v|: 3 u_bf16 max|v| in all.

def _attention_case(dtype, Sq, Skv, d, kv_block):
    def run(rng):
        q = S.uniform(rng, (Sq, d), dtype)
        k = S.uniform(rng, (Skv, d), dtype)
        v = S.uniform(rng, (Skv, d), dtype)
        got = attention.flash_attention_fwd(*(S.device_array(t, dtype) for t in (q, k, v)),
                                            kv_block=kv_block)
        scale = 1 / math.sqrt(d)
        a_max = (np.abs(q.astype(np.float64)) @ np.abs(k.astype(np.float64)).T).max()
        s_max = np.abs(q.astype(np.float64) @ k.astype(np.float64).T).max()
        gamma_d = d * U32 / (1 - d * U32)
        e_p = scale * (gamma_d * a_max + 4 * U32 * s_max) + 2 * U32
        blocks = Skv // min(kv_block, Skv)
        v_max = np.abs(v).max()
        atol = 2 * (e_p + (Skv + 8 * blocks + 8) * U32) * v_max
        if dtype != "float32":
            atol += 3 * _u_out(dtype) * v_max
        S.check_close(got, attention.reference(q, k, v), atol, 0.0, "attention out")
    return run


# ---------------------------------------------------------------------------------------------
# 2-D average pool, window pool x pool: a pool^2-term fp32 sum (<= (pool^2 - 1) u32 of the
# window's sum of |x|), * (1/pool^2) (1/pool^2 rounds unless pool is a power of two: 1 u32;
# the product: 1 u32): error <= (pool^2 + 2) u32 mean_window|x|, plus the output cast u_out.

def _avgpool_case(kernel, dtype, shape, pool):
    def run(rng):
        x = S.uniform(rng, shape, dtype)
        got = kernel(S.device_array(x, dtype), pool)
        atol = (pool * pool + 2) * U32 * avgpool.reference(np.abs(x), pool)
        S.check_close(got, avgpool.reference(x, pool), atol, _u_out(dtype), "average pool")
    return run


# ---------------------------------------------------------------------------------------------
# Register loops. Blocks hold multiples of 1/8 in [-8, 8): every partial sum of <= 4 blocks is
# exact in fp32, so the sum must equal the reference exactly whatever the order; the int32
# side outputs are exact.

REG_BLOCKS, REG_ROWS, REG_COLS = 4, 128, 64


def _register_case(kernel, count):
    def run(rng):
        x = (rng.integers(-64, 64, size=(REG_BLOCKS, REG_ROWS, REG_COLS)) / 8).astype(np.float32)
        got_sum, got_side = kernel(x, np.array([[count]], dtype=np.int32))
        S.check_equal(got_sum, register_loop.reference_sum(x, count), f"sum of {count} blocks")
        if kernel is register_loop.block_sum_fori:
            S.check_equal(got_side, np.array([[count - 1]]), "last induction value stored")
        else:
            S.check_equal(got_side, np.array([[0]]), "SBUF counter after the while loop")
    return run


# ---------------------------------------------------------------------------------------------
# LNC=2 split-K matmul: the same K-term inner product as matmul, summed in two halves and then
# across the cores in fp32 — still one K-term sum: gamma_K (|lhsT|^T |rhs|), fp32 outputs.

def _lnc2_case(dtype, K, M, N):
    def run(rng):
        lhsT = S.uniform(rng, (K, M), dtype)
        rhs = S.uniform(rng, (K, N), dtype)
        got_sr, got_cb = lnc2.matmul_split_k_lnc2[2](S.device_array(lhsT, dtype),
                                                     S.device_array(rhs, dtype))
        atol, _ = _matmul_tolerance(lhsT, rhs, "float32")
        want = lnc2.reference(lhsT, rhs)
        S.check_close(got_sr, want, atol, 0.0, "C via sendrecv")
        S.check_close(got_cb, want, atol, 0.0, "C via shared HBM + core_barrier")
    return run


CASES = [
    Case("add_fp32_256x1024", 1, _add_case(add.tensor_add, None, "float32", (256, 1024))),
    Case("add_fp32_300x700", 1, _add_case(add.tensor_add, None, "float32", (300, 700))),
    Case("add_bf16_128x512", 1, _add_case(add.tensor_add, None, "bfloat16", (128, 512))),
    Case("add_spmd_grid1_fp32_256x512", 1,
         _add_case(add.tensor_add_spmd, None, "float32", (256, 512))),
    Case("matmul_naive_fp32_128x256x512", 1,
         _matmul_case(matmul.matmul_naive, "float32", 128, 256, 512)),
    Case("matmul_naive_bf16_256x256x512", 1,
         _matmul_case(matmul.matmul_naive, "bfloat16", 256, 256, 512)),
    Case("matmul_hoisted_fp32_256x256x1024", 1,
         _matmul_case(matmul.matmul_hoisted, "float32", 256, 256, 1024)),
    Case("matmul_hoisted_bf16_128x512x256", 1,
         _matmul_case(matmul.matmul_hoisted, "bfloat16", 128, 512, 256)),
    Case("matmul_blocked_fp32_256x256x512", 1,
         _matmul_case(matmul.matmul_blocked, "float32", 256, 256, 512)),
    Case("matmul_blocked_bf16_512x256x1024", 1,
         _matmul_case(matmul.matmul_blocked, "bfloat16", 512, 256, 1024, tiles_in_block_m=2)),
    Case("transpose_pe_fp32_256x384", 1,
         _transpose_case(transpose.transpose_pe, "float32", (256, 384))),
    Case("transpose_pe_bf16_200x130", 1,
         _transpose_case(transpose.transpose_pe, "bfloat16", (200, 130))),
    Case("transpose_dma_bf16_256x128", 1,
         _transpose_case(transpose.transpose_dma, "bfloat16", (256, 128))),
    Case("transpose_dma_bf16_64x200", 1,
         _transpose_case(transpose.transpose_dma, "bfloat16", (64, 200))),
    Case("softmax_fp32_128x512", 1, _softmax_case("float32", (128, 512))),
    Case("softmax_fp32_200x1000", 1, _softmax_case("float32", (200, 1000))),
    Case("softmax_bf16_256x1024", 1, _softmax_case("bfloat16", (256, 1024))),
    Case("rmsnorm_fp32_256x512", 1, _rmsnorm_case("float32", (256, 512))),
    Case("rmsnorm_bf16_130x1024", 1, _rmsnorm_case("bfloat16", (130, 1024))),
    Case("layernorm_fp32_128x1000", 1, _layernorm_case("float32", (128, 1000))),
    Case("layernorm_bf16_256x512", 1, _layernorm_case("bfloat16", (256, 512))),
    Case("attention_fp32_q256_kv384_d64_blk128", 1,
         _attention_case("float32", 256, 384, 64, 128)),
    Case("attention_bf16_q128_kv1024_d128_blk512", 1,
         _attention_case("bfloat16", 128, 1024, 128, 512)),
    Case("avgpool_fp32_64x16x16_pool2", 1,
         _avgpool_case(avgpool.avgpool2d, "float32", (64, 16, 16), 2)),
    Case("avgpool_fp32_160x12x18_pool3", 1,
         _avgpool_case(avgpool.avgpool2d, "float32", (160, 12, 18), 3)),
    Case("avgpool_bf16_128x8x8_pool4", 1,
         _avgpool_case(avgpool.avgpool2d, "bfloat16", (128, 8, 8), 4)),
    Case("avgpool_separable_fp32_96x16x24_pool4", 1,
         _avgpool_case(avgpool.avgpool2d_separable, "float32", (96, 16, 24), 4)),
    Case("fori_loop_count0", 1, _register_case(register_loop.block_sum_fori, 0)),
    Case("fori_loop_count3", 1, _register_case(register_loop.block_sum_fori, 3)),
    Case("fori_loop_count4", 1, _register_case(register_loop.block_sum_fori, 4)),
    Case("while_loop_count0", 1, _register_case(register_loop.block_sum_while, 0)),
    Case("while_loop_count2", 1, _register_case(register_loop.block_sum_while, 2)),
    Case("while_loop_count4", 1, _register_case(register_loop.block_sum_while, 4)),
    # LNC=2 launches: kernel[2](...), one program per physical core.
    Case("add_spmd_grid2_fp32_512x512", 2,
         _add_case(add.tensor_add_spmd, 2, "float32", (512, 512))),
    Case("lnc2_split_k_fp32_256x128x512", 2, _lnc2_case("float32", 256, 128, 512)),
    Case("lnc2_split_k_bf16_512x64x256", 2, _lnc2_case("bfloat16", 512, 64, 256)),
]

# Every case on every chip, grouped by (chip, LNC) so the platform changes as rarely as possible.
PARAMS = [pytest.param(chip, case, id=f"{chip}-{case.name}")
          for chip in S.CHIPS
          for lnc in (1, 2)
          for case in CASES if case.lnc == lnc]


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"


@pytest.mark.parametrize("chip,case", PARAMS)
def test_kernel(chip, case, monkeypatch):
    S.use_platform(monkeypatch, chip, case.lnc)
    case.run(S.rng_for(f"{chip}/{case.name}"))
