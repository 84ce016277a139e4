"""Rank processes of a collective job for the Python job tests (collectives_test.py,
cluster_test.py): cc_rank (tests/api/cc_rank.c) built against an installed tree, started
torchrun-style, and waited for.

Contract:
  - `build_cc_rank(cc, source, prefix, workdir)` compiles cc_rank against PREFIX's include/ and
    lib/ (libnrt) into WORKDIR and returns its path; a compile error raises.
  - `start(cc_rank, neff, mode, env, executions=None)` starts one rank (`cc_rank NEFF MODE
    [EXECUTIONS]`) with pipes for its text output.
  - `finish(procs, timeout_s)` waits for every (rank, process) pair, killing those still running
    `timeout_s` after the first wait began, and returns
    [(rank, returncode, stdout, stderr, seconds since the wait began)].
"""
import os
import subprocess
import time


def build_cc_rank(cc, source, prefix, workdir):
    cc_rank = os.path.join(workdir, "cc_rank")
    subprocess.run([cc, "-std=c11", "-O2", "-pthread", source, "-I",
                    os.path.join(prefix, "include"), "-L", os.path.join(prefix, "lib"), "-lnrt",
                    "-o", cc_rank], check=True)
    return cc_rank


def start(cc_rank, neff, mode, env, executions=None):
    argv = [cc_rank, neff, mode] + ([str(executions)] if executions is not None else [])
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(procs, timeout_s):
    out = []
    started = time.monotonic()
    for rank, p in procs:
        try:
            stdout, stderr = p.communicate(
                timeout=max(1, timeout_s - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
        out.append((rank, p.returncode, stdout, stderr, time.monotonic() - started))
    return out
