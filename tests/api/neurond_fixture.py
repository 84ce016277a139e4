#!/usr/bin/env python3
"""Starts and stops a neurond daemon for the `remote` copy of the API tests (CTest fixtures).

  neurond_fixture.py start NEUROND BASE INSTANCE   daemon on unix:BASE.sock, pid in BASE.pid,
                                                   output in BASE.log; returns once it answers
  neurond_fixture.py stop BASE                     SIGTERM, then checks the daemon exited

start fails (printing the daemon's log) when the daemon exits or does not accept connections
within the timeout; a daemon left over from an interrupted run on the same socket is stopped
first. stop fails when the daemon has to be killed because SIGTERM did not end it.
The daemon's output goes to BASE.log, never to this script's stdout: CTest waits for every
holder of a test's output pipe, so a daemon holding it would stall the setup test.
"""
import os
import signal
import socket
import subprocess
import sys
import time

START_TIMEOUT_S = 30
STOP_TIMEOUT_S = 30


def paths(base):
    return base + ".sock", base + ".pid", base + ".log"


def is_our_daemon(pid, sock):
    """True when `pid` runs and is a neurond serving `sock` (guards against pid reuse)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return any(arg.endswith(b"neurond") for arg in argv[:1]) and ("unix:" + sock).encode() in argv


def read_pid(pid_file):
    try:
        with open(pid_file) as f:
            return int(f.read().strip())
    except (FileNotFoundError, ValueError):
        return None


def print_log(log_file):
    try:
        with open(log_file, errors="replace") as f:
            lines = f.readlines()
    except FileNotFoundError:
        return
    print(f"--- last lines of {log_file} ---")
    sys.stdout.writelines(lines[-40:])


def terminate(pid, sock):
    """SIGTERM, wait; SIGKILL if needed. Returns True when SIGTERM alone ended the daemon."""
    if not is_our_daemon(pid, sock):
        return True
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        if not is_our_daemon(pid, sock):
            return True
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    return False


def answers(sock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sock)
        return True
    except OSError:
        return False
    finally:
        s.close()


def start(neurond, base, instance):
    sock, pid_file, log_file = paths(base)
    old = read_pid(pid_file)
    if old is not None and not terminate(old, sock):
        print(f"a neurond left over on {sock} (pid {old}) ignored SIGTERM and was killed")
    for stale in (sock, pid_file):
        if os.path.exists(stale):
            os.unlink(stale)
    os.makedirs(os.path.dirname(os.path.abspath(base)), exist_ok=True)
    with open(log_file, "w") as log:
        proc = subprocess.Popen([neurond, "--listen", "unix:" + sock, "--instance", instance],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    with open(pid_file, "w") as f:
        f.write(f"{proc.pid}\n")
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            print(f"neurond exited with status {proc.returncode} before accepting connections")
            print_log(log_file)
            return 1
        if os.path.exists(sock) and answers(sock):
            print(f"neurond {instance} (pid {proc.pid}) serves unix:{sock}")
            return 0
        time.sleep(0.05)
    print(f"neurond did not accept connections on {sock} within {START_TIMEOUT_S} s")
    terminate(proc.pid, sock)
    print_log(log_file)
    return 1


def stop(base):
    sock, pid_file, log_file = paths(base)
    pid = read_pid(pid_file)
    if pid is None:
        print(f"no daemon to stop: {pid_file} is missing (did the start fixture fail?)")
        return 1
    running = is_our_daemon(pid, sock)
    clean = terminate(pid, sock)
    os.unlink(pid_file)
    print_log(log_file)
    if not running:
        print(f"neurond (pid {pid}) was no longer running when the tests ended")
        return 1
    if not clean:
        print(f"neurond (pid {pid}) did not exit within {STOP_TIMEOUT_S} s of SIGTERM; killed")
        return 1
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "start":
        return start(argv[2], argv[3], argv[4])
    if len(argv) == 3 and argv[1] == "stop":
        return stop(argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
