#!/usr/bin/env python3
"""Async send/recv between two processes of one neurond.

  sendrecv_remote_test.py NEUROND CC PREFIX PEER_SOURCE WORKDIR

Builds sendrecv_peer.c against the installed tree PREFIX with CC, starts a neurond serving a
trn2.48xlarge (LNC 2: 4 logical cores per chip) and runs a receiver on absolute logical core 5
(chip 1) that accepts from core 0 before the sender on core 0 (chip 0) exists; the sender
connects and sends 4096 bytes, which the receiver checks byte for byte. The bytes move inside
the daemon, across chips. Then a sender on core 1 connects to a receiver on core 6 and is
SIGKILLed: the receiver's receive fails with NRT_FAILURE well before its 60 s deadline (the
daemon closes a dead session's ends).

Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "../python"))
import neurond_fixture  # noqa: E402
from trnsim_checks import clean_env, expect, summary  # noqa: E402

INSTANCE = "trn2.48xlarge"
JOB_TIMEOUT_S = 120


def peer_env(address, lnc, lib):
    return clean_env(TRNSIM_DAEMON=address, NEURON_RT_VISIBLE_CORES=str(lnc),
                     NEURON_RT_ASYNC_SENDRECV_EXPERIMENTAL_ENABLED="1",
                     NEURON_RT_EXEC_TIMEOUT="60", LD_LIBRARY_PATH=lib)


def dies_case(peer, address, lib):
    victim = subprocess.Popen([peer, "hang", "1", "6"], env=peer_env(address, 1, lib),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    receiver = subprocess.Popen([peer, "lost", "6", "1"], env=peer_env(address, 6, lib),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = victim.stdout.readline()
    expect("hang: connected" in line, f"the doomed sender connected ({line.strip()!r})")
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    try:
        out, err = receiver.communicate(timeout=JOB_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        receiver.kill()
        out, err = receiver.communicate()
    # NRT_FAILURE: the daemon closed the dead sender's comm (its deadline would give NRT_TIMEOUT).
    expect(receiver.returncode == 0 and "lost: ok" in out,
           f"the receive from a killed sender failed with NRT_FAILURE (exit "
           f"{receiver.returncode}: {out.strip()} {err.strip()[-400:]})")


def main():
    neurond, cc, prefix, source, workdir = sys.argv[1:6]
    os.makedirs(workdir, exist_ok=True)
    peer = os.path.join(workdir, "sendrecv_peer")
    subprocess.run([cc, "-std=c11", "-O2", source, "-I", os.path.join(prefix, "include"),
                    "-L", os.path.join(prefix, "lib"), "-lnrt", "-o", peer], check=True)
    lib = os.path.join(prefix, "lib")
    base = os.path.join(workdir, "neurond")
    if neurond_fixture.start(neurond, base, INSTANCE) != 0:
        expect(False, "neurond started")
        return summary(require_checks=True)
    address = "unix:" + base + ".sock"
    try:
        receiver = subprocess.Popen([peer, "recv", "5", "0"], env=peer_env(address, 5, lib),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)  # the receiver accepts first: pairing must not depend on the order
        sender = subprocess.Popen([peer, "send", "0", "5"], env=peer_env(address, 0, lib),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, proc in (("sender", sender), ("receiver", receiver)):
            try:
                out, err = proc.communicate(timeout=JOB_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
            expect(proc.returncode == 0 and "ok (4096 bytes)" in out,
                   f"{name}: transfer through the daemon (exit {proc.returncode}: "
                   f"{out.strip()} {err.strip()[-400:]})")
        dies_case(peer, address, lib)
    finally:
        expect(neurond_fixture.stop(base) == 0, "daemon stopped with SIGTERM")
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
