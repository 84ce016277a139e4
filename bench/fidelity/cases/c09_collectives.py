"""C-9 and C-10: collectives within one instance (shared/reference/trainium-measurements.md).

C-9 is AWS's `nccom-test -r 16 allr -b 4 -e 1gb -f 16 -d fp32 --show-algorithm` table
(tools/neuron-sys-tools/nccom-test.rst): an fp32 all-reduce over 16 ranks of one instance. The
16 ranks are taken as a trn2.48xlarge at LNC 2 — four ranks on each of chips 0-3 (one torus
row), the placement `NEURON_RT_VISIBLE_CORES=0-15` gives. The rows are the sizes of AWS's
table (4 B ... 512 MiB; its sizes do not follow its own -f 16, so they are listed).

How the simulated figure is obtained: `build/bench/nccom_table` (bench/simulator/nccom_table.cc)
prints nccom-test's table from trnsim's collective model. Sizes up to 32 MiB run functionally —
16 host threads, one per rank, with real fp32 data through the instance's CollectiveHub (the
path a `collective` instruction takes from the chip model); the time is the one the hub stamps
on every rank. 512 MiB (16 x 512 MiB inputs and as much output: too big for a small host) comes
from EstimateCollective, the function the hub calls. Each row's `what` says "hub" or "cost".
The algorithm must also be AWS's (mesh / rdh / kangaring): a different one fails the module.

C-10 (neuron-runtime/explore/intranode-collective-comm.rst): the algorithms' empirical sweet
spots for the page's 64-rank group (a whole trn2.48xlarge at LNC 2) — mesh below 1 MB, RDH
from 1 to 56 MB, KangaRing above (MB read as MiB). Simulated: the smallest size at which
nccom_table -r 64 reports rdh (a 64 KiB sweep) and kangaring (a 1 MiB sweep). These switch
points are parameters fitted to C-10 (ChipSpec::cc_rdh_min_chunk_bytes, cc_ring_min_chunk_bytes,
per-rank chunks); the rows check that the runtime's choice applies them as the page describes.
C-10's other figure, ~1-2 us per hop, is the model's hop latency parameter itself (1.5 us), so
it has no row of its own.

On trn3 the same runs on a trn3.48xlarge and is shown next to trn2's measurement, not judged.
"""

import json
import os
import subprocess

from fidelity import Row

CASES = ("C-9", "C-10")

# nccom-test.rst, --show-algorithm example: size(B), time:avg(us), algorithm.
C9 = [
    (4, 299.91, "mesh"),
    (32, 299.69, "mesh"),
    (512, 299.82, "mesh"),
    (8192, 299.74, "mesh"),
    (131072, 574.15, "mesh"),
    (2097152, 686.32, "rdh"),
    (33554432, 2754.15, "kangaring"),
    (536870912, 9689.51, "kangaring"),
]
MIB = 1 << 20


def _table(ctx, ranks, sizes, functional_max):
    exe = os.path.join(ctx.build_dir, "bench", "nccom_table")
    out = subprocess.run(
        [exe, "--instance", f"{ctx.chip}.48xlarge", "-r", str(ranks), "--ranks-per-chip", "4",
         "--sizes", ",".join(str(s) for s in sizes), "--functional-max", str(functional_max),
         "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def _first(rows, algorithm):
    for r in rows:
        if r["algorithm"] == algorithm:
            return r["size"]
    raise AssertionError(f"no size ran {algorithm}: {[r['algorithm'] for r in rows]}")


def rows(ctx):
    counted = ctx.chip == "trn2"
    out = []
    table = _table(ctx, 16, [s for s, _, _ in C9], 32 * MIB)
    for (size, measured, algorithm), r in zip(C9, table):
        if r["algorithm"] != algorithm:
            raise AssertionError(f"C-9 {size} B: trnsim runs {r['algorithm']}, AWS {algorithm}")
        out.append(Row(case="C-9", conf="M",
                       what=f"all-reduce 16 ranks fp32 {size} B ({algorithm}, {r['path']})",
                       measured=measured, simulated=r["time_us"], unit="us", counted=counted))
    # C-10: the 64-rank switch points; nothing runs functionally (the cost model's choice).
    mesh_side = _table(ctx, 64, [k * 64 * 1024 for k in range(1, 33)], 0)
    ring_side = _table(ctx, 64, [k * MIB for k in range(1, 65)], 0)
    out.append(Row(case="C-10", conf="M", what="64 ranks: smallest size run with rdh (mesh below)",
                   measured=1.0, simulated=_first(mesh_side, "rdh") / MIB, unit="MiB",
                   counted=counted))
    out.append(Row(case="C-10", conf="M", what="64 ranks: smallest size run with kangaring",
                   measured=56.0, simulated=_first(ring_side, "kangaring") / MIB, unit="MiB",
                   counted=counted))
    return out
