"""The fidelity suite's common parts: a row of the calibration table, the context a case module
runs in, and the arithmetic of the verdict.

A case module (`cases/cNN_<name>.py`) defines `rows(ctx)` returning a list of `Row`s, one per
figure of /work/shared/reference/trainium-measurements.md it reproduces: the measured value as
published, the value trnsim simulates for the same workload, the unit, and the case's
confidence ("H" or "M"). Kernels are written as their source describes them — with the NKI
front end where the source is an NKI kernel, else with the C++ builder — and run through
libnrt; the simulated figures come from the execution's statistics or its device profile.
A module may also define `CASES = ("C-1", ...)`, the cases it covers, so that `run.py --only`
skips it without running its kernels.

`Context` (what `rows` gets):
  ctx.chip                  "trn2" or "trn3"; NKI kernels run on it
                            (NEURON_PLATFORM_TARGET_OVERRIDE is set for the whole run).
  ctx.build_dir, ctx.src_dir
  ctx.tool(name)            path of a built tool (neuron-profile, ...)
  ctx.run(kernel, *args, grid=())
                            runs an @nki.jit kernel once; returns (outputs, Report)
                            (python/trnsim_nki/report.py: duration_ps, stats, mfu, ...).
  ctx.profile(kernel, *args, grid=(), rows=True)
                            runs it once with a device profile; returns a `Profile`: `.report`
                            (as above), `.json` (neuron-profile's `json` view: "instruction"
                            and "dma" rows, times in ns) and `.summary` (its `summary-json`).
                            rows=False skips the `json` view (`.json` is then empty): a big
                            kernel's rows are most of the profile's host time.

Verdict (`Verdict`): error = |simulated / measured - 1|; every H row must be within 10%, every
M row within 25%, and the mean absolute error over all counted rows under 5% (issue 18's
"Done when"). Rows listed in KNOWN_GAPS are printed with their reason and not judged, except
that a gap which has come within its tolerance fails the verdict until it is taken off. A row with `counted=False` is printed but not judged (trn3 has no measurements:
its rows show trnsim's figure next to trn2's measurement for comparison only).
"""

import dataclasses
import json
import os
import subprocess
import tempfile

H_TOLERANCE = 0.10
M_TOLERANCE = 0.25
MAE_LIMIT = 0.05

# Figures the model does not reproduce yet, each with why: printed, not judged, and listed in
# docs/calibration.md §4. A gap that comes within its tolerance fails the verdict (the list is
# stale: take it off), so this list can only shrink honestly.
KNOWN_GAPS = {
    ("C-6", "v5 DMA active % of total"):
        "the fp32 v5 as written needs 228 KiB of SBUF per partition; AWS's compiler spilled "
        "(its MBU implies ~0.31 GiB of extra traffic) and trnsim's allocator does not, so the "
        "kernel here is rearranged to fit, with different transfers (cases/c06_matmul_ladder.py)",
}


@dataclasses.dataclass
class Row:
    case: str          # "C-1"
    conf: str          # "H" or "M"
    what: str          # the figure, as the source names it
    measured: float
    simulated: float
    unit: str          # "ns", "us", "ms", "count", ...
    counted: bool = True

    @property
    def gap(self):
        """Why this figure is a known gap (KNOWN_GAPS), or None."""
        return KNOWN_GAPS.get((self.case, self.what))

    @property
    def ratio(self):
        return self.simulated / self.measured if self.measured else float("nan")

    @property
    def error(self):
        return abs(self.ratio - 1.0)

    @property
    def tolerance(self):
        return H_TOLERANCE if self.conf == "H" else M_TOLERANCE

    @property
    def within(self):
        return self.error <= self.tolerance


class Profile:
    def __init__(self, report, profile_json, summary):
        self.report = report
        self.json = profile_json
        self.summary = summary

    def instructions(self, engine=None, opcode=None):
        """The profile's instruction rows, optionally of one engine (pe, act, dve, pool, sp) and
        one opcode."""
        rows = self.json.get("instruction", [])
        if engine is not None:
            rows = [r for r in rows if engine_of(r) == engine]
        if opcode is not None:
            rows = [r for r in rows if r.get("opcode") == opcode]
        return rows

    def dma(self):
        return self.json.get("dma", [])


def engine_of(row):
    """The engine of a profile instruction row (its `label` starts with it)."""
    return str(row.get("label", "")).split(".")[0].split(" ")[0].lower()


class Context:
    def __init__(self, chip, build_dir, src_dir):
        self.chip = chip
        self.build_dir = build_dir
        self.src_dir = src_dir

    def tool(self, name):
        folder = {"neuron-profile": "neuron_profile"}.get(name, name.replace("-", "_"))
        return os.path.join(self.build_dir, "tools", folder, name)

    def run(self, kernel, *args, grid=()):
        compiled, inputs = kernel.compile(grid, args, {})
        outs = compiled.run(inputs)
        return compiled.shaped(outs), compiled.last_report

    def profile(self, kernel, *args, grid=(), rows=True):
        compiled, inputs = kernel.compile(grid, args, {})
        with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
            neff = os.path.join(tmp, "kernel.neff")
            ntff = os.path.join(tmp, "profile.ntff")
            with open(neff, "wb") as f:
                f.write(compiled.neff)
            compiled.run(inputs, ntff)
            views = {"json": {}}
            for fmt in ("json", "summary-json") if rows else ("summary-json",):
                out = subprocess.run(
                    [self.tool("neuron-profile"), "view", "-n", neff, "-s", ntff,
                     "--output-format", fmt], check=True, capture_output=True, text=True)
                views[fmt] = json.loads(out.stdout)
        return Profile(compiled.last_report, views["json"], views["summary-json"])


class Verdict:
    def __init__(self, rows):
        self.rows = rows
        self.gaps = [r for r in rows if r.counted and r.gap]
        self.counted = [r for r in rows if r.counted and not r.gap]
        self.mae = (sum(r.error for r in self.counted) / len(self.counted)
                    if self.counted else 0.0)
        self.outside = [r for r in self.counted if not r.within]
        self.stale_gaps = [r for r in self.gaps if r.within]

    @property
    def passed(self):
        return (bool(self.counted) and not self.outside and not self.stale_gaps and
                self.mae < MAE_LIMIT)


def format_table(rows, verdict):
    lines = [f"{'case':5} {'conf':4} {'what':58} {'measured':>12} {'simulated':>12} "
             f"{'unit':5} {'ratio':>7} {'error':>7}"]
    for r in rows:
        if not r.counted:
            mark = "  (not counted)"
        elif r.gap:
            mark = "  (known gap)" if not r.within else "  (known gap now within: take it off)"
        else:
            mark = "" if r.within else "  OUTSIDE"
        lines.append(f"{r.case:5} {r.conf:4} {r.what[:58]:58} {r.measured:12.6g} "
                     f"{r.simulated:12.6g} {r.unit:5} {r.ratio:7.3f} {100 * r.error:6.1f}%"
                     f"{mark}")
    for r in verdict.gaps:
        lines.append(f"known gap {r.case} {r.what}: {r.gap}")
    lines.append(f"rows: {len(rows)}, counted: {len(verdict.counted)}, "
                 f"known gaps: {len(verdict.gaps)}, "
                 f"mean absolute error: {100 * verdict.mae:.2f}% (limit {100 * MAE_LIMIT:.0f}%), "
                 f"outside tolerance: {len(verdict.outside)}")
    return "\n".join(lines)
