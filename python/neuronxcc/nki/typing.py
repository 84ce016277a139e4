"""neuronxcc.nki.typing for trnsim: `tensor[...]` annotations and shape-only arguments.

`tensor[[8192, 4096], nl.bfloat16]` (or `tensor[128, 512]`, fp32) is a TensorSpec: passed to a
kernel run by nki.benchmark / nki.profile (or any legacy call) it becomes a zero array of that
shape and dtype, as AWS's benchmark only needs shapes. As an annotation it is not checked
(Python does not evaluate annotations of local variables)."""

from trnsim_nki.legacy_kernel import TensorSpec
from trnsim_nki.unsupported import module_getattr as _module_getattr


def _spec(params):
    params = params if isinstance(params, tuple) else (params,)
    if params and isinstance(params[0], (list, tuple)):
        return TensorSpec(params[0], params[1] if len(params) > 1 else "float32")
    return TensorSpec(params, "float32")


class tensor:  # noqa: N801 - NKI's spelling
    """nt.tensor[shape, dtype]."""

    def __class_getitem__(cls, params):
        return _spec(params)


class mutable_tensor:  # noqa: N801
    """nt.mutable_tensor: marks a parameter the kernel writes (accepted, not enforced)."""

    def __class_getitem__(cls, params):
        return _spec(params)


__getattr__ = _module_getattr("neuronxcc.nki.typing", globals())
