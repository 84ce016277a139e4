#!/usr/bin/env python3
"""TLS between the installed libnrt (ctypes) and a neurond of its own started with the committed
self-signed test pair (tests/data/tls) on 127.0.0.1:0:

  1. TRNSIM_TLS_CA=server.crt: nrt_init succeeds and a tensor written is read back byte for
     byte; with TRNSIM_TLS_SERVER_NAME=localhost too;
  2. no TRNSIM_TLS_CA (plaintext), TRNSIM_TLS_CA=other.crt (an unrelated certificate), or a
     TRNSIM_TLS_CA that does not exist: nrt_init fails with NRT_FAILURE quickly, and the error
     it logs names the daemon's address (and the file, for the missing one);
  3. the daemon still serves afterwards and exits 0 on SIGTERM.

Each refused client runs in a process of its own so that its log can be read.
Usage: tls_session_test.py PATH/TO/libnrt.so.1 PATH/TO/neurond TLS_DATA_DIR WORKDIR
Last line: "N passed, M failed"; exit status 1 on any failure.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import expect, expect_eq, failures, summary  # noqa: E402

SUCCESS, FAILURE = 0, 1
INSTANCE = "trn2.3xlarge"
QUICK_S = 5  # far below the 30 s RPC deadline: a refusal must not wait for it
START_TIMEOUT_S = 30

# A client: nrt_init, then (when it succeeded) a 1 MiB + 3 bytes tensor round trip; prints the
# nrt_init status and "roundtrip ok" / "roundtrip bad".
CLIENT = r"""
import ctypes as C, sys
lib = C.CDLL(sys.argv[1])
lib.nrt_init.argtypes = [C.c_int, C.c_char_p, C.c_char_p]
lib.nrt_tensor_allocate.argtypes = [C.c_int, C.c_int, C.c_size_t, C.c_char_p,
                                    C.POINTER(C.c_void_p)]
lib.nrt_tensor_write.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.c_size_t]
lib.nrt_tensor_read.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.c_size_t]
lib.nrt_tensor_free.argtypes = [C.POINTER(C.c_void_p)]
status = lib.nrt_init(1, b"", b"")
print(status, flush=True)
if status == 0:
    n = (1 << 20) + 3
    src = C.create_string_buffer(bytes((i * 131 + 7) % 256 for i in range(n)), n)
    dst = C.create_string_buffer(n)
    t = C.c_void_p()
    ok = (lib.nrt_tensor_allocate(0, 0, n, b"t", C.byref(t)) == 0 and
          lib.nrt_tensor_write(t, src, 0, n) == 0 and lib.nrt_tensor_read(t, dst, 0, n) == 0 and
          dst.raw == src.raw)
    print("roundtrip ok" if ok else "roundtrip bad", flush=True)
    lib.nrt_tensor_free(C.byref(t))
    lib.nrt_close()
"""


def run_client(libnrt, address, **tls):
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRNSIM_TLS_CA", "TRNSIM_TLS_SERVER_NAME")}
    env.update(TRNSIM_DAEMON=address, TRNSIM_INSTANCE=INSTANCE, NEURON_RT_LOG_LEVEL="ERROR")
    env.update(tls)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", CLIENT, libnrt], env=env, capture_output=True,
                          text=True, timeout=120)
    lines = proc.stdout.split()
    status = int(lines[0]) if lines and lines[0].lstrip("-").isdigit() else None
    return status, proc.stdout, proc.stderr, time.monotonic() - start


def start_daemon(neurond, tls_dir, workdir):
    """The daemon's Popen, its output file and its address (None if it did not come up)."""
    out = open(os.path.join(workdir, "neurond-tls.log"), "w+")
    proc = subprocess.Popen([neurond, "--listen", "127.0.0.1:0", "--instance", INSTANCE,
                             "--tls-cert", os.path.join(tls_dir, "server.crt"),
                             "--tls-key", os.path.join(tls_dir, "server.key")],
                            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    banner = "neurond: listening on "
    while time.monotonic() < deadline and proc.poll() is None:
        out.seek(0)
        for line in out.read().splitlines():
            if line.startswith(banner):
                return proc, out, line[len(banner):].strip()
        time.sleep(0.05)
    out.seek(0)
    print("neurond did not come up:\n" + out.read())
    return proc, out, None


def main(libnrt, neurond, tls_dir, workdir):
    os.makedirs(workdir, exist_ok=True)
    for var in ("NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES", "NEURON_LOGICAL_NC_CONFIG",
                "TRNSIM_TOKEN"):
        os.environ.pop(var, None)
    ca = os.path.join(tls_dir, "server.crt")
    proc, out, address = start_daemon(neurond, tls_dir, workdir)
    if address is None:
        failures.append("the TLS neurond did not start")
    else:
        try:
            status, stdout, stderr, _ = run_client(libnrt, address, TRNSIM_TLS_CA=ca)
            expect_eq(status, SUCCESS, f"nrt_init trusting the daemon's certificate ({stderr})")
            expect("roundtrip ok" in stdout, f"tensor round trip over TLS: {stdout!r}")

            status, stdout, stderr, _ = run_client(libnrt, address, TRNSIM_TLS_CA=ca,
                                                   TRNSIM_TLS_SERVER_NAME="localhost")
            expect_eq(status, SUCCESS, f"nrt_init with TRNSIM_TLS_SERVER_NAME ({stderr})")
            expect("roundtrip ok" in stdout, f"round trip with the server name: {stdout!r}")

            missing = os.path.join(workdir, "no-such-ca.pem")
            refused = [("plaintext client", {}, address),
                       ("client trusting another certificate",
                        {"TRNSIM_TLS_CA": os.path.join(tls_dir, "other.crt")}, address),
                       ("missing TRNSIM_TLS_CA file", {"TRNSIM_TLS_CA": missing}, missing)]
            for what, tls, named in refused:
                status, _, stderr, took = run_client(libnrt, address, **tls)
                expect_eq(status, FAILURE, f"nrt_init of a {what}")
                expect(took < QUICK_S, f"the {what} took {took:.1f} s to be refused")
                expect(named in stderr and address in stderr,
                       f"the {what}'s error names {named} and {address}: {stderr!r}")

            status, stdout, stderr, _ = run_client(libnrt, address, TRNSIM_TLS_CA=ca)
            expect("roundtrip ok" in stdout, f"the daemon still serves afterwards ({stderr})")
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            expect_eq(code, 0, "neurond's exit status after SIGTERM")
    out.seek(0)
    log = out.read()
    expect("(TLS)" in log, "neurond logs that it serves TLS")
    out.close()
    return summary()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:5]))
