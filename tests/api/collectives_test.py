#!/usr/bin/env python3
"""Collective jobs started torchrun-style against one neurond (issue 7).

  collectives_test.py CASE NEUROND CC PREFIX CC_RANK_SOURCE WORKDIR

Builds cc_rank.c (tests/api) against the installed tree PREFIX with CC, starts a neurond
serving a trn2.48xlarge (LNC 2: 64 logical cores, 4 per chip) and runs one case:

  world16   16 processes, rank r on logical core r (NEURON_RT_VISIBLE_CORES=r, chips 0-3), each
            with RANK, WORLD_SIZE, LOCAL_RANK and NEURON_RT_ROOT_COMM_ID as torchrun sets them,
            run allreduce_fp32_lnc2.neff twice; every rank must get the exact sum (cc_rank
            compares bit for bit), then nrt_barrier and nrt_all_gather
  world64   the same with 64 processes: every logical core of the instance
  threads   one process, 4 ranks as 4 threads on logical cores 0-3 (no daemon involved in the
            matching: the ranks meet inside the process's own emulated instance)
  missing   a world of 4 where rank 3 never starts: ranks 0-2 fail with NRT_TIMEOUT after
            NEURON_RT_EXEC_TIMEOUT (2 s), and their log line names rank 3 as missing
  mismatch  a world of 4 where rank 1 loads an all-reduce of another size: every rank fails
            with NRT_EXEC_HW_ERR_COLLECTIVES naming the ranks that disagree, well before the
            timeout
  dies      a world of 4 where rank 2 enters the all-reduce first and is SIGKILLed while it
            waits; once neurond has ended its session (neuron-ls no longer lists it), ranks
            0, 1 and 3 start and fail with NRT_EXEC_HW_ERR_COLLECTIVES naming rank 2, well
            before the timeout (30 s)

Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "../python"))
import neurond_fixture  # noqa: E402
import rank_job  # noqa: E402
from trnsim_checks import clean_env, expect, expect_eq, summary  # noqa: E402

INSTANCE = "trn2.48xlarge"
NEFF = "allreduce_fp32_lnc2.neff"
OTHER_SIZE_NEFF = "allreduce_fp32_small_lnc2.neff"
ROOT_COMM_ID = "127.0.0.1:29500"
JOB_TIMEOUT_S = 600  # a whole case; the ranks' own timeouts are far shorter


def rank_env(address, rank, world, timeout_s, lib):
    return clean_env(TRNSIM_DAEMON=address, NEURON_RT_VISIBLE_CORES=str(rank),
                     NEURON_RT_ROOT_COMM_ID=ROOT_COMM_ID, RANK=str(rank), LOCAL_RANK=str(rank),
                     WORLD_SIZE=str(world), NEURON_RT_EXEC_TIMEOUT=str(timeout_s),
                     LD_LIBRARY_PATH=lib)


start = rank_job.start


def finish(procs):
    """Waits for every process; returns [(rank, returncode, stdout, stderr, seconds)]."""
    return rank_job.finish(procs, JOB_TIMEOUT_S)


def world_case(cc_rank, neff_dir, address, lib, world):
    procs = [(r, start(cc_rank, os.path.join(neff_dir, NEFF), "run",
                       rank_env(address, r, world, 120, lib))) for r in range(world)]
    results = finish(procs)
    for rank, code, stdout, stderr, _ in results:
        ok = code == 0 and f"rank {rank}: ok (2 executions" in stdout
        expect(ok, f"rank {rank} of {world}: exact sum, barrier and all_gather "
                   f"(exit {code}: {stdout.strip()} {stderr.strip()[-300:]})")


def threads_case(cc_rank, neff_dir, lib):
    env = clean_env(NEURON_RT_VISIBLE_CORES="0-3", NEURON_RT_ROOT_COMM_ID=ROOT_COMM_ID,
                    TRNSIM_INSTANCE=INSTANCE, NEURON_RT_EXEC_TIMEOUT="120", LD_LIBRARY_PATH=lib)
    p = subprocess.run([cc_rank, os.path.join(neff_dir, NEFF), "threads", "4"], env=env,
                       capture_output=True, text=True, timeout=JOB_TIMEOUT_S)
    expect_eq(p.returncode, 0, f"4 ranks in one process: exit status ({p.stdout} {p.stderr[-300:]})")
    for r in range(4):
        expect(f"rank {r}: ok (1 executions" in p.stdout, f"thread rank {r} got the exact sum")


def expect_failure(results, status, names, within_s, what):
    for rank, code, stdout, stderr, seconds in results:
        expect(code == 1 and f"rank {rank}: nrt_execute: {status}" in stdout,
               f"{what}: rank {rank} fails with {status} (exit {code}: {stdout.strip()})")
        expect(names in stderr, f"{what}: rank {rank}'s log names {names!r} ({stderr.strip()[-400:]})")
        if within_s is not None:
            expect(seconds < within_s, f"{what}: rank {rank} failed within {within_s} s "
                                       f"(took {seconds:.1f} s)")


def missing_case(cc_rank, neff_dir, address, lib):
    procs = [(r, start(cc_rank, os.path.join(neff_dir, NEFF), "run",
                       rank_env(address, r, 4, 2, lib))) for r in range(3)]
    results = finish(procs)
    expect_failure(results, "NRT_TIMEOUT", "rank 3", 30, "rank 3 never started")


def mismatch_case(cc_rank, neff_dir, address, lib):
    procs = []
    for r in range(4):
        neff = OTHER_SIZE_NEFF if r == 1 else NEFF
        procs.append((r, start(cc_rank, os.path.join(neff_dir, neff), "run",
                               rank_env(address, r, 4, 30, lib))))
    results = finish(procs)
    expect_failure(results, "NRT_EXEC_HW_ERR_COLLECTIVES", "rank 1", 20,
                   "rank 1's message size differs")


def processes_seen(prefix, address):
    """The pids neurond lists as using its devices (neuron-ls -j's neuron_processes)."""
    out = subprocess.run([os.path.join(prefix, "bin", "neuron-ls"), "-j"], capture_output=True,
                         text=True, timeout=30,
                         env=clean_env(TRNSIM_DAEMON=address,
                                       LD_LIBRARY_PATH=os.path.join(prefix, "lib")))
    if out.returncode != 0:
        return None
    return {p["pid"] for device in json.loads(out.stdout) for p in device["neuron_processes"]}


def wait_gone(prefix, address, pid, timeout_s=10.0):
    """True once neurond no longer lists process `pid` (it has ended the process's session)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        seen = processes_seen(prefix, address)
        if seen is not None and pid not in seen:
            return True
        time.sleep(0.02)
    return False


def dies_case(cc_rank, neff_dir, address, lib, prefix):
    victim = start(cc_rank, os.path.join(neff_dir, NEFF), "hang", rank_env(address, 2, 4, 30, lib))
    line = victim.stdout.readline()
    expect("rank 2: loaded" in line, f"rank 2 loaded its model ({line.strip()!r})")
    line = victim.stdout.readline()
    expect("rank 2: executing" in line, f"rank 2 calls nrt_execute ({line.strip()!r})")
    time.sleep(2.0)  # it is now waiting in the all-reduce for ranks 0, 1 and 3
    expect(victim.poll() is None, "rank 2 is still waiting for the others")
    expect(victim.pid in (processes_seen(prefix, address) or set()),
           "neuron-ls lists rank 2's process while it waits")
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    # The others start once neurond has noticed the death (its Attach poll: within 50 ms). Ranks
    # that complete the meeting before then meet rank 2's input, which it had already given
    # (docs/collectives.md, "What a rank's process sees").
    expect(wait_gone(prefix, address, victim.pid), "neurond ends rank 2's session")
    procs = [(r, start(cc_rank, os.path.join(neff_dir, NEFF), "run",
                       rank_env(address, r, 4, 30, lib))) for r in (0, 1, 3)]
    results = finish(procs)
    expect_failure(results, "NRT_EXEC_HW_ERR_COLLECTIVES", "rank 2", 20,
                   "rank 2 died inside the all-reduce")


def main():
    case, neurond, cc, prefix, source, workdir = sys.argv[1:7]
    os.makedirs(workdir, exist_ok=True)
    cc_rank = rank_job.build_cc_rank(cc, source, prefix, workdir)
    lib = os.path.join(prefix, "lib")
    neff_dir = os.path.join(prefix, "share", "trnsim", "neff")
    if case == "threads":
        threads_case(cc_rank, neff_dir, lib)
        return summary(require_checks=True)
    base = os.path.join(workdir, "neurond")
    if neurond_fixture.start(neurond, base, INSTANCE) != 0:
        expect(False, "neurond started")
        return summary(require_checks=True)
    address = "unix:" + base + ".sock"
    try:
        if case == "world16":
            world_case(cc_rank, neff_dir, address, lib, 16)
        elif case == "world64":
            world_case(cc_rank, neff_dir, address, lib, 64)
        elif case == "missing":
            missing_case(cc_rank, neff_dir, address, lib)
        elif case == "mismatch":
            mismatch_case(cc_rank, neff_dir, address, lib)
        elif case == "dies":
            dies_case(cc_rank, neff_dir, address, lib, prefix)
        else:
            expect(False, f"known case ({case})")
    finally:
        expect(neurond_fixture.stop(base) == 0, "daemon stopped with SIGTERM")
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
