"""Running built NEFFs through the installed libnrt (the native module's runner).

The process has one runtime (nrt_init on first use), configured by the environment when it
starts. Two settings must match the kernel:
  - the LNC: NKI says a kernel's LNC "must match NEURON_LOGICAL_NC_CONFIG". If the variable is
    set, a kernel with another LNC is an error naming the fix; if not, the front end sets it to
    the kernel's LNC for the runtime it starts;
  - the chip: with NEURON_PLATFORM_TARGET_OVERRIDE naming trn2/trn3, no TRNSIM_INSTANCE and no
    TRNSIM_DAEMON, the front end starts the runtime on that chip's default instance
    (trn2.48xlarge, trn3.48xlarge) so the kernel's NEFF loads.
When these settings (or TRNSIM_INSTANCE / TRNSIM_DAEMON themselves) differ from the ones the
running runtime started with, it is restarted (nrt_close + nrt_init; loaded models are dropped).
Loaded models are cached per NEFF.
"""

import hashlib
import os

from trnsim_nki.errors import NkiRuntimeError
from trnsim_nki.native import native

_LNC_VAR = "NEURON_LOGICAL_NC_CONFIG"
_DEFAULT_INSTANCE = {"trn2": "trn2.48xlarge", "trn3": "trn3.48xlarge"}
_WATCHED = (_LNC_VAR, "TRNSIM_INSTANCE", "TRNSIM_DAEMON", "NEURON_RT_VISIBLE_CORES",
            "NEURON_RT_NUM_CORES")

_models = {}
_started = None  # the watched environment the running runtime started with
_set_by_us = {}  # variables this module set: name -> value


def user_value(name):
    """The variable's value unless this module set it."""
    value = os.environ.get(name)
    if value is not None and _set_by_us.get(name) == value:
        return None
    return value


def _set(name, value):
    os.environ[name] = value
    _set_by_us[name] = value


def _unset_ours(name):
    if name in _set_by_us and os.environ.get(name) == _set_by_us[name]:
        del os.environ[name]
    _set_by_us.pop(name, None)


def prepare(lnc, chip=None):
    """Makes the runtime's settings fit a kernel of this LNC and chip, restarting it if needed.
    `chip` is the chip NEURON_PLATFORM_TARGET_OVERRIDE named, or None."""
    global _started
    user_lnc = user_value(_LNC_VAR)
    if user_lnc is not None:
        if user_lnc.strip() != str(lnc):
            raise NkiRuntimeError(
                f"the kernel runs with LNC={lnc} but {_LNC_VAR}={user_lnc}: launch it as "
                f"kernel[{user_lnc.strip()}](...) or set {_LNC_VAR}={lnc}")
        _set_by_us.pop(_LNC_VAR, None)
    else:
        _set(_LNC_VAR, str(lnc))
    if chip is not None and user_value("TRNSIM_INSTANCE") is None and \
            not os.environ.get("TRNSIM_DAEMON"):
        _set("TRNSIM_INSTANCE", _DEFAULT_INSTANCE[chip])
    elif chip is None:
        _unset_ours("TRNSIM_INSTANCE")
    wanted = tuple(os.environ.get(name) for name in _WATCHED)
    if _started is not None and _started != wanted:
        restart()
    _started = wanted


def restart():
    """Drops every loaded model and closes the runtime; the next use starts it again."""
    global _started
    for model in _models.values():
        model.unload()
    _models.clear()
    native().runtime_close()
    _started = None


def runtime_info():
    return dict(native().runtime_info())


def load(neff):
    """The loaded model for NEFF bytes (cached)."""
    key = hashlib.sha256(neff).digest()
    model = _models.get(key)
    if model is None:
        mod = native()
        try:
            model = mod.Model.load(neff)
        except mod.TrnsimError as e:
            raise NkiRuntimeError(f"nrt_load of the kernel's NEFF failed: {e}") from None
        _models[key] = model
    return model


def execute(model, inputs, profile_path=None):
    """Runs once; returns {output name: bytes}."""
    mod = native()
    try:
        if profile_path:
            return model.profile(inputs, profile_path)
        return model.execute(inputs)
    except mod.TrnsimError as e:
        raise NkiRuntimeError(f"executing the kernel failed: {e}") from None
