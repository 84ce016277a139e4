#!/usr/bin/env python3
"""Checks the dynamic symbol table of an installed libnrt.so.1 against the export checklist.

Every line of api/exported_functions.txt ("name NODE header") must be a defined function
exported under exactly that version node, and nothing else may be exported (the version
definitions themselves excepted). AWS's nodes are NRT_2.0.0 and NRT_3.0.0; trnsim's extension
node TRNSIM_1 may hold trnsim_* symbols only, and no trnsim_* symbol may be elsewhere. Prints "N passed, M failed"; exits 1 on any failure.
"""
import subprocess
import sys


def main(library, checklist):
    expected = {}
    with open(checklist) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, node = line.split()[:2]
                expected[name] = node

    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions", library],
                         check=True, capture_output=True, text=True).stdout
    exported = {}
    nodes = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, symbol = parts[1], parts[2]
        name, _, version = symbol.partition("@")
        version = version.lstrip("@")
        if kind == "A":  # a version definition such as NRT_2.0.0
            nodes.add(name)
            continue
        exported[name] = (kind, version)

    failures = []
    for name, node in sorted(expected.items()):
        if name not in exported:
            failures.append(f"missing export: {name}")
        elif exported[name][0] != "T":
            failures.append(f"{name} is exported as '{exported[name][0]}', not a function")
        elif exported[name][1] != node:
            failures.append(f"{name} is under '{exported[name][1]}', expected {node}")
    for name in sorted(set(exported) - set(expected)):
        failures.append(f"unexpected export: {name}@{exported[name][1]}")
    # The nodes are the library's version definitions (.gnu.version_d). GNU ld also exports
    # each as an absolute symbol (nm kind "A", collected above); lld does not, so the section
    # itself is what counts.
    verdefs = subprocess.run(["readelf", "-V", "--wide", library], check=True,
                             capture_output=True, text=True).stdout
    in_verdef = False
    for line in verdefs.splitlines():
        if line.startswith("Version definition section"):
            in_verdef = True
        elif line.startswith("Version") and in_verdef:
            in_verdef = False
        elif in_verdef and "Name: " in line and "Flags: BASE" not in line:
            nodes.add(line.split("Name: ", 1)[1].strip())
    for node in ("NRT_2.0.0", "NRT_3.0.0", "TRNSIM_1"):
        if node not in nodes:
            failures.append(f"version node {node} is not defined")
    # trnsim's extension node holds trnsim_* symbols only, and trnsim_* symbols live only there
    # (AWS's nodes must stay exactly AWS's).
    for name, (_, version) in sorted(exported.items()):
        if (version == "TRNSIM_1") != name.startswith("trnsim_"):
            failures.append(f"{name}@{version}: TRNSIM_1 is for trnsim_* symbols only")

    soname = subprocess.run(["objdump", "-p", library], check=True, capture_output=True,
                            text=True).stdout
    if "SONAME               libnrt.so.1" not in soname:
        failures.append("SONAME is not libnrt.so.1")

    for failure in failures:
        print("FAIL", failure)
    checks = len(expected) + 2 * len(exported) + 4
    print(f"{checks - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
