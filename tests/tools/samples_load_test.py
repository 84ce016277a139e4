#!/usr/bin/env python3
"""Conformance: every installed sample NEFF loads through the installed libnrt and reports the
inputs and outputs its manifest declares (nrt_load + nrt_get_model_tensor_info), the way a
framework wrapper sees them from ctypes.

Usage: samples_load_test.py PATH/TO/libnrt.so.1 PREFIX/share/trnsim/neff LNC
Loads the samples built for LNC (the runtime runs with NEURON_LOGICAL_NC_CONFIG=LNC). A
collective sample (manifest "collective_ranks") must be refused by nrt_load (NRT_INVALID) and
load with nrt_load_collectives as rank 0 of its world.
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import ctypes as C
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import expect, summary  # noqa: E402

# nrt_dtype_t values (the hardware type codes) by the NEFF's dtype names.
DTYPES = {"float32": 10, "bfloat16": 6, "float16": 7, "int32": 8, "uint8": 3}
USAGE = {"input": 0, "output": 1}
NO_FW = 1


class TensorInfo(C.Structure):
    _fields_ = [("name", C.c_char * 256), ("usage", C.c_int), ("size", C.c_size_t),
                ("dtype", C.c_int), ("shape", C.POINTER(C.c_uint32)), ("ndim", C.c_uint32)]


class TensorInfoArray(C.Structure):
    _fields_ = [("tensor_count", C.c_uint64), ("tensor_array", TensorInfo * 0)]


def main(lib_path, samples, lnc):
    os.environ["NEURON_LOGICAL_NC_CONFIG"] = str(lnc)
    os.environ["NEURON_RT_ROOT_COMM_ID"] = "127.0.0.1:29500"  # for the collective samples
    for var in ("NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "TRNSIM_DAEMON"):
        os.environ.pop(var, None)
    lib = C.CDLL(lib_path)
    P = C.c_void_p
    lib.nrt_init.argtypes = [C.c_int, C.c_char_p, C.c_char_p]
    lib.nrt_load.argtypes = [P, C.c_size_t, C.c_int32, C.c_int32, C.POINTER(P)]
    lib.nrt_load_collectives.argtypes = [P, C.c_size_t, C.c_int32, C.c_int32, C.c_uint32,
                                         C.c_uint32, C.POINTER(P)]
    lib.nrt_unload.argtypes = [P]
    lib.nrt_get_model_tensor_info.argtypes = [P, C.POINTER(C.POINTER(TensorInfoArray))]
    lib.nrt_free_model_tensor_info.argtypes = [C.POINTER(TensorInfoArray)]
    lib.nrt_close.restype = None
    expect(lib.nrt_init(NO_FW, b"", b"") == 0, "nrt_init")
    manifest = json.load(open(os.path.join(samples, "manifest.json")))
    chosen = [s for s in manifest if s["lnc"] == lnc]
    expect(len(chosen) > 0, f"samples for LNC={lnc}")
    for s in chosen:
        data = open(os.path.join(samples, s["neff"]), "rb").read()
        buf = C.create_string_buffer(data, len(data))
        model = P()
        st = lib.nrt_load(buf, len(data), 0, -1, C.byref(model))
        if "collective_ranks" in s:
            expect(st == 2, f"{s['name']}: nrt_load of a collective NEFF is NRT_INVALID ({st})")
            world = max(1, s["collective_ranks"])
            st = lib.nrt_load_collectives(buf, len(data), 0, -1, 0, world, C.byref(model))
            expect(st == 0, f"{s['name']}: nrt_load_collectives status {st}")
        else:
            expect(st == 0, f"{s['name']}: nrt_load status {st}")
        if st != 0:
            continue
        info = C.POINTER(TensorInfoArray)()
        st = lib.nrt_get_model_tensor_info(model, C.byref(info))
        expect(st == 0, f"{s['name']}: nrt_get_model_tensor_info status {st}")
        if st == 0:
            count = info.contents.tensor_count
            entries = C.cast(C.addressof(info.contents.tensor_array), C.POINTER(TensorInfo))
            got = []
            for i in range(count):
                t = entries[i]
                got.append({"name": t.name.decode(), "usage": t.usage, "dtype": t.dtype,
                            "shape": [t.shape[d] for d in range(t.ndim)], "size": t.size})
            want = []
            for usage, key in (("input", "inputs"), ("output", "outputs")):
                for t in s[key]:
                    n = 1
                    for d in t["shape"]:
                        n *= d
                    size = n * (4 if t["dtype"] == "float32" else 2)
                    want.append({"name": t["name"], "usage": USAGE[usage], "dtype": DTYPES[t["dtype"]],
                                 "shape": t["shape"], "size": size})
            expect(got == want, f"{s['name']}: tensor info {got} == {want}")
            lib.nrt_free_model_tensor_info(info)
        expect(lib.nrt_unload(model) == 0, f"{s['name']}: nrt_unload")
    lib.nrt_close()
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
