"""Running a kernel with timing: nki.benchmark, nki.profile, nki.simulate (and the legacy
generation's baremetal / simulate_kernel, python/neuronxcc/nki/__init__.py).

trnsim's time is simulated and deterministic: every iteration of a benchmark reports the
simulated latency of that execution (trnsim_get_execution_stats), so percentiles are exact
figures of the emulated chip, not host measurements. A profile is the NEFF plus an NTFF
captured by libnrt's nrt_profile_start/stop, which `neuron-profile view` opens; the NEFF
carries kernel_debug_info.json mapping each instruction to the kernel's file and line.
"""

import functools
import os

import numpy as np

from trnsim_nki.errors import NkiError, NkiTypeError
from trnsim_nki.kernel import Kernel, jit


class LatencyResult:
    """benchmark_result.nc_latency: the simulated latency of each iteration, in µs."""

    def __init__(self, latencies_us):
        self.latencies_us = list(latencies_us)

    def get_latency_percentile(self, percentile):
        if not 0 <= percentile <= 100:
            raise NkiError(f"get_latency_percentile: {percentile} is not in [0, 100]")
        return float(np.percentile(self.latencies_us, percentile))


class BenchmarkResult:
    def __init__(self, latencies_us, report):
        self.nc_latency = LatencyResult(latencies_us)
        self.report = report  # report.Report of the last iteration (engines, flops, MFU)


class _Timed:
    """A kernel wrapped to run with timing; calling it runs and records."""

    def __init__(self, kernel, grid=(), warmup=0, iters=1, save_neff_name=None,
                 profile_dir=None, save_trace_name=None, profile_nth=1):
        self.kernel = kernel if isinstance(kernel, Kernel) else jit(kernel)
        self.grid = grid
        self.warmup = warmup
        self.iters = iters
        self.save_neff_name = save_neff_name
        self.profile_dir = profile_dir
        self.save_trace_name = save_trace_name
        self.profile_nth = profile_nth
        self.benchmark_result = None
        functools.update_wrapper(self, self.kernel.fn)

    def __getitem__(self, grid):
        launch = self.kernel[grid]
        timed = _Timed(self.kernel, launch.grid, self.warmup, self.iters, self.save_neff_name,
                       self.profile_dir, self.save_trace_name, self.profile_nth)
        return timed

    def __call__(self, *args, **kwargs):
        compiled, inputs = self.kernel.compile(self.grid, args, kwargs)
        latencies = []
        outs = None
        total = self.warmup + self.iters
        for i in range(total):
            profile_path = None
            if self.profile_dir is not None and i + 1 == self.profile_nth:
                os.makedirs(self.profile_dir, exist_ok=True)
                profile_path = os.path.join(self.profile_dir, self.save_trace_name or
                                            "profile.ntff")
            outs = compiled.run(inputs, profile_path)
            if i >= self.warmup:
                latencies.append(compiled.last_report.latency_us)
        if self.save_neff_name:
            directory = self.profile_dir or "."
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, self.save_neff_name), "wb") as f:
                f.write(compiled.neff)
        self.benchmark_result = BenchmarkResult(latencies, compiled.last_report)
        self.kernel.benchmark_result = self.benchmark_result
        return compiled.shaped(outs)


def benchmark(kernel=None, warmup=2, iters=10, save_neff_name=None, save_trace_name=None,
              **unused):
    """nki.benchmark(kernel, ...) or @nki.benchmark(warmup=, iters=): the returned callable runs
    the kernel warmup + iters times; `.benchmark_result.nc_latency.get_latency_percentile(p)`
    gives the simulated latency in µs."""
    if iters < 1 or warmup < 0:
        raise NkiTypeError("nki.benchmark: iters >= 1 and warmup >= 0")

    def wrap(k):
        return _Timed(k, warmup=warmup, iters=iters, save_neff_name=save_neff_name)
    return wrap if kernel is None else wrap(kernel)


def profile(kernel=None, working_directory=".", save_neff_name="file.neff",
            save_trace_name="profile.ntff", profile_nth=1, overwrite=False, **unused):
    """nki.profile: runs the kernel profile_nth times and writes the NEFF and the NTFF of the
    profile_nth execution into working_directory (`neuron-profile view -n <neff> -s <ntff>`)."""
    if profile_nth < 1:
        raise NkiTypeError("nki.profile: profile_nth >= 1")

    def wrap(k):
        return _Timed(k, warmup=0, iters=profile_nth, save_neff_name=save_neff_name,
                      profile_dir=working_directory, save_trace_name=save_trace_name,
                      profile_nth=profile_nth)
    return wrap if kernel is None else wrap(kernel)


def simulate(kernel):
    """nki.simulate(kernel): on trnsim the kernel always runs on the emulated chip, so this is
    the kernel itself (numpy in, numpy out)."""
    if isinstance(kernel, (Kernel, _Timed)) or hasattr(kernel, "kernel"):
        return kernel
    return jit(kernel)
