"""The current generation's front end beyond the kernel suite: caching and save_neff, the
benchmark and profile interfaces, nl.device_print, SPMD programs, runtime restarts when the LNC
or chip changes, host dtypes, and the numbers the tracer's dependencies and allocation must
give (deterministic simulated figures)."""
import glob
import json
import os
import subprocess

import numpy as np
import pytest

import nki
import nki.isa as nisa
import nki.language as nl
import trnsim_nki
from trnsim_nki import dtypes


@nki.jit
def scale_add(a, b, factor):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ta = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a)
    nisa.dma_copy(dst=tb, src=b)
    nisa.scalar_tensor_tensor(dst=ta, data=ta, op0=nl.multiply, operand0=factor, op1=nl.add,
                              operand1=tb)
    nisa.dma_copy(dst=out, src=ta)
    return out


@pytest.fixture(autouse=True)
def trn2(monkeypatch):
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn2")


def inputs(shape=(128, 512), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, shape).astype(np.float32),
            rng.uniform(-1, 1, shape).astype(np.float32))


def test_cache_per_signature_and_save_neff(tmp_path):
    a, b = inputs()
    np.testing.assert_array_equal(scale_add(a, b, 2.0), np.float32(2) * a + b)
    first = scale_add.last
    scale_add(a + 1, b, 2.0)  # same signature: the cached NEFF
    assert scale_add.last is first
    scale_add(a, b, 3.0)  # a scalar argument is part of the signature
    assert scale_add.last is not first
    scale_add(a[:64], b[:64], 3.0)  # so is every shape
    assert scale_add.last.trace.hbm_args[0].shape == (64, 512)
    path = scale_add.save_neff(str(tmp_path / "scale_add.neff"))
    data = open(path, "rb").read()
    assert data == scale_add.last.neff
    # The saved NEFF loads with nrt_load like any NEFF and names the kernel's tensors.
    import _trnsim_nki
    model = _trnsim_nki.Model.load(data)
    assert [t["name"] for t in model.inputs()] == ["a", "b"]
    assert [(t["name"], t["shape"]) for t in model.outputs()] == [("out0", (64, 512))]
    x = np.ones((64, 512), np.float32)
    out = model.execute({"a": x, "b": x})["out0"]
    np.testing.assert_array_equal(np.frombuffer(out, np.float32).reshape(64, 512),
                                  np.full((64, 512), 4.0, np.float32))


def test_benchmark_reports_simulated_latency():
    a, b = inputs()
    timed = nki.benchmark(scale_add, warmup=1, iters=3)
    np.testing.assert_array_equal(timed(a, b, 2.0), np.float32(2) * a + b)
    latency = timed.benchmark_result.nc_latency
    assert len(latency.latencies_us) == 3
    p50 = latency.get_latency_percentile(50)
    assert p50 > 0
    # Simulated time is deterministic: every iteration took exactly the same.
    assert latency.get_latency_percentile(0) == latency.get_latency_percentile(100) == p50
    assert p50 == pytest.approx(timed.benchmark_result.report.latency_us)
    with pytest.raises(Exception):
        latency.get_latency_percentile(101)


def test_profile_writes_neff_and_ntff(tmp_path):
    a, b = inputs()
    profiled = nki.profile(scale_add, working_directory=str(tmp_path), save_neff_name="k.neff",
                           save_trace_name="k.ntff", profile_nth=2)
    profiled(a, b, 2.0)
    assert (tmp_path / "k.neff").read_bytes() == scale_add.last.neff
    assert (tmp_path / "k.ntff").stat().st_size > 0
    tool = os.environ["TRNSIM_TEST_NEURON_PROFILE"]  # tests/nki/CMakeLists.txt sets it
    shown = subprocess.run([tool, "view", "-n", str(tmp_path / "k.neff"), "-s",
                            str(tmp_path / "k.ntff"), "--output-format", "summary-json"],
                           capture_output=True, text=True, check=True)
    execution = json.loads(shown.stdout)["executions"][0]
    assert execution["total_time_ps"] == round(scale_add.report.duration_ps)
    # Every line of scale_add that made an instruction is in the per-line summary, here.
    calls = {line["location"]: line["calls"] for line in execution["source_lines"]
             if line["from_kernel"]}
    assert sorted(set(sum(calls.values(), []))) == ["nisa.dma_copy", "nisa.scalar_tensor_tensor"]
    assert all(location.startswith("test_front_end.py:") for location in calls)


def test_device_print_reaches_the_debug_stream(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURON_RT_DEBUG_OUTPUT_DIR", str(tmp_path))

    @nki.jit
    def doubled(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
        nl.device_print("doubled", t)
        nisa.dma_copy(dst=out, src=t)
        return out

    # The runtime reads NEURON_RT_DEBUG_OUTPUT_DIR when it starts: restart it for this test.
    from trnsim_nki import runner
    runner.restart()
    a = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
    np.testing.assert_array_equal(doubled(a), 2 * a)
    files = glob.glob(str(tmp_path / "doubled" / "**" / "tensor.npy"), recursive=True)
    assert len(files) == 1, files
    np.testing.assert_array_equal(np.load(files[0]), 2 * a)
    runner.restart()


@nki.jit
def spmd_rows(a):
    """Each program adds its program id to its quarter of the rows."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // nl.num_programs()
    p = nl.program_id(0)
    t = nl.ndarray((rows, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[p * rows:(p + 1) * rows, :])
    nisa.tensor_scalar(dst=t, data=t, op0=nl.add, operand0=float(p))
    nisa.dma_copy(dst=out[p * rows:(p + 1) * rows, :], src=t)
    return out


def test_spmd_grid_and_runtime_restart_between_lncs():
    a = np.zeros((512, 64), np.float32)
    want = np.repeat(np.arange(4, dtype=np.float32), 128)[:, None] * np.ones((1, 64), np.float32)
    np.testing.assert_array_equal(spmd_rows[4](a), want)  # LNC=2: programs 0, 2 | 1, 3
    assert spmd_rows.last.lnc == 2
    assert [len(c) > 0 for c in spmd_rows.last.trace.cores] == [True, True]
    np.testing.assert_array_equal(spmd_rows[1](a[:128]), a[:128])  # LNC=1 again
    assert spmd_rows.last.lnc == 1
    np.testing.assert_array_equal(spmd_rows[3](a[:384]), want[:384])  # odd grid: LNC=1


def test_chip_override_picks_the_chip(monkeypatch):
    a, b = inputs()
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn3")
    np.testing.assert_array_equal(scale_add(a, b, 2.0), np.float32(2) * a + b)
    assert scale_add.report.chip == "trn3"
    monkeypatch.setenv("NEURON_PLATFORM_TARGET_OVERRIDE", "trn1")
    with pytest.raises(NotImplementedError, match="trn2 .gen3. and trn3 .gen4. only"):
        scale_add(a, b, 2.0)


def test_bf16_inputs_and_outputs():
    @nki.jit
    def to_bf16(a):
        out = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        u = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        nisa.tensor_copy(dst=u, src=t)
        nisa.dma_copy(dst=out, src=u)
        return out

    x = np.random.default_rng(1).normal(size=(128, 256)).astype(np.float32)
    got = to_bf16(x)  # fp32 in, bf16 out: rounded on the device as trnsim rounds
    np.testing.assert_array_equal(got, dtypes.round_to(x, "bfloat16"))
    bits = trnsim_nki.host_array(x, "bfloat16")  # a bf16 input
    assert isinstance(bits, dtypes.Bits)
    got2 = to_bf16(bits)
    assert to_bf16.last.trace.hbm_args[0].dtype is dtypes.lookup("bfloat16")
    np.testing.assert_array_equal(got2, dtypes.round_to(x, "bfloat16"))


def test_loop_iterations_overlap():
    """Independent affine_range iterations overlap: a tile made in the loop rotates through
    several buffers, so the loads of iteration i+1 run under the compute of iteration i. The
    same work with one buffer (each iteration's tile reused) is measurably slower."""

    @nki.jit
    def rotating(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // 128):
            t = nl.ndarray((128, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, :])
            nisa.activation(dst=t, op=nl.exp, data=t)
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        return out

    @nki.jit
    def single_buffer(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        for i in nl.sequential_range(a.shape[0] // 128):
            nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, :])
            nisa.activation(dst=t, op=nl.exp, data=t)
            nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        return out

    a = np.random.default_rng(2).uniform(-1, 1, (1024, 2048)).astype(np.float32)
    want = np.exp(a.astype(np.float64))
    for kernel in (rotating, single_buffer):
        np.testing.assert_allclose(kernel(a), want, rtol=1e-6)
    overlapped = rotating.report.latency_us
    serial = single_buffer.report.latency_us
    assert overlapped < 0.8 * serial, (overlapped, serial)
