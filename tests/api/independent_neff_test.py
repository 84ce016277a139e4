#!/usr/bin/env python3
"""A NEFF written by an independent writer that follows only AWS's public description
(independent_neff_writer.py) loads through the installed libnrt and reports exactly the tensor
info it declares; a NEFF with foreign instruction streams loads but cannot be executed.

Usage: independent_neff_test.py PATH/TO/libnrt.so.1
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import ctypes as C
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_neff_writer as writer  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import expect, expect_eq, summary  # noqa: E402

SUCCESS, FAILURE, INVALID, INVALID_HANDLE = 0, 1, 2, 3
NO_FW = 1
P = C.c_void_p


class TensorInfo(C.Structure):
    _fields_ = [("name", C.c_char * 256), ("usage", C.c_int), ("size", C.c_size_t),
                ("dtype", C.c_int), ("shape", C.POINTER(C.c_uint32)), ("ndim", C.c_uint32)]


class ModelInfo(C.Structure):
    _fields_ = [("vnc", C.c_uint32)]


def bind(lib):
    sig = {
        "nrt_init": (C.c_int, [C.c_int, C.c_char_p, C.c_char_p]),
        "nrt_close": (None, []),
        "nrt_load": (C.c_int, [P, C.c_size_t, C.c_int32, C.c_int32, C.POINTER(P)]),
        "nrt_unload": (C.c_int, [P]),
        "nrt_get_model_tensor_info": (C.c_int, [P, C.POINTER(P)]),
        "nrt_free_model_tensor_info": (C.c_int, [P]),
        "nrt_get_model_info": (C.c_int, [P, C.POINTER(ModelInfo), C.c_size_t,
                                         C.POINTER(C.c_size_t)]),
        "nrt_allocate_tensor_set": (C.c_int, [C.POINTER(P)]),
        "nrt_destroy_tensor_set": (None, [C.POINTER(P)]),
        "nrt_execute": (C.c_int, [P, P, P]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


def init(lib, lnc, validate_hash=False):
    os.environ["NEURON_LOGICAL_NC_CONFIG"] = str(lnc)
    os.environ["NEURON_RT_VALIDATE_HASH"] = "true" if validate_hash else "false"
    expect_eq(lib.nrt_init(NO_FW, b"", b""), SUCCESS, f"nrt_init LNC={lnc}")


def load(lib, data):
    model = P()
    buf = C.create_string_buffer(data, len(data))
    status = lib.nrt_load(buf, len(data), -1, -1, C.byref(model))
    return status, model


def tensor_info(lib, model):
    """[(name, usage, size, dtype, shape)] read from the raw block, checking its layout."""
    block = P()
    expect_eq(lib.nrt_get_model_tensor_info(model, C.byref(block)), SUCCESS, "tensor info")
    if not block.value:
        return []
    count = C.c_uint64.from_address(block.value).value
    out = []
    for i in range(count):
        entry = TensorInfo.from_address(block.value + 8 + 296 * i)
        raw = C.string_at(block.value + 8 + 296 * i, 296)
        name = raw[:256].split(b"\0", 1)[0]
        expect_eq(entry.name, name, "name at offset 0")
        expect_eq(struct.unpack_from("<Q", raw, 264)[0], entry.size, "size at offset 264")
        expect_eq(struct.unpack_from("<I", raw, 288)[0], entry.ndim, "ndim at offset 288")
        shape = [entry.shape[d] for d in range(entry.ndim)]
        out.append((entry.name.decode(), entry.usage, entry.size, entry.dtype, shape))
    expect_eq(lib.nrt_free_model_tensor_info(block), SUCCESS, "free tensor info")
    return out


def expected_info(tensors):
    return [(t.name, t.usage, t.size, writer.DTYPES[t.dtype][0], list(t.shape))
            for t in tensors]


def check_variant(lib, name, data, foreign, tensors):
    status, model = load(lib, data)
    expect_eq(status, SUCCESS, f"{name}: nrt_load")
    if status != SUCCESS:
        return
    got = tensor_info(lib, model)
    if all(t.dtype is not None for t in tensors):
        expect_eq(got, expected_info(tensors), f"{name}: tensor info")
    else:  # no neff.json: names, usages and sizes from the I/O variables; dtype not recorded
        expect_eq([g[:4] for g in got], [(t.name, t.usage, t.size, 0) for t in tensors],
                  f"{name}: tensor names, usages, sizes, NRT_DTYPE_UNKNOWN")
    info, size = ModelInfo(), C.c_size_t()
    expect_eq(lib.nrt_get_model_info(model, C.byref(info), 4, C.byref(size)), SUCCESS,
              f"{name}: model info")
    expect_eq(size.value, 4, f"{name}: model info size")
    if foreign:
        inputs, outputs = P(), P()
        lib.nrt_allocate_tensor_set(C.byref(inputs))
        lib.nrt_allocate_tensor_set(C.byref(outputs))
        expect_eq(lib.nrt_execute(model, inputs, outputs), INVALID,
                  f"{name}: nrt_execute on a foreign model")
        lib.nrt_destroy_tensor_set(C.byref(inputs))
        lib.nrt_destroy_tensor_set(C.byref(outputs))
    expect_eq(lib.nrt_unload(model), SUCCESS, f"{name}: unload")
    expect_eq(lib.nrt_unload(model), INVALID_HANDLE, f"{name}: unload twice")


def main(path):
    lib = C.CDLL(path)
    bind(lib)
    for var in ("NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "TRNSIM_DAEMON"):
        os.environ.pop(var, None)
    if os.environ.get("TRNSIM_TEST_DAEMON"):  # the `remote` copy (tests/api/CMakeLists.txt)
        os.environ["TRNSIM_DAEMON"] = os.environ["TRNSIM_TEST_DAEMON"]
    os.environ["TRNSIM_INSTANCE"] = "trn2.3xlarge"
    variants = writer.variants()

    for validate_hash in (False, True):
        for lnc in (1, 2):
            init(lib, lnc, validate_hash)
            for name, (data, neff_lnc, foreign, tensors) in variants.items():
                where = f"{name} (LNC={lnc}, validate_hash={validate_hash})"
                if neff_lnc == lnc:
                    check_variant(lib, where, data, foreign, tensors)
                else:
                    status, _ = load(lib, data)
                    expect_eq(status, INVALID, f"{where}: LNC mismatch")
            lib.nrt_close()

    # A wrong payload hash is caught only when NEURON_RT_VALIDATE_HASH is true.
    data = bytearray(variants["graph"][0])
    data[172] ^= 0xFF
    init(lib, 1, validate_hash=False)
    status, model = load(lib, bytes(data))
    expect_eq(status, SUCCESS, "bad hash, not validated")
    lib.nrt_close()
    init(lib, 1, validate_hash=True)
    expect_eq(load(lib, bytes(data))[0], INVALID, "bad hash, validated")
    # Truncated and corrupted payloads.
    good = variants["graph"][0]
    expect_eq(load(lib, good[:len(good) - 10])[0], INVALID, "truncated NEFF")
    expect_eq(load(lib, good[:1024])[0], INVALID, "header only")
    lib.nrt_close()

    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
