#!/usr/bin/python3
"""The fidelity suite: trnsim's simulated figures next to the measured Trainium2 calibration set.

    bench/fidelity/run.py [--build-dir build] [--chip trn2] [--only C-1,C-6] [--check]
                          [--json out.json]

Imports every `cases/c*.py` module (fidelity.py says what one defines), runs its kernels and
prints one table: case, confidence, figure, measured, simulated, ratio, error, then the mean
absolute error. `--check` exits 1 unless every H row is within 10%, every M row within 25% and
the mean absolute error is under 5% (only on trn2: no Trainium3 figure has been measured, so a
trn3 run prints its rows uncounted). Without --check it still exits 1 when a case produces no
figure or one that is not finite and positive. Simulated time is deterministic, so the table is the same
on every host; it takes minutes of host time (the kernels do their real arithmetic).
"""

import argparse
import importlib.util
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build-dir", default=os.path.join(SRC, "build"))
    p.add_argument("--chip", default="trn2", choices=("trn2", "trn3"))
    p.add_argument("--only", default="", help="comma-separated case ids (C-1,C-6) to run")
    p.add_argument("--check", action="store_true", help="fail unless the tolerances hold")
    p.add_argument("--json", default="", help="also write the rows to this file")
    return p.parse_args(argv)


def case_modules():
    folder = os.path.join(HERE, "cases")
    if not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        if name.startswith("c") and name.endswith(".py"):
            spec = importlib.util.spec_from_file_location(f"fidelity_cases.{name[:-3]}",
                                                          os.path.join(folder, name))
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            yield name[:-3], module


def main(argv):
    args = parse_args(argv)
    build_dir = os.path.abspath(args.build_dir)
    sys.path[:0] = [HERE, os.path.join(SRC, "python"), os.path.join(build_dir, "python")]
    os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = args.chip
    import fidelity

    wanted = {c.strip() for c in args.only.split(",") if c.strip()}
    ctx = fidelity.Context(args.chip, build_dir, SRC)
    rows = []
    for name, module in case_modules():
        cases = set(getattr(module, "CASES", ()))
        if wanted and cases and not cases & wanted:
            continue
        started = time.monotonic()
        produced = module.rows(ctx)
        if wanted:
            produced = [r for r in produced if r.case in wanted]
        if args.chip != "trn2":
            for r in produced:
                r.counted = False
        rows.extend(produced)
        print(f"# {name}: {len(produced)} rows in {time.monotonic() - started:.1f} s host time",
              file=sys.stderr, flush=True)
    verdict = fidelity.Verdict(rows)
    print(fidelity.format_table(rows, verdict))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"chip": args.chip, "mae": verdict.mae,
                       "rows": [dict(vars(r), ratio=r.ratio, error=r.error) for r in rows]},
                      f, indent=1)
    # Whatever the chip, every case must produce its figure.
    broken = [r for r in rows if not (math.isfinite(r.simulated) and r.simulated > 0)]
    for r in broken:
        print(f"FAIL {r.case} {r.what}: simulated figure {r.simulated!r}", file=sys.stderr)
    if broken or not rows:
        if not rows:
            print("FAIL no rows", file=sys.stderr)
        return 1
    if args.check:
        if args.chip != "trn2":
            print("--check judges trn2 only (no measured Trainium3 figures)", file=sys.stderr)
            return 1
        if not verdict.passed:
            for r in verdict.outside:
                print(f"FAIL {r.case} {r.what}: error {100 * r.error:.1f}% > "
                      f"{100 * r.tolerance:.0f}% ({r.conf})", file=sys.stderr)
            if verdict.mae >= fidelity.MAE_LIMIT:
                print(f"FAIL mean absolute error {100 * verdict.mae:.2f}% >= "
                      f"{100 * fidelity.MAE_LIMIT:.0f}%", file=sys.stderr)
            for r in verdict.stale_gaps:
                print(f"FAIL {r.case} {r.what}: a known gap now within {100 * r.tolerance:.0f}%: "
                      f"take it off fidelity.KNOWN_GAPS", file=sys.stderr)
            if not verdict.counted:
                print("FAIL no rows", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
