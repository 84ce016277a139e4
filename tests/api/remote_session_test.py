#!/usr/bin/env python3
"""Session life of the remote back end through the installed libnrt (ctypes), with a neurond of
its own (it kills it, so it cannot share the suite's fixture daemons):

  1. a daemon address nobody listens on: nrt_init fails with NRT_FAILURE, quickly;
  2. a client holding every core makes a second client's nrt_init fail; once the first is killed
     with SIGKILL its session ends and the second one's nrt_init succeeds (cores released);
  3. with the daemon killed (SIGKILL) mid-session, the next call fails with a status within
     seconds and nrt_close returns — nothing hangs;
  4. with TRNSIM_INSTANCE unset the client takes the daemon's instance type (before and after
     nrt_init); a TRNSIM_INSTANCE naming another type fails nrt_init with NRT_INVALID.

Usage: remote_session_test.py PATH/TO/libnrt.so.1 PATH/TO/neurond WORKDIR
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import ctypes as C
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import neurond_fixture  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import HOLDER, expect, expect_eq, failures, summary  # noqa: E402

SUCCESS, FAILURE, INVALID = 0, 1, 2
NO_FW = 1
DEVICE = 0
INSTANCE = "trn2.3xlarge"
INSTANCE_VNCS = 4  # trn2.3xlarge: one chip of 8 physical cores, LNC=2 by default
QUICK_S = 5  # far above what a refused connection or a broken session takes


def timed(fn, *args):
    start = time.monotonic()
    result = fn(*args)
    return result, time.monotonic() - start


def test_unreachable(lib, workdir):
    os.environ["TRNSIM_DAEMON"] = "unix:" + os.path.join(workdir, "nobody-listens.sock")
    status, took = timed(lib.nrt_init, NO_FW, b"", b"")
    expect_eq(status, FAILURE, "nrt_init with no daemon at the address")
    expect(took < QUICK_S, f"nrt_init with no daemon took {took:.1f} s")
    lib.nrt_close()


def test_killed_client_releases_cores(lib, libnrt, address):
    os.environ["TRNSIM_DAEMON"] = address
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, libnrt], stdout=subprocess.PIPE,
                              text=True, env=dict(os.environ))
    try:
        expect_eq(holder.stdout.readline().strip(), str(SUCCESS), "first client's nrt_init")
        expect_eq(lib.nrt_init(NO_FW, b"", b""), FAILURE,
                  "nrt_init while another client holds every core")
        lib.nrt_close()
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    status = FAILURE
    deadline = time.monotonic() + QUICK_S
    while status != SUCCESS and time.monotonic() < deadline:
        status = lib.nrt_init(NO_FW, b"", b"")
        if status != SUCCESS:
            time.sleep(0.05)
    expect_eq(status, SUCCESS, "nrt_init once the holder was killed (its cores released)")


def total_nc_count(lib):
    count = C.c_uint32(0)
    status = lib.nrt_get_total_nc_count(C.byref(count))
    return status, count.value


def test_instance_from_daemon(lib, address):
    os.environ["TRNSIM_DAEMON"] = address
    os.environ["TRNSIM_INSTANCE"] = "trn2.48xlarge"
    expect_eq(lib.nrt_init(NO_FW, b"", b""), INVALID,
              "nrt_init with TRNSIM_INSTANCE naming another type than the daemon's")
    lib.nrt_close()
    del os.environ["TRNSIM_INSTANCE"]
    try:
        expect_eq(total_nc_count(lib), (SUCCESS, INSTANCE_VNCS),
                  "nrt_get_total_nc_count before nrt_init, TRNSIM_INSTANCE unset")
        expect_eq(lib.nrt_init(NO_FW, b"", b""), SUCCESS, "nrt_init, TRNSIM_INSTANCE unset")
        expect_eq(total_nc_count(lib), (SUCCESS, INSTANCE_VNCS),
                  "nrt_get_total_nc_count after nrt_init, TRNSIM_INSTANCE unset")
        lib.nrt_close()
    finally:
        os.environ["TRNSIM_INSTANCE"] = INSTANCE


def test_daemon_killed_mid_session(lib, daemon_pid):
    # Initialised by the previous test against the daemon.
    t = C.c_void_p()
    expect_eq(lib.nrt_tensor_allocate(DEVICE, 0, 4096, b"t", C.byref(t)), SUCCESS, "allocate")
    data = C.create_string_buffer(b"x" * 4096, 4096)
    expect_eq(lib.nrt_tensor_write(t, data, 0, 4096), SUCCESS, "write while the daemon runs")
    os.kill(daemon_pid, signal.SIGKILL)
    status, took = timed(lib.nrt_tensor_write, t, data, 0, 4096)
    expect_eq(status, FAILURE, "write after the daemon was killed")
    expect(took < QUICK_S, f"write after the daemon was killed took {took:.1f} s")
    lib.nrt_tensor_free(C.byref(t))
    _, took = timed(lib.nrt_close)
    expect(took < 2 * QUICK_S, f"nrt_close after the daemon was killed took {took:.1f} s")


def main(libnrt, neurond, workdir):
    lib = C.CDLL(libnrt)
    lib.nrt_init.argtypes = [C.c_int, C.c_char_p, C.c_char_p]
    lib.nrt_tensor_allocate.argtypes = [C.c_int, C.c_int, C.c_size_t, C.c_char_p,
                                        C.POINTER(C.c_void_p)]
    lib.nrt_tensor_write.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.c_size_t]
    lib.nrt_tensor_free.argtypes = [C.POINTER(C.c_void_p)]
    lib.nrt_get_total_nc_count.argtypes = [C.POINTER(C.c_uint32)]
    for var in ("NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "NEURON_LOGICAL_NC_CONFIG"):
        os.environ.pop(var, None)
    os.environ["TRNSIM_INSTANCE"] = INSTANCE
    os.makedirs(workdir, exist_ok=True)

    test_unreachable(lib, workdir)

    base = os.path.join(workdir, "neurond-session")
    if neurond_fixture.start(neurond, base, INSTANCE) != 0:
        failures.append("the test's own neurond did not start")
    else:
        sock, pid_file, _ = neurond_fixture.paths(base)
        daemon_pid = neurond_fixture.read_pid(pid_file)
        try:
            test_instance_from_daemon(lib, "unix:" + sock)
            test_killed_client_releases_cores(lib, libnrt, "unix:" + sock)
            test_daemon_killed_mid_session(lib, daemon_pid)
        finally:
            neurond_fixture.terminate(daemon_pid, sock)
    return summary()


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
