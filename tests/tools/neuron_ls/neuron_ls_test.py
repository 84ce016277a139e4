#!/usr/bin/env python3
"""neuron-ls without a daemon (the configured instance, no processes).

  neuron_ls_test.py golden NEURON_LS GOLDEN_DIR INSTANCE LNC [--update]
      every view (default, -w, -a, -t, -j) compared byte for byte with
      GOLDEN_DIR/INSTANCE.lncLNC.VIEW.txt; --update rewrites the files instead
  neuron_ls_test.py aws_example NEURON_LS
      trn2.48xlarge at LNC 2 against AWS's documented trn2n.48xlarge listing
      (tools-driver-facts.md §1.3): borders, headers, every row's cells
  neuron_ls_test.py errors NEURON_LS
      unknown flags (exit 2, usage), an unreachable daemon and bad settings (exit 1, one line)
  neuron_ls_test.py doc NEURON_LS DOC
      docs/tools.md shows the output of each view on the default instance

Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import difflib
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../python"))
from trnsim_checks import clean_env, expect, summary  # noqa: E402

VIEWS = {"default": [], "wide": ["-w"], "all": ["-a"], "topology": ["-t"], "json": ["-j"]}


def run(neuron_ls, args, **env):
    return subprocess.run([neuron_ls] + args, env=clean_env(**env), capture_output=True,
                          timeout=60)


def golden(neuron_ls, golden_dir, instance, lnc, update):
    for view, args in VIEWS.items():
        path = os.path.join(golden_dir, f"{instance}.lnc{lnc}.{view}.txt")
        result = run(neuron_ls, args, TRNSIM_INSTANCE=instance, NEURON_LOGICAL_NC_CONFIG=lnc)
        expect(result.returncode == 0 and result.stderr == b"",
               f"{view}: exit {result.returncode}, stderr {result.stderr!r}")
        if update:
            with open(path, "wb") as f:
                f.write(result.stdout)
            continue
        with open(path, "rb") as f:
            want = f.read()
        same = result.stdout == want
        if not same:
            sys.stdout.writelines(difflib.unified_diff(
                want.decode(errors="replace").splitlines(True),
                result.stdout.decode(errors="replace").splitlines(True), path, "neuron-ls"))
        expect(same, f"{instance} LNC {lnc} {view}: output differs from {path}")


# AWS's trn2n.48xlarge example (tools-driver-facts.md §1.3), LNC 2.
AWS_HEADER = """\
+--------+--------+----------+--------+---------------+--------------+---------------+------+
| NEURON | NEURON |  NEURON  | NEURON |   CONNECTED   |     PCI      |      CPU      | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY |    DEVICES    |     BDF      |   AFFINITY    | NODE |
+--------+--------+----------+--------+---------------+--------------+---------------+------+
"""
AWS_ROW0 = "| 0      | 4      | 0-3      | 96 GB  | 12, 3, 4, 1   | 0000:cc:00.0 | 48-95,144-191 | 1    |"
AWS_ROW15 = "| 15     | 4      | 60-63    | 96 GB  | 11, 14, 3, 12 | 0000:f7:00.0 | 48-95,144-191 | 1    |"
AWS_DATA = [  # device: connected, bdf, cpu affinity, numa node
    ("12, 3, 4, 1", "cc:00.0", "48-95,144-191", "1"), ("13, 0, 5, 2", "b5:00.0", "48-95,144-191", "1"),
    ("14, 1, 6, 3", "b6:00.0", "48-95,144-191", "1"), ("15, 2, 7, 0", "cb:00.0", "48-95,144-191", "1"),
    ("0, 7, 8, 5", "6f:00.0", "0-47,96-143", "0"), ("1, 4, 9, 6", "58:00.0", "0-47,96-143", "0"),
    ("2, 5, 10, 7", "59:00.0", "0-47,96-143", "0"), ("3, 6, 11, 4", "6e:00.0", "0-47,96-143", "0"),
    ("4, 11, 12, 9", "9b:00.0", "0-47,96-143", "0"), ("5, 8, 13, 10", "84:00.0", "0-47,96-143", "0"),
    ("6, 9, 14, 11", "85:00.0", "0-47,96-143", "0"), ("7, 10, 15, 8", "9a:00.0", "0-47,96-143", "0"),
    ("8, 15, 0, 13", "f8:00.0", "48-95,144-191", "1"), ("9, 12, 1, 14", "e1:00.0", "48-95,144-191", "1"),
    ("10, 13, 2, 15", "e2:00.0", "48-95,144-191", "1"), ("11, 14, 3, 12", "f7:00.0", "48-95,144-191", "1"),
]


def aws_example(neuron_ls):
    result = run(neuron_ls, [], TRNSIM_INSTANCE="trn2.48xlarge", NEURON_LOGICAL_NC_CONFIG="2")
    text = result.stdout.decode()
    lines = text.splitlines()
    expect(lines[0] == "instance-type: trn2.48xlarge", f"first line {lines[0]!r}")
    expect(lines[1].startswith("instance-id: i-") and len(lines[1]) == len("instance-id: ") + 19,
           f"instance-id line {lines[1]!r}")
    expect(lines[2] == "logical-neuroncore-config: 2", f"third line {lines[2]!r}")
    table = "\n".join(lines[3:]) + "\n"
    expect(table.startswith(AWS_HEADER), "borders and two-line headers as AWS's")
    expect(lines[7] == AWS_ROW0, f"device 0 row {lines[7]!r}")
    expect(lines[22] == AWS_ROW15, f"device 15 row {lines[22]!r}")
    expect(lines[23] == AWS_HEADER.splitlines()[0] and len(lines) == 24, "closing border")
    for device, (connected, bdf, cpus, numa) in enumerate(AWS_DATA):
        cells = [c.strip() for c in lines[7 + device].strip("|").split("|")]
        want = [str(device), "4", f"{4 * device}-{4 * device + 3}", "96 GB", connected,
                "0000:" + bdf, cpus, numa]
        expect(cells == want, f"device {device}: {cells} != AWS's {want}")
    # -t: the drawing as documented (§1.5).
    text = run(neuron_ls, ["-t"], TRNSIM_INSTANCE="trn2.48xlarge").stdout.decode()
    drawing = text[text.index("\nNeuron Device Topology\n"):].splitlines()[2:]
    first = "*\u2013\u2013\u25ba[ 0 ]\u25c4\u2013\u2013\u25ba[ 1 ]\u25c4\u2013\u2013\u25ba[ 2 ]" \
            "\u25c4\u2013\u2013\u25ba[ 3 ]\u25c4\u2013\u2013*"
    expect(drawing[3] == first, f"first body line {drawing[3]!r}")
    expect(drawing[-2:] == ["Legend:", "*\u2013\u2013\u25ba = Wrap-around link"],
           f"legend {drawing[-2:]!r}")
    marks = [line for line in drawing if set(line) <= set(" *\u25b2\u25bc\u2502") and line]
    expect(len(marks) == 3 + 3 * 3 + 3, f"{len(marks)} lines of vertical marks")
    for line in marks:
        expect([i for i, c in enumerate(line) if c != " "] == [6, 15, 24, 33],
               f"vertical marks not at columns 6, 15, 24, 33: {line!r}")
    expect([m.strip()[0] for m in marks[:3]] == ["*", "\u2502", "\u25bc"] and
           [m.strip()[0] for m in marks[-3:]] == ["\u25b2", "\u2502", "*"], "top and bottom edges")
    # -j: the same facts, bdf short, numa_node a string.
    import json
    devices = json.loads(run(neuron_ls, ["-j"], TRNSIM_INSTANCE="trn2.48xlarge").stdout)
    for device, (connected, bdf, cpus, numa) in enumerate(AWS_DATA):
        d = devices[device]
        expect([d["connected_to"], d["bdf"], d["cpu_affinity"], d["numa_node"]] ==
               [[int(x) for x in connected.split(", ")], bdf, cpus, numa],
               f"-j device {device}: {d}")


def errors(neuron_ls):
    for args in (["--bogus"], ["-x"], ["extra"]):
        result = run(neuron_ls, args)
        err = result.stderr.decode()
        expect(result.returncode == 2, f"{args}: exit {result.returncode}, want 2")
        expect("--help" in err or "Usage" in err, f"{args}: no usage hint in {err!r}")
        expect(result.stdout == b"", f"{args}: printed {result.stdout!r}")
    result = run(neuron_ls, ["--help"])
    expect(result.returncode == 0 and b"--json-output" in result.stdout, "--help")
    cases = [
        ({"TRNSIM_DAEMON": "unix:/nonexistent/neuron-ls-test.sock"}, "unreachable"),
        ({"TRNSIM_DAEMON": "nonsense"}, "daemon address"),
        ({"TRNSIM_INSTANCE": "trn9.huge"}, "trn9.huge"),
        ({"NEURON_LOGICAL_NC_CONFIG": "3"}, "NEURON_LOGICAL_NC_CONFIG"),
        ({"NEURON_LOGICAL_NC_CONFIG": "two"}, "NEURON_LOGICAL_NC_CONFIG"),
        ({"TRNSIM_DAEMON": "unix:/nonexistent/x.sock", "TRNSIM_TLS_CA": "/nonexistent.pem"},
         "/nonexistent.pem"),
    ]
    for env, word in cases:
        result = run(neuron_ls, [], **env)
        err = result.stderr.decode()
        expect(result.returncode == 1, f"{env}: exit {result.returncode}, want 1")
        expect(err.count("\n") == 1 and err.startswith("neuron-ls: ") and word in err,
               f"{env}: want one line naming {word!r}, got {err!r}")
        expect(result.stdout == b"", f"{env}: printed {result.stdout!r}")


def doc(neuron_ls, doc_path):
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    for view, args in VIEWS.items():
        out = run(neuron_ls, args).stdout.decode()
        block = "```\n$ neuron-ls" + "".join(" " + a for a in args) + "\n" + out + "```\n"
        expect(block in text, f"{doc_path} does not show the current output of neuron-ls {args}")


def main():
    mode, neuron_ls = sys.argv[1], sys.argv[2]
    if mode == "golden":
        golden(neuron_ls, sys.argv[3], sys.argv[4], sys.argv[5], "--update" in sys.argv)
    elif mode == "aws_example":
        aws_example(neuron_ls)
    elif mode == "errors":
        errors(neuron_ls)
    elif mode == "doc":
        doc(neuron_ls, sys.argv[3])
    else:
        print(f"unknown mode {mode}")
        return 2
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
