"""C-8: TensorE's dI/dt current limiter — throughput after an idle gap, Trainium2 (and Trainium3).

Source: tools/neuron-explorer/glossary.rst ("dI/dt (delta current) throttling"),
overview-summary-page.rst ("Understanding throttling") and troubleshooting.rst: on Trn2 and
Trn3, after work begins the Tensor Engine starts at roughly 50% utilization and ramps to full
over about the first ~3 µs; if utilization drops below 50% over any ~3 µs window — for example
during an idle gap — the limit re-engages and the next burst again starts at roughly 50%.

The kernel (NKI, bf16): load a stationary [128, 128] and a moving [128, 512] tile (the PE idles
while they arrive), then burst 1: BURST back-to-back matmuls of them into one PSUM tile. The
result goes through PSUM -> SBUF (VectorE) and a chain of GAP_OPS ScalarE copies of a
[128, 512] tile — several µs in which the PE has nothing to do — and becomes the moving operand
of burst 2, another BURST matmuls. Read from the device profile (multiply_moving rows, ns):
  * the throughput of each burst's first matmul: its full-rate streaming time (512 PE cycles)
    over the time from its issue to the next matmul's issue (the ramp's first step, plus the
    pipeline fill of a matmul that starts on an idle array);
  * the time from burst 1's first matmul to the first one that streams at full rate.
Measured values: 50% (both bursts: burst 2 follows a gap longer than the window) and 3 µs. The
source says "roughly" and "~": M.
"""

from fidelity import Row

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

CASES = ("C-8",)

BURST = 32     # matmuls per burst: 32 x 213 ns at full rate, longer than the ramp
GAP_OPS = 16   # ScalarE copies between the bursts: an idle gap of several µs on the PE
N = 512       # moving columns: a bf16 [128 x 128] x [128 x 512] matmul streams 512 PE cycles


@nki.jit
def pe_bursts(stationary, moving):
    out = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.shared_hbm)
    st = nl.ndarray((128, 128), dtype=stationary.dtype, buffer=nl.sbuf)
    mv = nl.ndarray((128, N), dtype=moving.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=st, src=stationary)
    nisa.dma_copy(dst=mv, src=moving)
    acc = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
    for i in range(BURST):
        nisa.nc_matmul(dst=acc, stationary=st, moving=mv, accumulate=i > 0)
    # The gap: the second burst's moving operand is computed from the first burst's result.
    mv2 = nl.ndarray((128, N), dtype=moving.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=mv2, src=acc)
    for _ in range(GAP_OPS):
        nisa.activation(dst=mv2, op=nl.copy, data=mv2)
    acc2 = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.psum)
    for i in range(BURST):
        nisa.nc_matmul(dst=acc2, stationary=st, moving=mv2, accumulate=i > 0)
    res = nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc2)
    nisa.dma_copy(dst=out, src=res)
    return out


def full_rate_ns(chip):
    """A matmul's streaming time at full rate: N cycles of the PE clock (chip_info's bf16 peak
    is 2 x 128 x 128 x the clock)."""
    import trnsim_nki
    clock_hz = trnsim_nki.chip_peak_flops(chip, "bfloat16") / (2 * 128 * 128)
    return N / clock_hz * 1e9


def burst_figures(starts_ns, full_ns):
    """(throughput of the first matmul, ns from the first matmul to the first full-rate one) for
    one burst's matmul issue times."""
    intervals = [b - a for a, b in zip(starts_ns, starts_ns[1:])]
    first = full_ns / intervals[0]
    full = next((i for i, d in enumerate(intervals) if d <= full_ns * 1.0001), None)
    ramp_ns = starts_ns[full] - starts_ns[0] if full is not None else float("nan")
    return first, ramp_ns


def rows(ctx):
    import trnsim_nki
    rng = np.random.default_rng(8)
    stationary = trnsim_nki.host_array(rng.random((128, 128), dtype=np.float32) / 128, "bfloat16")
    moving = trnsim_nki.host_array(rng.random((128, N), dtype=np.float32), "bfloat16")
    full_ns = full_rate_ns(ctx.chip)
    prof = ctx.profile(pe_bursts, stationary, moving)
    starts = sorted(float(r["timestamp"]) for r in prof.instructions("pe", "multiply_moving"))
    assert len(starts) == 2 * BURST, f"{len(starts)} matmul rows, expected {2 * BURST}"
    first1, ramp1 = burst_figures(starts[:BURST], full_ns)
    first2, _ = burst_figures(starts[BURST:], full_ns)
    gap_us = (starts[BURST] - starts[BURST - 1]) / 1e3
    return [
        Row("C-8", "M", "TensorE throughput, first matmul after idle", 50.0, 100.0 * first1, "%"),
        Row("C-8", "M", "TensorE time from idle to full throughput", 3.0, ramp1 / 1e3, "us"),
        Row("C-8", "M", f"TensorE throughput after a {gap_us:.1f} us gap (re-engaged)", 50.0,
            100.0 * first2, "%"),
    ]
