#!/usr/bin/env python3
"""Device time in the system trace, read the way real trace consumers read it
(docs/profiling.md §6): pair nc_exec_running start/stop by (nc_idx, tracking_id), take
data.nc_timestamp_ns of each, group by data.exec_id (merging an LNC=2 run's physical cores),
and fail with "no nc_exec_running events" without the field.

Usage: device_time_test.py LIBNRT NEFF_DIR WORK_DIR
  Every run is a child process on an emulated trn2.3xlarge, in-process, or through the daemon
  TRNSIM_TEST_DAEMON names when it is set. For LNC=1 (vector_add_fp32) and LNC=2
  (vector_add_fp32_lnc2), three executions each:
    - each execution's device time (max stop - min start over its cores) equals the simulated
      duration trnsim_get_execution_stats reports, rounded up to whole ns;
    - an LNC=2 run has one nc_exec_running per physical core, both starting together;
    - on each physical core the device clock only moves forward: a run starts where the
      previous one ended; in a fresh in-process instance the first run starts at 0;
    - every run has a timestamp_sync_point per physical core, and every hardware event's
      timestamp_ns = sync.cpu_timestamp_ns + (nc_timestamp_ns - sync.nc_timestamp_ns) with the
      sync point of its run and core.
  Through the daemon, the clock is the daemon's: a second process on the same core starts
  exactly where the first one's last run ended.
Last line: "N passed, M failed".
"""
import ctypes as C
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
from trnsim_checks import clean_env, expect, expect_eq, summary  # noqa: E402

SUCCESS = 0
RUNS = 3


class TensorInfo(C.Structure):
    _fields_ = [("name", C.c_char * 256), ("usage", C.c_int), ("size", C.c_size_t),
                ("dtype", C.c_int), ("shape", C.POINTER(C.c_uint32)), ("ndim", C.c_uint32)]


class TensorInfoArray(C.Structure):
    _fields_ = [("tensor_count", C.c_uint64), ("tensor_array", TensorInfo * 1)]


class ExecStats(C.Structure):
    # trnsim/trnsim.h: the fields up to duration_ps, then room for the rest of the struct
    # (struct_size may exceed the library's; it only refuses less).
    _fields_ = [("struct_size", C.c_uint32), ("core_count", C.c_uint32),
                ("execution_count", C.c_uint64), ("duration_ns", C.c_uint64),
                ("duration_ps", C.c_uint64), ("rest", C.c_uint8 * 8192)]


def device_latencies_ns(events_json):
    """Device ns of each execution in exec_id order, an execution's physical cores merged."""
    starts, intervals = {}, {}
    for event in json.loads(events_json)["events"]:
        if event["event_type"] != "nc_exec_running":
            continue
        key = (event["nc_idx"], event["tracking_id"])
        if event["phase"] == "start":
            starts[key] = event
        elif event["phase"] == "stop":
            begin = starts.pop(key)
            if "nc_timestamp_ns" not in begin["data"] or "nc_timestamp_ns" not in event["data"]:
                raise ValueError("no nc_exec_running events with device timestamps")
            intervals.setdefault(begin["data"]["exec_id"], []).append(
                (begin["data"]["nc_timestamp_ns"], event["data"]["nc_timestamp_ns"]))
    if not intervals:
        raise ValueError("no nc_exec_running events")
    return [max(end for _, end in spans) - min(start for start, _ in spans)
            for _, spans in sorted(intervals.items())]


def child(lib_path, neff, out_path):
    """Runs `neff` RUNS times on vnc 0 under a system-trace capture; writes the fetched JSON and
    the simulated duration to `out_path`."""
    lib = C.CDLL(lib_path)
    P = C.c_void_p
    lib.nrt_load.argtypes = [C.c_char_p, C.c_size_t, C.c_int32, C.c_int32, C.POINTER(P)]
    lib.nrt_get_model_tensor_info.argtypes = [P, C.POINTER(C.POINTER(TensorInfoArray))]
    lib.nrt_tensor_allocate.argtypes = [C.c_int, C.c_int, C.c_size_t, C.c_char_p, C.POINTER(P)]
    lib.nrt_tensor_memset.argtypes = [P, C.c_uint64, C.c_int, C.c_size_t]
    lib.nrt_add_tensor_to_tensor_set.argtypes = [P, C.c_char_p, P]
    lib.nrt_execute.argtypes = [P, P, P]
    lib.nrt_sys_trace_config_allocate.argtypes = [C.POINTER(P)]
    lib.nrt_sys_trace_start.argtypes = [P]
    lib.nrt_sys_trace_fetch_events.argtypes = [C.POINTER(C.c_char_p), C.POINTER(C.c_size_t), P]
    lib.nrt_sys_trace_buffer_free.argtypes = [C.c_char_p]
    lib.trnsim_get_execution_stats.argtypes = [P, C.POINTER(ExecStats)]
    if lib.nrt_init(1, b"", b"") != SUCCESS:
        sys.exit("nrt_init failed")
    data = open(neff, "rb").read()
    model = P()
    if lib.nrt_load(data, len(data), 0, -1, C.byref(model)) != SUCCESS:
        sys.exit("nrt_load failed")
    info = C.POINTER(TensorInfoArray)()
    lib.nrt_get_model_tensor_info(model, C.byref(info))
    inputs, outputs = P(), P()
    lib.nrt_allocate_tensor_set(C.byref(inputs))
    lib.nrt_allocate_tensor_set(C.byref(outputs))
    array = C.cast(C.byref(info.contents.tensor_array),
                   C.POINTER(TensorInfo * info.contents.tensor_count)).contents
    for t in array:
        tensor = P()
        lib.nrt_tensor_allocate(0, 0, t.size, t.name, C.byref(tensor))
        lib.nrt_tensor_memset(tensor, 0, 0, t.size)
        lib.nrt_add_tensor_to_tensor_set(inputs if t.usage == 0 else outputs, t.name, tensor)
    config = P()
    lib.nrt_sys_trace_config_allocate(C.byref(config))
    if lib.nrt_sys_trace_start(config) != SUCCESS:
        sys.exit("nrt_sys_trace_start failed")
    for _ in range(RUNS):
        if lib.nrt_execute(model, inputs, outputs) != SUCCESS:
            sys.exit("nrt_execute failed")
    buffer, size = C.c_char_p(), C.c_size_t()
    if lib.nrt_sys_trace_fetch_events(C.byref(buffer), C.byref(size), None) != SUCCESS:
        sys.exit("fetch failed")
    events = C.string_at(buffer, size.value).decode()
    lib.nrt_sys_trace_buffer_free(buffer)
    stats = ExecStats(struct_size=C.sizeof(ExecStats))
    if lib.trnsim_get_execution_stats(model, C.byref(stats)) != SUCCESS:
        sys.exit("trnsim_get_execution_stats failed")
    lib.nrt_close()
    json.dump({"events": events, "duration_ps": stats.duration_ps}, open(out_path, "w"))


def run_child(lib_path, neff, work, name, lnc):
    out = os.path.join(work, name + ".json")
    env = clean_env(TRNSIM_INSTANCE="trn2.3xlarge", NEURON_LOGICAL_NC_CONFIG=str(lnc),
                    NEURON_RT_LOG_LEVEL="WARN")
    if os.environ.get("TRNSIM_TEST_DAEMON"):
        env["TRNSIM_DAEMON"] = os.environ["TRNSIM_TEST_DAEMON"]
    code = subprocess.call([sys.executable, __file__, "--child", lib_path, neff, out], env=env)
    if not expect_eq(code, 0, f"{name}: the child process"):
        return None
    return json.load(open(out))


def core_spans(doc):
    """{device_core_idx: [(exec_id, nc start, nc stop, host start, host stop)]} in run order."""
    starts, by_core = {}, {}
    for e in doc["events"]:
        if e["event_type"] != "nc_exec_running":
            continue
        if e["phase"] == "start":
            starts[e["tracking_id"]] = e
            continue
        s = starts.pop(e["tracking_id"])
        by_core.setdefault(s["data"]["device_core_idx"], []).append(
            (s["data"]["exec_id"], s["data"]["nc_timestamp_ns"], e["data"]["nc_timestamp_ns"],
             s["timestamp_ns"], e["timestamp_ns"]))
    return by_core


def check_run(name, result, physical_cores, fresh):
    doc = json.loads(result["events"])
    duration_ns = -(-result["duration_ps"] // 1000)
    latencies = device_latencies_ns(result["events"])
    expect_eq(latencies, [duration_ns] * RUNS,
              f"{name}: each execution's device time is the simulated duration")
    by_core = core_spans(doc)
    expect_eq(len(by_core), physical_cores, f"{name}: one nc_exec_running per physical core")
    syncs = {(e["data"]["exec_id"], e["data"]["device_core_idx"]): e["data"]
             for e in doc["events"]
             if e["event_type"] == "timestamp_sync_point" and e["phase"] == "start"}
    expect_eq(len(syncs), RUNS * physical_cores, f"{name}: a sync point per run and core")
    starts_per_run = {}
    for core, spans in by_core.items():
        expect_eq(len(spans), RUNS, f"{name}: core {core} ran every execution")
        if fresh and spans:
            expect_eq(spans[0][1], 0, f"{name}: a fresh instance's clock starts at 0")
        for i, (exec_id, nc_start, nc_stop, host_start, host_stop) in enumerate(spans):
            starts_per_run.setdefault(exec_id, set()).add(nc_start)
            if i > 0:
                expect_eq(nc_start, spans[i - 1][2] if physical_cores == 1 else
                          max(s[i - 1][2] for s in by_core.values()),
                          f"{name}: core {core} run {i} starts where the last run ended")
            sync = syncs.get((exec_id, core))
            if not expect(sync is not None, f"{name}: sync point of run {exec_id} core {core}"):
                continue
            adjust = sync["cpu_timestamp_ns"] - sync["nc_timestamp_ns"]
            expect_eq((host_start, host_stop), (nc_start + adjust, nc_stop + adjust),
                      f"{name}: run {exec_id} core {core} timestamps follow its sync point")
    expect(all(len(s) == 1 for s in starts_per_run.values()),
           f"{name}: the cores of a run start together")
    return by_core


def main():
    if sys.argv[1] == "--child":
        child(*sys.argv[2:5])
        return 0
    lib_path, neff_dir, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    remote = bool(os.environ.get("TRNSIM_TEST_DAEMON"))
    lnc1 = os.path.join(neff_dir, "vector_add_fp32.neff")
    lnc2 = os.path.join(neff_dir, "vector_add_fp32_lnc2.neff")

    try:
        device_latencies_ns(json.dumps({"events": [
            {"event_type": "nc_exec_running", "phase": "start", "nc_idx": 0, "tracking_id": 1,
             "data": {"exec_id": 1}},
            {"event_type": "nc_exec_running", "phase": "stop", "nc_idx": 0, "tracking_id": 1,
             "data": {"exec_id": 1}}]}))
        expect(False, "the consumer refuses events without nc_timestamp_ns")
    except ValueError:
        expect(True, "the consumer refuses events without nc_timestamp_ns")

    first = run_child(lib_path, lnc1, work, "lnc1", 1)
    if first:
        spans = check_run("lnc1", first, 1, fresh=not remote)
    if remote and first:
        # A second process on the same core: the daemon's clock continues where it stood.
        second = run_child(lib_path, lnc1, work, "lnc1_again", 1)
        if second:
            again = check_run("lnc1_again", second, 1, fresh=False)
            expect_eq(again[0][0][1], spans[0][-1][2],
                      "the daemon's clock is shared: the next process starts where it stood")
    double = run_child(lib_path, lnc2, work, "lnc2", 2)
    if double:
        check_run("lnc2", double, 2, fresh=not remote)
    return summary(require_checks=True)


if __name__ == "__main__":
    sys.exit(main())
