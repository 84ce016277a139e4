"""Host arrays of device dtypes NumPy lacks.

Debian's NumPy has no bfloat16 or fp8, so a float32 array cannot say "I am bf16".
`host_array(x, dtype)` (also `nl.static_cast(x, dtype)` on a numpy array, as legacy NKI test
harnesses spell it) rounds x to `dtype` as the device would (dtypes.to_device) and returns it
marked with that dtype — a dtypes.Bits — so the kernel's HBM input has that dtype. NumPy's own
types (float32, int8, ...) come back as plain arrays of that type.
"""

import numpy as np

from trnsim_nki import dtypes


def host_array(x, dtype):
    dt = dtypes.lookup(dtype)
    array = np.asarray(x)
    if dt.host == dt.bits or (not dt.is_float and np.dtype(dt.host) != np.float32) or \
            dt.name in ("float32", "float16"):
        return np.ascontiguousarray(array, dtype=dt.host) if dt.name != "float32" else \
            np.ascontiguousarray(array, dtype=np.float32)
    raw = np.frombuffer(dtypes.to_device(array, dt), dtype=dt.bits).reshape(array.shape)
    return dtypes.Bits(raw, dt)


def chip_peak_flops(chip, dtype="bfloat16"):
    """PE peak of one physical core in flop/s for `dtype`'s class (chip_info)."""
    from trnsim_nki.native import native
    from trnsim_nki.report import peak_flops
    name = dtypes.lookup(dtype).name
    cls = "fp32" if name == "float32" else "fp8" if name.startswith("float8") else "bf16"
    return peak_flops(native().chip_info(chip), cls)
