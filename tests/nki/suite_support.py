"""Shared support of the NKI kernel suites (test_kernel_suite.py, test_kernel_suite_legacy.py,
test_matmul_timing.py): chips and their environment, host-side rounding, the closeness check,
deterministic inputs, and the front-end hooks the suites assume.

Contract:
  - CHIPS: the chips every case runs on. `use_platform(monkeypatch, chip, lnc)` sets the
    environment a kernel call reads: NEURON_PLATFORM_TARGET_OVERRIDE=chip (AWS: selects the
    target), NEURON_LOGICAL_NC_CONFIG=lnc (AWS: must equal the launch's LNC degree), and, unless
    TRNSIM_DAEMON is set (then the daemon's instance decides), TRNSIM_INSTANCE = INSTANCES[chip].
    The suites order their cases by (chip, lnc) so these change as rarely as possible; the front
    end must honour a change between two calls of one process (re-initialising its runtime).
  - `round_to(x, dtype)`: float32 -> float32 holding the nearest value of `dtype` ("float32",
    "bfloat16"), round-to-nearest-even; NaN stays NaN. `bf16_round` is the bfloat16 case.
  - `device_array(x, dtype)`: the host form of an HBM kernel input of `dtype` made from a float32
    array whose values are already representable in `dtype`. float32 passes through; other
    dtypes go through LEAD HOOK 1 (below).
  - `check_close(got, want, atol, rtol, what)`: asserts |got - want| <= atol + rtol * |want|
    elementwise (atol may be an array broadcastable to want), got and want with equal shapes and
    no NaN in got; the failure message gives the shape, the worst element (index, got, want,
    allowed), how many elements fail and the first few, so a failing kernel is easy to locate.
    `check_equal` is the exact (bit-for-bit on values) version.
  - `rng_for(name)`: a numpy Generator seeded from the case name: inputs are the same on every
    run and host.

Front-end calls this suite uses besides AWS's API (docs/nki.md):
  1. trnsim_nki.host_array(x, dtype): marks a float32 numpy array as an HBM input of NKI dtype
     `dtype` (e.g. "bfloat16"); issue 17 item 6, host representation of bf16/fp8.
  2. trnsim_nki.chip_peak_flops(chip, dtype): the PE peak of one NeuronCore, FLOP/s.
  3. nki.benchmark(kernel, warmup=, iters=) in the current generation too: the legacy
     interface, .benchmark_result.nc_latency.get_latency_percentile(p) in microseconds of
     simulated time (issue 17 item 4).
"""
import os
import zlib

import numpy as np

CHIPS = ("trn2", "trn3")
INSTANCES = {"trn2": "trn2.3xlarge", "trn3": "trn3.48xlarge"}

# Unit roundoff u = 2^-p of round-to-nearest for each dtype (p = significand bits incl. the
# implicit one): |round(x) - x| <= u * |x| for normal x.
UNIT_ROUNDOFF = {"float32": 2.0 ** -24, "bfloat16": 2.0 ** -8}


def use_platform(monkeypatch, chip, lnc):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", chip)
    monkeypatch.setenv("NEURON_LOGICAL_NC_CONFIG", str(lnc))
    if not os.environ.get("TRNSIM_DAEMON"):
        monkeypatch.setenv("TRNSIM_INSTANCE", INSTANCES[chip])


def bf16_round(x):
    a = np.ascontiguousarray(x, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    lsb = (bits >> np.uint64(16)) & np.uint64(1)
    rounded = ((bits + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
    out = (rounded & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32).copy()
    out[np.isnan(a)] = np.float32("nan")
    return out


def round_to(x, dtype):
    if dtype == "float32":
        return np.asarray(x, dtype=np.float32)
    if dtype == "bfloat16":
        return bf16_round(x)
    raise ValueError(f"no host rounding for dtype {dtype!r}")


def device_array(x, dtype):
    x = np.ascontiguousarray(x, dtype=np.float32)
    if dtype == "float32":
        return x
    assert np.array_equal(round_to(x, dtype), x, equal_nan=True), \
        f"input is not representable in {dtype}: round it with round_to first"
    import trnsim_nki
    return trnsim_nki.host_array(x, dtype)


def host_values(result):
    """A kernel output as a float64 numpy array (whatever host form the front end returns)."""
    return np.asarray(result, dtype=np.float64)


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def uniform(rng, shape, dtype, lo=-1.0, hi=1.0):
    """Uniform [lo, hi) values already rounded to dtype, as float32."""
    return round_to(rng.uniform(lo, hi, size=shape).astype(np.float32), dtype)


def _describe_failures(got, want, allowed, bad, what):
    err = np.abs(got - want)
    excess = np.where(bad, err - allowed, -np.inf)
    worst = np.unravel_index(int(np.argmax(excess)), got.shape)
    lines = [f"{what}: {int(bad.sum())} of {bad.size} elements out of tolerance "
             f"(shape {got.shape}); worst at {worst}: got {got[worst]!r}, want {want[worst]!r}, "
             f"|err| {err[worst]:.3e} > allowed {allowed[worst]:.3e}"]
    for idx in list(zip(*np.nonzero(bad)))[:8]:
        lines.append(f"  at {tuple(int(i) for i in idx)}: got {got[idx]!r} want {want[idx]!r}")
    return "\n".join(lines)


def check_close(got, want, atol, rtol, what):
    got = host_values(got)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    assert not np.isnan(got).any(), \
        f"{what}: {int(np.isnan(got).sum())} NaN outputs (first at " \
        f"{tuple(int(i) for i in np.argwhere(np.isnan(got))[0])}): uninitialised or invalid math?"
    allowed = np.broadcast_to(np.asarray(atol, dtype=np.float64) + rtol * np.abs(want),
                              want.shape)
    bad = np.abs(got - want) > allowed
    assert not bad.any(), _describe_failures(got, want, allowed, bad, what)


def check_equal(got, want, what):
    check_close(got, want, 0.0, 0.0, what)
