"""Running built NEFFs through the installed libnrt (the native module's runner).

The process has one runtime (nrt_init on first use). Its LNC must equal the kernel's: NKI
says a kernel's LNC "must match NEURON_LOGICAL_NC_CONFIG". When the user has not set that
variable the front end sets it to the first kernel's LNC before the runtime starts, and a later
kernel with the other LNC restarts the runtime (its loaded models are dropped); when the user
has set it, a mismatch is an error naming the fix. Loaded models are cached per NEFF.
"""

import hashlib
import os

from trnsim_nki.errors import NkiRuntimeError
from trnsim_nki.native import native

_LNC_VAR = "NEURON_LOGICAL_NC_CONFIG"
_user_lnc = os.environ.get(_LNC_VAR)
_models = {}
_runtime_lnc = None


def runtime_info():
    return dict(native().runtime_info())


def prepare(lnc):
    """Makes the runtime's LNC `lnc` (restarting it if needed) or raises."""
    global _runtime_lnc
    if _user_lnc is not None:
        if str(lnc) != _user_lnc.strip():
            raise NkiRuntimeError(
                f"the kernel runs with LNC={lnc} but {_LNC_VAR}={_user_lnc}: launch it as "
                f"kernel[{_user_lnc}](...) or set {_LNC_VAR}={lnc}")
        return
    if _runtime_lnc == lnc:
        return
    mod = native()
    if _runtime_lnc is not None:
        for model in _models.values():
            model.unload()
        _models.clear()
        mod.runtime_close()
    os.environ[_LNC_VAR] = str(lnc)
    _runtime_lnc = lnc


def load(neff, lnc):
    """The loaded model for NEFF bytes (cached)."""
    prepare(lnc)
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
