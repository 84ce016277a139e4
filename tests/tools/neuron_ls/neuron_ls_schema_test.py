#!/usr/bin/env python3
"""`neuron-ls -j` against a JSON schema of AWS's documented format (tools-driver-facts.md §1.6),
checked by a small hand-written validator (the subset of JSON Schema used below: type,
properties, required, additionalProperties, items, pattern, minimum, minItems) so the test needs
no package beyond python3.

  neuron_ls_schema_test.py NEURON_LS

Runs every instance type at LNC 1 and 2 (no daemon), and checks the whole-document facts the
schema cannot: a 4-space indent, one object per device, the key order AWS prints.
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys

INT = {"type": "integer", "minimum": 0}
PROCESS = {
    "type": "object",
    "required": ["pid", "command", "neuron_runtime_version"],
    "additionalProperties": False,
    "properties": {
        "pid": {"type": "integer"},
        "command": {"type": "string", "pattern": r"^[ -~]{0,40}$"},
        "neuron_runtime_version": {"type": "string", "pattern": r"^(NA|[0-9][0-9A-Za-z.+-]*)$"},
    },
}
DEVICE = {
    "type": "object",
    "required": ["neuron_device", "bdf", "cpu_affinity", "numa_node", "connected_to", "nc_count",
                 "logical_neuroncore_config", "memory_size", "neuroncore_ids", "neuron_processes"],
    "additionalProperties": False,
    "properties": {
        "neuron_device": INT,
        "bdf": {"type": "string", "pattern": r"^[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$"},
        "cpu_affinity": {"type": "string", "pattern": r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"},
        "numa_node": {"type": "string", "pattern": r"^-?[0-9]+$"},
        "connected_to": {"type": "array", "items": INT},
        "nc_count": {"type": "integer", "minimum": 1},
        "logical_neuroncore_config": {"type": "integer", "minimum": 1},
        "memory_size": {"type": "integer", "minimum": 1},
        "neuroncore_ids": {"type": "array", "items": INT, "minItems": 1},
        "neuron_processes": {"type": "array", "items": PROCESS},
    },
}
SCHEMA = {"type": "array", "items": DEVICE, "minItems": 1}

TYPES = {"object": dict, "array": list, "string": str, "number": (int, float)}


def validate(value, schema, where="$"):
    """Returns a list of problems ("where: what")."""
    kind = schema.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"{where}: {value!r} is not an integer"]
    elif kind is not None and not isinstance(value, TYPES[kind]):
        return [f"{where}: {value!r} is not a{'n' if kind[0] in 'aeiou' else ''} {kind}"]
    problems = []
    if "minimum" in schema and value < schema["minimum"]:
        problems.append(f"{where}: {value} < {schema['minimum']}")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        problems.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if "minItems" in schema and len(value) < schema["minItems"]:
        problems.append(f"{where}: fewer than {schema['minItems']} items")
    for i, item in enumerate(value if kind == "array" else []):
        problems += validate(item, schema["items"], f"{where}[{i}]")
    if kind == "object":
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{where}: missing {key}")
        for key, item in value.items():
            if key in schema.get("properties", {}):
                problems += validate(item, schema["properties"][key], f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                problems.append(f"{where}: unexpected key {key}")
    return problems


def self_test():
    """The validator must reject what the schema forbids, or the test could not fail."""
    good = {"neuron_device": 0, "bdf": "cc:00.0", "cpu_affinity": "0-7", "numa_node": "1",
            "connected_to": [], "nc_count": 4, "logical_neuroncore_config": 2,
            "memory_size": 1, "neuroncore_ids": [0], "neuron_processes": []}
    assert validate([good], SCHEMA) == []
    for key, bad in [("numa_node", 1), ("bdf", "0000:cc:00.0"), ("nc_count", "4"),
                     ("connected_to", ["1"]), ("neuroncore_ids", []), ("memory_size", True),
                     ("neuron_processes", [{"pid": 1, "command": "x"}])]:
        assert validate([dict(good, **{key: bad})], SCHEMA), key
    assert validate([dict(good, extra=1)], SCHEMA)
    assert validate([{k: v for k, v in good.items() if k != "bdf"}], SCHEMA)
    assert validate([], SCHEMA)


def main():
    neuron_ls = sys.argv[1]
    self_test()
    passed, failures = 0, []
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("TRNSIM_", "NEURON_"))}
    for instance in ("trn2.3xlarge", "trn2.48xlarge", "trn2u.48xlarge", "trn3.48xlarge"):
        for lnc in (1, 2):
            result = subprocess.run([neuron_ls, "-j"], capture_output=True, timeout=60,
                                    env=dict(environ, TRNSIM_INSTANCE=instance,
                                             NEURON_LOGICAL_NC_CONFIG=str(lnc)))
            what = f"{instance} LNC {lnc}"
            text = result.stdout.decode()
            doc = json.loads(text)
            problems = validate(doc, SCHEMA)
            if json.dumps(doc, indent=4) + "\n" != text:
                problems.append("not printed with a 4-space indent")
            if doc and list(doc[0]) != DEVICE["required"]:
                problems.append(f"key order {list(doc[0])}")
            for i, device in enumerate(doc):
                if device["neuron_device"] != i or device["logical_neuroncore_config"] != lnc:
                    problems.append(f"device {i}: index or LNC wrong")
                if device["nc_count"] != len(device["neuroncore_ids"]):
                    problems.append(f"device {i}: nc_count != len(neuroncore_ids)")
            ids = [c for d in doc for c in d["neuroncore_ids"]]
            if ids != list(range(len(ids))):
                problems.append("neuroncore_ids are not 0..N-1 in device order")
            for p in problems:
                print("FAIL", what, p)
            failures += problems
            passed += not problems
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
