"""Shared support for trnsim's Python test scripts: a check tally, a clean environment, and
the ctypes "holder" client.

Contract:
  - One tally per process. `expect(condition, what)` counts a pass, or records `what` as a
    failure and prints "FAIL <what>" at once; it returns `condition` unchanged, so a caller may
    guard a follow-on check with it. `expect_eq(got, want, what)` is `expect(got == want, ...)`
    with "got ..., want ..." appended to `what`. `failures` is the tally's list: a script may
    append a failure to it directly (no print, no pass counted), as for a fixture that did not
    start.
  - `summary(require_checks=False)` prints the last line CTest and people read,
    "N passed, M failed", and returns the exit status: 1 on any failure (or, with
    require_checks, when nothing passed at all), else 0.
  - `pass_summary()` is the other last-line style, used by neuron_profile_test.py: "PASS" and 0,
    or "K failure(s)" and 1. A script using it calls `configure(fail_prefix="FAIL:")` if it
    wants that spelling of the failure lines.
  - `clean_env(**extra)` returns a copy of os.environ without any TRNSIM_* or NEURON_* variable,
    with `extra` added: the environment of a child that must see only what the test sets.
  - `HOLDER` is Python source for a child that loads libnrt (argv[1]) with ctypes, calls
    nrt_init, prints its status on one line (flushed) and sleeps for ten minutes, so a test can
    watch a session held open; the test kills it.

Scripts import this module by inserting tests/python into sys.path, the same way they find
tests/api/neurond_fixture.py.
"""

import os

HOLDER = """\
import ctypes, sys, time
lib = ctypes.CDLL(sys.argv[1])
print(lib.nrt_init(1, b"", b""), flush=True)
time.sleep(600)
"""


class Tally:
    """Counts passed checks and collects failed ones (see the module contract)."""

    def __init__(self, fail_prefix="FAIL"):
        self.passed = 0
        self.failures = []
        self.fail_prefix = fail_prefix

    def expect(self, condition, what):
        if condition:
            self.passed += 1
        else:
            self.failures.append(what)
            print(self.fail_prefix, what)
        return condition

    def expect_eq(self, got, want, what):
        return self.expect(got == want, f"{what}: got {got!r}, want {want!r}")

    def summary(self, require_checks=False):
        print(f"{self.passed} passed, {len(self.failures)} failed")
        return 1 if self.failures or (require_checks and self.passed == 0) else 0

    def pass_summary(self):
        if self.failures:
            print(f"{len(self.failures)} failure(s)")
            return 1
        print("PASS")
        return 0


_tally = Tally()
failures = _tally.failures
expect = _tally.expect
expect_eq = _tally.expect_eq
summary = _tally.summary
pass_summary = _tally.pass_summary


def configure(fail_prefix):
    """Sets how a failed check's line starts ("FAIL" unless told)."""
    _tally.fail_prefix = fail_prefix


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRNSIM_", "NEURON_"))}
    env.update(extra)
    return env
