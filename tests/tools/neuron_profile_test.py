#!/usr/bin/env python3
"""Device profiles end to end (docs/profiling.md).

Usage:
  neuron_profile_test.py api LIBNRT NEFF_DIR WORK_DIR
      nrt_profile_start/stop through ctypes: bad arguments and their statuses, the capture window
      (only executions between start and stop are in the file), the file's counters against
      trnsim_get_execution_stats for the same run, and recording-off == recording-on statistics.
  neuron_profile_test.py remote LIBNRT NEFF_DIR WORK_DIR [NEURON_PROFILE [NEFF]]
      Through neurond (TRNSIM_TEST_DAEMON, a trn2.3xlarge): two NEFFs (the smallest LNC=2 sample
      and the largest short of the 137-GFLOP matmul) profiled in-process and through the daemon
      give byte-identical profile files and, with NEURON_PROFILE, identical summary-json busy
      times; with NEFF (the neff CLI) also a 50,000-instruction program assembled here, whose
      trace is past gRPC's default 4 MiB message limit.
  neuron_profile_test.py inspect LIBNRT NEFF_DIR WORK_DIR
      NEURON_RT_INSPECT_*, each case a child process: by default ntrace.json only (model_load and
      nrt_execute spans; the application's nrt_sys_trace_* refused); DEVICE_PROFILE=model with
      NUM_WARMUP=2 profiles the 3rd of 4 executions, 1 the first, session every one; the
      FILTER_TYPE, FILTER_NC and ring-size variables; SYSTEM_PROFILE=0; no master switch; and
      malformed values failing nrt_init with NRT_INVALID.
  neuron_profile_test.py samples NEURON_PROFILE NEFF_DIR WORK_DIR [small|big]
      neuron-profile capture + view on every sample NEFF: the Perfetto trace passes a schema
      check, the summary's per-engine busy time equals the chip model's counters exactly.
      small: all but the 137-GFLOP matmul_bf16_4096; big: only it (labelled slow).
  neuron_profile_test.py capture NEURON_PROFILE NEFF_DIR WORK_DIR
      capture's options: a raw and a .npy input, --num-exec / --profile-nth-exec (one execution
      in the profile), --check-output-determinism, --save-output(-npy) against a + b computed
      here, -t systrace (spans per type, device spans as long as the simulated runs in device
      time, views),
      and inconsistent options refused before anything is written.
"""
import ctypes as C
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
import trnsim_checks  # noqa: E402
from trnsim_checks import expect, expect_eq  # noqa: E402

trnsim_checks.configure(fail_prefix="FAIL:")

SUCCESS, FAILURE, INVALID, INVALID_HANDLE = 0, 1, 2, 3
UNINITIALIZED = 13
ENGINES = ["pe", "act", "dve", "pool", "sp"]


class TensorInfo(C.Structure):
    _fields_ = [("name", C.c_char * 256), ("usage", C.c_int), ("size", C.c_size_t),
                ("dtype", C.c_int), ("shape", C.POINTER(C.c_uint32)), ("ndim", C.c_uint32)]


class TensorInfoArray(C.Structure):
    _fields_ = [("tensor_count", C.c_uint64), ("tensor_array", TensorInfo * 1)]


class EngineStats(C.Structure):
    _fields_ = [("busy_ps", C.c_uint64), ("wait_ps", C.c_uint64), ("instructions", C.c_uint64),
                ("flops", C.c_uint64), ("utilization", C.c_double)]


class QueueStats(C.Structure):
    _fields_ = [("transfers", C.c_uint64), ("bytes", C.c_uint64), ("busy_ps", C.c_uint64)]


class CoreStats(C.Structure):
    _fields_ = [("physical_core", C.c_uint32), ("dma_queue_count", C.c_uint32),
                ("duration_ps", C.c_uint64), ("instructions", C.c_uint64),
                ("hbm_read_bytes", C.c_uint64), ("hbm_write_bytes", C.c_uint64),
                ("engines", EngineStats * 5), ("dma_queues", QueueStats * 32)]


class ExecStats(C.Structure):
    _fields_ = [("struct_size", C.c_uint32), ("core_count", C.c_uint32),
                ("execution_count", C.c_uint64), ("duration_ns", C.c_uint64),
                ("duration_ps", C.c_uint64), ("hbm_read_bytes", C.c_uint64),
                ("hbm_write_bytes", C.c_uint64), ("dma_bytes", C.c_uint64),
                ("dma_transfers", C.c_uint64), ("simulator_events", C.c_uint64),
                ("host_ns", C.c_uint64), ("cores", CoreStats * 2)]


def bind(lib):
    P = C.c_void_p
    sig = {
        "nrt_init": (C.c_int, [C.c_int, C.c_char_p, C.c_char_p]),
        "nrt_close": (None, []),
        "nrt_load": (C.c_int, [C.c_char_p, C.c_size_t, C.c_int32, C.c_int32, C.POINTER(P)]),
        "nrt_unload": (C.c_int, [P]),
        "nrt_get_model_tensor_info": (C.c_int, [P, C.POINTER(C.POINTER(TensorInfoArray))]),
        "nrt_tensor_allocate": (C.c_int, [C.c_int, C.c_int, C.c_size_t, C.c_char_p,
                                          C.POINTER(P)]),
        "nrt_tensor_memset": (C.c_int, [P, C.c_uint64, C.c_int, C.c_size_t]),
        "nrt_allocate_tensor_set": (C.c_int, [C.POINTER(P)]),
        "nrt_add_tensor_to_tensor_set": (C.c_int, [P, C.c_char_p, P]),
        "nrt_execute": (C.c_int, [P, P, P]),
        "nrt_profile_start": (C.c_int, [P, C.c_char_p]),
        "nrt_profile_stop": (C.c_int, [C.c_char_p]),
        "trnsim_get_execution_stats": (C.c_int, [P, C.POINTER(ExecStats)]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def smallest_sample(neff_dir, lnc):
    manifest = json.load(open(os.path.join(neff_dir, "manifest.json")))
    chosen = [s for s in manifest if s["lnc"] == lnc and "collective_ranks" not in s]
    chosen.sort(key=lambda s: os.path.getsize(os.path.join(neff_dir, s["name"] + ".neff")))
    return os.path.join(neff_dir, chosen[0]["name"] + ".neff")


class Runner:
    """One loaded model with zeroed inputs and outputs."""

    def __init__(self, lib, neff, vnc=-1):
        self.lib = lib
        data = open(neff, "rb").read()
        self.model = C.c_void_p()
        expect_eq(lib.nrt_load(data, len(data), vnc, -1, C.byref(self.model)), SUCCESS,
                  "nrt_load")
        info = C.POINTER(TensorInfoArray)()
        expect_eq(lib.nrt_get_model_tensor_info(self.model, C.byref(info)), SUCCESS, "tensor info")
        self.inputs, self.outputs = C.c_void_p(), C.c_void_p()
        lib.nrt_allocate_tensor_set(C.byref(self.inputs))
        lib.nrt_allocate_tensor_set(C.byref(self.outputs))
        array = C.cast(C.byref(info.contents.tensor_array),
                       C.POINTER(TensorInfo * info.contents.tensor_count)).contents
        for t in array:
            tensor = C.c_void_p()
            expect_eq(lib.nrt_tensor_allocate(0, 0, t.size, t.name, C.byref(tensor)), SUCCESS,
                      "allocate " + t.name.decode())
            lib.nrt_tensor_memset(tensor, 0, 0, t.size)
            target = self.inputs if t.usage == 0 else self.outputs
            lib.nrt_add_tensor_to_tensor_set(target, t.name, tensor)

    def execute(self):
        return self.lib.nrt_execute(self.model, self.inputs, self.outputs)

    def stats(self):
        s = ExecStats()
        s.struct_size = C.sizeof(ExecStats)
        expect_eq(self.lib.trnsim_get_execution_stats(self.model, C.byref(s)), SUCCESS, "stats")
        return s


def engine_counters(stats):
    return [[(c.engines[e].busy_ps, c.engines[e].wait_ps, c.engines[e].instructions)
             for e in range(5)] for c in stats.cores[:stats.core_count]]


def test_api(lib_path, neff_dir, work):
    lib = C.CDLL(lib_path)
    bind(lib)
    path = os.path.join(work, "api.ntff").encode()
    expect_eq(lib.nrt_profile_start(None, path), INVALID, "start(NULL model) before init")
    expect_eq(lib.nrt_profile_stop(path), UNINITIALIZED, "stop before nrt_init")
    expect_eq(lib.nrt_init(1, b"", b""), SUCCESS, "nrt_init")
    run = Runner(lib, smallest_sample(neff_dir, 2))
    expect_eq(lib.nrt_profile_start(None, path), INVALID, "start(NULL model)")
    expect_eq(lib.nrt_profile_start(run.model, None), INVALID, "start(NULL filename)")
    expect_eq(lib.nrt_profile_start(C.c_void_p(0x1234), path), INVALID_HANDLE,
              "start(unknown model)")
    expect_eq(lib.nrt_profile_start(run.model, b""), INVALID, "start(empty filename)")
    expect_eq(lib.nrt_profile_start(run.model, os.path.join(work, "no/such/dir.ntff").encode()),
              INVALID, "start into a directory that does not exist")
    expect_eq(lib.nrt_profile_stop(None), INVALID, "stop(NULL)")
    expect_eq(lib.nrt_profile_stop(path), INVALID, "stop without start")

    expect_eq(run.execute(), SUCCESS, "execution before the profile")
    unprofiled = run.stats()
    open(path, "wb").write(b"old contents")
    expect_eq(lib.nrt_profile_start(run.model, path), SUCCESS, "start")
    expect_eq(os.path.getsize(path), 0, "start truncates the file")
    expect_eq(lib.nrt_profile_start(run.model, path + b".2"), INVALID, "start twice on a model")
    expect_eq(run.execute(), SUCCESS, "profiled execution 1")
    expect_eq(run.execute(), SUCCESS, "profiled execution 2")
    profiled = run.stats()
    expect_eq(lib.nrt_profile_stop(path), SUCCESS, "stop")
    expect_eq(lib.nrt_profile_stop(path), INVALID, "stop twice")
    expect_eq(run.execute(), SUCCESS, "execution after the profile")

    # Recording changes no statistic (inputs are the same zeros every time).
    expect_eq(profiled.duration_ps, unprofiled.duration_ps, "duration with and without recording")
    expect_eq(engine_counters(profiled), engine_counters(unprofiled),
              "engine counters with and without recording")
    expect_eq(profiled.simulator_events, unprofiled.simulator_events, "simulator events")

    doc = json.load(open(path))
    expect_eq(doc["format"], "trnsim-ntff", "format")
    expect_eq(doc["version"], 1, "version")
    expect_eq([x["index"] for x in doc["executions"]], [1, 2], "only the window is captured")
    last = doc["executions"][-1]
    expect_eq(last["status"], "ok", "status")
    expect_eq(last["stats"]["duration_ps"], profiled.duration_ps, "file duration vs stats")
    for c, core in enumerate(last["stats"]["cores"]):
        for e, name in enumerate(ENGINES):
            got = core["engines"][name]
            want = profiled.cores[c].engines[e]
            expect_eq((got["busy_ps"], got["wait_ps"], got["instructions"]),
                      (want.busy_ps, want.wait_ps, want.instructions),
                      f"file counters core {c} {name} vs trnsim_get_execution_stats")
            # Stream instructions only: an activation-table load (pc 0xFFFFFFFF) is engine work
            # the statistics count as busy time, not as an instruction.
            traced = [i for i in last["events"]["instructions"]
                      if i["engine"] == name and i["core"] == core["core"]
                      and i["pc"] != 0xFFFFFFFF]
            expect_eq(len(traced), want.instructions, f"traced {name} instructions")
    lib.nrt_unload(run.model)
    expect_eq(lib.nrt_profile_start(run.model, path), INVALID_HANDLE, "start(unloaded model)")
    lib.nrt_close()


def profile_once(lib, neff, path, executions):
    """nrt_init, one model profiled over `executions` runs into `path`, nrt_close; its stats."""
    expect_eq(lib.nrt_init(1, b"", b""), SUCCESS, "nrt_init")
    run = Runner(lib, neff)
    expect_eq(lib.nrt_profile_start(run.model, path.encode()), SUCCESS, "start " + path)
    for n in range(executions):
        expect_eq(run.execute(), SUCCESS, f"profiled execution {n}")
    stats = run.stats()
    expect_eq(lib.nrt_profile_stop(path.encode()), SUCCESS, "stop " + path)
    lib.nrt_unload(run.model)
    lib.nrt_close()
    return stats


def summary_busy(tool, neff, session):
    summary = json.loads(subprocess.check_output(
        [tool, "view", "-n", neff, "-s", session, "--output-format", "summary-json"]))
    return [(run["total_time_ps"],
             [[(c["core"], e, c["engines"][e]["busy_ps"], c["engines"][e]["wait_ps"])
               for e in ENGINES] for c in run["cores"]]) for run in summary["executions"]]


LONG_PROGRAM_INSTRUCTIONS = 50000


def write_long_program(neff_tool, work):
    """Assembles a NEFF of LONG_PROGRAM_INSTRUCTIONS tiny DVE adds: cheap to simulate, but its
    trace carries over 4 MiB of instruction text, so the Execute reply that returns it is past
    gRPC's default message limit."""
    source = os.path.join(work, "long_program.s")
    add = ("tensor_tensor dst=sbuf[p0:1, 8 + [1 x 1]] fp32 in0=sbuf[p0:1, 0 + [1 x 1]] fp32 "
           "in1=sbuf[p0:1, 4 + [1 x 1]] fp32 op0=add")
    with open(source, "w") as f:
        f.write(".kernel long_program\n.lnc 1\n.input a fp32 [1, 1]\n.output c fp32 [1, 1]\n")
        f.write(".engine dve\n" + (add + "\n") * LONG_PROGRAM_INSTRUCTIONS + "notify_end code=0\n")
        f.write(".engine sp\nnotify_end code=0\n")
    neff = os.path.join(work, "long_program.neff")
    subprocess.check_call([neff_tool, "asm", source, "-o", neff])
    return neff


def compare_profiles(lib, name, neff, lnc, work, tool):
    """Profiles `neff` in-process and through the daemon; returns the remote profile."""
    os.environ["NEURON_LOGICAL_NC_CONFIG"] = str(lnc)
    local_path = os.path.join(work, name + ".local.ntff")
    remote_path = os.path.join(work, name + ".remote.ntff")
    # In-process on the daemon's instance type, then through the daemon.
    os.environ.pop("TRNSIM_DAEMON", None)
    os.environ["TRNSIM_INSTANCE"] = "trn2.3xlarge"
    local = profile_once(lib, neff, local_path, 2)
    del os.environ["TRNSIM_INSTANCE"]
    os.environ["TRNSIM_DAEMON"] = os.environ["TRNSIM_TEST_DAEMON"]
    remote = profile_once(lib, neff, remote_path, 2)
    os.environ.pop("TRNSIM_DAEMON")

    expect_eq(remote.duration_ps, local.duration_ps, name + ": duration")
    local_doc, remote_doc = json.load(open(local_path)), json.load(open(remote_path))
    expect_eq(len(remote_doc["executions"]), 2, name + ": two executions through neurond")
    for a, b in zip(local_doc["executions"], remote_doc["executions"]):
        for kind in ("instructions", "dma_transfers", "sync_updates"):
            expect_eq(len(b["events"][kind]), len(a["events"][kind]), f"{name}: {kind}")
            expect(b["events"][kind] == a["events"][kind], f"{name}: {kind} event for event")
        expect(len(a["events"]["instructions"]) > 0, name + ": instructions traced")
    same = open(local_path, "rb").read() == open(remote_path, "rb").read()
    expect(same, f"{name}: the two profile files are byte-identical")
    if tool:
        expect_eq(summary_busy(tool, neff, remote_path), summary_busy(tool, neff, local_path),
                  name + ": summary-json busy times")
    return remote_doc


def test_remote(lib_path, neff_dir, work, tool=None, neff_tool=None):
    """The same NEFFs profiled in-process and through neurond give the same profile file."""
    lib = C.CDLL(lib_path)
    bind(lib)
    # The smallest LNC=2 sample, and the largest sample short of the 137-GFLOP matmul, each at
    # its own LNC.
    manifest = json.load(open(os.path.join(neff_dir, "manifest.json")))
    lnc = {s["name"]: s["lnc"] for s in manifest
           if s["name"] != BIG_SAMPLE and "collective_ranks" not in s}
    size = {n: os.path.getsize(os.path.join(neff_dir, n + ".neff")) for n in lnc}
    for name in (min((n for n in lnc if lnc[n] == 2), key=size.get), max(lnc, key=size.get)):
        compare_profiles(lib, name, os.path.join(neff_dir, name + ".neff"), lnc[name], work, tool)
    if neff_tool:
        doc = compare_profiles(lib, "long_program", write_long_program(neff_tool, work), 1, work,
                               tool)
        # The instruction text alone travels verbatim in the reply: a lower bound of its size.
        text = sum(len(i["opcode"]) + len(i["operands"])
                   for i in doc["executions"][0]["events"]["instructions"])
        expect(text > 4 << 20, f"the reply carried {text} bytes of text, past 4 MiB")


# --- NEURON_RT_INSPECT_* --------------------------------------------------------------------
# The runtime reads the environment at nrt_init, so each case runs this script again as a child
# (TRNSIM_TEST_INSPECT_CHILD: what the child does, as JSON) with the case's variables set.

def bind_sys_trace(lib):
    P = C.c_void_p
    sig = {
        "nrt_sys_trace_config_allocate": (C.c_int, [C.POINTER(P)]),
        "nrt_sys_trace_config_free": (None, [P]),
        "nrt_sys_trace_start": (C.c_int, [P]),
        "nrt_sys_trace_stop": (C.c_int, []),
        "nrt_sys_trace_fetch_events": (C.c_int, [C.POINTER(P), C.POINTER(C.c_size_t), P]),
        "nrt_sys_trace_buffer_free": (None, [P]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def fetch_sys_trace(lib):
    buffer, size = C.c_void_p(), C.c_size_t()
    expect_eq(lib.nrt_sys_trace_fetch_events(C.byref(buffer), C.byref(size), None), SUCCESS,
              "nrt_sys_trace_fetch_events")
    doc = json.loads(C.string_at(buffer, size.value)) if buffer.value else {"events": []}
    lib.nrt_sys_trace_buffer_free(buffer)
    return doc


def inspect_child(lib_path, neff_dir, plan):
    """Runs the plan: nrt_init, a model per vnc executed plan["execs"] times, the application's
    nrt_sys_trace_* calls (plan["api"]: "refused" while inspect owns the trace, "works" when it
    does not), nrt_close. Exits 10 + the status when nrt_init fails."""
    lib = C.CDLL(lib_path)
    bind(lib)
    bind_sys_trace(lib)
    status = lib.nrt_init(1, b"", b"")
    if status != SUCCESS:
        sys.exit(10 + status)
    config = C.c_void_p()
    expect_eq(lib.nrt_sys_trace_config_allocate(C.byref(config)), SUCCESS, "config allocate")
    if plan.get("api") == "works":
        expect_eq(lib.nrt_sys_trace_start(config), SUCCESS, "application's start")
    runners = [Runner(lib, smallest_sample(neff_dir, 2), vnc) for vnc in plan["vncs"]]
    for run in runners:
        for i in range(plan["execs"]):
            expect_eq(run.execute(), SUCCESS, f"execution {i + 1}")
    if plan.get("api") == "refused":
        expect_eq(lib.nrt_sys_trace_start(config), INVALID, "start while inspect captures")
        expect_eq(fetch_sys_trace(lib)["events"], [], "fetch takes nothing from ntrace.json")
        expect_eq(lib.nrt_sys_trace_stop(), INVALID, "stop of inspect's capture")
    elif plan.get("api") == "works":
        types = {e["event_type"] for e in fetch_sys_trace(lib)["events"]}
        expect("nrt_execute" in types, f"the application's own capture: {types}")
        expect_eq(lib.nrt_sys_trace_stop(), SUCCESS, "application's stop")
    lib.nrt_sys_trace_config_free(config)
    lib.nrt_close()


def emulated_instance_id(instance_type):
    """simulator/spec/instance_id.h, recomputed: i-0 + FNV-1a 64 of the type, 16 hex digits."""
    h = 0xcbf29ce484222325
    for c in instance_type.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"i-0{h:016x}"


def run_inspect_case(lib_path, neff_dir, work, name, variables, plan):
    """Runs one child; returns (exit code, stderr, {file name: path} of its session directory or
    None when it made none)."""
    out = os.path.join(work, "inspect_" + name)
    shutil.rmtree(out, ignore_errors=True)  # a previous run's session directories
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEURON_RT_INSPECT_")}
    env.update(NEURON_RT_INSPECT_OUTPUT_DIR=out, TRNSIM_TEST_INSPECT_CHILD=json.dumps(plan),
               **variables)
    child = subprocess.run([sys.executable, __file__, "inspect", lib_path, neff_dir, work],
                           env=env, stderr=subprocess.PIPE, text=True)
    sys.stderr.write(child.stderr)
    sessions = glob.glob(os.path.join(out, "*", "*"))
    if not sessions:
        return child.returncode, child.stderr, None
    expect_eq(len(sessions), 1, name + ": one session directory")
    process_dir = os.path.basename(os.path.dirname(sessions[0]))
    # Remote: the daemon's instance type, which the test does not know; locally the configured.
    instance = os.environ.get("TRNSIM_INSTANCE") or (
        None if os.environ.get("TRNSIM_DAEMON") else "trn2.48xlarge")
    prefix = emulated_instance_id(instance) if instance else process_dir.split("_pid_")[0]
    expect(process_dir.startswith(prefix + "_pid_") and len(prefix) == 19 and
           process_dir.split("_pid_")[1].isdigit(),
           f"{name}: session directory {process_dir} is <instance id>_pid_<pid>")
    stamp = os.path.basename(sessions[0])
    expect(len(stamp) == 16 and stamp[8] == "T" and stamp.endswith("Z"),
           f"{name}: timestamp directory {stamp}")
    files = {f: os.path.join(sessions[0], f) for f in os.listdir(sessions[0])}
    return child.returncode, child.stderr, files


def spans(doc, event_type):
    """The stop events of `event_type`, keyed by nc_idx."""
    by_nc = {}
    for e in doc["events"]:
        if e["event_type"] == event_type and e["phase"] == "stop":
            by_nc.setdefault(e["nc_idx"], []).append(e)
    return by_nc


def test_inspect(lib_path, neff_dir, work):
    if "TRNSIM_TEST_INSPECT_CHILD" in os.environ:
        inspect_child(lib_path, neff_dir, json.loads(os.environ["TRNSIM_TEST_INSPECT_CHILD"]))
        return
    on = {"NEURON_RT_INSPECT_ENABLE": "1"}

    # Default: the system trace only, for the process's life; the application's nrt_sys_trace
    # calls are refused rather than sharing (or draining) it.
    code, _, files = run_inspect_case(lib_path, neff_dir, work, "default", on,
                                      {"vncs": [0], "execs": 2, "api": "refused"})
    expect_eq(code, 0, "default: the child")
    expect_eq(sorted(files or {}), ["ntrace.json"], "default: ntrace.json only")
    if files and "ntrace.json" in files:
        doc = json.load(open(files["ntrace.json"]))
        expect_eq(len(spans(doc, "model_load").get(0, [])), 1, "default: one model_load span")
        expect_eq(len(spans(doc, "nrt_execute").get(0, [])), 2, "default: two nrt_execute spans")
        starts = [e for e in doc["events"] if e["event_type"] == "nrt_execute" and
                  e["phase"] == "start"]
        expect_eq(len(starts), 2, "default: nrt_execute starts")
        expect(all(e["data"].get("model_name") for e in starts), "default: model names")

    # Model mode with two warm-up executions: the third of four is the one profiled.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "model",
        dict(on, NEURON_RT_INSPECT_DEVICE_PROFILE="model",
             NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP="2"), {"vncs": [0], "execs": 4})
    expect_eq(code, 0, "model: the child")
    expect_eq(sorted(files or {}), ["ntrace.json", "profile_nc_0_session_1.ntff"],
              "model: one device profile")
    if files and len(files) == 2:
        profile = json.load(open(files["profile_nc_0_session_1.ntff"]))
        expect_eq([x["index"] for x in profile["executions"]], [2], "model: the 3rd execution")
        # The profiled run is run 3 of the process in the system trace: same simulated time.
        doc = json.load(open(files["ntrace.json"]))
        device = {e["data"]["exec_id"]: e["data"]["duration_ps"]
                  for e in spans(doc, "nc_exec_running").get(0, [])}
        expect_eq(sorted(device), [1, 2, 3, 4], "model: four device runs traced")
        expect_eq(profile["executions"][0]["stats"]["duration_ps"], device.get(3),
                  "model: profile duration == run 3's nc_exec_running")

    # "1" is model mode: without warm-up, the first execution only.
    code, _, files = run_inspect_case(lib_path, neff_dir, work, "one",
                                      dict(on, NEURON_RT_INSPECT_DEVICE_PROFILE="1"),
                                      {"vncs": [0], "execs": 3})
    ntff = sorted(f for f in files or {} if f.endswith(".ntff"))
    expect_eq(ntff, ["profile_nc_0_session_1.ntff"], "1: one device profile")
    if ntff:
        profile = json.load(open(files[ntff[0]]))
        expect_eq([x["index"] for x in profile["executions"]], [0], "1: the first execution")

    # Session mode: every execution (warm-up ignored), one file each.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "session",
        dict(on, NEURON_RT_INSPECT_DEVICE_PROFILE="session",
             NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP="1"), {"vncs": [0], "execs": 2})
    expect_eq(code, 0, "session: the child")
    ntff = sorted(f for f in files or {} if f.endswith(".ntff"))
    expect_eq(ntff, ["profile_nc_0_session_1.ntff", "profile_nc_0_session_2.ntff"],
              "session: one profile per execution")
    for i, f in enumerate(ntff):
        doc = json.load(open(files[f]))
        expect_eq([x["index"] for x in doc["executions"]], [i], f + ": its execution")
        expect(len(doc["executions"][0]["events"]["instructions"]) > 0, f + ": events")

    # Type filter: ^nrt_execute drops that type only.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "filter_type",
        dict(on, NEURON_RT_INSPECT_EVENT_FILTER_TYPE="^nrt_execute"), {"vncs": [0], "execs": 2})
    if files and "ntrace.json" in files:
        types = {e["event_type"] for e in json.load(open(files["ntrace.json"]))["events"]}
        expect("nrt_execute" not in types, f"filter_type: nrt_execute excluded: {types}")
        expect({"model_load", "runtime_execute", "nc_exec_running"} <= types,
               f"filter_type: the other types kept: {types}")
    else:
        expect(False, "filter_type: ntrace.json")

    # Core filter: models on cores 0 and 1, only core 1 captured.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "filter_nc",
        dict(on, NEURON_RT_INSPECT_EVENT_FILTER_NC="1"), {"vncs": [0, 1], "execs": 1})
    if files and "ntrace.json" in files:
        events = json.load(open(files["ntrace.json"]))["events"]
        expect_eq(sorted({e["nc_idx"] for e in events}), [1], "filter_nc: core 1 only")
    else:
        expect(False, "filter_nc: ntrace.json")

    # Ring size: each core keeps its newest events only.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "ring",
        dict(on, NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC="3"), {"vncs": [0], "execs": 3})
    if files and "ntrace.json" in files:
        events = json.load(open(files["ntrace.json"]))["events"]
        expect_eq(len(events), 3, "ring: 3 events kept")
        expect_eq(events[-1]["event_type"], "nrt_execute", "ring: the newest kept")
    else:
        expect(False, "ring: ntrace.json")

    # No system profile: no ntrace.json, and the application's own capture works.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "system_off",
        dict(on, NEURON_RT_INSPECT_SYSTEM_PROFILE="0", NEURON_RT_INSPECT_DEVICE_PROFILE="1"),
        {"vncs": [0], "execs": 1, "api": "works"})
    expect_eq(code, 0, "system_off: the child")
    expect_eq(sorted(files or {}), ["profile_nc_0_session_1.ntff"], "system_off: no ntrace.json")

    # Without the master switch nothing is written, whatever else is set.
    code, _, files = run_inspect_case(
        lib_path, neff_dir, work, "disabled", {"NEURON_RT_INSPECT_DEVICE_PROFILE": "session"},
        {"vncs": [0], "execs": 1, "api": "works"})
    expect_eq(code, 0, "disabled: the child")
    expect_eq(files, None, "disabled: no session directory")

    # Malformed values: nrt_init fails with NRT_INVALID, one log line naming variable and value.
    for var, value in [("NEURON_RT_INSPECT_DEVICE_PROFILE", "sessions"),
                       ("NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP", "-2"),
                       ("NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "lots"),
                       ("NEURON_RT_INSPECT_EVENT_FILTER_NC", "2-0"),
                       ("NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "^nrt_exec"),
                       ("NEURON_RT_INSPECT_SYSTEM_PROFILE", "sometimes")]:
        code, stderr, files = run_inspect_case(lib_path, neff_dir, work, "malformed",
                                               dict(on, **{var: value}),
                                               {"vncs": [0], "execs": 1})
        expect_eq(code, 10 + INVALID, f"{var}={value}: nrt_init")
        lines = [l for l in stderr.splitlines() if var in l]
        expect_eq(len(lines), 1, f"{var}={value}: log lines naming it")
        expect(any(value.upper() in l.upper() for l in lines), f"{var}={value}: value logged")
        expect_eq(files, None, f"{var}={value}: nothing written")


def check_perfetto(trace, where):
    """Schema check of a Chrome JSON trace as the Perfetto UI reads it."""
    events = trace.get("traceEvents")
    expect(isinstance(events, list) and events, where + ": traceEvents")
    flows = {}
    slices = {}
    for ev in events:
        for key in ("ph", "ts", "pid", "tid"):
            if key not in ev:
                expect(False, f"{where}: event without {key}: {ev}")
                return
        expect(isinstance(ev["ts"], (int, float)) and ev["ts"] >= 0, f"{where}: ts {ev}")
        if ev["ph"] == "X":
            expect(isinstance(ev.get("dur"), (int, float)) and ev["dur"] >= 0,
                   f"{where}: duration {ev}")
            slices.setdefault((ev["pid"], ev["tid"]), []).append((ev["ts"], ev["ts"] + ev["dur"]))
        elif ev["ph"] in ("s", "f"):
            flows.setdefault(ev["id"], []).append(ev)
        else:
            expect(ev["ph"] == "M", f"{where}: unexpected phase {ev['ph']}")
    for fid, pair in flows.items():
        phases = sorted(e["ph"] for e in pair)
        expect_eq(phases, ["f", "s"], f"{where}: flow {fid} is one start and one finish")
        if phases != ["f", "s"]:
            continue
        start = next(e for e in pair if e["ph"] == "s")
        finish = next(e for e in pair if e["ph"] == "f")
        expect(start["ts"] <= finish["ts"], f"{where}: flow {fid} goes back in time")
        for e in (start, finish):  # each end binds to a slice of its track
            inside = any(a <= e["ts"] <= b for a, b in slices.get((e["pid"], e["tid"]), []))
            expect(inside, f"{where}: flow {fid} {e['ph']} is on no slice")
    return len(flows)


BIG_SAMPLE = "matmul_bf16_4096"


def test_samples(tool, neff_dir, work, which="small"):
    manifest = json.load(open(os.path.join(neff_dir, "manifest.json")))
    # Collective samples need ranks (nrt_load_collectives): profiled through NEURON_RT_INSPECT_*
    # in each rank, not by neuron-profile capture.
    manifest = [s for s in manifest
                if (s["name"] == BIG_SAMPLE) == (which == "big") and "collective_ranks" not in s]
    expect(len(manifest) > 0, "samples to profile")
    total_flows = 0
    for sample in manifest:
        name = sample["name"]
        neff = os.path.join(neff_dir, name + ".neff")
        session = os.path.join(work, name + ".ntff")
        args = [tool, "capture", "-n", neff, "-s", session]
        for f in sorted(glob.glob(os.path.join(neff_dir, name + ".inputs", "*.bin"))):
            args += [os.path.basename(f)[:-4], f]
        env = dict(os.environ, NEURON_LOGICAL_NC_CONFIG=str(sample["lnc"]))
        if subprocess.call(args, env=env) != 0:
            expect(False, name + ": capture failed")
            continue
        doc = json.load(open(session))
        expect_eq(len(doc["executions"]), 1, name + ": one execution")
        stats = doc["executions"][0]["stats"]

        pf = os.path.join(work, name + ".pftrace.json")
        expect_eq(subprocess.call([tool, "view", "-n", neff, "-s", session, "--output-format",
                                   "perfetto", "--output-file", pf]), 0, name + ": perfetto")
        total_flows += check_perfetto(json.load(open(pf)), name) or 0

        summary = json.loads(subprocess.check_output(
            [tool, "view", "-n", neff, "-s", session, "--output-format", "summary-json"]))
        run = summary["executions"][0]
        expect_eq(run["total_time_ps"], stats["duration_ps"], name + ": total time")
        for core, want in zip(run["cores"], stats["cores"]):
            expect_eq(core["core"], want["core"], name + ": core order")
            for e in ENGINES:
                got, counter = core["engines"][e], want["engines"][e]
                expect_eq(got["busy_ps"], counter["busy_ps"], f"{name}: core {core['core']} {e} busy")
                expect_eq(got["wait_ps"], counter["wait_ps"], f"{name}: core {core['core']} {e} wait")
                expect_eq(got["instructions"], counter["instructions"],
                          f"{name}: core {core['core']} {e} instructions")
        moved = sum(q["bytes"] for c in stats["cores"] for q in c["dma_queues"])
        expect_eq(sum(q["bytes"] for q in run["dma_queues"]), moved, name + ": DMA bytes")
        expect(moved == 0 or all(q["bytes_per_s"] > 0 for q in run["dma_queues"]),
               name + ": bandwidth")
        text = subprocess.check_output([tool, "view", "-s", session, "--output-format",
                                        "summary-text"]).decode()
        expect("total_time" in text and "PE" in text, name + ": summary-text")
        legacy = json.loads(subprocess.check_output(
            [tool, "view", "-s", session, "--output-format", "json"]))
        expect_eq(len(legacy["instruction"]),
                  len(doc["executions"][0]["events"]["instructions"]), name + ": json view")
    expect(total_flows > 0, "the samples have semaphore flow arrows")
    if which == "big":
        return
    # Bad input: no crash, exit status 1 with a message.
    bad = os.path.join(work, "bad.ntff")
    for text in ["", "{", "[]", '{"format": "trnsim-ntff", "version": 99}',
                 json.dumps(dict(doc, executions=[{"index": -1}]))]:
        open(bad, "w").write(text)
        code = subprocess.call([tool, "view", "-s", bad, "--output-format", "summary-text"],
                               stderr=subprocess.DEVNULL)
        expect_eq(code, 1, f"view of a bad profile {text[:20]!r}")
    code = subprocess.call([tool, "capture", "-n", bad, "-s", os.path.join(work, "x.ntff")],
                           stderr=subprocess.DEVNULL)
    expect_eq(code, 1, "capture of a file that is not a NEFF")


def npy_bytes(descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join(f"{d}, " for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data


def parse_npy(blob):
    expect_eq(blob[:6], b"\x93NUMPY", "npy magic")
    length = int.from_bytes(blob[8:10], "little")
    header = blob[10:10 + length].decode()
    return header, blob[10 + length:]


def test_capture(tool, neff_dir, work):
    import array
    import random
    rng = random.Random(7)
    n = 512 * 1024
    a = array.array("f", (rng.uniform(-4, 4) for _ in range(n)))
    b = array.array("f", (rng.uniform(-4, 4) for _ in range(n)))
    want = array.array("f", (x + y for x, y in zip(a, b))).tobytes()
    a_file, b_file = os.path.join(work, "a.bin"), os.path.join(work, "b.npy")
    open(a_file, "wb").write(a.tobytes())
    open(b_file, "wb").write(npy_bytes("<f4", [512, 1024], b.tobytes()))
    neff = os.path.join(neff_dir, "vector_add_fp32.neff")
    session = os.path.join(work, "va.ntff")
    code = subprocess.call([tool, "capture", "-n", neff, "-s", session, "--num-exec", "3",
                            "--profile-nth-exec", "2", "--check-output-determinism",
                            "--save-output", "--save-output-npy", "a", a_file, "b", b_file])
    expect_eq(code, 0, "capture with every option")
    doc = json.load(open(session))
    expect_eq(len(doc["executions"]), 1, "only the profiled execution is in the profile")
    got = open(os.path.join(work, "output_out.bin"), "rb").read()
    expect(got == want, "saved output equals a + b")
    header, data = parse_npy(open(os.path.join(work, "output_out.npy"), "rb").read())
    expect("'<f4'" in header and "(512, 1024" in header, f"npy dtype and shape: {header}")
    expect(data == want, "saved .npy data equals a + b")

    # -t systrace: the run's system trace, viewed like a profile.
    device_ns = -(-doc["executions"][0]["stats"]["duration_ps"] // 1000)
    systrace = os.path.join(work, "va.systrace.json")
    code = subprocess.call([tool, "capture", "-n", neff, "-s", systrace, "-t", "systrace",
                            "--num-exec", "2", "a", a_file, "b", b_file])
    expect_eq(code, 0, "capture -t systrace")
    raw = json.load(open(systrace))
    expect("events" in raw and "data_version" in raw, "the session holds the fetched JSON")
    summary = json.loads(subprocess.check_output(
        [tool, "view", "-s", systrace, "--output-format", "summary-json"]))
    counts = {t["event_type"]: t for t in summary["event_types"]}
    expect_eq({k: v["count"] for k, v in counts.items()},
              {"model_load": 1, "nrt_execute": 2, "runtime_execute": 2, "nc_exec_running": 2,
               "timestamp_sync_point": 2},
              "system-trace spans per type")
    expect_eq(counts.get("nc_exec_running", {}).get("total_ns"), 2 * device_ns,
              "nc_exec_running lasts the simulated duration of each run")
    expect_eq(counts.get("nc_exec_running", {}).get("clock"), "device",
              "nc_exec_running is summed in device time")
    expect_eq(counts["nrt_execute"]["clock"], "host", "nrt_execute is host time")
    expect(all(v["open"] == 0 for v in counts.values()), "every span closed")
    expect(counts["nrt_execute"]["min_ns"] >= counts["runtime_execute"]["min_ns"] > 0,
           "an nrt_execute span holds its run")
    pf = os.path.join(work, "sys.pftrace.json")
    expect_eq(subprocess.call([tool, "view", "-s", systrace, "--output-format", "perfetto",
                               "--output-file", pf], stderr=subprocess.DEVNULL), 0,
              "system trace as perfetto")
    slices = [e for e in json.load(open(pf))["traceEvents"] if e["ph"] == "X"]
    expect_eq(len(slices), 9, "one perfetto slice per span")
    device_slices = [e for e in slices if e["name"] == "nc_exec_running"]
    expect(all(e["args"].get("clock") == "device" and e["dur"] * 1000 == device_ns
               for e in device_slices), "device slices last the device time")
    bad = dict(raw, events=[e for e in raw["events"] if e["phase"] == "stop"])
    json.dump(bad, open(systrace, "w"))
    expect_eq(subprocess.call([tool, "view", "-s", systrace, "--output-format", "summary-text"],
                              stderr=subprocess.DEVNULL), 1, "a stop without its start refused")

    wrong = os.path.join(work, "short.bin")
    open(wrong, "wb").write(b"\0" * 12)
    refused = [["--num-exec", "0"], ["--num-exec", "2", "--profile-nth-exec", "3"],
               ["--check-output-determinism"], ["--exec-mode", "async"], ["a", wrong],
               ["c", a_file]]
    for extra in refused:
        out = os.path.join(work, "refused.ntff")
        code = subprocess.call([tool, "capture", "-n", neff, "-s", out] + extra,
                               stderr=subprocess.DEVNULL)
        expect_eq(code, 1, f"capture {' '.join(extra)} refused")
        expect(not os.path.exists(out), f"capture {' '.join(extra)} wrote nothing")


def main():
    mode, target, neff_dir, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    test = {"api": test_api, "inspect": test_inspect, "remote": test_remote,
            "samples": test_samples, "capture": test_capture}[mode]
    test(target, neff_dir, work, *sys.argv[5:])
    return trnsim_checks.pass_summary()


if __name__ == "__main__":
    sys.exit(main())
