"""The legacy NKI generation (neuronxcc.nki, python/neuronxcc) on trnsim: kernels written in its
dialect — nl.load / nl.store with nl.arange / nl.mgrid index arithmetic and masked tails,
nl.par_dim block tensors, `psum += nisa.nc_matmul(...)`, nisa calls that return their result —
run through the tracer, the kernel builder and libnrt and checked against numpy; the harness
forms nki.baremetal / nki.benchmark / nki.profile / nki.simulate_kernel.

The kernels are this project's own, written from AWS's legacy reference
(aws-neuron-sdk general/nki/ @ 0521004c). The chip is NEURON_PLATFORM_TARGET_OVERRIDE
(tests/nki/CMakeLists.txt runs the file for trn2 and for trn3); the SPMD tests with nl.nc(2)
need a runtime at LNC=2 and run where NEURON_LOGICAL_NC_CONFIG=2.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt

CHIP = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE", "trn2")
LNC2 = os.environ.get("NEURON_LOGICAL_NC_CONFIG") == "2"
rng = np.random.default_rng(17)


def bf16(x):
    """x rounded to bf16 (as the device stores it), widened back to float32."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.view(np.float32)


def ran_on_chip(kernel):
    assert kernel.last.chip == CHIP
    assert kernel.report.latency_us > 0


# ---- tensor add: arange / mgrid indexing, masked tails, an SPMD grid -----------------------------

@nki.jit
def add_tiles(a, b):
    """c = a + b for any [R, C]: 128-row, 256-column tiles; the last ones masked."""
    rows, cols = a.shape
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    p = nl.arange(128)[:, None]
    f = nl.arange(256)[None, :]
    for r in nl.affine_range((rows + 127) // 128):
        for q in nl.affine_range((cols + 255) // 256):
            inside = (r * 128 + p < rows) & (q * 256 + f < cols)
            ta = nl.load(a[r * 128 + p, q * 256 + f], mask=inside)
            tb = nl.load(b[r * 128 + p, q * 256 + f], mask=inside)
            nl.store(c[r * 128 + p, q * 256 + f], value=nl.add(ta, tb, mask=inside), mask=inside)
    return c


def test_add_with_arange_and_masked_tails():
    a = rng.standard_normal((300, 700)).astype(np.float32)
    b = rng.standard_normal((300, 700)).astype(np.float32)
    np.testing.assert_array_equal(add_tiles(a, b), a + b)
    ran_on_chip(add_tiles)


@nki.jit
def add_grid(a, b):
    """One [128, 512] tile per program of a 2-D launch grid, mgrid indices, operator +."""
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    grid = nl.mgrid[0:128, 0:512]
    row = nl.program_id(0) * 128 + grid.p
    col = nl.program_id(axis=1) * 512 + grid.x
    nl.store(c[row, col], value=nl.load(a[row, col]) + nl.load(b[row, col]))
    return c


def test_add_on_an_spmd_grid_in_fp16():
    a = rng.random((256, 1024)).astype(np.float16)
    b = rng.random((256, 1024)).astype(np.float16)
    out = add_grid[2, 2](a, b)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, a + b)
    assert add_grid.last.trace.grid == (2, 2) and add_grid.last.lnc == (2 if LNC2 else 1)


@pytest.mark.skipif(not LNC2, reason="nl.nc(2) grids run at LNC=2 (NEURON_LOGICAL_NC_CONFIG=2)")
@pytest.mark.parametrize("dim0,cores", [
    (4, [32, 0]),                               # no nl.nc: every program on core 0
    (nl.spmd_dim(2, nl.nc(2)), [16, 16]),      # interleaved: programs (0, 2, ...) on core 0
    (nl.nc(2) * 2, [16, 16]),                   # the major part picks the core
])
def test_spmd_nc_grids_spread_programs_over_cores(dim0, cores):
    a = rng.random((512, 1024)).astype(np.float32)
    b = rng.random((512, 1024)).astype(np.float32)
    np.testing.assert_array_equal(add_grid[dim0, 2](a, b), a + b)
    trace = add_grid.last.trace
    assert [len(instrs) for instrs in trace.cores] == cores


# ---- matmul: psum += nisa.nc_matmul, block tensors, bf16 ------------------------------------

@nki.jit
def matmul_psum(lhs_t, rhs):
    """result[M, N] = lhs_t.T @ rhs, K accumulated in PSUM with +=."""
    k_all, m_all = lhs_t.shape
    _, n_all = rhs.shape
    result = nl.ndarray((m_all, n_all), dtype=nl.float32, buffer=nl.shared_hbm)
    kp, mp, np_ = nl.mgrid[0:128, 0:128], nl.mgrid[0:128, 0:512], nl.mgrid[0:128, 0:512]
    for m in nl.affine_range(m_all // 128):
        for n in nl.affine_range(n_all // 512):
            acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_all // 128):
                st = nl.load(lhs_t[k * 128 + kp.p, m * 128 + kp.x])
                mv = nl.load(rhs[k * 128 + mp.p, n * 512 + mp.x])
                acc += nisa.nc_matmul(st, mv)
            nl.store(result[m * 128 + np_.p, n * 512 + np_.x], value=nl.copy(acc))
    return result


def test_tiled_matmul_accumulates_into_psum():
    lhs_t = rng.standard_normal((384, 256)).astype(np.float32)
    rhs = rng.standard_normal((384, 1024)).astype(np.float32)
    out = matmul_psum(lhs_t, rhs)
    np.testing.assert_allclose(out, lhs_t.T @ rhs, rtol=1e-4, atol=1e-3)
    ran_on_chip(matmul_psum)
    pe = [i for i in matmul_psum.last.trace.cores[0] if i.opcode == "multiply_moving"]
    assert len(pe) == 2 * 2 * 3
    # Every matmul writes the accumulator itself: no copy of a product, no add on DVE.
    acc = {i.operands[0].tensor.storage.ident for i in pe}
    assert len(acc) == 4 and all("accumulate" in i.fields for i in pe)
    assert not [i for i in matmul_psum.last.trace.cores[0] if i.opcode == "tensor_tensor"]


@nki.jit
def matmul_blocks(lhs_t, rhs):
    """Loads hoisted into par_dim block tensors, nl.matmul(transpose_x=True), bf16 output."""
    k_all, m_all = lhs_t.shape
    _, n_all = rhs.shape
    kt = k_all // 128
    result = nl.ndarray((m_all, n_all), dtype=lhs_t.dtype, buffer=nl.shared_hbm)
    ip, jf = nl.mgrid[0:128, 0:128]
    rp, rf = nl.mgrid[0:128, 0:512]
    for m in nl.affine_range(m_all // 128):
        lhs_blocks = nl.ndarray((kt, nl.par_dim(128), 128), dtype=lhs_t.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(kt):
            lhs_blocks[k, ip, jf] = nl.load(lhs_t[k * 128 + ip, m * 128 + jf])
        for n in nl.affine_range(n_all // 512):
            rhs_blocks = nl.ndarray((kt, nl.par_dim(128), 512), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(kt):
                rhs_blocks[k, rp, rf] = nl.load(rhs[k * 128 + rp, n * 512 + rf])
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(kt):
                acc[...] += nl.matmul(lhs_blocks[k], rhs_blocks[k, rp, rf], transpose_x=True)
            out = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * 128 + rp, n * 512 + rf], value=out)
    return result


def test_blocked_bf16_matmul_loads_straight_into_blocks():
    a = bf16(rng.standard_normal((256, 256)))
    b = bf16(rng.standard_normal((256, 1024)))
    out = matmul_blocks(nl.static_cast(a, nl.bfloat16), nl.static_cast(b, nl.bfloat16))
    exact = a.T.astype(np.float64) @ b
    # fp32 accumulation, then one bf16 rounding (half an ulp, 2^-8 relative) of the result
    np.testing.assert_allclose(out, exact, rtol=2 ** -8, atol=1e-3 * np.abs(exact).max())
    assert np.array_equal(out, bf16(out))
    trace = matmul_blocks.last.trace
    loads = [i for i in trace.cores[0] if i.opcode == "dma_copy" and
             i.operands[1].tensor.storage.role == "input"]
    # t[k, ...] = nl.load(...) is one DMA into the block tensor, not a load plus a copy.
    assert {i.operands[0].tensor.storage.shape for i in loads} == {(128, 2, 128), (128, 2, 512)}
    assert not [i for i in trace.cores[0] if i.opcode == "tensor_copy" and
                i.operands[1].tensor.storage.kind == "sbuf"]


# ---- softmax and RMSNorm over row tiles with a masked last tile ---------------------------------

@nki.jit
def softmax_rows(x):
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    ip, jf = nl.mgrid[0:128, 0:cols]
    for t in nl.affine_range((rows + 127) // 128):
        live = t * 128 + ip < rows
        tile = nl.load(x[t * 128 + ip, jf], mask=live)
        top = nl.max(tile, axis=1, keepdims=True, mask=live)
        e = nl.exp(nl.subtract(tile, top, mask=live), mask=live)
        total = nl.sum(e, axis=[1], mask=live)
        nl.store(out[t * 128 + ip, jf], value=nl.divide(e, total, mask=live), mask=live)
    return out


def test_softmax():
    x = rng.standard_normal((200, 333)).astype(np.float32) * 4
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax_rows(x), e / e.sum(axis=1, keepdims=True),
                               rtol=2e-5, atol=1e-7)
    ran_on_chip(softmax_rows)


@nki.jit
def rmsnorm_rows(x, w, eps):
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(cols)[None, :]
    weight = nl.load(w.reshape((1, cols))[nl.arange(1)[:, None], jf])
    weight_all = weight.broadcast_to((128, cols))        # grows the partition dim: one DMA
    for t in nl.affine_range((rows + 127) // 128):
        live = t * 128 + ip < rows
        tile = nl.load(x[t * 128 + ip, jf], mask=live)
        ms = nl.sum(nl.square(tile), axis=[1]) * (1.0 / cols)
        scale = nl.rsqrt(ms + eps)
        normed = nl.ndarray((128, cols), dtype=x.dtype)
        normed[...] = nl.multiply(tile, scale, mask=live)
        normed[...] = nl.multiply(normed, weight_all, mask=live)
        nl.store(out[t * 128 + ip, jf], value=normed, mask=live)
    return out


def test_rmsnorm():
    x = rng.standard_normal((260, 384)).astype(np.float32)
    w = rng.random(384).astype(np.float32)
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(rmsnorm_rows(x, w, 1e-6), ref, rtol=1e-3, atol=1e-5)
    ran_on_chip(rmsnorm_rows)


# ---- transposes: Tensor engine, Vector engine, DMA, and free-dim index arithmetic ---------------

@nki.jit
def transposes(a, b):
    at = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    bt = nl.ndarray((b.shape[1], b.shape[0]), dtype=b.dtype, buffer=nl.shared_hbm)
    at_dma = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(at, value=nisa.nc_transpose(nl.load(a)))             # PE: into PSUM
    nl.store(bt, value=nisa.nc_transpose(nl.load(b), engine=nisa.vector_engine))
    nl.store(at_dma, value=nl.load_transpose2d(a))
    return at, bt, at_dma


@nki.jit
def swap_free_dims(x, inner):
    """Each row holds [outer, inner] row-major; write it as [inner, outer]."""
    rows, cols = x.shape
    outer = cols // inner
    y = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    p = nl.arange(rows)[:, None, None]
    i = nl.arange(outer)[None, :, None]
    j = nl.arange(inner)[None, None, :]
    src = nl.load(x)
    dst = nl.ndarray((rows, cols), dtype=x.dtype)
    dst[p, j * outer + i] = nl.copy(src[p, i * inner + j])
    nl.store(y, value=dst)
    return y


@nki.jit
def masked_transpose(a):
    """a [R, C] (R <= 128, C <= 64) through a [128, 64] tile and a masked PE transpose."""
    rows, cols = a.shape
    out = nl.ndarray((cols, rows), dtype=a.dtype, buffer=nl.shared_hbm)
    p, f = nl.arange(128)[:, None], nl.arange(64)[None, :]
    valid = (p < rows) & (f < cols)
    tile = nl.load(a[p, f], mask=valid)
    flipped = nisa.nc_transpose(tile, mask=valid)               # [64, 128] in PSUM
    q, g = nl.arange(64)[:, None], nl.arange(128)[None, :]
    nl.store(out[q, g], value=flipped, mask=(q < cols) & (g < rows))
    return out


def test_transposes():
    a = rng.standard_normal((128, 96)).astype(np.float32)
    b = rng.standard_normal((24, 32)).astype(np.float32)
    at, bt, at_dma = transposes(a, b)
    np.testing.assert_array_equal(at, a.T)
    np.testing.assert_array_equal(bt, b.T)
    np.testing.assert_array_equal(at_dma, a.T)
    engines = {i.engine for i in transposes.last.trace.cores[0] if "transpose" in i.opcode}
    assert engines == {"pe", "dve"}
    c = rng.standard_normal((100, 50)).astype(np.float32)
    np.testing.assert_array_equal(masked_transpose(c), c.T)
    x = np.arange(7 * 60, dtype=np.int32).reshape(7, 60)
    np.testing.assert_array_equal(swap_free_dims(x, 5),
                                  x.reshape(7, 12, 5).transpose(0, 2, 1).reshape(7, 60))


# ---- 2-D average pooling with a 5-D mgrid, iota and a causal affine_select ---------------------

@nki.jit
def avg_pool(x, k):
    c, h, w = x.shape
    out = nl.ndarray((c, h // k, w // k), dtype=x.dtype, buffer=nl.shared_hbm)
    ic, oh, dh, ow, dw = nl.mgrid[0:c, 0:h // k, 0:k, 0:w // k, 0:k]
    tile = nl.load(x)
    total = nl.sum(tile[ic, k * oh + dh, k * ow + dw], axis=[2, 4])
    nl.store(out, value=nl.multiply(total, 1.0 / (k * k), dtype=x.dtype))
    return out


def test_average_pool_reduces_non_trailing_axes():
    x = rng.standard_normal((16, 12, 18)).astype(np.float32)
    ref = x.reshape(16, 4, 3, 6, 3).mean(axis=(2, 4))
    np.testing.assert_allclose(avg_pool(x, 3), ref, rtol=1e-6, atol=1e-6)


@nki.jit
def causal(scores):
    n = scores.shape[0]
    out = nl.ndarray(scores.shape, dtype=scores.dtype, buffer=nl.shared_hbm)
    idx = nl.ndarray(scores.shape, dtype=nl.int32, buffer=nl.shared_hbm)
    row, col = nl.mgrid[0:n, 0:n]
    tile = nl.load(scores[row, col])
    nl.store(out[row, col], nisa.affine_select(pred=(col <= row), on_true_tile=tile,
                                               on_false_value=nl.fp32.min))
    nl.store(idx, nisa.iota(3 * nl.arange(n)[:, None] - nl.arange(n)[None, :] + 5,
                            dtype=nl.int32))
    return out, idx


def test_affine_select_and_iota():
    s = rng.standard_normal((64, 64)).astype(np.float32)
    out, idx = causal(s)
    r, c = np.mgrid[0:64, 0:64]
    np.testing.assert_array_equal(out, np.where(c <= r, s, np.float32(nl.fp32.min)))
    np.testing.assert_array_equal(idx, 3 * r - c + 5)


# ---- the harness: baremetal, benchmark, profile, simulate_kernel, jit forms -------------------

def scale_rows(x, s):
    """out = x * s over [128, F] (a plain function; each test decorates it its own way)."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.multiply(nl.load(x), s))
    return out


X = rng.standard_normal((128, 256)).astype(np.float32)


def test_baremetal_decorator_and_call_forms(tmp_path):
    bare = nki.baremetal(scale_rows)
    np.testing.assert_array_equal(bare(X, 3.0), X * 3)
    neff = tmp_path / "scale.neff"
    kept = nki.baremetal(save_neff_name=str(neff), artifacts_dir=None)(scale_rows)
    np.testing.assert_array_equal(kept(X, -2.0), X * -2)
    assert neff.read_bytes()[:4] == kept.kernel.last.neff[:4] and neff.stat().st_size > 1000

    @nki.baremetal
    def double(x):
        return scale_rows(x, 2.0)         # a plain function called inside a kernel is inlined
    np.testing.assert_array_equal(double(X), X * 2)


def test_jit_forms_and_simulate_kernel():
    for kernel in (nki.jit(scale_rows), nki.jit(mode="simulation")(scale_rows),
                   nki.jit(scale_rows, mode="baremetal", platform_target=CHIP)):
        np.testing.assert_array_equal(kernel(X, 0.5), X * 0.5)
        np.testing.assert_array_equal(nki.simulate_kernel(kernel, X, 4.0), X * 4)
    np.testing.assert_array_equal(nki.simulate_kernel(scale_rows, X, s=1.5), X * 1.5)
    np.testing.assert_array_equal(nki.simulate_kernel(add_grid[1, 1], X[:, :128].repeat(4, 1),
                                                      X[:, :128].repeat(4, 1)),
                                  2 * X[:, :128].repeat(4, 1))


def test_benchmark_reports_the_simulated_latency(capsys):
    bench = nki.benchmark(warmup=2, iters=3)(matmul_psum)
    lhs_t, rhs = nt.tensor[[256, 128], nl.float32], nt.tensor[[256, 512], nl.float32]
    bench(lhs_t, rhs)                     # shape-only arguments: zero inputs
    lat = bench.benchmark_result.nc_latency
    report = bench.benchmark_result.report
    assert lat.latencies_us == [report.latency_us] * 3   # simulated time is deterministic
    assert lat.get_latency_percentile(50) == lat.get_latency_percentile(99) == report.latency_us
    assert matmul_psum.benchmark_result is bench.benchmark_result
    assert report.flops == 2 * 256 * 128 * 512
    assert "nki.benchmark matmul_psum: 3 iterations" in capsys.readouterr().out
    # The call form, with the reference's defaults (10 warmup, 100 measured iterations).
    called = nki.benchmark(scale_rows)
    np.testing.assert_array_equal(called(X, 2.0), 2 * X)
    assert len(called.benchmark_result.nc_latency.latencies_us) == 100


def test_profile_writes_neff_ntff_and_summary(tmp_path):
    prof = nki.profile(working_directory=str(tmp_path), save_neff_name="k.neff",
                       save_trace_name="k.ntff", profile_nth=2)(matmul_psum)
    lhs_t = rng.standard_normal((128, 128)).astype(np.float32)
    rhs = rng.standard_normal((128, 512)).astype(np.float32)
    np.testing.assert_allclose(prof(lhs_t, rhs), lhs_t.T @ rhs, rtol=1e-4, atol=1e-3)
    assert sorted(os.listdir(tmp_path)) == ["k.neff", "k.ntff", "k_summary.json"]
    summary = json.loads((tmp_path / "k_summary.json").read_text())
    assert summary["kernel"] == "matmul_psum" and summary["chip"] == CHIP
    assert summary["latency_us"] == prof.benchmark_result.report.latency_us
    tool = os.environ.get("TRNSIM_TEST_NEURON_PROFILE")
    if tool:
        view = subprocess.run([tool, "view", "-n", str(tmp_path / "k.neff"), "-s",
                               str(tmp_path / "k.ntff"), "--output-format", "summary-json"],
                              capture_output=True, text=True, check=False)
        assert view.returncode == 0, view.stderr
        [run] = json.loads(view.stdout)["executions"]
        assert run["status"] == "ok"
        assert run["total_time_ps"] == round(summary["latency_us"] * 1e6)
    with pytest.raises(nki_errors().NkiError, match="exists"):
        nki.profile(working_directory=str(tmp_path), save_neff_name="k.neff",
                    save_trace_name="k.ntff")(matmul_psum)(lhs_t, rhs)


def nki_errors():
    from trnsim_nki import errors
    return errors


# ---- nisa compute calls that return their result; LayerNorm with bn_stats ----------------------

@nki.jit
def isa_calls(x, col):
    p, f = x.shape
    outs = [nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.shared_hbm) for _ in range(6)]
    sums = nl.ndarray((p, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t, c = nl.load(x), nl.load(col)
    total = nl.ndarray((p, 1), dtype=nl.float32)
    act = nisa.activation(op=np.exp, data=t, bias=c, scale=0.5, reduce_op=np.add,
                          reduce_res=total)
    nl.store(outs[0], act)
    nl.store(sums, total)
    nl.store(outs[1], nisa.tensor_scalar(t, np.subtract, 1.0, reverse0=True, op1=np.multiply,
                                         operand1=c))
    nl.store(outs[2], nisa.tensor_tensor(t, nisa.reciprocal(nl.add(t, 2.0)), op=nl.multiply))
    nl.store(outs[3], nisa.scalar_tensor_tensor(data=t, op0=np.multiply, operand0=c,
                                                op1=np.add, operand1=t))
    half = nisa.tensor_copy(t, dtype=nl.bfloat16)
    nl.store(outs[4], nl.copy(half, dtype=nl.float32))
    nl.store(outs[5], -t)
    return tuple(outs) + (sums,)


def test_nisa_calls_return_their_results():
    x = rng.standard_normal((96, 200)).astype(np.float32)
    col = rng.standard_normal((96, 1)).astype(np.float32)
    act, ts, tt, stt, cast, neg, sums = isa_calls(x, col)
    np.testing.assert_allclose(act, np.exp(0.5 * x + col), rtol=2e-3)
    np.testing.assert_allclose(sums[:, 0], act.sum(axis=1), rtol=1e-4)
    np.testing.assert_allclose(ts, (1.0 - x) * col, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(tt, x / (x + 2.0), rtol=1e-5)
    np.testing.assert_allclose(stt, x * col + x, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(cast, bf16(x))
    np.testing.assert_array_equal(neg, -x)


@nki.jit
def layernorm(x, gamma, beta, eps):
    rows, cols = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    ip, jf = nl.arange(128)[:, None], nl.arange(cols)[None, :]
    one = nl.arange(1)[:, None]
    g = nl.load(gamma.reshape((1, cols))[one, jf]).broadcast_to((128, cols))
    b = nl.load(beta.reshape((1, cols))[one, jf]).broadcast_to((128, cols))
    chunks = (cols + 511) // 512
    jc, js = nl.arange(512)[None, :], nl.arange(6)[None, :]
    for t in nl.affine_range((rows + 127) // 128):
        live = t * 128 + ip < rows
        tile = nl.load(x[t * 128 + ip, jf], mask=live)
        stats = nl.ndarray((128, 6 * chunks), dtype=nl.float32)
        for c in nl.affine_range(chunks):
            stats[ip, c * 6 + js] = nisa.bn_stats(tile[ip, c * 512 + jc],
                                                  mask=(c * 512 + jc < cols), dtype=nl.float32)
        mv = nisa.bn_aggr(stats)
        inv = nl.rsqrt(mv[ip, 1] + eps)
        y = nisa.tensor_scalar(tile, np.subtract, mv[ip, 0], op1=np.multiply, operand1=inv)
        nl.store(out[t * 128 + ip, jf], value=y * g + b, mask=live)
    return out


def test_layernorm_with_bn_stats_and_masks():
    x = rng.standard_normal((140, 700)).astype(np.float32) * 3 + 1
    gamma, beta = rng.random(700).astype(np.float32), rng.random(700).astype(np.float32)
    ref = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * gamma + beta
    np.testing.assert_allclose(layernorm(x, gamma, beta, 1e-5), ref, rtol=1e-3, atol=1e-4)


# ---- assignment: in place when the result is fresh, else a copy ---------------------------------

@nki.jit
def assignments(x):
    o = [nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm) for _ in range(3)]
    tile = nl.load(x)
    t = nl.ndarray(x.shape, dtype=nl.float32)
    r = nl.exp(tile)
    t[...] = r                      # the activation now writes t
    nl.store(o[0], r)               # r stands for t
    doubled = nl.multiply(tile, 2.0)
    nl.store(o[1], doubled)         # used before the assignment: copied
    u = nl.ndarray(x.shape, dtype=nl.float32)
    u[...] = doubled
    acc = nl.ndarray(x.shape, dtype=nl.float32, buffer=nl.psum)
    acc[...] = nl.add(u, t)         # the Vector engine writes PSUM directly
    nl.store(o[2], acc)
    return tuple(o)


def test_assignment_writes_in_place_or_copies():
    x = rng.standard_normal((128, 64)).astype(np.float32)
    e, d, s = assignments(x)
    np.testing.assert_allclose(e, np.exp(x), rtol=2e-3)
    np.testing.assert_array_equal(d, 2 * x)
    np.testing.assert_allclose(s, 2 * x + np.exp(x), rtol=2e-3, atol=1e-6)
    trace = assignments.last.trace
    ops = {(i.engine, i.opcode): i for i in trace.cores[0]}
    act, add = ops[("act", "activation")], ops[("dve", "tensor_tensor")]
    stores = {i.operands[0].tensor.storage.ident: i for i in trace.cores[0]
              if i.opcode == "dma_copy" and i.operands[0].tensor.storage.kind == "hbm"}
    # the exp's own destination is what o[0] is stored from: t, with no copy in between
    assert stores[trace.outputs[0].ident].operands[1].tensor.storage is \
        act.operands[0].tensor.storage
    assert add.operands[0].tensor.storage.kind == "psum"
    copies = [i for i in trace.cores[0] if i.opcode == "tensor_copy"]
    assert len(copies) == 2          # u[...] = doubled, and PSUM staged to SBUF for the store
    retired = [s for s in trace.storages if s.role == "retired"]
    assert len(retired) == 2 and all(s.offset is None for s in retired)


# ---- causal flash attention: online softmax, helper kernels, trace-time masks -----------------

@nki.jit(mode="trace")
def attend_block(q_t, k_t, v_blocks, i, j, m, l, acc):
    """Folds kv block j (512 keys) into row tile i's running max m, sum l and output acc."""
    rows, cols = nl.mgrid[0:128, 0:512]
    diagonal = j * 512 + 511 > i * 128                  # a Python bool at trace time
    scores = nisa.nc_matmul(q_t, k_t)                   # [128 q, 512 k] in PSUM
    s = nl.ndarray((128, 512), dtype=nl.float32)
    s[...] = nisa.affine_select(pred=(i * 128 + rows >= j * 512 + cols), on_true_tile=scores,
                                on_false_value=nl.fp32.min, mask=diagonal)
    s[...] = nl.copy(scores, mask=not diagonal)
    m_old = nl.copy(m)
    m[...] = nl.maximum(m_old, nisa.tensor_reduce(np.max, s, axis=(1,)))
    row_sum = nl.ndarray((128, 1), dtype=nl.float32)
    p = nisa.activation_reduce(np.exp, s, bias=-m, reduce_op=nl.add, reduce_res=row_sum)
    alpha = nisa.activation(np.exp, m_old, bias=-m)
    l[...] = nl.add(nl.multiply(l, alpha), row_sum)
    p_t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
    for c in nl.affine_range(4):
        p_t[:, nl.ds(c * 128, 128)] = nisa.nc_transpose(p[:, nl.ds(c * 128, 128)])
    p_t_sb = nl.copy(p_t)
    pv = nl.zeros((128, 128), nl.float32, buffer=nl.psum)
    for c in nl.affine_range(4):
        pv += nl.matmul(p_t_sb[:, nl.ds(c * 128, 128)], v_blocks[j * 4 + c], transpose_x=True)
    acc[...] = nl.add(nl.multiply(acc, alpha), pv)


@nki.jit
def flash_attention(q, k, v):
    """softmax(q^T k / sqrt(d), causal) v for q, k [d=128, S], v [S, d]."""
    d, seq = q.shape
    out = nl.ndarray((seq, d), dtype=nl.float32, buffer=nl.shared_hbm)
    v_blocks = nl.ndarray((seq // 128, nl.par_dim(128), d), dtype=nl.float32)
    for b in nl.affine_range(seq // 128):
        v_blocks[b] = nl.load(v[nl.ds(b * 128, 128), :])
    for i in nl.affine_range(seq // 128):
        q_t = nl.multiply(nl.load(q[:, nl.ds(i * 128, 128)]), 1.0 / np.sqrt(d))
        m = nl.full((128, 1), nl.fp32.min, dtype=nl.float32)
        l = nl.zeros((128, 1), dtype=nl.float32)
        acc = nl.zeros((128, d), dtype=nl.float32)
        for j in nl.sequential_range(i * 128 // 512 + 1):
            attend_block(q_t, nl.load(k[:, nl.ds(j * 512, 512)]), v_blocks, i, j, m, l, acc)
        nl.store(out[nl.ds(i * 128, 128), :], value=nl.divide(acc, l))
    return out


def test_causal_flash_attention():
    q, k = (rng.standard_normal((128, 1024)).astype(np.float32) for _ in range(2))
    v = rng.standard_normal((1024, 128)).astype(np.float32)
    s = (q.T @ k) / np.sqrt(128)
    s = np.where(np.tril(np.ones((1024, 1024), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    ref = (p / p.sum(axis=1, keepdims=True)) @ v
    np.testing.assert_allclose(flash_attention(q, k, v), ref, rtol=2e-3, atol=2e-4)
    ran_on_chip(flash_attention)


# ---- nisa.memset / dma_copy / dma_transpose, engines, the NeuronCore version ----------------------

@nki.jit
def moves(a):
    rows, cols = a.shape
    copied = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=copied, src=a)                            # HBM to HBM
    filled = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    tile = nisa.memset(shape=(128, cols), value=-7.5, dtype=a.dtype, engine=nisa.gpsimd_engine)
    p, f = nl.arange(128)[:, None], nl.arange(cols)[None, :]
    nisa.dma_copy(dst=tile[p, f], src=a[p, f], mask=(p < rows) & (f < cols - 3))
    nl.store(filled[p, f], value=nisa.tensor_copy(tile, engine=nisa.vector_engine),
             mask=p < rows)
    flipped = nl.ndarray((cols, rows), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(flipped, value=nisa.dma_transpose(a))
    version = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.shared_hbm)
    nl.store(version, value=nisa.memset((1, 1), int(nisa.get_nc_version()), nl.int32))
    return copied, filled, flipped, version


def test_nisa_memset_dma_and_the_core_version():
    a = rng.standard_normal((100, 64)).astype(np.float32)
    copied, filled, flipped, version = moves(a)
    np.testing.assert_array_equal(copied, a)
    expect = np.full_like(a, -7.5)
    expect[:, :61] = a[:, :61]
    np.testing.assert_array_equal(filled, expect)
    np.testing.assert_array_equal(flipped, a.T)
    assert version[0, 0] == {"trn2": nisa.nc_version.gen3, "trn3": nisa.nc_version.gen4}[CHIP]
    # Compute instructions and their engines (a DMA goes on the queue of the engine that wrote
    # its source last: docs/nki.md, "Engines and queues").
    engines = [(i.api, i.engine) for i in moves.last.trace.cores[0]
               if i.opcode != "dma_copy"]
    assert engines == [("nisa.memset", "pool"), ("nisa.tensor_copy", "dve"),
                       ("nisa.memset", "dve")]
