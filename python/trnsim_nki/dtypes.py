"""Element types of the NKI front end and their exact host representation.

Every dtype of AWS's nki.language reference (both generations) is a `DType` here, mapped to the
trnsim ISA dtype that stores it (simulator/isa/dtype.h) or marked unsupported with the reason.
Debian's NumPy has no bfloat16 or fp8, so those live on the host as float32 arrays holding the
exact values; `to_device` rounds host arrays to the device's bytes exactly as trnsim's own
conversions do (simulator/numerics/float_formats.h, docs/numerics.md), `from_device` widens
device bytes exactly, and `Bits` / `raw=True` carry raw bit patterns. The rules are documented
in docs/nki.md, "Host representation of device dtypes". Pure NumPy, vectorised.
"""

import numpy as np

__all__ = [
    "DType", "Bits", "lookup", "to_device", "from_device", "round_to", "ALL_DTYPES",
    "bool_", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32",
    "bfloat16", "tfloat32", "float8_e4m3", "float8_e5m2", "float8_e3m4", "float8_e4m3fn",
    "float8_e8m0fnu", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4",
]


class DType:
    """One element type (immutable; one instance per type, so `is` compares them).

    name      NKI's spelling ("bfloat16", "float8_e4m3", ...).
    isa       trnsim's ISA short name ("bf16", "fp8e4", ...; isa::DtypeShortName), or None
              when trnsim's ISA has no such type (then `unsupported` says why).
    itemsize  bytes per element on the device.
    is_float  a floating-point type.
    host      the NumPy dtype of host arrays of this type (float32 for bf16 and fp8).
    bits      the unsigned NumPy dtype of its raw bit patterns.
    unsupported  None, or why trnsim cannot run it (the tracer's NotImplementedError text).

    A DType compares equal to itself and to every spelling `lookup` maps to it
    (`bfloat16 == "bf16"`, `float32 == np.float32`); it hashes as its name.
    """

    __slots__ = ("name", "isa", "itemsize", "is_float", "host", "bits", "unsupported",
                 "_format")

    def __init__(self, name, isa, itemsize, is_float, host, fmt=None, unsupported=None):
        values = {
            "name": name, "isa": isa, "itemsize": itemsize, "is_float": is_float,
            "host": np.dtype(host), "bits": np.dtype("u%d" % itemsize),
            "unsupported": unsupported,
            "_format": fmt,  # (exponent bits, fraction bits) of a narrow float, else None
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        raise AttributeError("DType is immutable")

    __delattr__ = __setattr__

    @property
    def supported(self):
        return self.unsupported is None

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        try:
            return lookup(other) is self
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __str__(self):
        return self.name

    def __repr__(self):
        return "DType(%r)" % self.name

    def __reduce__(self):
        return (lookup, (self.name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


_NO_MX = ("an MX (microscaling) type of NeuronCore-v4's nc_matmul_mx / quantize_mx, which "
          "trnsim's ISA does not have (docs/isa.md, 'Not yet in the ISA')")

# AWS's nki.language dtypes (current reference and the legacy neuronxcc.nki one), plus
# float8_e3m4 for trnsim's fp8e3 (not an AWS NKI name; see docs/nki.md).
bool_ = DType("bool_", "uint8", 1, False, np.bool_)  # "boolean stored as uint8"
int8 = DType("int8", "int8", 1, False, np.int8)
int16 = DType("int16", "int16", 2, False, np.int16)
int32 = DType("int32", "int32", 4, False, np.int32)
uint8 = DType("uint8", "uint8", 1, False, np.uint8)
uint16 = DType("uint16", "uint16", 2, False, np.uint16)
uint32 = DType("uint32", "uint32", 4, False, np.uint32)
float32 = DType("float32", "fp32", 4, True, np.float32)
# tf32 (1S,8E,10M) is stored in 32 bits; trnsim's fp32r is the PE's reduced-cost fp32 mode
# and holds fp32 values exactly (docs/decisions.md).
tfloat32 = DType("tfloat32", "fp32r", 4, True, np.float32)
float16 = DType("float16", "fp16", 2, True, np.float16, fmt=(5, 10))
bfloat16 = DType("bfloat16", "bf16", 2, True, np.float32, fmt=(8, 7))
float8_e4m3 = DType("float8_e4m3", "fp8e4", 1, True, np.float32, fmt=(4, 3))
float8_e5m2 = DType("float8_e5m2", "fp8e5", 1, True, np.float32, fmt=(5, 2))
float8_e3m4 = DType("float8_e3m4", "fp8e3", 1, True, np.float32, fmt=(3, 4))
float8_e4m3fn = DType(
    "float8_e4m3fn", None, 1, True, np.float32,
    unsupported="OCP e4m3fn (max 448, no inf, NaN only S.1111.111) has no trnsim ISA dtype; "
    "trnsim's fp8e4 is the IEEE-style float8_e4m3 (max 240, docs/numerics.md section 1)")
float8_e8m0fnu = DType("float8_e8m0fnu", None, 1, True, np.float32,
                       unsupported="the MX scale type: " + _NO_MX)
float8_e5m2_x4 = DType("float8_e5m2_x4", None, 4, True, np.uint32,
                       unsupported="four packed float8_e5m2: " + _NO_MX)
float8_e4m3fn_x4 = DType("float8_e4m3fn_x4", None, 4, True, np.uint32,
                         unsupported="four packed float8_e4m3fn: " + _NO_MX)
float4_e2m1fn_x4 = DType("float4_e2m1fn_x4", None, 2, True, np.uint16,
                         unsupported="four packed float4_e2m1fn: " + _NO_MX)

ALL_DTYPES = (bool_, int8, int16, int32, uint8, uint16, uint32, float16, float32, bfloat16,
              tfloat32, float8_e4m3, float8_e5m2, float8_e3m4, float8_e4m3fn, float8_e8m0fnu,
              float8_e5m2_x4, float8_e4m3fn_x4, float4_e2m1fn_x4)

# Every string spelling: NKI names, the ISA short names, the NEFF descriptor names, "bool".
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({d.isa: d for d in ALL_DTYPES if d.isa and d is not bool_})
_BY_NAME.update({"bool": bool_, "float32r": tfloat32, "float8e3": float8_e3m4,
                 "float8e4": float8_e4m3, "float8e5": float8_e5m2})
# NumPy dtypes with an NKI equivalent (float64, int64, complex ... have none).
_BY_NUMPY = {np.dtype(d.host): d for d in (bool_, int8, int16, int32, uint8, uint16, uint32,
                                             float16, float32)}


def lookup(x):
    """The DType `x` names: a DType, a spelling ("bfloat16", "bf16", "float8e4", ...), or a
    NumPy dtype / scalar type / dtype string with an NKI equivalent (np.float32, "int8", "<f4",
    bool). TypeError naming `x` otherwise.
    """
    if isinstance(x, DType):
        return x
    if isinstance(x, str) and x in _BY_NAME:
        return _BY_NAME[x]
    found = None
    if x is not None:  # np.dtype(None) is float64
        try:
            npdt = np.dtype(x)
        except Exception:  # whatever NumPy cannot read as a dtype is no NKI dtype either
            npdt = None
        if npdt is not None:
            found = _BY_NUMPY.get(npdt.newbyteorder("="))
    if found is None:
        raise TypeError("%r is not an NKI dtype (expected one of %s, or a NumPy dtype with an "
                        "NKI equivalent)" % (x, ", ".join(d.name for d in ALL_DTYPES)))
    return found


class Bits:
    """An array given as raw bit patterns of `dtype`: to_device stores them untouched.

    `array` may be any integer array whose values fit `dtype`'s width: unsigned values, or a
    signed array of the same itemsize (reinterpreted). Held as `dtype.bits`.
    """

    __slots__ = ("array", "dtype")

    def __init__(self, array, dtype):
        dt = lookup(dtype)
        a = np.asarray(array)
        if a.dtype.kind not in "ui":
            raise TypeError("Bits(%s) needs an integer array of bit patterns, not %s"
                            % (dt.name, a.dtype))
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        if a.dtype.kind == "i" and a.dtype.itemsize == dt.itemsize:
            a = a.view(dt.bits)
        else:
            _check_range(a, 0, (1 << (8 * dt.itemsize)) - 1, "Bits(%s)" % dt.name)
        self.array = np.array(a, dtype=dt.bits, order="C")
        self.dtype = dt

    @property
    def shape(self):
        return self.array.shape

    def __repr__(self):
        return "Bits(%r, %s)" % (self.array, self.dtype.name)


def to_device(array, dtype):
    """Host array (any shape, C order) -> the little-endian element bytes the device stores.

    Floats into bf16/fp16/fp8 round to nearest, ties to even, as trnsim does (non-float32
    inputs are first converted to float32 by NumPy, as every device cast goes through fp32);
    overflow gives +-inf, subnormals are kept, NaN keeps its sign and top payload bits (quiet
    bit set when payload bits are dropped). Into integer types and bool_ the values must be
    exact and in range (ValueError), unless the array already has exactly that NumPy dtype.
    A `Bits` is stored untouched.
    """
    return _encode(array, _supported(dtype)).tobytes()


def from_device(buf, dtype, shape, raw=False):
    """Device bytes -> a new host array of `shape`: exact values in `dtype.host` (float32 for
    bf16 and fp8, NaN payloads kept), or with raw=True the bit patterns as `dtype.bits`."""
    dt = _supported(dtype)
    shape = _shape(shape)
    count = int(np.prod(shape, dtype=np.int64))
    data = memoryview(buf).cast("B")
    if data.nbytes != count * dt.itemsize:
        raise ValueError("from_device: %d bytes for %s%s (%d bytes expected)"
                         % (data.nbytes, dt.name, list(shape), count * dt.itemsize))
    bits = np.frombuffer(data, dtype=dt.bits.newbyteorder("<"), count=count)
    bits = bits.astype(dt.bits).reshape(shape)  # a native-order copy
    return bits if raw else _decode(bits, dt)


def round_to(array, dtype):
    """`array` as the device would store it in `dtype`, returned in `dtype.host` (for NumPy
    references): to_device's rounding and checks, then from_device's widening."""
    dt = _supported(dtype)
    return _decode(_encode(array, dt), dt)


# --- Implementation -------------------------------------------------------------------------


def _supported(dtype):
    dt = lookup(dtype)
    if dt.unsupported is not None:
        raise NotImplementedError("nki.language.%s is not supported by trnsim: %s"
                                  % (dt.name, dt.unsupported))
    return dt


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError("shape must be an int or a sequence of ints, not %r" % (shape,))
    if any(s < 0 for s in shape):
        raise ValueError("negative dimension in shape %r" % (shape,))
    return shape


def _first(mask):
    """The index (a tuple) of the first True of `mask`."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


def _check_range(a, lo, hi, what):
    if a.size == 0:
        return
    low, high = a.min(), a.max()
    if int(low) < lo or int(high) > hi:
        bad = (a < lo) | (a > hi)
        raise ValueError("%s: value %s at index %s is out of range [%d, %d]"
                         % (what, a[_first(bad)], _first(bad), lo, hi))


def _as_array(array, dt):
    a = np.asarray(array)
    if a.dtype.kind not in "biuf":
        raise TypeError("cannot store a %s array as %s" % (a.dtype, dt.name))
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def _encode(array, dt):
    """Host array -> the device's bit patterns as a `dt.bits` array of the same shape."""
    if isinstance(array, Bits):
        if array.dtype is not dt:
            raise ValueError("Bits of %s cannot be stored as %s" % (array.dtype.name, dt.name))
        return array.array
    a = _as_array(array, dt)
    if not dt.is_float:
        return _encode_int(a, dt).view(dt.bits)
    if a.dtype == np.float16 and dt is float16:
        return np.ascontiguousarray(a).view(np.uint16)
    with np.errstate(over="ignore", invalid="ignore"):  # float64 -> float32 may overflow to inf
        x = np.ascontiguousarray(a, dtype=np.float32)
    if dt.itemsize == 4:  # float32, tfloat32 (fp32r): fp32 bits
        return x.view(np.uint32)
    if dt is bfloat16:
        return _chunked(x, np.uint16, _encode_bf16)
    if dt is float16:
        return _chunked(x, np.uint16, _encode_fp16)
    fmt = dt._format
    return _chunked(x, np.uint8, lambda chunk: _encode_narrow(chunk.view(np.uint32), *fmt))


def _encode_int(a, dt):
    info = np.iinfo(np.uint8 if dt is bool_ else dt.host)
    lo, hi = int(info.min), (1 if dt is bool_ else int(info.max))
    if a.dtype == dt.host:
        return np.ascontiguousarray(a)
    what = "storing as %s" % dt.name
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (np.floor(a) != a)
        if bad.any():
            raise ValueError("%s: value %s at index %s is not an integer"
                             % (what, a[_first(bad)], _first(bad)))
    if a.dtype.kind != "b":
        _check_range(a, lo, hi, what)
    return np.ascontiguousarray(a.astype(np.uint8 if dt is bool_ else dt.host))


# Elements per step of the narrow encoders: their temporaries stay in cache and are reused
# (one pass of the fp8 encoder over a whole 16M-element array was ~30x slower, most of it
# spent faulting in fresh temporaries).
_CHUNK = 1 << 16


def _chunked(x, out_dtype, encode):
    """encode(x) a chunk at a time: float32 array -> bits array of the same shape."""
    flat = x.reshape(-1)
    out = np.empty(flat.size, dtype=out_dtype)
    for start in range(0, flat.size, _CHUNK):
        out[start:start + _CHUNK] = encode(flat[start:start + _CHUNK])
    return out.reshape(x.shape)


def _encode_bf16(x):
    """float32 -> bf16 bits: the add-and-truncate RNE of trnsim's bulk path (exact for every
    non-NaN, overflow to inf included); NaN by the shared rule of _encode_narrow."""
    b = x.view(np.uint32)
    out = ((b + (np.uint32(0x7FFF) + ((b >> 16) & 1))) >> 16).astype(np.uint16)
    nan = (b & 0x7FFFFFFF) > 0x7F800000
    if nan.any():
        out[nan] = _encode_narrow(b[nan], 8, 7)
    return out


def _encode_fp16(x):
    """float32 -> fp16 bits: NumPy's cast (IEEE RNE, subnormals, overflow to inf) for every
    non-NaN; NaN by the shared rule of _encode_narrow (NumPy's payload handling differs)."""
    with np.errstate(over="ignore"):
        out = x.astype(np.float16).view(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        out[nan] = _encode_narrow(x.view(np.uint32)[nan], 5, 10)
    return out


def _encode_narrow(b, exp_bits, man_bits):
    """fp32 bits (uint32 array) -> encoded bits of the 1-E-M format, as uint32: trnsim's
    Encode<E, M> (simulator/numerics/float_formats.cc) vectorised, with one difference for NaN:
    a NaN whose payload fits in M bits is kept as it is (a signalling NaN stays signalling, so
    every narrow pattern survives from_device -> to_device); one that does not fit keeps its
    top M payload bits and gets the quiet bit, as in trnsim."""
    e_max, m = (1 << exp_bits) - 1, man_bits
    bias = (1 << (exp_bits - 1)) - 1
    k_inf = np.uint32(e_max << m)
    b = b.astype(np.uint32, copy=False)
    sign = (b >> 31) << (exp_bits + m)
    mag = b & 0x7FFFFFFF
    e32 = (mag >> 23).astype(np.int32)
    normal32 = e32 != 0
    sig = np.where(normal32, (mag & 0x7FFFFF) | 0x800000, mag)
    # Bits of the fp32 significand below the target ulp: 23 - M at the format's normal
    # exponents, more for its subnormals; above 25 the value is under half the smallest
    # subnormal and rounds to 0 (sig < 2^24 <= half an ulp).
    e = np.where(normal32, e32 - 127, -127)
    target_ulp = np.maximum(e, 1 - bias) - m
    shift = target_ulp - (np.maximum(e32, 1) - 150)
    tiny = shift > 25
    shift = np.where(tiny, 25, shift).astype(np.uint32)
    sig = np.where(tiny, 0, sig).astype(np.uint32)
    rem = sig & ((np.uint32(1) << shift) - 1)
    half = np.uint32(1) << (shift - 1)
    q = sig >> shift
    q = q + ((rem > half) | ((rem == half) & ((q & 1) == 1)))
    enc = np.where(e < 1 - bias, q, ((e + bias - 1) << m).astype(np.uint32) + q)
    out = sign | np.minimum(enc, k_inf)
    # Infinity and NaN.
    special = mag >= 0x7F800000
    if special.any():
        frac = mag & 0x7FFFFF
        dropped = (frac & ((1 << (23 - m)) - 1)) != 0
        nan_bits = k_inf | (frac >> (23 - m)) | np.where(dropped, 1 << (m - 1), 0)
        out = np.where(special, sign | np.where(frac != 0, nan_bits, k_inf), out)
    return out.astype(np.uint32)


def _decode_narrow(b, exp_bits, man_bits):
    """Encoded bits of the 1-E-M format -> fp32 bits, exactly (trnsim's Decode<E, M>): NaN keeps
    sign and payload, the fraction moving to the top of the fp32 fraction."""
    e_max, m = (1 << exp_bits) - 1, man_bits
    bias = (1 << (exp_bits - 1)) - 1
    b = b.astype(np.uint32)
    sign = ((b >> (exp_bits + m)) & 1) << 31
    exp = ((b >> m) & e_max).astype(np.int64)
    frac = b & ((1 << m) - 1)
    sub = np.ldexp(frac.astype(np.float64), 1 - bias - m).astype(np.float32).view(np.uint32)
    normal = ((exp - bias + 127).clip(0) << 23).astype(np.uint32) | (frac << (23 - m))
    special = np.uint32(0x7F800000) | (frac << (23 - m))
    mag = np.where(exp == e_max, special, np.where(exp == 0, sub, normal))
    return (sign | mag).astype(np.uint32)


_FP8_TABLES = {}


def _fp8_table(dt):
    """The float32 value of each of the 256 patterns of an fp8 dtype."""
    table = _FP8_TABLES.get(dt.name)
    if table is None:
        table = _decode_narrow(np.arange(256, dtype=np.uint32), *dt._format).view(np.float32)
        _FP8_TABLES[dt.name] = table
    return table


def _decode(bits, dt):
    """Bit patterns (a `dt.bits` array) -> a new host array of the exact values."""
    if dt is bool_:
        return bits != 0
    if not dt.is_float or dt is float16 or dt.itemsize == 4:
        return bits.view(dt.host).copy()
    if dt is bfloat16:
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return _fp8_table(dt)[bits]
