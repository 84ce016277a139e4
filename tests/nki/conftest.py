"""pytest setup shared by the NKI front end's tests (tests/nki/CMakeLists.txt).

Runs before any test module imports _trnsim_nki, so before libnrt's nrt_init reads the
environment: the caller's TRNSIM_DAEMON and core selection are dropped, and the daemon a `remote`
copy of a test was given (TRNSIM_TEST_DAEMON) becomes TRNSIM_DAEMON — the convention of the API
tests (tests/api/ctypes_test.py).
"""
import os

for _var in ("TRNSIM_DAEMON", "NEURON_RT_VISIBLE_CORES", "NEURON_RT_NUM_CORES"):
    os.environ.pop(_var, None)
if os.environ.get("TRNSIM_TEST_DAEMON"):
    os.environ["TRNSIM_DAEMON"] = os.environ["TRNSIM_TEST_DAEMON"]
