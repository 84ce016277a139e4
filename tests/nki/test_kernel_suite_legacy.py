"""The previous-generation (neuronxcc.nki) kernel suite (tests/nki/kernels_legacy/) on every
chip, against NumPy, through the legacy entry points.

Each case runs its kernel's nki.jit wrapper called directly; three cases also run through
nki.simulate_kernel(kernel, *args) and nki.baremetal(kernel_fn)(*args), the other ways the
legacy documentation runs a kernel on numpy arrays (in trnsim all three trace, build a NEFF and
execute it). nki.benchmark is checked separately: it reports simulated latency percentiles
(its outputs are undefined by AWS's documentation: "does not use the actual inputs"), grows
with the problem, and writes the NEFF it was asked to save. SPMD grids: kernel[gx] and
kernel[gx, gy] (programs run on the one NeuronCore; LNC=1).

Cases are named "<chip>-<path>-<kernel>_<dtype>_<shape>" (`pytest -k "trn2 and baremetal"`).
Tolerances are test_kernel_suite.py's, per family (the kernels perform the same roundings:
fp32 datapaths, one cast to the output dtype): add and transpose exact; matmul gamma_K
|lhsT|^T |rhs| (+ u_out |C| for bf16); softmax (F + 16) u32 + u_out relative; RMSNorm
(D + 16) u32 + u_out relative.
"""
import os
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite_support as S  # noqa: E402
import neuronxcc.nki as nki  # noqa: E402
from kernels_legacy import add, matmul, rmsnorm, softmax, transpose  # noqa: E402

U32 = S.UNIT_ROUNDOFF["float32"]
PATHS = ("jit", "simulate_kernel", "baremetal")


def _runner(path, jitted, plain, grid=None):
    """A callable running the kernel through one legacy entry point."""
    if path == "jit":
        return jitted if grid is None else jitted[grid]
    assert grid is None, "SPMD cases run through nki.jit only"
    if path == "simulate_kernel":
        return lambda *args, **kw: nki.simulate_kernel(jitted, *args, **kw)
    if path == "baremetal":
        return nki.baremetal(plain)
    raise ValueError(path)


@dataclass(frozen=True)
class Case:
    name: str
    paths: tuple
    run: Callable  # run(path, rng)


def _add_case(jitted, plain, dtype, shape, grid=None):
    def run(path, rng):
        a = S.uniform(rng, shape, dtype, -4, 4)
        b = S.uniform(rng, shape, dtype, -4, 4)
        got = _runner(path, jitted, plain, grid)(S.device_array(a, dtype),
                                                 S.device_array(b, dtype))
        S.check_equal(got, add.reference(a, b, lambda v: S.round_to(v, dtype)), "a + b")
    return run


def _matmul_case(jitted, plain, dtype, M, K, N, **kwargs):
    def run(path, rng):
        lhsT = S.uniform(rng, (K, M), dtype)
        rhs = S.uniform(rng, (K, N), dtype)
        got = _runner(path, jitted, plain)(S.device_array(lhsT, dtype),
                                           S.device_array(rhs, dtype), **kwargs)
        gamma = K * U32 / (1 - K * U32)
        magnitude = np.abs(lhsT.astype(np.float64)).T @ np.abs(rhs.astype(np.float64))
        u = 0.0 if dtype == "float32" else S.UNIT_ROUNDOFF[dtype]
        S.check_close(got, matmul.reference(lhsT, rhs), (1 + u) * gamma * magnitude, u,
                      f"C [{M}, {N}]")
    return run


def _softmax_case(dtype, shape):
    def run(path, rng):
        x = S.uniform(rng, shape, dtype, -4, 4)
        got = _runner(path, softmax.softmax_rows, softmax.softmax_rows_kernel)(
            S.device_array(x, dtype))
        rtol = (shape[1] + 16) * U32 + S.UNIT_ROUNDOFF[dtype]
        S.check_close(got, softmax.reference(x), 0.0, rtol, "softmax")
    return run


def _rmsnorm_case(dtype, shape):
    def run(path, rng):
        R, D = shape
        x = S.uniform(rng, shape, dtype, -2, 2)
        w = S.uniform(rng, (D,), dtype, 0.5, 1.5)
        got = _runner(path, rmsnorm.rmsnorm, rmsnorm.rmsnorm_kernel)(
            S.device_array(x, dtype), S.device_array(w, dtype))
        rtol = (D + 16) * U32 + S.UNIT_ROUNDOFF[dtype]
        S.check_close(got, rmsnorm.reference(x, w), 0.0, rtol, "rmsnorm")
    return run


def _transpose_case(jitted, plain, dtype, shape):
    def run(path, rng):
        x = S.uniform(rng, shape, dtype, -100, 100)
        got = _runner(path, jitted, plain)(S.device_array(x, dtype))
        S.check_equal(got, transpose.reference(x), "x^T")
    return run


JIT = ("jit",)
CASES = [
    Case("add_fp32_256x1024", PATHS,
         _add_case(add.tensor_add, add.tensor_add_kernel, "float32", (256, 1024))),
    Case("add_fp32_300x700", JIT,
         _add_case(add.tensor_add, add.tensor_add_kernel, "float32", (300, 700))),
    Case("add_bf16_128x512", JIT,
         _add_case(add.tensor_add, add.tensor_add_kernel, "bfloat16", (128, 512))),
    Case("add_spmd_grid2x2_fp32_256x1024", JIT,
         _add_case(add.tensor_add_spmd, add.tensor_add_spmd_kernel, "float32", (256, 1024),
                   grid=(2, 2))),
    Case("add_spmd_grid4_fp32_512x256", JIT,
         _add_case(add.tensor_add_spmd, add.tensor_add_spmd_kernel, "float32", (512, 256),
                   grid=4)),
    Case("matmul_tiled_fp32_128x256x512", PATHS,
         _matmul_case(matmul.matmul_tiled, matmul.matmul_tiled_kernel, "float32", 128, 256, 512)),
    Case("matmul_tiled_bf16_256x256x512", JIT,
         _matmul_case(matmul.matmul_tiled, matmul.matmul_tiled_kernel, "bfloat16",
                      256, 256, 512)),
    Case("matmul_blocked_bf16_512x256x1024", JIT,
         _matmul_case(matmul.matmul_blocked, matmul.matmul_blocked_kernel, "bfloat16",
                      512, 256, 1024, tiles_in_block_m=2)),
    Case("softmax_fp32_200x1000", PATHS, _softmax_case("float32", (200, 1000))),
    Case("softmax_bf16_128x512", JIT, _softmax_case("bfloat16", (128, 512))),
    Case("rmsnorm_fp32_130x512", JIT, _rmsnorm_case("float32", (130, 512))),
    Case("rmsnorm_bf16_256x1024", JIT, _rmsnorm_case("bfloat16", (256, 1024))),
    Case("transpose_pe_fp32_200x300", JIT,
         _transpose_case(transpose.transpose_pe, transpose.transpose_pe_kernel, "float32",
                         (200, 300))),
    Case("transpose_pe_bf16_128x256", JIT,
         _transpose_case(transpose.transpose_pe, transpose.transpose_pe_kernel, "bfloat16",
                         (128, 256))),
    Case("transpose_load_fp32_256x100", JIT,
         _transpose_case(transpose.transpose_load, transpose.transpose_load_kernel, "float32",
                         (256, 100))),
]

PARAMS = [pytest.param(chip, path, case, id=f"{chip}-{path}-{case.name}")
          for chip in S.CHIPS for path in PATHS for case in CASES if path in case.paths]


@pytest.mark.parametrize("chip,path,case", PARAMS)
def test_legacy_kernel(chip, path, case, monkeypatch):
    S.use_platform(monkeypatch, chip, 1)
    case.run(path, S.rng_for(f"{chip}/{path}/{case.name}"))


@pytest.mark.parametrize("chip", S.CHIPS)
def test_benchmark_reports_simulated_latency(chip, monkeypatch, tmp_path):
    """nki.benchmark(warmup=, iters=, save_neff_name=) as documented: after a call,
    kernel.benchmark_result.nc_latency.get_latency_percentile(p) gives microseconds for
    p in [0, 1, 10, 25, 50, 90, 99, 100]. Simulated time is deterministic, but we only assert
    what any correct implementation satisfies: positive, ordered percentiles, a 32x larger add
    takes longer, and the NEFF is saved."""
    S.use_platform(monkeypatch, chip, 1)
    rng = S.rng_for(f"{chip}/benchmark")
    p50 = {}
    for shape in ((128, 512), (1024, 2048)):
        neff = tmp_path / f"add_{shape[0]}x{shape[1]}.neff"
        bench = nki.benchmark(warmup=1, iters=3, save_neff_name=str(neff))(add.tensor_add_kernel)
        bench(S.uniform(rng, shape, "float32"), S.uniform(rng, shape, "float32"))
        latency = bench.benchmark_result.nc_latency
        pct = [latency.get_latency_percentile(p) for p in (0, 1, 10, 25, 50, 90, 99, 100)]
        assert pct[0] > 0, f"{shape}: p0 latency {pct[0]}"
        assert pct == sorted(pct), f"{shape}: percentiles out of order: {pct}"
        assert neff.is_file() and neff.stat().st_size > 0, f"{neff} not saved"
        p50[shape] = pct[4]
    assert p50[(1024, 2048)] > p50[(128, 512)], f"32x the data is not slower: {p50}"
