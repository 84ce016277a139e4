#!/usr/bin/env python3
"""neuron-ls against a real neurond (a daemon of its own, trn2.48xlarge, on a Unix socket):

  1. with no client, every view equals neuron-ls's output for the configured instance (its own
     session is not a runtime user, so the default, -w and -j views list no process);
  2. a libnrt client (ctypes, TRNSIM_DAEMON) holding logical core 9 — device 2 at LNC 2 — shows
     up on device 2 only, with its pid, its command (cut to 40 characters in the default view
     and -a, 80 with -w) and its runtime version, in the default, -w, -a and -j views; -a also
     lists neuron-ls itself on every device with RUNTIME VERSION NA;
  3. a second client on logical core 10 (device 2 too) takes a continuation row;
  4. once both clients are killed, their sessions disappear from the listing.

Usage: neuron_ls_remote_test.py NEURON_LS NEUROND LIBNRT WORKDIR
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../api"))
import neurond_fixture  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../python"))
from trnsim_checks import HOLDER, clean_env, expect, summary  # noqa: E402

# A long argument, so that the command is longer than 80 characters and gets cut.
PADDING = "--an-argument-long-enough-to-be-truncated-by-neuron-ls=" + "x" * 40


def neuron_ls(binary, args, address):
    """(stdout text, pid of that neuron-ls)."""
    env = clean_env(TRNSIM_DAEMON=address) if address else clean_env()
    proc = subprocess.Popen([binary] + args, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=60)
    expect(proc.returncode == 0 and err == b"", f"neuron-ls {args}: {proc.returncode} {err!r}")
    return out.decode(), proc.pid


def cut(command, limit):
    """AWS's rule: longer than `limit` characters -> the first limit-3 and '...'."""
    return command if len(command) <= limit else command[:limit - 3] + "..."


def rows(text):
    """Table rows as lists of stripped cells (header lines included)."""
    return [[c.strip() for c in line.strip("|").split("|")]
            for line in text.splitlines() if line.startswith("|")]


def start_holder(libnrt, script, core):
    proc = subprocess.Popen([sys.executable, script, libnrt, PADDING], stdout=subprocess.PIPE,
                            text=True, env=clean_env(TRNSIM_DAEMON=ADDRESS,
                                                     NEURON_RT_VISIBLE_CORES=str(core)))
    expect(proc.stdout.readline().strip() == "0", f"client on core {core}: nrt_init")
    return proc


def main():
    global ADDRESS
    binary, neurond, libnrt, workdir = sys.argv[1:5]
    os.makedirs(workdir, exist_ok=True)
    base = os.path.join(workdir, "neurond")
    ADDRESS = "unix:" + base + ".sock"
    script = os.path.join(workdir, "holder.py")
    with open(script, "w") as f:
        f.write(HOLDER)
    if neurond_fixture.start(neurond, base, "trn2.48xlarge") != 0:
        print("0 passed, 1 failed")
        return 1
    holders = []
    try:
        # 1. No client: the same listing as the configured instance.
        for args in ([], ["-w"], ["-t"], ["-j"]):
            local, _ = neuron_ls(binary, args, None)
            remote, _ = neuron_ls(binary, args, ADDRESS)
            expect(remote == local, f"neuron-ls {args} with an idle daemon differs:\n{remote}")

        # 2. One client on logical core 9 (device 2).
        holders.append(start_holder(libnrt, script, 9))
        pid = holders[0].pid
        command = f"{sys.executable} {script} {libnrt} {PADDING}"
        cut40 = cut(command, 40)
        cut80 = cut(command, 80)
        expect(len(command) > 80, "the client's command is long enough to be cut")
        text, _ = neuron_ls(binary, [], ADDRESS)
        table = rows(text)
        expect(table[0][-3:] == ["PID", "COMMAND", "RUNTIME"] and table[1][-1] == "VERSION",
               f"default view headers with a client: {table[:2]}")
        by_device = {r[0]: r for r in table[2:]}
        expect(by_device["2"][-3:-1] == [str(pid), cut40],
               f"default view, device 2: {by_device['2']}, want pid {pid} and {cut40!r}")
        version = by_device["2"][-1]
        expect(version not in ("", "NA"), f"runtime version {version!r}")
        expect(all(r[-3:] == ["NA", "NA", "NA"] for d, r in by_device.items() if d != "2"),
               "other devices show NA")

        text, _ = neuron_ls(binary, ["-w"], ADDRESS)
        by_device = {r[0]: r for r in rows(text)[2:]}
        expect(by_device["2"][-3:] == [str(pid), cut80, version], f"-w device 2: {by_device['2']}")

        text, ls_pid = neuron_ls(binary, ["-a"], ADDRESS)
        body = rows(text)[2:]
        device2 = [r for r in body if r[0] == "2"]
        expect(len(body) == 16 + 1, f"-a: {len(body)} rows, want neuron-ls on every device "
                                    "and the client on device 2 (a continuation row)")
        mine = [r for r in body if r[-3] == str(ls_pid)]
        expect(len(mine) == 16 and all(r[-1] == "NA" for r in mine),
               f"-a lists neuron-ls (pid {ls_pid}) on every device with NA: {mine[:2]}")
        client = [r for r in body if r[-3] == str(pid)]
        expect(len(client) == 1 and client[0][-2:] == [cut40, version] and device2,
               f"-a lists the client once: {client}")
        expect(text.count("+\n") == 2 + 16, "-a: the header's borders and one after each device")

        doc = json.loads(neuron_ls(binary, ["-j"], ADDRESS)[0])
        expect(doc[2]["neuron_processes"] ==
               [{"pid": pid, "command": cut40, "neuron_runtime_version": version}],
               f"-j device 2: {doc[2]['neuron_processes']}")
        expect(all(d["neuron_processes"] == [] for d in doc if d["neuron_device"] != 2),
               "-j: no process on other devices")
        doc, ls_pid = neuron_ls(binary, ["-j", "-a"], ADDRESS)
        doc = json.loads(doc)
        me = {"pid": ls_pid, "command": cut(f"{binary} -j -a", 40), "neuron_runtime_version": "NA"}
        expect(all(me in d["neuron_processes"] for d in doc),
               f"-j -a lists neuron-ls ({me}) on every device: {doc[0]['neuron_processes']}")

        # 3. A second client on the same device: a continuation row.
        holders.append(start_holder(libnrt, script, 10))
        text, _ = neuron_ls(binary, ["-w"], ADDRESS)
        body = rows(text)[2:]
        at = next(i for i, r in enumerate(body) if r[0] == "2")
        expect(body[at][-3] == str(pid) and body[at + 1][-3] == str(holders[1].pid) and
               all(c == "" for c in body[at + 1][:-3]),
               f"second client on device 2 in a continuation row: {body[at:at + 2]}")

        # 4. Clients gone: so are their rows.
        for h in holders:
            h.kill()
            h.wait()
        local, _ = neuron_ls(binary, [], None)
        deadline = time.monotonic() + 20
        while True:
            remote, _ = neuron_ls(binary, [], ADDRESS)
            if remote == local or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        expect(remote == local, f"after the clients died the listing still shows:\n{remote}")
    finally:
        for h in holders:
            if h.poll() is None:
                h.kill()
                h.wait()
        expect(neurond_fixture.stop(base) == 0, "daemon stopped with SIGTERM")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
