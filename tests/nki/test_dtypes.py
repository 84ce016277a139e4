"""python/trnsim_nki/dtypes.py: the NKI dtypes and their exact host representation.

The conversions are checked bit for bit against trnsim's own C++ conversions, dumped by
tests/nki/dtype_vectors.cc into the directory NKI_DTYPE_VECTORS names (CTest runs the
nki.dtype_vectors fixture first; by hand: `build/tests/nki/nki_dtype_vectors DIR` then
`NKI_DTYPE_VECTORS=DIR PYTHONPATH=python python3 -m pytest tests/nki/test_dtypes.py`).
"""

import copy
import os
import pickle

import numpy as np
import pytest

from trnsim_nki import dtypes as dt

NARROW = [dt.bfloat16, dt.float16, dt.float8_e3m4, dt.float8_e4m3, dt.float8_e5m2]
FORMATS = {dt.bfloat16: (8, 7), dt.float16: (5, 10), dt.float8_e3m4: (3, 4),
           dt.float8_e4m3: (4, 3), dt.float8_e5m2: (5, 2)}

# AWS's nki.language dtypes: the current reference (nki/api/nki/language/__init__.py) and the
# legacy one (general/nki/api/nki.language.rst and nki.api.shared.rst).
AWS_NAMES = ["bool_", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32",
             "bfloat16", "tfloat32", "float8_e4m3", "float8_e5m2", "float8_e4m3fn",
             "float8_e8m0fnu", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4"]
ISA_SHORT_NAMES = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "bf16", "fp16", "fp32",
                   "fp32r", "fp8e3", "fp8e4", "fp8e5"}  # simulator/isa/dtype.cc


def vectors(name):
    directory = os.environ.get("NKI_DTYPE_VECTORS")
    if not directory:
        pytest.skip("NKI_DTYPE_VECTORS is not set (CTest's nki.dtypes sets it)")
    return np.load(os.path.join(directory, name))


def all_patterns(t):
    return np.arange(1 << (8 * t.itemsize), dtype=np.uint32).astype(t.bits)


# --- Against trnsim's C++ conversions --------------------------------------------------------


@pytest.mark.parametrize("column,t", list(enumerate(NARROW, 1)), ids=lambda x: str(x))
def test_encode_matches_trnsim(column, t):
    table = vectors("encode.npy")
    inputs, expected = table[:, 0], table[:, column]
    got = np.frombuffer(dt.to_device(inputs.view(np.float32), t), dtype=t.bits.newbyteorder("<"))
    got = got.astype(np.uint32)
    e, m = FORMATS[t]
    quiet = 1 << (m - 1)
    # The one documented difference: a NaN whose payload fits in M bits keeps it, so a
    # signalling NaN stays signalling where trnsim's cast sets the quiet bit.
    frac = inputs & 0x7FFFFF
    fits = ((inputs & 0x7F800000) == 0x7F800000) & (frac != 0) & \
        ((frac & ((1 << (23 - m)) - 1)) == 0) & ((frac & (1 << 22)) == 0)
    assert len(inputs) > 800000 and fits.sum() > 0
    np.testing.assert_array_equal(got[~fits], expected[~fits])
    np.testing.assert_array_equal(got[fits] | quiet, expected[fits])
    kept = ((inputs[fits] >> 31) << (e + m)) | (((1 << e) - 1) << m) | (frac[fits] >> (23 - m))
    np.testing.assert_array_equal(got[fits], kept)


def test_decode_matches_trnsim():
    d16, d8 = vectors("decode16.npy"), vectors("decode8.npy")
    for t, table, column in [(dt.bfloat16, d16, 1), (dt.float16, d16, 2),
                             (dt.float8_e3m4, d8, 1), (dt.float8_e4m3, d8, 2),
                             (dt.float8_e5m2, d8, 3)]:
        buf = table[:, 0].astype(t.bits.newbyteorder("<")).tobytes()
        values = dt.from_device(buf, t, len(table)).astype(np.float32)  # fp16 widens exactly
        np.testing.assert_array_equal(values.view(np.uint32), table[:, column], err_msg=t.name)


def test_round_to_is_the_decoded_device_value():
    table = vectors("encode.npy")
    x = table[:, 0].view(np.float32)
    finite = np.isfinite(x)
    for t in NARROW:
        expected = dt.from_device(dt.to_device(x, t), t, x.shape)
        got = dt.round_to(x, t)
        assert got.dtype == t.host
        np.testing.assert_array_equal(got[finite], expected[finite], err_msg=t.name)


# --- Exactness -------------------------------------------------------------------------------


@pytest.mark.parametrize("t", NARROW, ids=str)
def test_every_pattern_round_trips(t):
    bits = all_patterns(t)
    buf = bits.astype(t.bits.newbyteorder("<")).tobytes()
    values = dt.from_device(buf, t, bits.shape)
    assert values.dtype == t.host
    assert dt.to_device(values, t) == buf
    np.testing.assert_array_equal(dt.from_device(buf, t, bits.shape, raw=True), bits)
    np.testing.assert_array_equal(dt.round_to(values, t).view(t.host), values)


def test_32_bit_floats_are_stored_as_is():
    bits = np.random.default_rng(1).integers(0, 1 << 32, 100000, dtype=np.uint32)
    bits[:4] = [0x7F800001, 0xFFC00000, 0x00000001, 0x80000000]  # sNaN, qNaN, subnormal, -0
    for t in (dt.float32, dt.tfloat32):
        buf = dt.to_device(bits.view(np.float32), t)
        assert buf == bits.astype("<u4").tobytes()
        np.testing.assert_array_equal(dt.from_device(buf, t, bits.shape).view(np.uint32), bits)


def test_format_boundaries():
    """docs/numerics.md section 1: max finite, overflow at max + half an ulp (the tie too),
    subnormals kept, values at half the smallest subnormal go to 0."""
    cases = {
        dt.float8_e4m3: [(240, 240), (247.99, 240), (248, np.inf), (2.0**-9, 2.0**-9),
                         (2.0**-10, 0), (2.0**-10 * 1.01, 2.0**-9), (-1e9, -np.inf)],
        dt.float8_e5m2: [(57344, 57344), (61439, 57344), (61440, np.inf), (2.0**-17, 0),
                         (2.0**-16, 2.0**-16)],
        dt.float8_e3m4: [(15.5, 15.5), (15.75, np.inf), (2.0**-6, 2.0**-6), (2.0**-7, 0),
                         (1.03125, 1.0), (1.09375, 1.125)],
        dt.bfloat16: [(1 + 2.0**-8, 1.0), (1 + 3 * 2.0**-8, 1 + 2.0**-6), (2.0**-133, 2.0**-133),
                      (3.3895314e38, 3.3895314e38), (3.4e38, np.inf)],
        dt.float16: [(65504, 65504), (65519.99, 65504), (65520, np.inf), (2.0**-24, 2.0**-24),
                     (2.0**-25, 0)],
    }
    for t, pairs in cases.items():
        x = np.array([p[0] for p in pairs], dtype=np.float32)
        want = np.array([p[1] for p in pairs], dtype=np.float32)
        np.testing.assert_array_equal(dt.round_to(x, t).astype(np.float32), want, err_msg=t.name)
        np.testing.assert_array_equal(dt.round_to(-x, t).astype(np.float32), -want)


def test_nan_payload_rule():
    b = np.array([0x7FC00000, 0x7F810000, 0x7F800001, 0xFFA00000], dtype=np.uint32)
    got = dt.from_device(dt.to_device(b.view(np.float32), dt.bfloat16), dt.bfloat16, 4, raw=True)
    # quiet stays quiet; a signalling payload that fits is kept; payload only in dropped bits
    # becomes the quiet NaN; the sign is kept.
    np.testing.assert_array_equal(got, np.array([0x7FC0, 0x7F81, 0x7FC0, 0xFFA0], np.uint16))


def test_non_float32_inputs_go_through_float32():
    rng = np.random.default_rng(2)
    x64 = rng.standard_normal(10000) * 1e3
    x64[:3] = [1e300, -1e300, 1 + 2.0**-8 + 2.0**-40]  # overflow; a double-rounding case
    with np.errstate(over="ignore"):
        x32 = x64.astype(np.float32)
    for t in NARROW:
        assert dt.to_device(x64, t) == dt.to_device(x32, t)
    # 1 + 2^-8 + 2^-40 is above the bf16 tie, but its float32 is the tie itself, which goes to
    # the even 1.0.
    assert dt.round_to(x64[2:3], dt.bfloat16)[0] == 1.0
    ints = np.arange(-300, 300, dtype=np.int64)
    for t in NARROW:
        assert dt.to_device(ints, t) == dt.to_device(ints.astype(np.float32), t)
    assert dt.to_device([True, False], dt.bfloat16) == np.array([0x3F80, 0], "<u2").tobytes()


def test_layout_is_c_order_little_endian():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert dt.to_device(x.T, dt.float32) == np.ascontiguousarray(x.T).tobytes()
    big = np.arange(6, dtype=">i4")
    assert dt.to_device(big, dt.int32) == np.arange(6, dtype="<i4").tobytes()
    assert dt.to_device(np.float32(1.0), dt.bfloat16) == b"\x80\x3f"
    out = dt.from_device(dt.to_device(x, dt.bfloat16), dt.bfloat16, (2, 3))
    assert out.shape == (2, 3) and out.flags.c_contiguous and out.flags.writeable
    np.testing.assert_array_equal(out, x)


# --- Integers and bool_ ----------------------------------------------------------------------


def test_integers_are_range_checked():
    with pytest.raises(ValueError, match=r"value 128 at index \(1,\).*\[-128, 127\]"):
        dt.to_device(np.array([1, 128]), dt.int8)
    with pytest.raises(ValueError, match="out of range"):
        dt.to_device(np.array([-1], np.int16), dt.uint16)
    with pytest.raises(ValueError, match="out of range"):
        dt.to_device(np.array([2**32], np.int64), dt.uint32)
    with pytest.raises(ValueError, match="not an integer"):
        dt.to_device(np.array([1.5]), dt.int32)
    with pytest.raises(ValueError, match="not an integer"):
        dt.to_device(np.array([np.nan], np.float32), dt.int32)
    assert dt.to_device(np.array([-128, 127]), dt.int8) == b"\x80\x7f"
    assert dt.to_device(np.array([3.0, -2.0]), dt.int16) == np.array([3, -2], "<i2").tobytes()
    # An array of exactly the type is stored as it is.
    assert dt.to_device(np.array([-1], np.int32), dt.int32) == b"\xff\xff\xff\xff"
    for t in (dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32):
        info = np.iinfo(t.host)
        x = np.array([info.min, 0, info.max], dtype=t.host)
        back = dt.from_device(dt.to_device(x.astype(np.int64), t), t, 3)
        assert back.dtype == t.host
        np.testing.assert_array_equal(back, x)
        np.testing.assert_array_equal(dt.round_to(x, t), x)


def test_bool_is_a_byte():
    assert dt.to_device(np.array([True, False, True]), dt.bool_) == b"\x01\x00\x01"
    assert dt.to_device([0, 1.0], dt.bool_) == b"\x00\x01"
    with pytest.raises(ValueError, match="out of range"):
        dt.to_device([2], dt.bool_)
    out = dt.from_device(b"\x00\x01\x07", dt.bool_, 3)
    assert out.dtype == np.bool_ and out.tolist() == [False, True, True]
    assert dt.from_device(b"\x00\x01\x07", dt.bool_, 3, raw=True).tolist() == [0, 1, 7]


# --- Bits ------------------------------------------------------------------------------------


def test_bits_pass_through():
    bits = all_patterns(dt.bfloat16)
    assert dt.to_device(dt.Bits(bits, dt.bfloat16), dt.bfloat16) == bits.astype("<u2").tobytes()
    signed = np.array([-1, 0x7F81], dtype=np.int16)
    assert dt.to_device(dt.Bits(signed, "bf16"), dt.bfloat16) == b"\xff\xff\x81\x7f"
    wide = dt.Bits(np.array([[0x7C, 0xFF]], dtype=np.int64), dt.float8_e4m3)
    assert wide.shape == (1, 2) and wide.array.dtype == np.uint8
    np.testing.assert_array_equal(dt.round_to(wide, dt.float8_e4m3)[0, 1], np.float32(np.nan))
    with pytest.raises(ValueError, match="out of range"):
        dt.Bits(np.array([256]), dt.float8_e5m2)
    with pytest.raises(TypeError, match="integer array"):
        dt.Bits(np.array([1.0]), dt.bfloat16)
    with pytest.raises(ValueError, match="Bits of bfloat16 cannot be stored as float16"):
        dt.to_device(dt.Bits(bits, dt.bfloat16), dt.float16)


# --- Types and lookup ------------------------------------------------------------------------


def test_every_aws_name_is_a_dtype():
    for name in AWS_NAMES + ["float8_e3m4"]:
        t = getattr(dt, name)
        assert t.name == name and dt.lookup(name) is t
        assert t.bits == np.dtype("u%d" % t.itemsize)
        if t.supported:
            assert t.isa in ISA_SHORT_NAMES
            assert np.dtype(t.host).itemsize == t.itemsize or t.host == np.float32
        else:
            assert t.isa is None and len(t.unsupported) > 20
    supported = {t.name: t.isa for t in dt.ALL_DTYPES if t.supported}
    assert supported == {"bool_": "uint8", "int8": "int8", "int16": "int16", "int32": "int32",
                         "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
                         "float16": "fp16", "float32": "fp32", "bfloat16": "bf16",
                         "tfloat32": "fp32r", "float8_e4m3": "fp8e4", "float8_e5m2": "fp8e5",
                         "float8_e3m4": "fp8e3"}


@pytest.mark.parametrize("t", [t for t in dt.ALL_DTYPES if not t.supported], ids=str)
def test_unsupported_types_raise(t):
    for call in (lambda: dt.to_device([0], t), lambda: dt.from_device(b"\0" * t.itemsize, t, 1),
                 lambda: dt.round_to([0], t)):
        with pytest.raises(NotImplementedError, match="nki.language.%s is not supported" % t.name):
            call()


def test_lookup_spellings():
    assert dt.lookup("bf16") is dt.bfloat16
    assert dt.lookup("float8e4") is dt.float8_e4m3
    assert dt.lookup("fp8e3") is dt.float8_e3m4
    assert dt.lookup("fp32r") is dt.tfloat32 and dt.lookup("float32r") is dt.tfloat32
    assert dt.lookup(np.float32) is dt.float32
    assert dt.lookup(np.dtype(">f4")) is dt.float32
    assert dt.lookup("<f2") is dt.float16
    assert dt.lookup(np.bool_) is dt.bool_ and dt.lookup(bool) is dt.bool_
    assert dt.lookup("bool") is dt.bool_
    assert dt.lookup(np.uint8) is dt.uint8
    assert dt.lookup(dt.int32) is dt.int32
    for bad in (None, np.float64, float, "float64", np.int64, "foo", object(), 3, np.complex64):
        with pytest.raises(TypeError, match="is not an NKI dtype"):
            dt.lookup(bad)
    with pytest.raises(TypeError, match="'float64' is not an NKI dtype"):
        dt.lookup("float64")


def test_dtype_objects():
    t = dt.bfloat16
    with pytest.raises(AttributeError):
        t.name = "x"
    assert copy.copy(t) is t and copy.deepcopy(t) is t and pickle.loads(pickle.dumps(t)) is t
    assert t == "bfloat16" and t == "bf16" and t != dt.float32 and t != np.float32
    assert dt.float32 == np.float32 and hash(t) == hash("bfloat16")
    assert {dt.float32: 1}["float32"] == 1
    assert str(t) == "bfloat16" and repr(t) == "DType('bfloat16')"
    assert (t == 5) is False


def test_from_device_checks_its_buffer():
    with pytest.raises(ValueError, match=r"3 bytes for bfloat16\[2\] \(4 bytes expected\)"):
        dt.from_device(b"abc", dt.bfloat16, 2)
    with pytest.raises(ValueError, match="negative dimension"):
        dt.from_device(b"", dt.int8, (-1,))
    with pytest.raises(TypeError, match="cannot store a <U1 array as float32"):
        dt.to_device(np.array(["a"]), dt.float32)
    assert dt.from_device(bytearray(8), dt.float32, (1, 2)).tolist() == [[0.0, 0.0]]
    assert dt.from_device(memoryview(b""), dt.int8, (0, 4)).shape == (0, 4)
