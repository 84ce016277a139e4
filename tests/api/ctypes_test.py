#!/usr/bin/env python3
"""Conformance test of the installed libnrt from Python ctypes, the way framework wrappers and
scripts load AWS's library: ctypes.CDLL("libnrt.so.1") with argtypes/restype declared.

Usage: ctypes_test.py PATH/TO/libnrt.so.1
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import ctypes as C
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import expect, expect_eq, summary  # noqa: E402


# --- Layouts, written from AWS's headers as documented (x86-64) ------------------------------
class Version(C.Structure):
    _fields_ = [("rt_major", C.c_uint64), ("rt_minor", C.c_uint64), ("rt_patch", C.c_uint64),
                ("rt_maintenance", C.c_uint64), ("rt_detail", C.c_char * 128),
                ("git_hash", C.c_char * 64)]


class InstanceInfo(C.Structure):
    _fields_ = [("family", C.c_uint32), ("size", C.c_uint32), ("arch_name", C.c_char * 16),
                ("device_revision", C.c_char * 8)]


class DeviceAllocationInfo(C.Structure):
    _fields_ = [("physical_address", C.c_uint64), ("size", C.c_size_t), ("hbm_index", C.c_int)]


class VncMemoryStats(C.Structure):
    _fields_ = [("bytes_used", C.c_size_t), ("bytes_limit", C.c_size_t)]


class BatchOp(C.Structure):
    _fields_ = [("offset", C.c_uint64), ("size", C.c_uint64), ("buffer", C.c_void_p)]


class Batch(C.Structure):
    _fields_ = [("tensor", C.c_void_p), ("ops", C.POINTER(BatchOp)), ("num_ops", C.c_uint32)]


class TensorInfo(C.Structure):
    _fields_ = [("name", C.c_char * 256), ("usage", C.c_int), ("size", C.c_size_t),
                ("dtype", C.c_int), ("shape", C.POINTER(C.c_uint32)), ("ndim", C.c_uint32)]


# Status values (nrt_status.h) and the names nrt_get_status_as_str must give them.
STATUS = {0: "NRT_SUCCESS", 1: "NRT_FAILURE", 2: "NRT_INVALID", 3: "NRT_INVALID_HANDLE",
          4: "NRT_RESOURCE", 5: "NRT_TIMEOUT", 6: "NRT_HW_ERROR", 7: "NRT_QUEUE_FULL",
          9: "NRT_LOAD_NOT_ENOUGH_NC", 10: "NRT_UNSUPPORTED_NEFF_VERSION",
          11: "NRT_FAIL_HOST_MEM_ALLOC", 13: "NRT_UNINITIALIZED", 14: "NRT_CLOSED",
          15: "NRT_QUEUE_EMPTY", 101: "NRT_EXEC_UNIT_UNRECOVERABLE", 1002: "NRT_EXEC_BAD_INPUT",
          1003: "NRT_EXEC_COMPLETED_WITH_NUM_ERR", 1004: "NRT_EXEC_COMPLETED_WITH_ERR",
          1005: "NRT_EXEC_NC_BUSY", 1006: "NRT_EXEC_OOB", 1100: "NRT_COLL_PENDING",
          1200: "NRT_EXEC_HW_ERR_COLLECTIVES", 1201: "NRT_EXEC_HW_ERR_HBM_UE",
          1202: "NRT_EXEC_HW_ERR_NC_UE", 1203: "NRT_EXEC_HW_ERR_DMA_ABORT",
          1204: "NRT_EXEC_SW_NQ_OVERFLOW", 1205: "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE",
          1206: "NRT_NETWORK_PROXY_FAILURE"}
SUCCESS, FAILURE, INVALID, INVALID_HANDLE, RESOURCE = 0, 1, 2, 3, 4
UNINITIALIZED, CLOSED = 13, 14
DEVICE, HOST, VIRTUAL = 0, 1, 2
NO_FW = 1
GiB = 1 << 30


def bind(lib):
    P = C.c_void_p
    sig = {
        "nrt_init": (C.c_int, [C.c_int, C.c_char_p, C.c_char_p]),
        "nrt_close": (None, []),
        "nrt_get_version": (C.c_int, [C.POINTER(Version), C.c_size_t]),
        "nrt_get_status_as_str": (C.c_char_p, [C.c_int]),
        "nrt_get_instance_info": (C.c_int, [C.POINTER(InstanceInfo), C.c_size_t]),
        "nrt_get_total_vnc_count": (C.c_int, [C.POINTER(C.c_uint32)]),
        "nrt_get_visible_vnc_count": (C.c_int, [C.POINTER(C.c_uint32)]),
        "nrt_tensor_allocate": (C.c_int, [C.c_int, C.c_int, C.c_size_t, C.c_char_p,
                                          C.POINTER(P)]),
        "nrt_tensor_free": (None, [C.POINTER(P)]),
        "nrt_tensor_read": (C.c_int, [P, P, C.c_size_t, C.c_size_t]),
        "nrt_tensor_write": (C.c_int, [P, P, C.c_size_t, C.c_size_t]),
        "nrt_tensor_copy": (C.c_int, [P, C.c_size_t, P, C.c_size_t, C.c_size_t]),
        "nrt_tensor_get_size": (C.c_size_t, [P]),
        "nrt_tensor_memset": (C.c_int, [P, C.c_uint64, C.c_int, C.c_size_t]),
        "nrt_tensor_allocate_slice": (C.c_int, [P, C.c_size_t, C.c_size_t, C.c_char_p,
                                                C.POINTER(P)]),
        "nrt_tensor_get_va": (P, [P]),
        "nrt_tensor_get_device_allocation_info": (C.c_int, [P, C.POINTER(DeviceAllocationInfo)]),
        "nrt_tensor_read_batch": (C.c_int, [C.POINTER(Batch), C.c_uint64, C.c_bool]),
        "nrt_get_vnc_memory_stats": (C.c_int, [C.c_uint32, C.POINTER(VncMemoryStats),
                                               C.c_size_t, C.POINTER(C.c_size_t)]),
        "nrt_allocate_tensor_set": (C.c_int, [C.POINTER(P)]),
        "nrt_destroy_tensor_set": (None, [C.POINTER(P)]),
        "nrt_add_tensor_to_tensor_set": (C.c_int, [P, C.c_char_p, P]),
        "nrt_get_tensor_from_tensor_set": (C.c_int, [P, C.c_char_p, C.POINTER(P)]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def test_layouts():
    for struct, size in ((Version, 224), (InstanceInfo, 32), (DeviceAllocationInfo, 24),
                         (VncMemoryStats, 16), (BatchOp, 24), (Batch, 24), (TensorInfo, 296)):
        expect_eq(C.sizeof(struct), size, f"sizeof({struct.__name__})")
    expect_eq(Version.git_hash.offset, 160, "nrt_version_t.git_hash offset")
    expect_eq(InstanceInfo.device_revision.offset, 24, "nrt_instance_info_t.device_revision")
    expect_eq(DeviceAllocationInfo.hbm_index.offset, 16, "hbm_index offset")
    expect_eq(TensorInfo.usage.offset, 256, "nrt_tensor_info_t.usage offset")
    expect_eq(TensorInfo.dtype.offset, 272, "nrt_tensor_info_t.dtype offset")
    expect_eq(TensorInfo.ndim.offset, 288, "nrt_tensor_info_t.ndim offset")


def test_status_names(lib):
    for value, name in STATUS.items():
        expect_eq(lib.nrt_get_status_as_str(value), name.encode(), f"status name {value}")


def counts(lib):
    total, visible = C.c_uint32(), C.c_uint32()
    s1 = lib.nrt_get_total_vnc_count(C.byref(total))
    s2 = lib.nrt_get_visible_vnc_count(C.byref(visible))
    info = InstanceInfo()
    s3 = lib.nrt_get_instance_info(C.byref(info), C.sizeof(info))
    return (s1, s2, s3), total.value, visible.value, info.family, info.size


def test_instance_answers(lib):
    cases = [  # instance, LNC, total vnc, family, size
        ("trn2.48xlarge", "2", 64, 5, 7), ("trn2.48xlarge", "1", 128, 5, 7),
        ("trn2.3xlarge", "2", 4, 5, 8), ("trn2.3xlarge", "1", 8, 5, 8),
        ("trn2u.48xlarge", "2", 64, 9, 7), ("trn3.48xlarge", "2", 64, 14, 7),
        ("trn3.48xlarge", "1", 128, 14, 7)]
    for instance, lnc, total, family, size in cases:
        os.environ["TRNSIM_INSTANCE"] = instance
        os.environ["NEURON_LOGICAL_NC_CONFIG"] = lnc
        statuses, got_total, got_visible, got_family, got_size = counts(lib)
        where = f"{instance} LNC={lnc}"
        expect_eq(statuses, (SUCCESS,) * 3, f"{where} statuses")
        expect_eq((got_total, got_visible, got_family, got_size),
                  (total, total, family, size), where)
    os.environ["NEURON_RT_VISIBLE_CORES"] = "2-5"
    expect_eq(counts(lib)[2], 4, "visible count with NEURON_RT_VISIBLE_CORES=2-5")
    os.environ["NEURON_RT_VISIBLE_CORES"] = "1,3"
    expect_eq(counts(lib)[0][1], INVALID, "non-contiguous NEURON_RT_VISIBLE_CORES")
    os.environ["NEURON_RT_VISIBLE_CORES"] = "500"
    expect_eq(counts(lib)[0][1], FAILURE, "NEURON_RT_VISIBLE_CORES past the instance")
    del os.environ["NEURON_RT_VISIBLE_CORES"]
    os.environ["NEURON_LOGICAL_NC_CONFIG"] = "3"
    expect_eq(counts(lib)[0][0], INVALID, "NEURON_LOGICAL_NC_CONFIG=3")
    expect_eq(lib.nrt_init(NO_FW, b"", b""), INVALID, "nrt_init with LNC=3")
    os.environ["TRNSIM_INSTANCE"] = "trn9.huge"
    os.environ["NEURON_LOGICAL_NC_CONFIG"] = "2"
    expect_eq(counts(lib)[0][0], INVALID, "unknown TRNSIM_INSTANCE")
    os.environ["TRNSIM_INSTANCE"] = "trn2.3xlarge"


def test_tensors(lib):
    P = C.c_void_p
    t = P()
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, 64, b"t", C.byref(t)), UNINITIALIZED,
              "allocate before nrt_init")
    expect_eq(lib.nrt_init(NO_FW, b"", b""), SUCCESS, "nrt_init")

    version = Version()
    expect_eq(lib.nrt_get_version(C.byref(version), C.sizeof(version)), SUCCESS, "version")
    expect_eq(version.rt_major, 2, "rt_major")
    expect(version.rt_detail.startswith(b"libnrt version 2."), "rt_detail prefix")

    n = 1 << 20
    payload = bytes((i * 31 + 7) & 0xFF for i in range(n))
    a, b = P(), P()
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, n, b"a", C.byref(a)), SUCCESS, "allocate a")
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, n, b"b", C.byref(b)), SUCCESS, "allocate b")
    expect_eq(lib.nrt_tensor_get_size(a), n, "get_size")
    src = C.create_string_buffer(payload, n)
    dst = C.create_string_buffer(n)
    expect_eq(lib.nrt_tensor_write(a, src, 0, n), SUCCESS, "write")
    expect_eq(lib.nrt_tensor_copy(a, 0, b, 0, n), SUCCESS, "device copy")
    expect_eq(lib.nrt_tensor_read(b, dst, 0, n), SUCCESS, "read")
    expect(dst.raw == payload, "1 MiB round trip through emulated HBM")

    # Bad inputs: each a status, nothing written.
    expect_eq(lib.nrt_tensor_write(a, src, n - 1, 2), INVALID, "write past the end")
    expect_eq(lib.nrt_tensor_read(a, None, 0, 4), INVALID, "read into NULL")
    expect_eq(lib.nrt_tensor_read(None, dst, 0, 4), INVALID, "read from NULL tensor")
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 4, 64, b"x", C.byref(t)), INVALID,
              "vnc outside the visible set")
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, 64, b"x", None), INVALID, "NULL out pointer")
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, 100 * GiB, b"x", C.byref(t)), RESOURCE,
              "more than an HBM stack")

    # memset, slices, device allocation info.
    expect_eq(lib.nrt_tensor_memset(a, 0, 0xEE, 16), SUCCESS, "memset")
    s = P()
    expect_eq(lib.nrt_tensor_allocate_slice(a, 8, 16, b"s", C.byref(s)), SUCCESS, "slice")
    small = C.create_string_buffer(16)
    expect_eq(lib.nrt_tensor_read(s, small, 0, 16), SUCCESS, "read slice")
    expect_eq(small.raw, b"\xee" * 8 + payload[16:24], "slice aliases its source")
    info = DeviceAllocationInfo()
    expect_eq(lib.nrt_tensor_get_device_allocation_info(a, C.byref(info)), SUCCESS, "alloc info")
    expect_eq(info.hbm_index, 0, "vnc 0 uses HBM 0")
    expect(info.size >= n, "allocation size covers the tensor")

    # Batch read.
    out1, out2 = C.create_string_buffer(4), C.create_string_buffer(4)
    ops = (BatchOp * 2)(BatchOp(100, 4, C.cast(out1, P)), BatchOp(200, 4, C.cast(out2, P)))
    batch = Batch(b.value, ops, 2)
    expect_eq(lib.nrt_tensor_read_batch(C.byref(batch), 1, False), SUCCESS, "read batch")
    expect_eq(out1.raw + out2.raw, payload[100:104] + payload[200:204], "batch contents")

    # Host tensor VA is the data.
    h = P()
    expect_eq(lib.nrt_tensor_allocate(HOST, -1, 16, b"h", C.byref(h)), SUCCESS, "host tensor")
    expect_eq(lib.nrt_tensor_write(h, src, 0, 16), SUCCESS, "host write")
    expect_eq(C.string_at(lib.nrt_tensor_get_va(h), 16), payload[:16], "host VA")

    # Memory stats and tensor sets.
    stats, written = VncMemoryStats(), C.c_size_t()
    expect_eq(lib.nrt_get_vnc_memory_stats(0, C.byref(stats), C.sizeof(stats), C.byref(written)),
              SUCCESS, "memory stats")
    expect_eq(stats.bytes_used, 2 * n, "bytes used by two 1 MiB tensors")
    expect_eq(stats.bytes_limit, 24 * GiB, "one trn2 HBM stack")
    tset, got = P(), P()
    expect_eq(lib.nrt_allocate_tensor_set(C.byref(tset)), SUCCESS, "tensor set")
    expect_eq(lib.nrt_add_tensor_to_tensor_set(tset, b"in0", a), SUCCESS, "add to set")
    expect_eq(lib.nrt_get_tensor_from_tensor_set(tset, b"in0", C.byref(got)), SUCCESS, "get")
    expect_eq(got.value, a.value, "set returns the tensor")
    expect_eq(lib.nrt_get_tensor_from_tensor_set(tset, b"nope", C.byref(got)), FAILURE,
              "missing name")
    lib.nrt_destroy_tensor_set(C.byref(tset))
    expect_eq(tset.value, None, "destroy NULLs the pointer")

    stale = P(b.value)
    lib.nrt_tensor_free(C.byref(b))
    expect_eq(b.value, None, "free NULLs the pointer")
    expect_eq(lib.nrt_tensor_read(stale, dst, 0, 4), INVALID_HANDLE, "freed handle")
    for handle in (a, s, h):
        lib.nrt_tensor_free(C.byref(handle))
    lib.nrt_close()
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, 64, b"t", C.byref(t)), CLOSED,
              "allocate after nrt_close")


def main(path):
    lib = C.CDLL(path)
    bind(lib)
    for var in ("NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "TRNSIM_DAEMON"):
        os.environ.pop(var, None)
    if os.environ.get("TRNSIM_TEST_DAEMON"):  # the `remote` copy (tests/api/CMakeLists.txt)
        os.environ["TRNSIM_DAEMON"] = os.environ["TRNSIM_TEST_DAEMON"]
    test_layouts()
    test_status_names(lib)
    test_instance_answers(lib)
    test_tensors(lib)
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
