#!/usr/bin/env python3
"""End-to-end tests of the `neff` command (docs/toolchain.md), run as a user runs it.

Usage: neff_cli_test.py CASE NEFF_BINARY SAMPLES_DIR DOC GOLDEN_DIR WORK_DIR
CASE: doc        the worked example of docs/toolchain.md assembles as-is; its inspect --json
                 matches the golden file (data_size and hash aside); it verifies
      roundtrip  disasm -> asm gives identical bytes, unpack -> pack gives identical bytes
                 (the doc example and every sample)
      corrupt    verify refuses a corrupted hash and a corrupted stream, one line per problem
      errors     bad input: one line on stderr, exit status 1 (or CLI11's), never a signal
      samples    every sample NEFF verifies and its inspect --json tensors match manifest.json
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import expect, summary  # noqa: E402


def run(*args, stdin=None):
    return subprocess.run([NEFF, *args], capture_output=True, text=True, input=stdin)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def doc_example(doc, work):
    """The fenced block after the doc-example marker, written to WORK/<name>."""
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"<!-- doc-example: (\S+) -->\s*```[a-z]*\n(.*?)```", text, re.S)
    if not m:
        raise SystemExit("no doc-example block in " + doc)
    path = os.path.join(work, m.group(1))
    with open(path, "w", encoding="utf-8") as f:
        f.write(m.group(2))
    return path


def assemble_doc(doc, work):
    src = doc_example(doc, work)
    out = src[:-2] + ".neff"
    r = run("asm", src, "-o", out)
    expect(r.returncode == 0 and r.stderr == "", f"neff asm of the doc example: {r.stderr}")
    return out


def normalised_inspect(path):
    r = run("inspect", "--json", path)
    expect(r.returncode == 0, f"inspect --json {path}: {r.stderr}")
    j = json.loads(r.stdout)
    j["header"]["data_size"] = "<gzip output>"
    j["header"]["hash"] = "<gzip output>"
    return j, r.stdout


def case_doc(doc, golden, work):
    neff = assemble_doc(doc, work)
    got, raw = normalised_inspect(neff)
    want = json.load(open(os.path.join(golden, "vector_add_doc.inspect.json")))
    expect(got == want, "inspect --json of the doc example matches golden/vector_add_doc.inspect.json:\n"
           + json.dumps(got, indent=2, sort_keys=True))
    # Stable: keys sorted at every level.
    expect(raw == json.dumps(json.loads(raw), indent=2, sort_keys=True) + "\n", "inspect --json keys sorted")
    r = run("verify", neff)
    expect(r.returncode == 0 and r.stdout.startswith("ok: "), f"verify doc example: {r.stdout}")
    r = run("inspect", neff)
    expect(r.returncode == 0 and "vector_add_doc" in r.stdout and "trnsim encoding" in r.stdout,
           f"inspect text: {r.stdout}")


def roundtrip(neff, work, name):
    s = os.path.join(work, name + ".s")
    again = os.path.join(work, name + ".again.neff")
    r = run("disasm", neff, "-o", s)
    expect(r.returncode == 0, f"disasm {name}: {r.stderr}")
    r = run("asm", s, "-o", again)
    expect(r.returncode == 0, f"re-asm {name}: {r.stderr}")
    expect(os.path.exists(again) and read(again) == read(neff), f"disasm -> asm identical: {name}")
    d = os.path.join(work, name + ".unpacked")
    packed = os.path.join(work, name + ".packed.neff")
    r = run("unpack", neff, d)
    expect(r.returncode == 0 and os.path.exists(os.path.join(d, "header.json")), f"unpack {name}: {r.stderr}")
    expect(os.path.exists(os.path.join(d, "payload", "sg00", "def.json")), f"unpack {name}: payload tree")
    r = run("pack", d, "-o", packed)
    expect(r.returncode == 0, f"pack {name}: {r.stderr}")
    expect(os.path.exists(packed) and read(packed) == read(neff), f"unpack -> pack identical: {name}")


def case_roundtrip(samples, doc, work):
    roundtrip(assemble_doc(doc, work), work, "vector_add_doc")
    for f in sorted(os.listdir(samples)):
        if f.endswith(".neff"):
            roundtrip(os.path.join(samples, f), work, f[:-5])


def case_corrupt(doc, work):
    neff = assemble_doc(doc, work)
    data = bytearray(read(neff))
    data[172] ^= 0xFF  # first byte of the header hash
    bad = os.path.join(work, "bad_hash.neff")
    open(bad, "wb").write(data)
    r = run("verify", bad)
    lines = r.stdout.strip().splitlines()
    expect(r.returncode == 1 and len(lines) == 1 and "hash" in lines[0].lower(),
           f"verify reports a corrupted hash on one line: {r.stdout!r}")
    # A stream corrupted inside an otherwise well-formed NEFF (pack recomputes the hash).
    d = os.path.join(work, "corrupt.unpacked")
    expect(run("unpack", neff, d).returncode == 0, "unpack for corruption")
    dve = os.path.join(d, "payload", "sg00", "DVE.bin")
    stream = bytearray(read(dve))
    stream[40] ^= 0x01  # inside the first record: the CRC no longer matches
    open(dve, "wb").write(stream)
    bad = os.path.join(work, "bad_stream.neff")
    expect(run("pack", d, "-o", bad).returncode == 0, "pack the corrupted stream")
    r = run("verify", bad)
    lines = r.stdout.strip().splitlines()
    expect(r.returncode == 1 and len(lines) == 1 and "DVE.bin" in lines[0],
           f"verify reports the corrupted stream on one line: {r.stdout!r}")
    # A stream that is not trnsim's encoding at all, and a truncated NEFF.
    open(dve, "wb").write(b"\x00" * 64)
    expect(run("pack", d, "-o", bad).returncode == 0, "pack a foreign stream")
    r = run("verify", bad)
    expect(r.returncode == 1 and "encoding" in r.stdout, f"verify reports a foreign stream: {r.stdout!r}")
    r = run("inspect", "--json", bad)
    expect(r.returncode == 0 and json.loads(r.stdout)["trnsim_encoding"] is False, "inspect: foreign")
    open(bad, "wb").write(read(neff)[:-100])
    r = run("verify", bad)
    expect(r.returncode == 1 and "data_size" in r.stdout, f"verify reports truncation: {r.stdout!r}")
    # debug_print (docs/isa.md §7.10): inspect shows the prefix table; verify refuses a print whose
    # prefix is not in it.
    src = os.path.join(work, "print.s")
    with open(src, "w") as f:
        f.write('.debug_prefix 0 "tile \\x22a\\x22"\n.engine act\n'
                "debug_print src=sbuf[p0:4, 0 + [8 x 1]] bf16 prefix=0\nnotify_end code=0\n")
    good = os.path.join(work, "print.neff")
    r = run("asm", src, "-o", good)
    expect(r.returncode == 0, f"asm a debug_print: {r.stderr}")
    r = run("verify", good)
    expect(r.returncode == 0 and r.stdout.startswith("ok: "), f"verify a debug_print: {r.stdout}")
    r = run("inspect", "--json", good)
    expect(r.returncode == 0 and json.loads(r.stdout)["subgraphs"][0]["debug_prefixes"] == ['tile "a"'],
           f"inspect --json debug_prefixes: {r.stdout}")
    r = run("inspect", good)
    expect(r.returncode == 0 and 'debug prefix 0 "tile \\"a\\""' in r.stdout, f"inspect text: {r.stdout}")
    d = os.path.join(work, "print.unpacked")
    expect(run("unpack", good, d).returncode == 0, "unpack the debug_print NEFF")
    def_json = os.path.join(d, "payload", "sg00", "def.json")
    j = json.load(open(def_json))
    del j["debug_prefixes"]
    json.dump(j, open(def_json, "w"))
    expect(run("pack", d, "-o", bad).returncode == 0, "pack without the prefix table")
    r = run("verify", bad)
    lines = r.stdout.strip().splitlines()
    expect(r.returncode == 1 and len(lines) == 1 and "instruction 0 (debug_print): prefix 0 is not in "
           "sg00/def.json debug_prefixes (0 entries)" in lines[0],
           f"verify reports the missing prefix on one line: {r.stdout!r}")


def one_error_line(r, command, what):
    lines = r.stderr.strip().splitlines()
    expect(r.returncode == 1 and len(lines) == 1 and lines[0].startswith(f"neff {command}: "),
           f"{what}: exit {r.returncode}, stderr {r.stderr!r}")


def case_errors(work):
    missing = os.path.join(work, "missing.neff")
    for cmd in ("disasm", "inspect", "verify"):
        one_error_line(run(cmd, missing), cmd, f"{cmd} of a missing file")
    one_error_line(run("asm", missing[:-5] + ".s"), "asm", "asm of a missing file")
    garbage = os.path.join(work, "garbage.neff")
    open(garbage, "wb").write(os.urandom(3000))
    for cmd in ("disasm", "inspect", "unpack"):
        args = [cmd, garbage] + ([os.path.join(work, "g")] if cmd == "unpack" else [])
        r = run(*args)
        one_error_line(r, cmd, f"{cmd} of garbage")
    r = run("verify", garbage)
    expect(r.returncode == 1 and r.stdout.strip() != "", "verify of garbage: problems on stdout")
    bad_s = os.path.join(work, "bad.s")
    open(bad_s, "w").write(".kernel k\n.engine sp\nnotify_end code=0\nfrobnicate\n")
    r = run("asm", bad_s)
    one_error_line(r, "asm", "asm of a bad line")
    expect(f"{bad_s}:4:" in r.stderr, f"asm names the line: {r.stderr!r}")
    one_error_line(run("pack", os.path.join(work, "nowhere"), "-o", garbage + "2"), "pack", "pack of no folder")
    r = run("inspect", "--chip", "trn9", garbage)
    expect(r.returncode not in (0, 1) and r.returncode > 0 and r.stderr != "", "CLI11 refuses --chip trn9")
    r = run()
    expect(r.returncode > 0, "no subcommand is an error")
    r = run("--help")
    expect(r.returncode == 0 and "asm" in r.stdout and "verify" in r.stdout, "--help lists the commands")


def case_samples(samples):
    manifest = json.load(open(os.path.join(samples, "manifest.json")))
    expect(len(manifest) >= 13, f"manifest lists the samples ({len(manifest)})")
    for s in manifest:
        path = os.path.join(samples, s["neff"])
        r = run("verify", path)
        expect(r.returncode == 0 and r.stdout.startswith("ok: "), f"verify {s['name']}: {r.stdout}")
        r = run("inspect", "--json", path)
        j = json.loads(r.stdout)
        want = [{"name": t["name"], "usage": u, "dtype": t["dtype"], "shape": t["shape"]}
                for u, key in (("input", "inputs"), ("output", "outputs")) for t in s[key]]
        got = [{k: t[k] for k in ("name", "usage", "dtype", "shape")} for t in j["tensors"]]
        expect(got == want, f"{s['name']}: inspect tensors {got} == manifest {want}")
        expect(j["header"]["lnc_size"] == s["lnc"] and len(j["subgraphs"]) == s["lnc"], f"{s['name']}: lnc")
        expect(j["trnsim_encoding"] and j["header"]["hash_valid"], f"{s['name']}: trnsim encoding, hash")
        for sg in j["subgraphs"]:
            expect([e["engine"] for e in sg["engines"]] == ["pe", "act", "dve", "pool", "sp"],
                   f"{s['name']}/{sg['name']}: all five engines")


def main(argv):
    global NEFF
    case, NEFF, samples, doc, golden, work = argv[1:7]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"doc": lambda: case_doc(doc, golden, work),
     "roundtrip": lambda: case_roundtrip(samples, doc, work),
     "corrupt": lambda: case_corrupt(doc, work),
     "errors": lambda: case_errors(work),
     "samples": lambda: case_samples(samples)}[case]()
    return summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
