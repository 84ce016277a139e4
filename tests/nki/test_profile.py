"""Profiles of NKI kernels map back to the kernel's Python lines (docs/nki.md "Profiles and
source lines", docs/profiling.md §5).

nki.profile writes a NEFF + NTFF; the NEFF carries kernel_debug_info.json (each instruction's
final position in its engine stream -> this file's line and the NKI call), and the built
`neuron-profile view` then names the line of every instruction and DMA transfer and sums the
busy time per line. The kernels are written here, so the expected lines are this file's: each
NKI call of interest carries a `# line: NAME` marker that LINES finds.
The fan_in kernel makes the builder insert sem_waits (a consumer with more than 4 waits), which
moves what follows in its stream: the debug info must name final positions
(KernelBuilder.finish(), tested in test_native.py).

Environment (tests/nki/CMakeLists.txt): TRNSIM_TEST_NEURON_PROFILE (the built neuron-profile).
"""
import gzip
import io
import json
import os
import re
import subprocess
import tarfile

import numpy as np
import pytest

import nki
import nki.isa as nisa
import nki.language as nl

FILE = os.path.abspath(__file__)


def _marked_lines():
    lines = {}
    with open(FILE) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"# line: (\w+)$", text.rstrip())
            if m and "nisa." in text:
                lines[m.group(1)] = number
    return lines


LINES = _marked_lines()


@nki.jit
def profiled_matmul(lhsT, rhs):
    """out[M, N] = lhsT.T @ rhs, accumulating over K in PSUM."""
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        a = nl.ndarray((128, M), dtype=lhsT.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=lhsT[k * 128:(k + 1) * 128, :])  # line: LOAD_LHS
        nisa.dma_copy(dst=b, src=rhs[k * 128:(k + 1) * 128, :])  # line: LOAD_RHS
        nisa.nc_matmul(dst=acc, stationary=a, moving=b)  # line: MATMUL
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)  # line: COPY
    nisa.dma_copy(dst=out, src=res)  # line: STORE
    return out


@nki.jit
def fan_in(x):
    """One DVE copy that waits for six channels: four DMA queues, ACT and Pool."""
    out = nl.ndarray((128, 384), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 384), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.static_range(4):  # round robin over the tracer's four DMA queues
        nisa.dma_copy(dst=t[:, nl.ds(i * 64, 64)], src=x[:, nl.ds(i * 64, 64)])  # line: FAN_LOAD
    nisa.tensor_copy(dst=t[:, 256:320], src=t[:, 0:64], engine=nisa.engine.scalar)  # line: FAN_ACT
    nisa.memset(dst=t[:, 320:384], value=2.0, engine=nisa.engine.gpsimd)  # line: FAN_POOL
    res = nl.ndarray((128, 384), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=t)  # line: FAN_COPY
    nisa.dma_copy(dst=out, src=res)  # line: FAN_STORE
    return out


@nki.jit
def spmd_add(a, b):
    """out = a + b, each of the two SPMD programs (one per core at LNC=2) taking half the rows."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // nl.num_programs(0)
    first = nl.program_id(0) * rows
    ta = nl.ndarray((rows, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    tb = nl.ndarray((rows, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[nl.ds(first, rows), :])  # line: SPMD_LOAD_A
    nisa.dma_copy(dst=tb, src=b[nl.ds(first, rows), :])  # line: SPMD_LOAD_B
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)  # line: SPMD_ADD
    nisa.dma_copy(dst=out[nl.ds(first, rows), :], src=ta)  # line: SPMD_STORE
    return out


@nki.jit
def swap_halves(a):
    """LNC=2: each core loads its half of the rows and stores the peer's, exchanged with
    nisa.sendrecv (a core_barrier, the transfer and a wait: three instructions of one call)."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = a.shape[0] // 2
    rank = nl.program_id(0)
    mine = nl.ndarray((rows, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    theirs = nl.ndarray((rows, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=mine, src=a[nl.ds(rank * rows, rows), :])
    peer = 1 - rank
    nisa.sendrecv(src=mine, dst=theirs, send_to_rank=peer, recv_from_rank=peer,  # line: SWAP
                  pipe_id=0)
    nisa.dma_copy(dst=out[nl.ds(rank * rows, rows), :], src=theirs)
    return out


@nki.jit
def dma_overview_exp(in_tensor):
    """The DMA overview's Example 1 (nki/get-started/about/nki-dma-overview.rst): A[4, 4096]
    bf16 loaded to SBUF, exp on ScalarE, stored back — measurement C-1."""
    out_tensor = nl.ndarray(in_tensor.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    sbuf_tensor = nl.ndarray(in_tensor.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    out_tile = nl.ndarray(in_tensor.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(src=in_tensor[0:4, 0:4096], dst=sbuf_tensor)
    nisa.activation(dst=out_tile, op=nl.exp, data=sbuf_tensor)
    nisa.dma_copy(src=out_tile, dst=out_tensor[0:4, 0:4096])
    return out_tensor


def _view(directory, fmt):
    tool = os.environ["TRNSIM_TEST_NEURON_PROFILE"]
    result = subprocess.run(
        [tool, "view", "-n", os.path.join(directory, "file.neff"), "-s",
         os.path.join(directory, "profile.ntff"), "--output-format", fmt],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _debug_info(neff_path):
    """The NEFF's kernel_debug_info.json (the payload is a gzip'd tar after the header)."""
    data = open(neff_path, "rb").read()
    payload = gzip.decompress(data[data.index(b"\x1f\x8b"):])
    with tarfile.open(fileobj=io.BytesIO(payload)) as tar:
        return json.load(tar.extractfile("kernel_debug_info.json"))


def _location(name):
    return f"{FILE}:{LINES[name]}"


@pytest.fixture(scope="module")
def matmul_profile(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("matmul"))
    rng = np.random.default_rng(7)
    lhsT = rng.standard_normal((256, 128)).astype(np.float32)
    rhs = rng.standard_normal((256, 512)).astype(np.float32)
    out = nki.profile(profiled_matmul, working_directory=directory, save_neff_name="file.neff",
                      save_trace_name="profile.ntff")(lhsT, rhs)
    np.testing.assert_allclose(out, lhsT.T @ rhs, rtol=1e-4, atol=1e-3)
    return directory


def test_the_markers_are_found():
    assert set(LINES) == {"LOAD_LHS", "LOAD_RHS", "MATMUL", "COPY", "STORE", "FAN_LOAD",
                          "FAN_ACT", "FAN_POOL", "FAN_COPY", "FAN_STORE", "SPMD_LOAD_A",
                          "SPMD_LOAD_B", "SPMD_ADD", "SPMD_STORE", "SWAP"}


def test_instruction_rows_name_the_kernel_line(matmul_profile):
    rows = json.loads(_view(matmul_profile, "json"))
    by_opcode = {}
    for row in rows["instruction"]:
        by_opcode.setdefault(row["opcode"], []).append(row)
    # Two K tiles: a weight load and a matmul each, both made by the one nc_matmul call; fp32,
    # so each is two passes, two profile rows (docs/chip-model.md §2 "PE dynamics").
    assert len(by_opcode["load_stationary"]) == 4 and len(by_opcode["multiply_moving"]) == 4
    for row in by_opcode["load_stationary"] + by_opcode["multiply_moving"]:
        assert row["nki_source_location"] == _location("MATMUL")
        assert row["nki_api"] == "nisa.nc_matmul"
    loads = [r for r in by_opcode["dma_copy"] if "src=hbm" in r["operands"]]
    stores = [r for r in by_opcode["dma_copy"] if "dst=hbm" in r["operands"]]
    assert len(loads) == 4 and len(stores) == 1
    assert {r["nki_source_location"] for r in loads} == {_location("LOAD_LHS"),
                                                          _location("LOAD_RHS")}
    assert stores[0]["nki_source_location"] == _location("STORE")
    assert all(r["nki_api"] == "nisa.dma_copy" for r in loads + stores)
    (copy,) = by_opcode["tensor_copy"]
    assert copy["nki_source_location"] == _location("COPY")
    # The builder's notify_end comes from no kernel line.
    assert all("nki_source_location" not in r for r in by_opcode["notify_end"])
    # Each DMA transfer names the line of the dma_copy that issued it.
    assert len(rows["dma"]) == 5
    assert {r["nki_source_location"] for r in rows["dma"]} == {
        _location("LOAD_LHS"), _location("LOAD_RHS"), _location("STORE")}


def test_the_summary_costs_each_line(matmul_profile):
    run = json.loads(_view(matmul_profile, "summary-json"))["executions"][0]
    lines = run["source_lines"]
    kernel = [r for r in lines if r["from_kernel"]]
    assert [r["line"] for r in kernel] == sorted(LINES[n] for n in
                                                 ("LOAD_LHS", "LOAD_RHS", "MATMUL", "COPY",
                                                  "STORE"))
    assert all(r["file"] == FILE for r in kernel)
    by_line = {r["line"]: r for r in kernel}
    matmul = by_line[LINES["MATMUL"]]
    assert matmul["calls"] == ["nisa.nc_matmul"]
    # 2 K tiles x (weight load + matmul) x 2 fp32 passes.
    assert matmul["engines"]["pe"]["instructions"] == 8
    assert run["cores"][0]["engines"]["pe"]["matmul_instructions"] == 4
    # Every PE instruction is the matmul line's, so its busy time is PE's busy time.
    pe_busy = run["cores"][0]["engines"]["pe"]["busy_ps"]
    builder = [r for r in lines if not r["from_kernel"]]
    assert len(builder) == 1 and "notify_end" in builder[0]["calls"]
    assert matmul["engines"]["pe"]["busy_ps"] + builder[0]["engines"]["pe"]["busy_ps"] >= pe_busy
    assert 0 < matmul["engines"]["pe"]["busy_ps"] <= pe_busy
    rhs = by_line[LINES["LOAD_RHS"]]
    assert rhs["dma"]["transfers"] == 2 and rhs["dma"]["bytes"] == 256 * 512 * 4
    assert rhs["dma"]["streaming_ps"] > 0
    store = by_line[LINES["STORE"]]
    assert store["dma"]["bytes"] == 128 * 512 * 4
    # Per engine, the lines' instruction counts add up to the engine's.
    for engine, summary in run["cores"][0]["engines"].items():
        assert sum(r["engines"][engine]["instructions"] for r in lines) == summary["instructions"]

    text = _view(matmul_profile, "summary-text")
    assert "source lines" in text
    row = next(t for t in text.splitlines()
               if t.strip().startswith(f"test_profile.py:{LINES['MATMUL']} "))
    assert "nisa.nc_matmul" in row


def test_perfetto_slices_carry_the_line(matmul_profile):
    out = os.path.join(matmul_profile, "trace.json")
    tool = os.environ["TRNSIM_TEST_NEURON_PROFILE"]
    subprocess.run([tool, "view", "-n", os.path.join(matmul_profile, "file.neff"), "-s",
                    os.path.join(matmul_profile, "profile.ntff"), "--output-format", "perfetto",
                    "--output-file", out], check=True, capture_output=True)
    slices = [e for e in json.load(open(out))["traceEvents"] if e["ph"] == "X"]
    mm = [e for e in slices if e["name"] == "multiply_moving"]
    assert mm and all(e["args"]["nki_source_location"] == _location("MATMUL") for e in mm)
    dma = [e for e in slices if e["cat"] == "dma"]
    assert dma and all(e["args"]["nki_api"] == "nisa.dma_copy" for e in dma)


def test_inserted_sem_waits_do_not_shift_the_lines(tmp_path):
    x = np.arange(128 * 384, dtype=np.float32).reshape(128, 384) / 1000
    out = nki.profile(fan_in, working_directory=str(tmp_path), save_neff_name="file.neff",
                      save_trace_name="profile.ntff")(x)
    want = x.copy()
    want[:, 256:320] = x[:, 0:64]
    want[:, 320:384] = 2.0
    np.testing.assert_array_equal(out, want)
    info = _debug_info(os.path.join(tmp_path, "file.neff"))
    (copy,) = [e for e in info["instructions"] if e["line"] == LINES["FAN_COPY"]]
    assert (copy["engine"], copy["opcode"]) == ("dve", "tensor_copy")
    assert copy["index"] == 2  # emitted first on DVE; the builder put two sem_waits before it
    rows = [r for r in json.loads(_view(str(tmp_path), "json"))["instruction"]
            if r["label"] == "DVE"]
    assert [r["opcode"] for r in rows[:3]] == ["sem_wait", "sem_wait", "tensor_copy"]
    assert all("nki_source_location" not in r for r in rows[:2])
    assert rows[2]["nki_source_location"] == _location("FAN_COPY")
    lines = json.loads(_view(str(tmp_path), "summary-json"))["executions"][0]["source_lines"]
    builder = [r for r in lines if not r["from_kernel"]][0]
    assert "sem_wait" in builder["calls"]


def test_both_cores_of_an_lnc2_kernel_map(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURON_LOGICAL_NC_CONFIG", "2")  # AWS: equal to the launch's LNC
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((256, 512)).astype(np.float32) for _ in range(2))
    out = nki.profile(spmd_add, working_directory=str(tmp_path), save_neff_name="file.neff",
                      save_trace_name="profile.ntff")[2](a, b)
    np.testing.assert_array_equal(out, a + b)
    info = _debug_info(os.path.join(tmp_path, "file.neff"))
    assert {e["core"] for e in info["instructions"]} == {0, 1}
    rows = json.loads(_view(str(tmp_path), "json"))["instruction"]
    adds = [r for r in rows if r["opcode"] == "tensor_tensor"]
    assert sorted(r["pcore_idx"] for r in adds) == [0, 1]
    assert all(r["nki_source_location"] == _location("SPMD_ADD") for r in adds)
    kernel_rows = [r for r in rows if "nki_source_location" in r]
    assert len(kernel_rows) == 2 * 4  # per core: three dma_copy and the add
    lines = json.loads(_view(str(tmp_path), "summary-json"))["executions"][0]["source_lines"]
    add = next(r for r in lines if r.get("line") == LINES["SPMD_ADD"])
    assert add["engines"]["dve"]["instructions"] == 2  # summed over the two cores


def test_lnc2_sendrecv_instructions_map_to_its_call(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURON_LOGICAL_NC_CONFIG", "2")
    a = np.arange(256 * 64, dtype=np.float32).reshape(256, 64)
    out = nki.profile(swap_halves, working_directory=str(tmp_path), save_neff_name="file.neff",
                      save_trace_name="profile.ntff")[2](a)
    np.testing.assert_array_equal(out, np.concatenate([a[128:], a[:128]]))
    rows = [r for r in json.loads(_view(str(tmp_path), "json"))["instruction"]
            if r.get("nki_source_location") == _location("SWAP")]
    assert sorted((r["pcore_idx"], r["opcode"]) for r in rows) == [
        (c, op) for c in (0, 1) for op in sorted(("core_barrier", "sendrecv", "nop"))]
    assert all(r["nki_api"] == "nisa.sendrecv" for r in rows)


def test_a_neff_that_was_not_profiled_is_refused(matmul_profile, tmp_path):
    other = str(tmp_path)
    x = np.ones((128, 384), np.float32)
    nki.profile(fan_in, working_directory=other, save_neff_name="file.neff",
                save_trace_name="profile.ntff")(x)
    tool = os.environ["TRNSIM_TEST_NEURON_PROFILE"]
    # The matmul's profile with fan_in's NEFF: different model, so nothing is attached...
    result = subprocess.run(
        [tool, "view", "-n", os.path.join(other, "file.neff"), "-s",
         os.path.join(matmul_profile, "profile.ntff"), "--output-format", "summary-json"],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "source_lines" not in json.loads(result.stdout)["executions"][0]
    # ...and a file that is not a NEFF is an error, one line on stderr.
    bad = os.path.join(other, "bad.neff")
    with open(bad, "wb") as f:
        f.write(b"not a neff")
    result = subprocess.run(
        [tool, "view", "-n", bad, "-s", os.path.join(matmul_profile, "profile.ntff"),
         "--output-format", "summary-text"], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr.startswith("neuron-profile: ") and result.stderr.count("\n") == 1


def test_c1_profile_shows_one_engine_carrying_the_data(tmp_path):
    """C-1: the [4, 4096] bf16 load has 4 partitions, so DMA engine 0 (partitions 0-7) carries
    all 32 KiB and the other 15 engines only write the completion semaphore; the profile shows
    exactly that, per engine, for the load and for the store (docs/chip-model.md §3)."""
    import trnsim_nki
    directory = str(tmp_path)
    x = trnsim_nki.host_array(np.linspace(-1, 1, 4 * 4096, dtype=np.float32).reshape(4, 4096),
                              "bfloat16")
    nki.profile(dma_overview_exp, working_directory=directory, save_neff_name="file.neff",
                save_trace_name="profile.ntff")(x)
    rows = json.loads(_view(directory, "json"))
    assert [(d["source"], d["destination"]) for d in rows["dma"]] == [("hbm", "sbuf"),
                                                                     ("sbuf", "hbm")]
    for dma_id in (0, 1):
        parts = [r for r in rows["dma_engine"] if r["dma_id"] == dma_id]
        assert sorted(r["dma_engine"] for r in parts) == list(range(16))
        data = [r for r in parts if r["transfer_bytes"] > 0]
        assert [(r["dma_engine"], r["transfer_bytes"]) for r in data] == [(0, 32768)]
        assert sum(1 for r in parts if r["transfer_bytes"] == 0) == 15
        # A semaphore write is one element (2.353 ns) plus 4 B at 27.2 GB/s (0.148 ns).
        assert all(r["duration"] == pytest.approx(2.501) for r in parts if r is not data[0])
    load = next(r for r in rows["dma_engine"] if r["dma_id"] == 0 and r["transfer_bytes"])
    # 32 KiB at the HBM-read rate 23.34 GB/s (1,403.942 ns) + 5 elements x 2.353 ns + 0.148 ns:
    # C-1's measured 1,416 ns.
    assert load["duration"] == pytest.approx(1415.855)
    store = next(r for r in rows["dma_engine"] if r["dma_id"] == 1 and r["transfer_bytes"])
    # From SBUF at the wire rate 27.2 GB/s: 1,204.706 + 11.765 + 0.148 ns (C-2: ~1.2 us).
    assert store["duration"] == pytest.approx(1216.619)
    # The summary counts per engine: engine 0 carried both transfers, the others signalled.
    run = json.loads(_view(directory, "summary-json"))["executions"][0]
    engines = {e["engine"]: e for e in run["dma_engines"]}
    assert sorted(engines) == list(range(16))
    assert (engines[0]["data_transfers"], engines[0]["semaphore_only"],
            engines[0]["bytes"]) == (2, 0, 65536)
    for k in range(1, 16):
        assert (engines[k]["data_transfers"], engines[k]["semaphore_only"],
                engines[k]["bytes"]) == (0, 2, 0)
    text = _view(directory, "summary-text")
    assert "DMA-E0 " in text and "DMA-E15" in text


@nki.jit
def dge_modes(x):
    """One load per descriptor-generation mode (nki/deep-dives/nki-dge.rst): hardware DGE from
    the Sync engine and from ScalarE, software DGE (GpSimd), and the compiler's choice."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    b = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    c = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x, dge_mode=nisa.dge_mode.hwdge)
    nisa.dma_copy(dst=b, src=x, dge_mode=nisa.dge_mode.swdge)
    nisa.dma_copy(dst=c, src=x, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.scalar)
    nisa.tensor_tensor(dst=a, data1=a, data2=b, op=nl.add)
    nisa.tensor_tensor(dst=a, data1=a, data2=c, op=nl.add)
    nisa.dma_copy(dst=out, src=a)
    return out


def test_dge_mode_reaches_the_chip_model(tmp_path):
    """dge_mode picks the issuing engine and its cost (docs/chip-model.md §3.2): hwdge 600 ns on
    SP or ACT (C-3), swdge on POOL: GPSIMD_START 125 ns + 16 engines x 30 ns = 605 ns (726
    cycles at 1.2 GHz), the compiler's choice 50 ns (pre-built descriptors); software DGE
    dispatches engine k 30 ns after engine k-1, engine 0 at issue + 125 + 30 + (1,300 - 15 x 30 -
    2.501) ns = 1,002.499 ns, so that the last engine's semaphore lands 1.3 us after its dispatch
    began (C-4)."""
    directory = str(tmp_path)
    x = np.ones((128, 64), np.float32)
    out = nki.profile(dge_modes, working_directory=directory, save_neff_name="file.neff",
                      save_trace_name="profile.ntff")(x)
    np.testing.assert_array_equal(out, 3 * x)
    rows = json.loads(_view(directory, "json"))
    copies = [r for r in rows["instruction"] if r["opcode"] == "dma_copy"]
    got = sorted((r["label"], "hwdge" in r["operands"], "swdge" in r["operands"],
                  round(r["duration"], 3)) for r in copies)
    # The store (no dge_mode) goes on the engine that wrote its tile last (DVE), 50 ns at any
    # clock.
    assert got == [("ACT", True, False, 600.0), ("DVE", False, False, 50.0),
                   ("POOL", False, True, 605.0), ("SP", True, False, 600.0)]
    pool = next(r for r in copies if r["label"] == "POOL")
    (dma_id,) = {p["dma_id"] for p in rows["dma_engine"]
                 if p["timestamp"] == pytest.approx(pool["timestamp"] + 1002.499)}
    starts = sorted(p["timestamp"] for p in rows["dma_engine"] if p["dma_id"] == dma_id)
    assert starts == pytest.approx([pool["timestamp"] + 1002.499 + 30 * k for k in range(16)])


def test_dge_mode_engine_rules():
    x = np.ones((128, 64), np.float32)

    @nki.jit
    def hwdge_on_gpsimd(x):
        t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.gpsimd)
        return x

    @nki.jit
    def swdge_on_sync(x):
        t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.swdge, engine=nisa.engine.sync)
        return x

    with pytest.raises(ValueError, match="allowed: sp, act"):
        hwdge_on_gpsimd(x)
    with pytest.raises(ValueError, match="allowed: pool"):
        swdge_on_sync(x)
