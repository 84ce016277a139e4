"""Kernels of the legacy generation (neuronxcc.nki): @nki.jit, SPMD grids with nl.nc /
nl.spmd_dim, and the harness calls nki.baremetal, nki.benchmark, nki.profile and
nki.simulate_kernel, in their decorator and call forms.

A legacy kernel traces like a current one (trnsim_nki.kernel) with `legacy=True`, which turns
on the legacy indexing, operators and dtype rules. The launch grid differs: `kernel[g0, g1]`
takes any number of dims of any size, and its programs run one after another on one physical
core unless a dim is annotated with `nl.nc(2)`: `kernel[nl.nc(2), 2]` puts programs (0, *) on
core 0 and (1, *) on core 1; `nl.spmd_dim(nl.nc(2), 2)` (= `nl.nc(2) * 2`) is a dim of 4 whose
major part picks the core, `nl.spmd_dim(2, nl.nc(2))` (= `2 * nl.nc(2)`) interleaves. A grid
with an nl.nc(2) dim runs at LNC=2, any other at LNC=1, unless NEURON_LOGICAL_NC_CONFIG says
otherwise (at LNC=1 every program runs on the one core).
"""

import json
import math
import os

import numpy as np

from trnsim_nki import dtypes, runner
from trnsim_nki.errors import NkiError, NkiNotImplementedError, NkiTypeError, NkiValueError
from trnsim_nki.harness import BenchmarkResult
from trnsim_nki.host import host_array
from trnsim_nki.kernel import Kernel, _Launch, _CHIPS, launch_lnc

# "trace": a helper kernel called from another kernel (inlined there, run when called alone).
MODES = ("auto", "baremetal", "benchmark", "simulation", "trace", "jax", "torchxla")


class NcDim(int):
    """nl.nc(n): a launch-grid dim whose programs are spread over n physical cores."""

    def __mul__(self, other):
        return spmd_dim(self, other)

    def __rmul__(self, other):
        return spmd_dim(other, self)

    def __repr__(self):
        return f"nc({int(self)})"


class SpmdDim(int):
    """nl.spmd_dim(a, b, ...): one launch-grid dim of size a*b*... (row-major sub-dims)."""

    parts = ()

    def __repr__(self):
        return f"spmd_dim({', '.join(map(repr, self.parts))})"


def nc(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise NkiTypeError(f"nl.nc takes a positive int, not {n!r}")
    return NcDim(int(n))


def spmd_dim(*sizes):
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1:
            raise NkiTypeError(f"nl.spmd_dim takes positive ints and nl.nc(n), not {s!r}")
    flat = []
    for s in sizes:
        flat.extend(s.parts if isinstance(s, SpmdDim) else [s])
    dim = SpmdDim(math.prod(int(s) for s in flat))
    dim.parts = tuple(flat)
    return dim


class LegacyGrid(tuple):
    """Grid sizes plus, per dim, None or (div, n): core = (index // div) % n."""

    def __new__(cls, sizes, cores):
        grid = super().__new__(cls, sizes)
        grid.cores = tuple(cores)
        return grid

    def __eq__(self, other):
        return tuple(self) == tuple(other) and self.cores == getattr(other, "cores", None)

    def __hash__(self):
        return hash((tuple(self), self.cores))

    def __repr__(self):
        return f"LegacyGrid({list(self)}, cores={list(self.cores)})"


def parse_grid(grid):
    grid = grid if isinstance(grid, tuple) else (grid,)
    sizes, cores = [], []
    for g in grid:
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or g < 1:
            raise NkiTypeError(f"a launch grid is positive ints, nl.nc(n) and nl.spmd_dim(...), "
                               f"not {grid!r}")
        parts = g.parts if isinstance(g, SpmdDim) else (g,)
        core = None
        for j, part in enumerate(parts):
            if isinstance(part, NcDim):
                if core is not None or any(c is not None for c in cores):
                    raise NkiValueError(f"a launch grid has at most one nl.nc dim: {grid!r}")
                if part > 2:
                    raise NkiValueError(f"nl.nc({int(part)}): a logical NeuronCore has at most "
                                        "2 physical cores")
                core = (math.prod(int(p) for p in parts[j + 1:]), int(part))
        sizes.append(int(g))
        cores.append(core)
    return LegacyGrid(sizes, cores)


def _check_platform(target, chip):
    """platform_target= of @nki.jit must name the chip the kernel runs on: trnsim picks the chip
    with NEURON_PLATFORM_TARGET_OVERRIDE or the runtime's instance, not per kernel."""
    if target is None:
        return
    wanted = _CHIPS.get(str(target).lower())
    if wanted is None:
        raise NkiNotImplementedError("legacy.nki.jit", f"platform_target={target!r}: trnsim "
                                     "emulates trn2 and trn3")
    if wanted != chip:
        raise NkiValueError(f"nki.jit: platform_target={target!r} but the runtime emulates "
                            f"{chip}; set NEURON_PLATFORM_TARGET_OVERRIDE={wanted}")


class LegacyKernel(Kernel):
    """What neuronxcc.nki.jit returns."""

    def __init__(self, fn, mode="auto", **options):
        if mode not in MODES:
            raise NkiValueError(f"nki.jit: mode={mode!r} is not one of {', '.join(MODES)}")
        if mode in ("jax", "torchxla"):
            raise NkiNotImplementedError("legacy.nki.jit", f"mode={mode!r}: trnsim runs kernels"
                                         " on numpy arrays (mode='baremetal')")
        super().__init__(fn, legacy=True, **options)
        self.mode = mode

    def __getitem__(self, grid):
        return _Launch(self, parse_grid(grid))

    def launch(self, grid, args, kwargs, profile_path=None):
        return super().launch(grid, specs_to_arrays(args), specs_to_arrays(kwargs),
                              profile_path)

    def compile(self, grid, args, kwargs):
        compiled, inputs = super().compile(grid, specs_to_arrays(args), specs_to_arrays(kwargs))
        _check_platform(self.options.get("platform_target"), compiled.chip)
        return compiled, inputs

    def _launch_lnc(self, grid):
        user = runner.user_value("NEURON_LOGICAL_NC_CONFIG")
        if user is not None:
            return launch_lnc(())  # checks and returns the user's value
        spread = any(c is not None and c[1] == 2 for c in getattr(grid, "cores", ()))
        return 2 if spread else 1

    def _program_core(self, program, grid, lnc):
        cores = getattr(grid, "cores", ())
        if lnc == 1 or not cores:
            return 0
        index = []
        for g in reversed(grid):
            index.append(program % g)
            program //= g
        index.reverse()
        for i, spec in zip(index, cores):
            if spec is not None:
                return (i // spec[0]) % spec[1] % lnc
        return 0


def jit(func=None, mode="auto", **kwargs):
    """@nki.jit, @nki.jit(mode=...), nki.jit(fn, ...)."""
    if func is None:
        return lambda f: jit(f, mode=mode, **kwargs)
    if isinstance(func, LegacyKernel) and not kwargs and mode == "auto":
        return func
    fn = func.fn if isinstance(func, Kernel) else func
    if not callable(fn):
        raise NkiTypeError(f"nki.jit decorates a function, not {func!r}")
    return LegacyKernel(fn, mode=mode, **kwargs)


# ---- shape-only arguments (neuronxcc.nki.typing.tensor[shape, dtype]) ---------------------------

class TensorSpec:
    """nt.tensor[[8192, 4096], nl.bfloat16]: an argument given only by shape and dtype."""

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtypes.lookup(dtype)

    def __repr__(self):
        return f"tensor[{list(self.shape)}, {self.dtype.name}]"

    def array(self):
        """Zeros of this shape and dtype, as the kernel's host input."""
        return host_array(np.zeros(self.shape, np.float32), self.dtype)


def specs_to_arrays(values):
    if isinstance(values, dict):
        return {k: v.array() if isinstance(v, TensorSpec) else v for k, v in values.items()}
    return tuple(v.array() if isinstance(v, TensorSpec) else v for v in values)


# ---- harness ----------------------------------------------------------------------------------

def _kernel_of(kernel):
    """(LegacyKernel, grid) of whatever a harness call was given."""
    if isinstance(kernel, _Launch):
        return _kernel_of(kernel.kernel)[0], kernel.grid
    if isinstance(kernel, Harness):
        return kernel.kernel, kernel.grid
    return jit(kernel), ()


class Harness:
    """A kernel run by nki.baremetal / nki.benchmark / nki.profile: calling it compiles, runs
    warmup + iters times, keeps the artifacts asked for and returns the outputs."""

    def __init__(self, kernel, what, warmup=0, iters=1, save_neff_name=None,
                 save_trace_name=None, directory=None, profile_nth=1, overwrite=True):
        self.kernel, self.grid = _kernel_of(kernel)
        self.what = what
        self.warmup, self.iters = int(warmup), int(iters)
        if self.iters < 1 or self.warmup < 0:
            raise NkiValueError(f"nki.{what}: iters >= 1 and warmup >= 0, not "
                                f"warmup={warmup}, iters={iters}")
        self.save_neff_name, self.save_trace_name = save_neff_name, save_trace_name
        self.directory, self.profile_nth, self.overwrite = directory, int(profile_nth), overwrite
        self.benchmark_result = None
        self.__name__ = getattr(self.kernel.fn, "__name__", "kernel")
        self.__doc__ = getattr(self.kernel.fn, "__doc__", None)

    def __getitem__(self, grid):
        h = Harness.__new__(Harness)
        h.__dict__.update(self.__dict__)
        h.grid = parse_grid(grid)
        return h

    def _path(self, name):
        return os.path.join(self.directory, name) if self.directory else name

    def __call__(self, *args, **kwargs):
        paths = [self._path(n) for n in (self.save_neff_name, self.save_trace_name) if n]
        if not self.overwrite:
            for path in paths:
                if os.path.exists(path):
                    raise NkiError(f"nki.{self.what}: {path} exists (pass overwrite=True)")
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
        compiled, inputs = self.kernel.compile(self.grid, args, kwargs)
        traced = self.warmup + (self.profile_nth if self.what == "profile" else 1)
        latencies, outs = [], None
        for i in range(self.warmup + self.iters):
            ntff = self._path(self.save_trace_name) if (
                self.save_trace_name and i + 1 == traced) else None
            outs = compiled.run(inputs, ntff)
            if i >= self.warmup:
                latencies.append(compiled.last_report.latency_us)
        if self.save_neff_name:
            with open(self._path(self.save_neff_name), "wb") as f:
                f.write(compiled.neff)
        self.benchmark_result = BenchmarkResult(latencies, compiled.last_report)
        self.kernel.benchmark_result = self.benchmark_result
        if self.what == "benchmark":
            lat = self.benchmark_result.nc_latency
            print(f"nki.benchmark {self.__name__}: {len(latencies)} iterations, simulated latency "
                  f"p50 {lat.get_latency_percentile(50):.3f} us, p99 "
                  f"{lat.get_latency_percentile(99):.3f} us")
        if self.what == "profile":
            self._summary(compiled)
        return compiled.shaped(outs)

    def _summary(self, compiled):
        report = compiled.last_report
        base = os.path.splitext(self.save_trace_name or "profile")[0]
        summary = {"kernel": self.__name__, "chip": report.chip, "lnc": compiled.lnc,
                   "latency_us": report.latency_us, "flops": report.flops, "mfu": report.mfu,
                   "neff": self.save_neff_name, "ntff": self.save_trace_name,
                   "stats": report.stats}
        with open(self._path(base + "_summary.json"), "w") as f:
            json.dump(summary, f, indent=1, default=str)


def _decorator(kernel, make):
    if kernel is None:
        return make
    return make(kernel)


def baremetal(kernel=None, save_neff_name=None, save_trace_name=None,
              additional_compile_opt=None, artifacts_dir=None, **kwargs):
    """@nki.baremetal / @nki.baremetal(...) / nki.baremetal(kernel, ...): compile and run once;
    keeps the NEFF and the NTFF (profile of the run) when named, in artifacts_dir if given."""
    _no_extra("baremetal", kwargs)
    return _decorator(kernel, lambda k: Harness(
        k, "baremetal", save_neff_name=save_neff_name, save_trace_name=save_trace_name,
        directory=artifacts_dir))


def benchmark(kernel=None, warmup=10, iters=100, save_neff_name=None, save_trace_name=None,
              additional_compile_opt=None, **kwargs):
    """nki.benchmark: runs warmup + iters times; `.benchmark_result.nc_latency
    .get_latency_percentile(p)` is the simulated latency in µs. The NTFF, when named, is the
    profile of the first measured iteration."""
    _no_extra("benchmark", kwargs)
    return _decorator(kernel, lambda k: Harness(
        k, "benchmark", warmup=warmup, iters=iters, save_neff_name=save_neff_name,
        save_trace_name=save_trace_name))


def profile(func=None, working_directory=None, save_neff_name="file.neff",
            save_trace_name="profile.ntff", additional_compile_opt=None, overwrite=False,
            profile_nth=1, **kwargs):
    """nki.profile: runs profile_nth times and writes the NEFF, the NTFF of the profile_nth run
    and <trace>_summary.json into working_directory (an absolute path)."""
    _no_extra("profile", kwargs)
    if not working_directory or not os.path.isabs(str(working_directory)):
        raise NkiValueError(f"nki.profile: working_directory must be an absolute path, not "
                            f"{working_directory!r}")
    if isinstance(profile_nth, bool) or not isinstance(profile_nth, int) or profile_nth < 1:
        raise NkiValueError(f"nki.profile: profile_nth must be a positive int, not "
                            f"{profile_nth!r}")
    return _decorator(func, lambda k: Harness(
        k, "profile", iters=profile_nth, save_neff_name=save_neff_name,
        save_trace_name=save_trace_name, directory=str(working_directory),
        profile_nth=profile_nth, overwrite=overwrite))


def simulate_kernel(kernel, *args, **kwargs):
    """Runs the kernel (on trnsim, always the emulated chip) with numpy arguments."""
    k, grid = _kernel_of(kernel)
    return k.launch(grid, args, kwargs)


def _no_extra(what, kwargs):
    if kwargs:
        raise NkiTypeError(f"nki.{what}: unexpected argument(s) {', '.join(sorted(kwargs))}")
