#!/usr/bin/env python3
"""A job across two emulated instances: two neurond daemons on loopback (issue 22).

  cluster_test.py CASE NEUROND CC PREFIX CC_RANK_SOURCE WORKDIR TLS_DATA_DIR

Builds cc_rank.c (tests/api) against the installed tree PREFIX, starts daemons A and B, each a
trn2.3xlarge (one chip, 4 logical cores at LNC 2) with --cluster-listen 127.0.0.1:0, and runs
a world of 8 ranks: ranks 0-3 on A's logical cores 0-3, ranks 4-7 on B's, every rank its own
process with NEURON_RT_ROOT_COMM_ID = A's cluster address (A is the job's root):

  job          allreduce_fp32_lnc2 twice and allgather_fp32_w8_lnc2 once: every rank gets the
               exact result (cc_rank compares bit for bit), and nrt_barrier / nrt_all_gather
               across both daemons. The simulated time of the all-reduce is that of the same
               all-reduce over 4 ranks of one instance plus exactly the EFA term of
               docs/cluster.md: 2 halves x 1 step x (15 us + 512 KiB / (2 instances x 25 GB/s))
               = 50.97152 us (TRNSIM_EXEC_REPORT, printed to the ns). The all-gather's includes
               its EFA step (15 us + 1 MiB / 50 GB/s = 35.97152 us) on top of the fixed cost.
  kill_member  ranks 4-7 enter the all-reduce on B and wait at A; B is SIGKILLed; ranks 0-3
               then fail at once with NRT_EXEC_HW_ERR_COLLECTIVES naming the ranks that left,
               long before their timeout (60 s).
  kill_root    ranks 4-7 wait at A; A is SIGKILLed; ranks 4-7 fail at once with
               NRT_EXEC_HW_ERR_COLLECTIVES naming the root daemon that went away.
  tls          A and B serve TLS (the committed test pair, tests/data/tls) with one token and
               trust each other through --peer-ca: the 4 + 4 all-reduce is exact; a daemon whose
               --peer-ca is another certificate, and one with another token, cannot join: their
               ranks fail at once with NRT_EXEC_HW_ERR_COLLECTIVES saying why.
  ultraserver  a Trn2 UltraServer: four trn2u.48xlarge daemons with --ultraserver us-0, 2 ranks
               on each (logical cores 0-1: chip 0), allreduce_fp32_lnc2 exact over the 8; its
               simulated time is the 2-rank one-instance all-reduce's plus exactly the Z-link
               term: 2 halves x 3 steps x (1.5 us + 512 KiB / (4 x 2 x 31.75 GB/s)) = 21.384756 us.

Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "../python"))
import rank_job  # noqa: E402
from trnsim_checks import clean_env, expect, expect_eq, summary  # noqa: E402

INSTANCE = "trn2.3xlarge"
ALL_REDUCE = "allreduce_fp32_lnc2.neff"
ALL_GATHER = "allgather_fp32_w8_lnc2.neff"
WORLD = 8
PER_INSTANCE = 4
START_TIMEOUT_S = 30
JOB_TIMEOUT_S = 300
EFA_ALL_REDUCE_US = 50.97152  # docs/cluster.md "Timing": 2 x (15 + 10.48576) us
EFA_ALL_GATHER_US = 35.97152  # 15 + 20.97152 us
CC_FIXED_US = 291.3           # ChipSpec::cc_fixed_ps on trn2 (calibration.md §7)
REPORT = re.compile(r"model '([^']+)' vnc \d+: ([0-9.]+) us simulated")


class Daemon:
    """A neurond with a unix socket for clients and a cluster address, output in a log file."""

    def __init__(self, neurond, workdir, name, instance=INSTANCE, extra=()):
        self.sock = os.path.join(workdir, name + ".sock")
        self.log_path = os.path.join(workdir, name + ".log")
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [neurond, "--listen", "unix:" + self.sock, "--instance", instance,
             "--cluster-listen", "127.0.0.1:0", *extra],
            stdout=self.log, stderr=subprocess.STDOUT, env=clean_env())
        self.cluster = None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and self.proc.poll() is None:
            with open(self.log_path, errors="replace") as f:
                m = re.search(r"neurond: cluster on (\S+)", f.read())
            if m:
                self.cluster = m.group(1)
                break
            time.sleep(0.05)
        self.address = "unix:" + self.sock
        self.client_env = {}  # what a client needs besides TRNSIM_DAEMON (TLS, token)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def tail(self):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-20:])


def rank_env(daemon, root, rank, world, lib, timeout_s=120, per_instance=PER_INSTANCE):
    core = rank % per_instance
    return clean_env(**daemon.client_env, TRNSIM_DAEMON=daemon.address,
                     NEURON_RT_VISIBLE_CORES=str(core), NEURON_RT_ROOT_COMM_ID=root, RANK=str(rank), LOCAL_RANK=str(core),
                     WORLD_SIZE=str(world), NEURON_RT_EXEC_TIMEOUT=str(timeout_s),
                     TRNSIM_EXEC_REPORT="1", LD_LIBRARY_PATH=lib)


start = rank_job.start


def finish(procs):
    """Waits for every process; returns [(rank, returncode, stdout, stderr, seconds)]."""
    return rank_job.finish(procs, JOB_TIMEOUT_S)


def durations(results, model):
    """The simulated microseconds each rank's executions of `model` reported."""
    found = {}
    for rank, _, _, stderr, _ in results:
        found[rank] = [float(us) for name, us in REPORT.findall(stderr) if name == model]
    return found


def run_world(cc_rank, neff, mode, daemons, root, lib, ranks, world, executions,
              per_instance=PER_INSTANCE):
    procs = []
    for r in ranks:
        env = rank_env(daemons[r // per_instance], root, r, world, lib, per_instance=per_instance)
        procs.append((r, start(cc_rank, neff, mode, env, executions)))
    return finish(procs)


def expect_ok(results, executions, what):
    for rank, code, stdout, stderr, _ in results:
        expect(code == 0 and f"rank {rank}: ok ({executions} executions" in stdout,
               f"{what}: rank {rank} exact, barrier and all_gather across the instances "
               f"(exit {code}: {stdout.strip()} {stderr.strip()[-400:]})")


def job_case(cc_rank, neff_dir, daemons, lib):
    a, b = daemons
    root = a.cluster
    reduce_neff = os.path.join(neff_dir, ALL_REDUCE)
    gather_neff = os.path.join(neff_dir, ALL_GATHER)
    # The baseline: the same all-reduce over 4 ranks of instance A alone (a job of its own).
    single = run_world(cc_rank, reduce_neff, "run", daemons, "single-instance-baseline", lib,
                       range(PER_INSTANCE), PER_INSTANCE, 1)
    expect_ok(single, 1, "4 ranks on one instance")
    single_us = durations(single, "allreduce_fp32_lnc2")

    results = run_world(cc_rank, reduce_neff, "run", daemons, root, lib, range(WORLD), WORLD, 2)
    expect_ok(results, 2, "all-reduce over 8 ranks on 2 instances")
    cluster_us = durations(results, "allreduce_fp32_lnc2")
    for rank in range(WORLD):
        got = cluster_us.get(rank, [])
        if not expect_eq(len(got), 2, f"rank {rank} reported its 2 all-reduce executions"):
            continue
        expect_eq(got[0], got[1], f"rank {rank}: both executions take the same simulated time")
        expect_eq(got[0], cluster_us[0][0], f"rank {rank} completes with rank 0")
        base = single_us.get(0, [0.0])[0]
        extra = got[0] - base
        expect(abs(extra - EFA_ALL_REDUCE_US) <= 0.002,
               f"rank {rank}: all-reduce across instances takes {got[0]} us, the 4-rank "
               f"one-instance one {base} us: the difference {extra:.3f} us is the EFA term "
               f"{EFA_ALL_REDUCE_US} us")

    print(f"[ figures ] allreduce_fp32_lnc2: 4 ranks on one instance "
          f"{single_us.get(0, ['?'])[0]} us, 8 ranks on two {cluster_us.get(0, ['?'])[0]} us")
    results = run_world(cc_rank, gather_neff, "gather", daemons, root, lib, range(WORLD), WORLD,
                        1)
    expect_ok(results, 1, "all-gather over 8 ranks on 2 instances")
    gather_us = durations(results, "allgather_fp32_w8_lnc2")
    for rank in range(WORLD):
        got = gather_us.get(rank, [])
        if expect_eq(len(got), 1, f"rank {rank} reported its all-gather execution"):
            expect(got[0] > CC_FIXED_US + EFA_ALL_GATHER_US,
                   f"rank {rank}: the all-gather ({got[0]} us) includes the fixed cost and its "
                   f"EFA step ({CC_FIXED_US} + {EFA_ALL_GATHER_US} us)")
            expect_eq(got[0], gather_us[0][0], f"rank {rank} completes the all-gather with rank 0")
    print(f"[ figures ] allgather_fp32_w8_lnc2: 8 ranks on two instances "
          f"{gather_us.get(0, ['?'])[0]} us")


def wait_executing(procs):
    for rank, p in procs:
        for expected in ("loaded", "executing"):
            line = p.stdout.readline()
            expect(f"rank {rank}: {expected}" in line, f"rank {rank} {expected} ({line.strip()!r})")


def kill_member_case(cc_rank, neff_dir, daemons, lib):
    a, b = daemons
    neff = os.path.join(neff_dir, ALL_REDUCE)
    waiting = [(r, start(cc_rank, neff, "hang", rank_env(b, a.cluster, r, WORLD, lib, 60)))
               for r in range(PER_INSTANCE, WORLD)]
    wait_executing(waiting)
    time.sleep(1.5)  # their all-reduce has been forwarded to A and waits for ranks 0-3
    b.proc.send_signal(signal.SIGKILL)
    b.proc.wait()
    for _, p in waiting:
        try:
            p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
    procs = [(r, start(cc_rank, neff, "run", rank_env(a, a.cluster, r, WORLD, lib, 60), 1))
             for r in range(PER_INSTANCE)]
    for rank, code, stdout, stderr, seconds in finish(procs):
        expect(code == 1 and f"rank {rank}: nrt_execute: NRT_EXEC_HW_ERR_COLLECTIVES" in stdout,
               f"rank {rank} fails with NRT_EXEC_HW_ERR_COLLECTIVES once B is gone "
               f"(exit {code}: {stdout.strip()})")
        expect(re.search(r"rank [4-7]", stderr) is not None,
               f"rank {rank}'s log names a rank of the dead instance ({stderr.strip()[-400:]})")
        expect(seconds < 30, f"rank {rank} failed within 30 s, not at its 60 s timeout "
                             f"(took {seconds:.1f} s)")


def kill_root_case(cc_rank, neff_dir, daemons, lib):
    a, b = daemons
    neff = os.path.join(neff_dir, ALL_REDUCE)
    waiting = [(r, start(cc_rank, neff, "hang", rank_env(b, a.cluster, r, WORLD, lib, 60)))
               for r in range(PER_INSTANCE, WORLD)]
    wait_executing(waiting)
    time.sleep(1.5)
    killed = time.monotonic()
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait()
    for rank, p in waiting:
        try:
            stdout, stderr = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
        seconds = time.monotonic() - killed
        expect(p.returncode == 1 and
               f"rank {rank}: nrt_execute: NRT_EXEC_HW_ERR_COLLECTIVES" in stdout,
               f"rank {rank} fails with NRT_EXEC_HW_ERR_COLLECTIVES once the root is gone "
               f"(exit {p.returncode}: {stdout.strip()})")
        expect(f"root daemon at {a.cluster}" in stderr,
               f"rank {rank}'s log names the root daemon ({stderr.strip()[-400:]})")
        expect(seconds < 30, f"rank {rank} failed within 30 s of the kill ({seconds:.1f} s)")


Z_ALL_REDUCE_US = 21.384756  # 6 x (1.5 + 2.064126) us


def ultraserver_case(cc_rank, neff_dir, daemons, lib):
    neff = os.path.join(neff_dir, ALL_REDUCE)
    per = 2
    single = run_world(cc_rank, neff, "run", daemons, "one-node-baseline", lib, range(per), per, 1,
                       per_instance=per)
    expect_ok(single, 1, "2 ranks on one UltraServer node")
    base = durations(single, "allreduce_fp32_lnc2").get(0, [0.0])[0]
    world = per * len(daemons)
    results = run_world(cc_rank, neff, "run", daemons, daemons[0].cluster, lib, range(world),
                        world, 1, per_instance=per)
    expect_ok(results, 1, "all-reduce over 8 ranks on the 4 nodes of an UltraServer")
    got = durations(results, "allreduce_fp32_lnc2")
    for rank in range(world):
        us = got.get(rank, [])
        if expect_eq(len(us), 1, f"rank {rank} reported its execution"):
            expect(abs(us[0] - base - Z_ALL_REDUCE_US) <= 0.002,
                   f"rank {rank}: {us[0]} us on the UltraServer, {base} us on one node: the "
                   f"difference {us[0] - base:.3f} us is the Z-link term {Z_ALL_REDUCE_US} us")
    print(f"[ figures ] allreduce_fp32_lnc2: 2 ranks on one node {base} us, 8 ranks on the "
          f"UltraServer's 4 nodes {got.get(0, ['?'])[0]} us")


def tls_case(cc_rank, neff_dir, neurond, workdir, lib, tls_dir):
    neff = os.path.join(neff_dir, ALL_REDUCE)
    cert, key = os.path.join(tls_dir, "server.crt"), os.path.join(tls_dir, "server.key")
    other = os.path.join(tls_dir, "other.crt")
    tokens = {}
    for name, text in (("token", "cluster-secret\n"), ("other-token", "not-the-secret\n")):
        tokens[name] = os.path.join(workdir, name)
        with open(tokens[name], "w") as f:
            f.write(text)

    def daemon(name, peer_ca, token):
        d = Daemon(neurond, workdir, name, INSTANCE,
                   ("--tls-cert", cert, "--tls-key", key, "--peer-ca", peer_ca,
                    "--token-file", tokens[token]))
        d.client_env = {"TRNSIM_TLS_CA": cert, "TRNSIM_TLS_SERVER_NAME": "localhost",
                        "TRNSIM_TOKEN_FILE": tokens[token]}
        return d

    daemons = [daemon("tls-a", cert, "token"), daemon("tls-b", cert, "token")]
    strangers = [daemon("tls-c", other, "token"), daemon("tls-d", cert, "other-token")]
    try:
        if not all(expect(d.cluster is not None, f"TLS daemon serves a cluster address ({d.tail()})")
                   for d in daemons + strangers):
            return
        a = daemons[0]
        results = run_world(cc_rank, neff, "run", daemons, a.cluster, lib, range(WORLD), WORLD, 1)
        expect_ok(results, 1, "all-reduce over TLS between the daemons")
        for d, why in ((strangers[0], "unreachable"), (strangers[1], "wrong token")):
            p = start(cc_rank, neff, "run", rank_env(d, a.cluster, PER_INSTANCE, WORLD, lib, 60), 1)
            rank, code, stdout, stderr, seconds = finish([(PER_INSTANCE, p)])[0]
            expect(code == 1 and "nrt_execute: NRT_EXEC_HW_ERR_COLLECTIVES" in stdout,
                   f"a rank on a daemon the root cannot trust ({why}) fails "
                   f"(exit {code}: {stdout.strip()})")
            expect(why in stderr, f"its log says {why!r} ({stderr.strip()[-400:]})")
            expect(seconds < 30, f"it failed within 30 s ({seconds:.1f} s)")
    finally:
        for d in daemons + strangers:
            d.stop()


def main():
    case, neurond, cc, prefix, source, workdir = sys.argv[1:7]
    os.makedirs(workdir, exist_ok=True)
    cc_rank = rank_job.build_cc_rank(cc, source, prefix, workdir)
    lib = os.path.join(prefix, "lib")
    neff_dir = os.path.join(prefix, "share", "trnsim", "neff")
    if case == "tls":
        tls_case(cc_rank, neff_dir, neurond, workdir, lib, sys.argv[7])
        return summary(require_checks=True)
    if case == "ultraserver":
        daemons = [Daemon(neurond, workdir, f"node{n}", "trn2u.48xlarge",
                          ("--ultraserver", "us-0")) for n in range(4)]
    else:
        daemons = [Daemon(neurond, workdir, "a"), Daemon(neurond, workdir, "b")]
    try:
        if not all(expect(d.cluster is not None, f"daemon {n} serves a cluster address "
                                                  f"({d.tail()})")
                   for n, d in zip("ABCD", daemons)):
            return summary(require_checks=True)
        if case == "job":
            job_case(cc_rank, neff_dir, daemons, lib)
        elif case == "kill_member":
            kill_member_case(cc_rank, neff_dir, daemons, lib)
        elif case == "kill_root":
            kill_root_case(cc_rank, neff_dir, daemons, lib)
        elif case == "ultraserver":
            ultraserver_case(cc_rank, neff_dir, daemons, lib)
        else:
            expect(False, f"known case ({case})")
    finally:
        for d in daemons:
            d.stop()
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
