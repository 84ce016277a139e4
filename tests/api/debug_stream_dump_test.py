#!/usr/bin/env python3
"""The runtime's built-in debug-stream consumer (NEURON_RT_DEBUG_OUTPUT_DIR,
docs/debug-stream.md) through the installed libnrt, from ctypes; the files are read back with
numpy, so run it with an interpreter that has numpy (Debian's /usr/bin/python3).

The debug_print kernel (tests/api/debug_print.s) makes three prints per execution: "x/hbm"
(x fp32 [4, 2, 4]), "x tile" (x fp32 [4, 8]) and "doubled bf16" (2x bf16 [4, 8]). Run on
logical core 0 by nrt_execute and by nrt_execute_repeat(2), and once on core 1, they must be
written to <dir>/<prefix>/core_<vnc>/<iteration>/{tensor.npy, info.json} with iterations 0, 1, 2
on core 0 and 0 on core 1, the '/' of "x/hbm" made '_', values exact (bf16 widened to float32
exactly), and nrt_debug_client_connect refused with NRT_INVALID while the consumer runs.

Usage: debug_stream_dump_test.py PATH/TO/libnrt.so.1 debug_print.neff WORK_DIR
Runs in-process, or through neurond when TRNSIM_TEST_DAEMON is set. Last line: "N passed, M
failed".
"""
import ctypes as C
import json
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import expect, expect_eq, summary  # noqa: E402

SUCCESS, INVALID = 0, 2
DEVICE, NO_FW = 0, 1


def bind(lib):
    P = C.c_void_p
    sig = {
        "nrt_init": (C.c_int, [C.c_int, C.c_char_p, C.c_char_p]),
        "nrt_close": (None, []),
        "nrt_load": (C.c_int, [C.c_void_p, C.c_size_t, C.c_int, C.c_int, C.POINTER(P)]),
        "nrt_tensor_allocate": (C.c_int, [C.c_int, C.c_int, C.c_size_t, C.c_char_p,
                                          C.POINTER(P)]),
        "nrt_tensor_write": (C.c_int, [P, C.c_void_p, C.c_uint64, C.c_size_t]),
        "nrt_allocate_tensor_set": (C.c_int, [C.POINTER(P)]),
        "nrt_add_tensor_to_tensor_set": (C.c_int, [P, C.c_char_p, P]),
        "nrt_execute": (C.c_int, [P, P, P]),
        "nrt_execute_repeat": (C.c_int, [P, P, P, C.c_int]),
        "nrt_debug_client_connect": (C.c_int, [C.c_int, C.POINTER(C.c_int)]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


def load_and_bind(lib, neff, vnc, x):
    model = C.c_void_p()
    expect_eq(lib.nrt_load(neff, len(neff), vnc, 1, C.byref(model)), SUCCESS, f"nrt_load on {vnc}")
    tx, ty, inputs, outputs = C.c_void_p(), C.c_void_p(), C.c_void_p(), C.c_void_p()
    expect_eq(lib.nrt_tensor_allocate(DEVICE, vnc, x.nbytes, b"x", C.byref(tx)), SUCCESS, "x")
    expect_eq(lib.nrt_tensor_allocate(DEVICE, vnc, x.nbytes, b"y", C.byref(ty)), SUCCESS, "y")
    expect_eq(lib.nrt_tensor_write(tx, x.ctypes.data, 0, x.nbytes), SUCCESS, "write x")
    expect_eq(lib.nrt_allocate_tensor_set(C.byref(inputs)), SUCCESS, "inputs")
    expect_eq(lib.nrt_allocate_tensor_set(C.byref(outputs)), SUCCESS, "outputs")
    expect_eq(lib.nrt_add_tensor_to_tensor_set(inputs, b"x", tx), SUCCESS, "add x")
    expect_eq(lib.nrt_add_tensor_to_tensor_set(outputs, b"y", ty), SUCCESS, "add y")
    return model, inputs, outputs


def check_dump(out, x):
    # Prefix -> (directory, dtype, npy dtype, values).
    prints = {
        "x/hbm": ("x_hbm", "float32", "float32", x.reshape(4, 2, 4)),
        "x tile": ("x tile", "float32", "float32", x),
        "doubled bf16": ("doubled bf16", "bfloat16", "float32", 2 * x),  # exact in bf16
    }
    expect_eq(sorted(os.listdir(out)), sorted(d for d, _, _, _ in prints.values()),
              "one directory per prefix ('/' made '_')")
    for prefix, (directory, dtype, npy_dtype, want) in prints.items():
        for core, iterations in (("core_0", ["0", "1", "2"]), ("core_1", ["0"])):
            base = os.path.join(out, directory, core)
            if not expect(os.path.isdir(base), f"{base} exists"):
                continue
            expect_eq(sorted(os.listdir(base)), iterations, f"iterations of {prefix} on {core}")
            for it in iterations:
                where = os.path.join(base, it)
                expect_eq(sorted(os.listdir(where)), ["info.json", "tensor.npy"], f"{where} files")
                got = np.load(os.path.join(where, "tensor.npy"))
                expect_eq(got.dtype, np.dtype(npy_dtype), f"{where} npy dtype")
                expect_eq(got.shape, want.shape, f"{where} shape")
                expect(np.array_equal(got, want), f"{where} values")
                with open(os.path.join(where, "info.json")) as f:
                    info = json.load(f)
                expect_eq(info["prefix"], prefix, f"{where} prefix")
                expect_eq(info["logical_nc_id"], int(core[-1]), f"{where} logical_nc_id")
                expect_eq(info["dtype"], dtype, f"{where} dtype")
                expect_eq(info["npy_dtype"], npy_dtype, f"{where} npy_dtype")
                expect_eq(info["shape"], list(want.shape), f"{where} info shape")
                expect_eq(info["data_bytes"], want.size * (2 if dtype == "bfloat16" else 4),
                          f"{where} data_bytes")
                expect_eq(info["pipe"], 1, f"{where} pipe")


def main(lib_path, neff_path, work):
    shutil.rmtree(work, ignore_errors=True)
    out = os.path.join(work, "prints")
    for var in ("NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "TRNSIM_DAEMON"):
        os.environ.pop(var, None)
    if os.environ.get("TRNSIM_TEST_DAEMON"):  # the `remote` copy (tests/api/CMakeLists.txt)
        os.environ["TRNSIM_DAEMON"] = os.environ["TRNSIM_TEST_DAEMON"]
    os.environ.update({"TRNSIM_INSTANCE": "trn2.3xlarge", "NEURON_LOGICAL_NC_CONFIG": "1",
                       "NEURON_RT_DEBUG_OUTPUT_DIR": out})
    lib = C.CDLL(lib_path)
    bind(lib)
    with open(neff_path, "rb") as f:
        neff = f.read()
    x = (0.5 * np.arange(32, dtype=np.float32) - 3.0).reshape(4, 8)
    expect_eq(lib.nrt_init(NO_FW, b"", b""), SUCCESS, "nrt_init")
    fd = C.c_int(-5)
    expect_eq(lib.nrt_debug_client_connect(0, C.byref(fd)), INVALID,
              "connect while the built-in consumer runs")
    expect_eq(fd.value, -5, "no descriptor handed out")
    m0 = load_and_bind(lib, neff, 0, x)
    m1 = load_and_bind(lib, neff, 1, x)
    expect_eq(lib.nrt_execute(*m0), SUCCESS, "nrt_execute on core 0")
    # Written before nrt_execute returns.
    expect(os.path.isfile(os.path.join(out, "x tile", "core_0", "0", "tensor.npy")),
           "written by the time nrt_execute returns")
    expect_eq(lib.nrt_execute_repeat(*m0, 2), SUCCESS, "nrt_execute_repeat on core 0")
    expect_eq(lib.nrt_execute(*m1), SUCCESS, "nrt_execute on core 1")
    lib.nrt_close()
    check_dump(out, x)
    shutil.rmtree(work, ignore_errors=True)
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
