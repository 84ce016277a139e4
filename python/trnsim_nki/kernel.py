"""@nki.jit: a kernel object that traces its Python body into a NEFF and runs it.

Calling a kernel with numpy arrays:
  1. picks the chip (NEURON_PLATFORM_TARGET_OVERRIDE, else the runtime's instance) and the
     LNC (NEURON_LOGICAL_NC_CONFIG, else 2 for an even launch grid and 1 otherwise);
  2. traces the body once per SPMD program of the launch grid (`kernel[g0, g1](...)`):
     program p runs on physical core p % LNC, its instructions after the earlier programs' of
     that core; nl.program_id / nl.num_programs give its position;
  3. builds one NEFF (build.py), cached per argument signature (shapes, dtypes, scalar values,
     grid, chip, LNC), which `save_neff(path)` writes out;
  4. runs it through libnrt (runner.py) and returns numpy arrays shaped like the kernel's
     return value.

A kernel called while another is being traced is inlined (traced as part of the caller).
"""

import functools
import inspect
import math
import os

import numpy as np

from trnsim_nki import build as build_mod
from trnsim_nki import dtypes, runner
from trnsim_nki import trace as tr
from trnsim_nki.errors import NkiError, NkiTypeError, NkiNotImplementedError
from trnsim_nki.native import native
from trnsim_nki.report import Report
from trnsim_nki.tensor import Tensor, SHARED_HBM

_CHIPS = {"trn2": "trn2", "gen3": "trn2", "trn3": "trn3", "gen4": "trn3"}


def override_chip():
    """The chip NEURON_PLATFORM_TARGET_OVERRIDE names, or None."""
    override = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    if not override:
        return None
    chip = _CHIPS.get(override.strip().lower())
    if chip is None:
        raise NkiNotImplementedError(
            f"NEURON_PLATFORM_TARGET_OVERRIDE={override}",
            "trnsim emulates trn2 (gen3) and trn3 (gen4) only")
    return chip


def target_chip():
    """The chip kernels are traced for: the override, else the runtime's instance."""
    chip = override_chip()
    if chip is not None:
        return chip
    family = str(runner.runtime_info().get("chip", "trn2")).lower()
    return _CHIPS.get(family, "trn2")


def launch_lnc(grid):
    env = runner.user_value("NEURON_LOGICAL_NC_CONFIG")  # not the value the front end set
    if env:
        try:
            lnc = int(env)
        except ValueError:
            raise NkiError(f"NEURON_LOGICAL_NC_CONFIG={env!r} is not 1 or 2") from None
        if lnc not in (1, 2):
            raise NkiError(f"NEURON_LOGICAL_NC_CONFIG={env!r} is not 1 or 2")
        return lnc
    programs = math.prod(grid) if grid else 1
    return 2 if programs % 2 == 0 else 1


class Compiled:
    """One traced and built kernel signature."""

    def __init__(self, neff, trace, arg_names, out_shape, chip):
        self.neff = neff
        self.trace = trace
        self.arg_names = arg_names
        self.out_shape = out_shape  # None, or ("one"| "tuple"| "list", [storages])
        self.chip = chip
        self.lnc = trace.lnc
        self.last_report = None

    def shaped(self, outs):
        """The output arrays shaped like the kernel's return value."""
        kind, _ = self.out_shape
        if kind == "none":
            return None
        if kind == "one":
            return outs[0]
        return tuple(outs) if kind == "tuple" else list(outs)

    def run(self, inputs, profile_path=None):
        runner.prepare(self.lnc, override_chip())
        model = runner.load(self.neff)
        raw = runner.execute(model, inputs, profile_path)
        self.last_report = Report(model.stats(), self.chip, self.trace)
        outs = []
        for s in self.trace.outputs:
            data = raw[s.var_name]
            outs.append(dtypes.from_device(data, s.dtype, s.shape))
        return outs


class Kernel:
    """What @nki.jit returns."""

    def __init__(self, fn, legacy=False, **options):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.legacy = legacy
        self.options = options
        self._cache = {}
        self.last = None  # the Compiled of the last call
        self.benchmark_result = None

    def __getitem__(self, grid):
        grid = grid if isinstance(grid, tuple) else (grid,)
        for g in grid:
            if isinstance(g, bool) or not isinstance(g, int) or g < 1:
                raise NkiTypeError(f"a launch grid is positive ints, not {grid!r}")
        return _Launch(self, grid)

    def __call__(self, *args, **kwargs):
        return self.launch((), args, kwargs)

    def launch(self, grid, args, kwargs, profile_path=None):
        if tr.active() is not None:
            return self.fn(*args, **kwargs)
        compiled, inputs = self.compile(grid, args, kwargs)
        outs = compiled.run(inputs, profile_path)
        self.last = compiled
        return compiled.shaped(outs)

    # ---- tracing ------------------------------------------------------------------------------
    def compile(self, grid, args, kwargs):
        """(Compiled, {input name: bytes}) for these arguments."""
        try:
            bound = inspect.signature(self.fn).bind(*args, **kwargs)
        except TypeError as e:
            raise NkiTypeError(f"{self.fn.__name__}: {e}") from None
        bound.apply_defaults()
        lnc = self._launch_lnc(grid)
        runner.prepare(lnc, override_chip())  # before the runtime starts: fixed at nrt_init
        chip = target_chip()
        arrays, key_parts = {}, [grid, chip, lnc]
        for name, value in bound.arguments.items():
            host = _host_input(value, name)
            if host is not None:
                array, dtype = host
                arrays[name] = (array, dtype)
                key_parts.append((name, array.shape, dtype.name))
            else:
                key_parts.append((name, repr(value)))
        key = tuple(key_parts)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._trace(grid, chip, lnc, bound, arrays)
            self._cache[key] = compiled
        inputs = {name: dtypes.to_device(array, dtype) for name, (array, dtype) in arrays.items()}
        self.last = compiled
        return compiled, inputs

    def _trace(self, grid, chip, lnc, bound, arrays):
        info = dict(native().chip_info(chip))
        trace = tr.Trace(chip, info, lnc, grid, legacy=self.legacy)
        with tr.TraceScope(trace):
            args = {}
            for name, value in bound.arguments.items():
                if name in arrays:
                    array, dtype = arrays[name]
                    storage = trace.new_storage(SHARED_HBM, array.shape, dtype, name,
                                                role="input", site=("<argument>", 0))
                    storage.core = None
                    trace.hbm_args.append(storage)
                    args[name] = Tensor(storage)
                else:
                    args[name] = value
            programs = math.prod(grid) if grid else 1
            returned = None
            for p in range(programs):
                trace.begin_program(_unravel(p, grid), self._program_core(p, grid, lnc))
                result = self.fn(**args)
                if p == 0:
                    returned = result
                elif _storages(result) != _storages(returned):
                    raise NkiError("every SPMD program must return the same shared_hbm tensors")
        kind, outs = _output_structure(returned)
        for i, s in enumerate(outs):
            if s.kind != "hbm" or s.role == "input":
                raise NkiError(f"a kernel returns HBM tensors it created (nl.ndarray(..., "
                               f"buffer=nl.shared_hbm)); return value {i} is {s!r}")
            s.role = "output"
        trace.outputs = outs
        neff = build_mod.build(trace, self.fn.__name__)
        return Compiled(neff, trace, list(arrays), (kind, outs), chip)

    # ---- launch hooks (the legacy generation's nl.nc / nl.spmd_dim grids override them) ----
    def _launch_lnc(self, grid):
        return launch_lnc(grid)

    def _program_core(self, program, grid, lnc):
        """The physical core SPMD program `program` runs on."""
        return program % lnc

    def save_neff(self, path):
        """Writes the NEFF of the last call (nki.jit's artifact)."""
        if self.last is None:
            raise NkiError("save_neff: the kernel has not been called yet")
        with open(path, "wb") as f:
            f.write(self.last.neff)
        return path

    @property
    def report(self):
        """Timing of the last execution (report.py)."""
        return self.last.last_report if self.last else None


class _Launch:
    def __init__(self, kernel, grid):
        self.kernel = kernel
        self.grid = grid

    def __call__(self, *args, **kwargs):
        return self.kernel.launch(self.grid, args, kwargs)

    def __getattr__(self, name):
        return getattr(self.kernel, name)


def _host_input(value, name):
    """(array, DType) for an array argument, None for anything else (a trace-time constant)."""
    if isinstance(value, dtypes.Bits):
        return value, value.dtype
    if isinstance(value, np.ndarray):
        try:
            dtype = dtypes.lookup(value.dtype)
        except TypeError:
            raise NkiTypeError(f"argument {name}: numpy {value.dtype} has no NKI dtype "
                               "(docs/nki.md, host representation)") from None
        if value.ndim == 0:
            value = value.reshape(1)
        return np.ascontiguousarray(value), dtype
    return None


def _unravel(p, grid):
    if not grid:
        return ()
    out = []
    for g in reversed(grid):
        out.append(p % g)
        p //= g
    return tuple(reversed(out))


def _storages(result):
    _, outs = _output_structure(result)
    return [s.ident for s in outs]


def _output_structure(result):
    if result is None:
        return "none", []
    if isinstance(result, Tensor):
        return "one", [_whole(result)]
    if isinstance(result, (tuple, list)) and all(isinstance(r, Tensor) for r in result):
        return ("tuple" if isinstance(result, tuple) else "list"), [_whole(r) for r in result]
    raise NkiTypeError(f"a kernel returns HBM tensors (or a tuple of them), not "
                       f"{type(result).__name__}")


def _whole(view):
    s = view.storage
    if view.shape != s.shape or view.byte_offset or view.dtype is not s.dtype:
        raise NkiError("a kernel returns whole tensors, not views of them")
    return s


def jit(fn=None, **kwargs):
    """@nki.jit / nki.jit(fn)."""
    legacy = kwargs.pop("_legacy", False)
    if fn is None:
        return lambda f: Kernel(f, legacy=legacy, **kwargs)
    if isinstance(fn, Kernel):
        return fn
    return Kernel(fn, legacy=legacy, **kwargs)
