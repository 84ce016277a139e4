"""The native module _trnsim_nki (python/binding/, docs/nki.md "The native module").

A [128, 512] fp32 vector add built from text lines of the ISA (docs/isa.md §10), run through
libnrt — in-process, or through neurond when TRNSIM_TEST_DAEMON is set (conftest.py) — and
checked against numpy; the simulated figures libnrt reports for it; profiles that neuron-profile
opens; chip_info against the chip specs; every error the module raises, by type and message;
and KernelBuilder.finish(), the final stream positions after the builder's inserted sem_waits.
The kernel is built for the runtime's LNC (runtime_info), splitting the rows over the cores at
LNC=2.

Environment (tests/nki/CMakeLists.txt): TRNSIM_TEST_NEURON_PROFILE (the built neuron-profile),
TRNSIM_TEST_EXPECT_INSTANCE (the instance type the runtime must report).
"""
import io
import json
import os
import subprocess
import sys
import tarfile
import threading

import numpy as np
import pytest

import _trnsim_nki as native

ROWS, COLS = 128, 512
NBYTES = ROWS * COLS * 4


@pytest.fixture(scope="module")
def runtime():
    return native.runtime_info()


def build_vector_add(lnc, name="vector_add", chip="trn2"):
    """out = a + b: per core, SP loads its rows of a and b, DVE adds, SP stores."""
    k = native.KernelBuilder(name, chip, lnc)
    a = k.add_input("a", "fp32", [ROWS, COLS])
    b = k.add_input("b", "fp32", [ROWS, COLS])
    out = k.add_output("out", "fp32", [ROWS, COLS])
    rows = ROWS // lnc
    for core in range(lnc):
        first = core * rows * COLS * 4

        def hbm(var):
            return f"hbm[var{var} + {first}, [{rows} x {COLS}, {COLS} x 1]] fp32"

        def sbuf(offset):
            return f"sbuf[p0:{rows}, {offset} + [{COLS} x 1]] fp32"

        load_a, load_b = k.emit_many(core, "sp", [
            f"dma_copy dst={sbuf(0)} src={hbm(a)} queue=0",
            f"dma_copy dst={sbuf(2048)} src={hbm(b)} queue=1",
        ])
        add = k.emit(core, "dve", f"tensor_tensor dst={sbuf(4096)} in0={sbuf(0)} "
                                  f"in1={sbuf(2048)} op0=add")
        store = k.emit(core, "sp", f"dma_copy dst={hbm(out)} src={sbuf(4096)} queue=2")
        k.depend((core, "dve", add), (core, "sp", load_a))
        k.depend((core, "dve", add), (core, "sp", load_b))
        k.depend((core, "sp", store), (core, "dve", add))
    return k


def random_inputs(seed):
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal((ROWS, COLS)).astype(np.float32) for name in ("a", "b")}


def as_array(raw):
    return np.frombuffer(raw, np.float32).reshape(ROWS, COLS)


@pytest.fixture(scope="module")
def neff(runtime):
    return build_vector_add(runtime["lnc"]).build()


@pytest.fixture
def model(neff):
    m = native.Model.load(neff)
    yield m
    m.unload()


# ---- running ---------------------------------------------------------------------------------


def test_runtime_info_names_the_instance(runtime):
    assert runtime["instance"] == os.environ["TRNSIM_TEST_EXPECT_INSTANCE"]
    assert runtime["chip"] == "trn2"
    expected_lnc = int(os.environ.get("NEURON_LOGICAL_NC_CONFIG", "2"))  # trn2's default
    assert runtime["lnc"] == expected_lnc
    assert runtime["total_logical_cores"] * runtime["lnc"] == runtime["physical_cores"]
    assert 0 < runtime["visible_logical_cores"] <= runtime["total_logical_cores"]
    assert runtime["version"] and runtime["git"]


def test_vector_add_matches_numpy(model, runtime):
    assert [(t["name"], t["dtype"], t["shape"], t["nbytes"]) for t in model.inputs()] == [
        ("a", "fp32", (ROWS, COLS), NBYTES), ("b", "fp32", (ROWS, COLS), NBYTES)]
    assert [(t["name"], t["nbytes"]) for t in model.outputs()] == [("out", NBYTES)]
    assert model.loaded and model.vnc == 0
    for seed in (1, 2):
        x = random_inputs(seed)
        out = model.execute(x)
        assert list(out) == ["out"]
        np.testing.assert_array_equal(as_array(out["out"]), x["a"] + x["b"])


def test_stats_count_the_kernel(model, runtime):
    model.execute(random_inputs(3))
    stats = model.stats()
    lnc = runtime["lnc"]
    assert stats["execution_count"] == 1
    assert stats["duration_ps"] > 0 and stats["duration_ns"] == stats["duration_ps"] // 1000
    assert stats["dma_bytes"] == 3 * NBYTES and stats["dma_transfers"] == 3 * lnc
    assert stats["hbm_read_bytes"] == 2 * NBYTES and stats["hbm_write_bytes"] == NBYTES
    assert len(stats["cores"]) == lnc
    for core in stats["cores"]:
        assert set(core["engines"]) == {"pe", "act", "dve", "pool", "sp"}
        dve = core["engines"]["dve"]
        assert dve["instructions"] == 2  # tensor_tensor + notify_end
        assert 0 < dve["busy_ps"] <= core["duration_ps"] <= stats["duration_ps"]
        assert core["engines"]["pe"]["flops"] == 0
        assert [q["bytes"] for q in core["dma_queues"][:3]] == [NBYTES // lnc] * 3
        assert sum(q["transfers"] for q in core["dma_queues"]) == 3


def test_inputs_may_be_any_c_contiguous_buffer(model):
    x = random_inputs(4)
    out = model.execute({"a": x["a"].tobytes(), "b": bytearray(x["b"].tobytes())})
    np.testing.assert_array_equal(as_array(out["out"]), x["a"] + x["b"])
    out = model.execute({"a": memoryview(x["a"]), "b": x["b"].view(np.uint32)})
    np.testing.assert_array_equal(as_array(out["out"]), x["a"] + x["b"])


def test_threads_share_a_model(model):
    results, errors = {}, []

    def run(seed):
        try:
            for k in range(3):
                x = random_inputs(seed * 10 + k)
                out = as_array(model.execute(x)["out"])
                results[(seed, k)] = np.array_equal(out, x["a"] + x["b"])
        except Exception as e:  # reported below; a thread cannot fail the test itself
            errors.append(e)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 12 and all(results.values())


def test_constant_input(runtime):
    """b as a constant in the NEFF (add_constant): only a is passed."""
    lnc = runtime["lnc"]
    k = native.KernelBuilder("add_constant", "trn2", lnc)
    a = k.add_input("a", "fp32", [ROWS, COLS])
    b_data = np.arange(ROWS * COLS, dtype=np.float32).reshape(ROWS, COLS) / 7
    b = k.add_constant("b", "fp32", [ROWS, COLS], b_data.tobytes())
    out = k.add_output("out", "fp32", [ROWS, COLS])
    scratch = k.add_scratch("spill", 4096)
    assert (a, b, out, scratch) == (0, 1, 2, 3)
    rows = ROWS // lnc
    for core in range(lnc):
        first = core * rows * COLS * 4
        hbm = lambda var: f"hbm[var{var} + {first}, [{rows} x {COLS}, {COLS} x 1]] fp32"
        sbuf = lambda off: f"sbuf[p0:{rows}, {off} + [{COLS} x 1]] fp32"
        la = k.emit(core, "sp", f"dma_copy dst={sbuf(0)} src={hbm(a)} queue=0")
        lb = k.emit(core, "sp", f"dma_copy dst={sbuf(2048)} src={hbm(b)} queue=1")
        add = k.emit(core, "dve", f"tensor_tensor dst={sbuf(4096)} in0={sbuf(0)} "
                                  f"in1={sbuf(2048)} op0=add")
        st = k.emit(core, "sp", f"dma_copy dst={hbm(out)} src={sbuf(4096)} queue=2")
        k.depend((core, "dve", add), (core, "sp", la))
        k.depend((core, "dve", add), (core, "sp", lb))
        k.depend((core, "sp", st), (core, "dve", add))
    m = native.Model.load(k.build())
    try:
        assert [t["name"] for t in m.inputs()] == ["a"]
        x = random_inputs(5)["a"]
        np.testing.assert_array_equal(as_array(m.execute({"a": x})["out"]), x + b_data)
    finally:
        m.unload()


def test_register_loop_with_labels(runtime):
    """emit_branch + labels: ACT counts r0 to 4; the loop body runs 4 times."""
    k = native.KernelBuilder("loop", "trn2", runtime["lnc"])
    x = k.add_input("x", "fp32", [1, 4])
    k.add_output("y", "fp32", [1, 4])
    assert k.emit(0, "act", "reg_set r0 = 0") == 0
    top = k.new_label(0, "act", "top")
    k.bind_label(0, "act", top)
    assert k.emit(0, "act", "reg_add r0 += 1") == 1
    assert k.emit_branch(0, "act", "branch r0 < 4 -> 0", top) == 2
    assert k.debug_print(0, "sp", "x", f"hbm[var{x} + 0, [1 x 4, 4 x 1]] fp32") == 0
    assert k.instruction_count(0, "act") == 3 and k.instruction_count(0, "pe") == 0
    m = native.Model.load(k.build())
    try:
        m.execute({"x": np.zeros((1, 4), np.float32)})
        act = m.stats()["cores"][0]["engines"]["act"]
        assert act["instructions"] == 1 + 4 * 2 + 1  # reg_set, 4 x (reg_add, branch), notify_end
    finally:
        m.unload()


def test_add_member_is_in_the_archive(runtime):
    k = build_vector_add(runtime["lnc"], name="with_member")
    info = json.dumps({"kernel": "vector_add", "lines": [1, 2]}).encode()
    k.add_member("kernel_debug_info.json", info)
    neff = k.build()
    with tarfile.open(fileobj=io.BytesIO(neff[1024:])) as archive:
        assert archive.extractfile("kernel_debug_info.json").read() == info
    m = native.Model.load(neff)  # still an ordinary NEFF
    m.unload()


def test_profile_opens_in_neuron_profile(model, neff, tmp_path):
    neff_path, ntff_path = tmp_path / "vector_add.neff", tmp_path / "vector_add.ntff"
    neff_path.write_bytes(neff)
    x = random_inputs(6)
    out = model.profile(x, str(ntff_path))
    np.testing.assert_array_equal(as_array(out["out"]), x["a"] + x["b"])
    view = subprocess.run(
        [os.environ["TRNSIM_TEST_NEURON_PROFILE"], "view", "-n", str(neff_path), "-s",
         str(ntff_path), "--output-format", "summary-json"],
        capture_output=True, text=True, check=False)
    assert view.returncode == 0, view.stderr
    summary = json.loads(view.stdout)
    assert summary["model"] == "vector_add"
    [run] = summary["executions"]
    assert run["status"] == "ok"
    assert run["total_time_ps"] == model.stats()["duration_ps"]
    assert run["cores"][0]["engines"]["dve"]["instructions"] == 2


# ---- chip_info ---------------------------------------------------------------------------------


def test_chip_info_is_the_spec():
    # simulator/spec/chip_specs.cc and cost_specs.cc (sources cited there).
    trn2 = native.chip_info("trn2")
    assert trn2["chip"] == "trn2" and trn2["name"] == "Trainium2"
    assert trn2["partitions"] == 128
    assert trn2["sbuf_bytes_per_partition"] == 224 * 1024
    assert trn2["psum_bytes_per_partition"] == 16 * 1024
    assert trn2["psum_banks"] == 8 and trn2["psum_bank_bytes"] == 2048
    assert trn2["physical_cores_per_chip"] == 8
    assert trn2["clock_hz"] == 2_400_000_000
    assert trn2["engine_clock_hz"] == {"pe": 2_400_000_000, "act": 1_200_000_000,
                                       "dve": 960_000_000, "pool": 1_200_000_000,
                                       "sp": 1_200_000_000}
    bf16 = 2 * 128 * 128 * 2.4e9
    assert trn2["pe_peak_flops"] == {"bf16": bf16, "fp16": bf16, "fp8": 2 * bf16,
                                     "fp32": bf16 / 4, "fp32r": bf16}
    assert trn2["pe_max_moving_free_fp32"] == 512 and trn2["pe_max_moving_free_bf16"] == 0
    assert trn2["dma_queues_per_core"] == 16 and trn2["dma_engines_per_core"] == 16
    assert trn2["hbm_bytes_per_s_per_chip"] == 2_900_000_000_000
    assert trn2["execution_overhead_ps"] == 50_000_000  # C-7's intercept (calibration.md)
    assert trn2["default_lnc"] == 2
    assert [i["name"] for i in trn2["instances"]] == ["trn2.3xlarge", "trn2.48xlarge",
                                                      "trn2u.48xlarge"]
    trn3 = native.chip_info("trn3")
    assert trn3["name"] == "Trainium3"
    assert trn3["sbuf_bytes_per_partition"] == 256 * 1024
    assert trn3["pe_max_moving_free_bf16"] == 8192
    assert trn3["engine_clock_hz"]["dve"] == 1_200_000_000
    assert [i["name"] for i in trn3["instances"]] == ["trn3.48xlarge"]


# ---- errors ------------------------------------------------------------------------------------


def raises(kind, match, status="NRT_INVALID"):
    """pytest.raises for `kind` whose message matches; a TrnsimError also has `status`."""
    class Check:
        def __enter__(self):
            self.ctx = pytest.raises(kind, match=match)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.ctx.__exit__(*exc)
            if handled and kind is native.TrnsimError:
                assert self.info.value.status == status
            return handled
    return Check()


def test_trnsim_error_is_a_runtime_error():
    assert issubclass(native.TrnsimError, RuntimeError)


def test_unknown_chip():
    with raises(native.TrnsimError, r"unknown chip 'trn9' \(expected trn2 or trn3\)"):
        native.chip_info("trn9")
    with raises(native.TrnsimError, r"unknown chip 'trn9'"):
        native.KernelBuilder("k", "trn9")
    with raises(native.TrnsimError, r"lnc 3 \(expected 1 or 2\)"):
        native.KernelBuilder("k", "trn2", 3)


def test_builder_argument_errors():
    k = native.KernelBuilder("k")
    with raises(native.TrnsimError, r"unknown dtype 'float99'"):
        k.add_input("a", "float99", [4])
    k.add_input("a", "fp32", [128, 4])
    with raises(native.TrnsimError, r"variable 'a' declared twice"):
        k.add_input("a", "fp32", [128, 4])
    with raises(native.TrnsimError, r"variable 'c': 3 bytes of data for 16 bytes"):
        k.add_constant("c", "fp32", [4], b"abc")
    with raises(TypeError, r"add_input"):
        k.add_input("b", "fp32", [-1])
    with raises(TypeError, r"add_input"):
        k.add_input("b", "fp32", "128")


def test_bad_instruction_text():
    k = native.KernelBuilder("k")
    with raises(native.TrnsimError, r"sg00 dve\[0\]: cannot parse 'tensor_frobnicate dst=x'"):
        k.emit(0, "dve", "tensor_frobnicate dst=x")
    with raises(native.TrnsimError, r"sg00 sp\[1\]: texts\[1\]: cannot parse 'nop nop'"):
        k.emit_many(0, "sp", ["nop", "nop nop"])
    assert k.instruction_count(0, "sp") == 1  # the line before the bad one stays
    # Parses, but is not a DVE instruction: the builder's validation names the stream.
    with raises(native.TrnsimError, r"sg00 dve\[0\]: .*multiply_moving"):
        k.emit(0, "dve", "multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 "
                         "moving=sbuf[p0:128, 0 + [512 x 1]] bf16 first last")
    with raises(native.TrnsimError, r"a branch goes through emit_branch"):
        k.emit(0, "act", "branch r0 < 4 -> 0")
    with raises(native.TrnsimError, r"emit_branch needs a branch instruction, not 'nop'"):
        k.emit_branch(0, "act", "nop", k.new_label(0, "act"))
    with raises(native.TrnsimError, r"debug_print source 'sbuf\[': "):
        k.debug_print(0, "sp", "x", "sbuf[")
    with raises(native.TrnsimError, r"prefix"):
        k.debug_print(0, "sp", "x" * 600, "sbuf[p0:1, 0 + [4 x 1]] fp32")


def test_bad_engine_and_core():
    k = native.KernelBuilder("k", "trn2", 1)
    with raises(native.TrnsimError,
                r"unknown engine 'gpu' \(expected pe, act, dve, pool or sp\)"):
        k.emit(0, "gpu", "nop")
    with raises(native.TrnsimError, r"core 1 of a kernel with lnc 1"):
        k.emit(1, "sp", "nop")
    with raises(native.TrnsimError, r"core -1 of a kernel with lnc 1"):
        k.alloc_semaphore(-1)


def test_depend_errors():
    k = native.KernelBuilder("k", "trn2", 2)
    k.emit_many(0, "sp", ["nop", "nop"])
    k.emit(1, "sp", "nop")
    with raises(native.TrnsimError, r"depend: consumer sg00 dve\[0\]: no such instruction"):
        k.depend((0, "dve", 0), (0, "sp", 0))
    with raises(native.TrnsimError, r"depend: producer on core 1, consumer on core 0"):
        k.depend((0, "sp", 1), (1, "sp", 0))
    with raises(native.TrnsimError, r"consumer sg00 sp\[0\] does not come after the producer "
                                    r"sg00 sp\[1\] in the same stream \(deadlock\)"):
        k.depend((0, "sp", 0), (0, "sp", 1))
    with raises(native.TrnsimError, rf"depend: consumer sg00 sp\[{2**40}\]: no such instruction"):
        k.depend((0, "sp", 2**40), (0, "sp", 0))
    with raises(native.TrnsimError, r"core 9223372036854775807 of a kernel with lnc 2"):
        k.depend((0, "sp", 1), (2**70, "sp", 0))
    with raises(TypeError, r"consumer must be a \(core: int, engine: str, index: int\) tuple"):
        k.depend((0, 1, 0), (0, "sp", 0))
    with raises(TypeError, r"producer must be a \(core: int, engine: str, index: int\) tuple"):
        k.depend((0, "sp", 1), (0, "sp"))


def test_label_errors():
    k = native.KernelBuilder("k")
    top = k.new_label(0, "act")
    k.bind_label(0, "act", top)
    with raises(native.TrnsimError, r"label 'L0' is bound twice"):
        k.bind_label(0, "act", top)
    with raises(native.TrnsimError, r"unknown label"):
        k.emit_branch(0, "act", "branch r0 < 4 -> 0", 7)


def test_build_errors():
    k = native.KernelBuilder("k")
    k.add_member("neff.json", b"{}")
    with raises(native.TrnsimError, r"neff.json"):
        k.build()
    k = native.KernelBuilder("k")
    k.add_member("notes.txt", b"a")
    with raises(native.TrnsimError, r"NEFF member 'notes.txt' added twice"):
        k.add_member("notes.txt", b"b")


def test_execute_errors(model):
    x = random_inputs(7)
    with raises(native.TrnsimError, rf"execute: input 'a' has 16 bytes; the model's takes {NBYTES}"):
        model.execute({"a": b"x" * 16, "b": x["b"]})
    with raises(native.TrnsimError, r"execute: input 'b' is missing"):
        model.execute({"a": x["a"]})
    with raises(native.TrnsimError, r"execute: the model has no input 'c' \(inputs: a, b\)"):
        model.execute({"a": x["a"], "b": x["b"], "c": x["a"]})
    with raises(native.TrnsimError, r"execute: input 'a' is not C-contiguous"):
        model.execute({"a": np.asfortranarray(x["a"]), "b": x["b"]})
    with raises(TypeError, r"execute: input 'a' must be a buffer .* not list"):
        model.execute({"a": [1.0] * (ROWS * COLS), "b": x["b"]})
    with raises(TypeError, r"execute: input names must be str, not int"):
        model.execute({0: x["a"]})
    # Nothing above reached libnrt: the model still runs.
    np.testing.assert_array_equal(as_array(model.execute(x)["out"]), x["a"] + x["b"])


def test_unloaded_model(neff):
    m = native.Model.load(neff)
    m.unload()
    m.unload()  # idempotent
    assert not m.loaded
    with raises(native.TrnsimError, r"execute: the model is unloaded", "NRT_INVALID_HANDLE"):
        m.execute(random_inputs(8))
    with raises(native.TrnsimError, r"stats: the model is unloaded", "NRT_INVALID_HANDLE"):
        m.stats()
    assert [t["name"] for t in m.inputs()] == ["a", "b"]  # the description stays


def test_libnrt_errors(model, runtime):
    with raises(native.TrnsimError, r"nrt_load: NRT_INVALID \(2\)"):
        native.Model.load(b"not a neff")
    with raises(native.TrnsimError, r"trnsim_get_execution_stats: NRT_INVALID \(2\)"):
        model.stats()  # not executed since it was loaded
    # A NEFF for the other LNC setting: libnrt refuses it.
    other = build_vector_add(3 - runtime["lnc"], name="other_lnc").build()
    with raises(native.TrnsimError, r"nrt_load: NRT_INVALID \(2\)"):
        native.Model.load(other)
    with raises(native.TrnsimError, r"nrt_profile_start: NRT_INVALID \(2\)"):
        model.profile(random_inputs(9), "/nonexistent-dir/x.ntff")


# ---- the process-wide runtime ------------------------------------------------------------------


def child_env(**extra):
    """The in-process simulator at LNC=1, whatever this test runs against."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRNSIM_DAEMON", "TRNSIM_TEST_DAEMON", "NEURON_LOGICAL_NC_CONFIG")}
    env.update(NEURON_LOGICAL_NC_CONFIG="1", **extra)
    return env


def test_exit_with_a_model_loaded(tmp_path):
    """The atexit hook closes libnrt with the model still loaded; nothing touches it after."""
    neff_path = tmp_path / "k.neff"
    neff_path.write_bytes(build_vector_add(1).build())
    script = f"""
import numpy as np, _trnsim_nki as native
model = native.Model.load(open({str(neff_path)!r}, "rb").read())
x = np.ones((128, 512), np.float32)
assert (np.frombuffer(model.execute({{"a": x, "b": x}})["out"], np.float32) == 2).all()
print("ran")
"""
    run = subprocess.run([sys.executable, "-c", script], env=child_env(), capture_output=True,
                         text=True, check=False, timeout=60)
    assert (run.returncode, run.stdout) == (0, "ran\n"), run.stderr
    assert "ERROR" not in run.stderr


def test_unreachable_daemon(tmp_path):
    script = """
import _trnsim_nki as native
try:
    native.runtime_info()
except native.TrnsimError as e:
    print(e.status, e)
"""
    env = child_env(TRNSIM_DAEMON="unix:" + str(tmp_path / "nobody-listens.sock"))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("NRT_FAILURE nrt_init: NRT_FAILURE (1)"), run.stdout


def test_faults_reach_the_module(tmp_path):
    """TRNSIM_FAULTS applies as for any libnrt client: the 2nd execution fails with the fault's
    status (docs/faults.md), named in the TrnsimError."""
    neff_path = tmp_path / "k.neff"
    neff_path.write_bytes(build_vector_add(1).build())
    script = f"""
import numpy as np, _trnsim_nki as native
model = native.Model.load(open({str(neff_path)!r}, "rb").read())
x = np.ones((128, 512), np.float32)
model.execute({{"a": x, "b": x}})
try:
    model.execute({{"a": x, "b": x}})
except native.TrnsimError as e:
    print(e.status, e)
"""
    run = subprocess.run([sys.executable, "-c", script],
                         env=child_env(TRNSIM_FAULTS="nc_ue:nc=0,exec=2"), capture_output=True,
                         text=True, check=False, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ("NRT_EXEC_HW_ERR_NC_UE nrt_execute: NRT_EXEC_HW_ERR_NC_UE (1202); "
                          "libnrt logged the reason\n"), run.stdout + run.stderr

# ---- KernelBuilder.finish: final positions (for kernel_debug_info.json) ----------------------


def _fan_in_builder():
    k = native.KernelBuilder("fan", "trn2", 1)
    x = k.add_input("x", "fp32", [128, 64])
    loads = [k.emit(0, "sp", f"dma_copy dst=sbuf[p0:128, {q * 256} + [64 x 1]] fp32 "
                             f"src=hbm[var{x} + 0, [128 x 64, 64 x 1]] fp32 queue={q}")
             for q in range(6)]
    first = k.emit(0, "dve", "memset dst=sbuf[p0:128, 4096 + [64 x 1]] fp32 value=0.0")
    copy = k.emit(0, "dve", "tensor_copy dst=sbuf[p0:128, 8192 + [64 x 1]] fp32 "
                            "in=sbuf[p0:128, 0 + [64 x 1]] fp32")
    for q in range(6):
        k.depend((0, "dve", copy), (0, "sp", loads[q]))
    return k, first, copy


def test_finish_reports_final_positions():
    k, first, copy = _fan_in_builder()
    positions = k.finish()
    assert set(positions) == {(0, e) for e in ("pe", "act", "dve", "pool", "sp")}
    # memset, two sem_waits, the copy, notify_end.
    assert positions[(0, "dve")] == [first, copy + 2, copy + 3]
    # SP's notify_end waits for six queues: two sem_waits before it too.
    assert positions[(0, "sp")] == [0, 1, 2, 3, 4, 5, 8]
    assert positions[(0, "pe")] == [0]
    assert k.finish() == positions  # idempotent
    with pytest.raises(native.TrnsimError, match="the kernel is finished"):
        k.emit(0, "dve", "memset dst=sbuf[p0:128, 0 + [64 x 1]] fp32 value=0.0")
    with pytest.raises(native.TrnsimError, match="the kernel is finished"):
        k.depend((0, "dve", copy), (0, "sp", 0))
    k.add_member("notes.json", b"{}")  # members may still be added
    assert len(k.build()) > 0
    assert k.instruction_count(0, "dve") == 2  # what was emitted, not what was built


def test_finish_raises_for_a_kernel_that_cannot_build():
    k = native.KernelBuilder("unbound", "trn2", 1)
    label = k.new_label(0, "dve", "loop")
    k.emit_branch(0, "dve", "branch r0 lt 1 -> 0", label)  # never bound
    with pytest.raises(native.TrnsimError, match="never bound"):
        k.finish()
    # Not finished: the kernel can still change, and builds once the label is bound.
    k.bind_label(0, "dve", label)
    k.emit(0, "dve", "memset dst=sbuf[p0:128, 0 + [64 x 1]] fp32 value=0.0")
    assert k.finish()[(0, "dve")] == [0, 1, 2]
    assert len(k.build()) > 0
