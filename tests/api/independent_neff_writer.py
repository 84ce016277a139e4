#!/usr/bin/env python3
"""An independent NEFF writer: it follows only AWS's public description of the container (the
1024-byte header, a gzip'd tar with sgNN/def.json, engine JSONs with DMA descriptors, .npy and
raw constants, neff.json; tools-driver-facts §5) and uses no trnsim code, so that loading its
output checks trnsim's reader against the description rather than against trnsim's own writer.
Python standard library only.

Usage: independent_neff_writer.py OUTDIR
Writes OUTDIR/<variant>.neff and OUTDIR/<variant>.expect for every variant in VARIANTS. An
.expect file is what nrt_get_model_tensor_info must report, for tests/api/c_load_test.c:
    lnc N
    foreign 0|1
    tensor NAME USAGE SIZE DTYPE NDIM DIM...     (one line per tensor, inputs first)
USAGE is nrt_tensor_usage_t (0 input, 1 output); DTYPE is nrt_dtype_t's hardware code; NDIM -1
means the NEFF records no shape (no neff.json), so none is checked.
"""
import gzip
import hashlib
import io
import json
import os
import struct
import sys
import tarfile

# nrt_dtype_t hardware codes (nrt-api-facts §4.1), element sizes and numpy descriptors.
DTYPES = {  # name: (code, bytes, npy descr)
    "float32": (0xA, 4, "<f4"), "bfloat16": (0x6, 2, "<V2"), "float16": (0x7, 2, "<f2"),
    "int32": (0x8, 4, "<i4"), "uint8": (0x3, 1, "|u1"), "int8": (0x2, 1, "|i1"),
    "int64": (0xC, 8, "<i8"),
}
INPUT, OUTPUT = 0, 1
HEADER_BYTES = 1024


def header(payload, lnc, subgraphs, name, pkg_version=2):
    """neff_header_t (tools-driver-facts §5.2), every field, little-endian."""
    if pkg_version == 1:
        digest = hashlib.sha256(payload).digest()
    else:
        digest = hashlib.md5(payload).digest()
    out = bytearray(HEADER_BYTES)
    struct.pack_into("<QQQQQ", out, 0, pkg_version, HEADER_BYTES, len(payload), 2, 0)
    out[40:40 + 128] = b"independent-writer 1.0".ljust(128, b"\0")
    struct.pack_into("<I", out, 168, subgraphs)                       # num_tpb
    out[172:172 + 32] = digest.ljust(32, b"\0")                       # hash
    out[204:204 + 16] = hashlib.md5(name.encode()).digest()           # uuid
    out[220:220 + 256] = name.encode().ljust(256, b"\0")              # name
    struct.pack_into("<I", out, 476, subgraphs)                       # requested_tpb_count
    out[480] = subgraphs                                              # tpb_per_node[0]
    struct.pack_into("<Q", out, 544, 0)                               # feature_bits
    struct.pack_into("<I", out, 552, lnc)                             # lnc_size
    return bytes(out)


def npy(descr, shape, data):
    """A NumPy .npy file, format version 1.0 (header padded to a multiple of 64 bytes)."""
    dims = f"({shape[0]},)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}"
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode() + data


def tar_gz(members):
    """A gzip'd PAX tar of {path: bytes}; deterministic (fixed times, owners)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(members):
            data = members[path]
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def nbytes(dtype, shape):
    n = DTYPES[dtype][1]
    for d in shape:
        n *= d
    return n


class Tensor:
    """An I/O tensor; dtype and shape None when the NEFF does not record them."""

    def __init__(self, name, usage, dtype, shape, size=None):
        self.name, self.usage, self.dtype, self.shape = name, usage, dtype, shape
        self.size = nbytes(dtype, shape) if size is None else size

    def expect_line(self):
        dims = " ".join(str(d) for d in self.shape)
        return (f"tensor {self.name} {self.usage} {self.size} {DTYPES[self.dtype][0]} "
                f"{len(self.shape)} {dims}").rstrip()


def subgraph(index, tensors, foreign):
    """One sgNN directory: def.json, engine JSONs (and .bin streams when `foreign`), two
    constants, and one variable of every type."""
    sg = f"sg{index:02d}"
    weights = struct.pack("<16f", *[float(i) / 4 for i in range(16)])
    bias = bytes(range(64))
    var = {}
    next_id = [0]

    def add(name, **fields):
        fields["var_id"] = next_id[0]
        fields.setdefault("ops", [])
        next_id[0] += 1
        var[name] = fields
        return fields["var_id"]

    for t in tensors:
        add(t.name, type="input" if t.usage == INPUT else "output", size=t.size)
    w = add("weights", type="file", size=len(weights), file_name="weights.npy", alignment=256)
    b = add("bias", type="file", size=len(bias), file_name="bias.bin")  # raw bytes
    scratch = add("scratch", type="tmp-buf", size=4096, alignment=4096)
    spill = add("spill", type="virtual", size=2048, backing_variable_off=8192, alignment=1024)
    add("spill_ptr", type="pointer", size=8, referenced_var_id=spill)
    add("tables", type="dge-table", size=24, list=[w, b, scratch])
    add("sb", type="state-buffer", size=128 * 2048, fabric_path="main")

    first_in = next(t for t in tensors if t.usage == INPUT)
    first_out = next(t for t in tensors if t.usage == OUTPUT)
    n = min(first_in.size, first_out.size, 4096)
    dma = [
        {"id": 1, "queue": "q_in", "semaphore": 1,
         "desc": {"op": "copy", "from": first_in.name, "to": "scratch", "from_off": 0,
                  "to_off": 0, "from_steps": [1], "from_sizes": [n], "to_steps": [1],
                  "to_sizes": [n], "from_dtype": "uint8", "to_dtype": "uint8"}},
        {"id": 2, "queue": "q_out", "event": 3,
         "desc": {"op": "copy", "from": "scratch", "to": first_out.name, "from_off": 0,
                  "to_off": 0, "from_steps": [1], "from_sizes": [n], "to_steps": [1],
                  "to_sizes": [n]}},
    ]
    definition = {
        "name": sg, "version": "1.0",
        "dma_queue": {
            "q_in": {"type": "in", "num_queues": 1, "owner": "sp", "semaphore": 1},
            "q_out": {"type": "out", "num_queues": 2, "owner": "sp", "fabric_path": "main"},
        },
        "var": var,
        "sp": "SP.json",
        "act": "Activation.json",
    }
    files = {
        f"{sg}/def.json": json.dumps(definition, indent=1).encode(),
        f"{sg}/SP.json": json.dumps({"dma": dma}).encode(),
        f"{sg}/Activation.json": json.dumps({"dma": [],
                                             "activation_function_sets": []}).encode(),
        f"{sg}/weights.npy": npy("<f4", (4, 4), weights),
        f"{sg}/bias.bin": bias,
    }
    if foreign:
        # Not trnsim's encoding: what a private, undocumented stream might look like.
        definition["sp_instr"] = "SP.bin"
        definition["act_instr"] = "Activation.bin"
        files[f"{sg}/def.json"] = json.dumps(definition, indent=1).encode()
        files[f"{sg}/SP.bin"] = bytes((i * 37 + 11) & 0xFF for i in range(256))
        files[f"{sg}/Activation.bin"] = b"\x00\x01\x02\x03" * 32
    return files


def graph_json(tensors, subgraphs):
    """neff.json: TVM/NNVM-style graph (schema 0.5); I/O tensors are op "null" nodes, inputs
    listed in arg_nodes, outputs in heads; one "__kelf" node per logical core."""
    nodes, arg_nodes, heads = [], [], []
    for t in tensors:
        if t.usage != INPUT:
            continue
        arg_nodes.append(len(nodes))
        nodes.append({"op": "null", "name": t.name, "inputs": [],
                      "attrs": {"is_param": "0", "id": str(len(nodes)), "dtype": t.dtype,
                                "shape": t.shape, "may_alias": "0", "must_alias": "0"}})
    # A parameter: an arg node that is not a model input.
    arg_nodes.append(len(nodes))
    nodes.append({"op": "null", "name": "param0", "inputs": [],
                  "attrs": {"is_param": "1", "dtype": "float32", "shape": [4, 4]}})
    kelf = len(nodes)
    nodes.append({"op": "__kelf", "name": "sg_coreV10", "inputs": [[i, 0, 0] for i in arg_nodes],
                  "attrs": {"kelf": "kelf-0.json", "num_subgraphs": str(subgraphs),
                            "num_inputs": str(len(arg_nodes)),
                            "num_outputs": str(sum(t.usage == OUTPUT for t in tensors))}})
    for t in tensors:
        if t.usage != OUTPUT:
            continue
        heads.append([len(nodes), 0, 0])
        nodes.append({"op": "null", "name": t.name, "inputs": [[kelf, 0, 0]],
                      "attrs": {"dtype": t.dtype, "shape": t.shape}})
    return {"nodes": nodes, "arg_nodes": arg_nodes, "heads": heads,
            "node_row_ptr": list(range(len(nodes) + 1)), "attrs": {}}


def neff(name, tensors, lnc=1, foreign=False, with_graph=True, pkg_version=2):
    members = {}
    for k in range(lnc):
        members.update(subgraph(k, tensors, foreign))
    if with_graph:
        members["neff.json"] = json.dumps(graph_json(tensors, lnc)).encode()
    payload = tar_gz(members)
    return header(payload, lnc, lnc, name, pkg_version) + payload


MODEL_TENSORS = [Tensor("input:0", INPUT, "float32", [1, 3, 8, 8]),
                 Tensor("mask", INPUT, "uint8", [64]),
                 Tensor("output_0", OUTPUT, "bfloat16", [1, 10]),
                 Tensor("logits:0", OUTPUT, "int32", [2, 5])]


def variants():
    """{variant: (neff bytes, lnc, foreign, expected tensors)}"""
    # Without neff.json the I/O tensors are the sg00 input/output variables: names and sizes
    # only (the NEFF records neither dtype nor shape there).
    bare = [Tensor(t.name, t.usage, None, None, t.size) for t in MODEL_TENSORS]
    return {
        "graph": (neff("graph", MODEL_TENSORS), 1, False, MODEL_TENSORS),
        "graph_sha256": (neff("graph_sha256", MODEL_TENSORS, pkg_version=1), 1, False,
                         MODEL_TENSORS),
        "no_graph": (neff("no_graph", MODEL_TENSORS, with_graph=False), 1, False, bare),
        "lnc2": (neff("lnc2", MODEL_TENSORS, lnc=2), 2, False, MODEL_TENSORS),
        "foreign": (neff("foreign", MODEL_TENSORS, foreign=True), 1, True, MODEL_TENSORS),
    }


def expect_text(lnc, foreign, tensors):
    lines = [f"lnc {lnc}", f"foreign {int(foreign)}"]
    for t in tensors:
        if t.dtype is None:
            # Not recorded: the dtype must be NRT_DTYPE_UNKNOWN (0); the shape is not checked.
            lines.append(f"tensor {t.name} {t.usage} {t.size} 0 -1")
        else:
            lines.append(t.expect_line())
    return "\n".join(lines) + "\n"


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, (data, lnc, foreign, tensors) in variants().items():
        with open(os.path.join(outdir, name + ".neff"), "wb") as f:
            f.write(data)
        with open(os.path.join(outdir, name + ".expect"), "w") as f:
            f.write(expect_text(lnc, foreign, tensors))
    print(f"wrote {len(variants())} NEFFs to {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
