"""C-1 … C-4: the DMA engines (docs/chip-model.md §3, docs/calibration.md §3).

C-1 / C-2 store — the kernel of nki/get-started/about/nki-dma-overview.rst, Example 1, as
printed: A[4, 4096] bf16 HBM -> SBUF with `nisa.dma_copy`, `nisa.activation(exp)` on ScalarE,
the result stored back with `nisa.dma_copy` (no dge_mode: the compiler's choice). The load has
4 partitions, so one DMA engine (engine 0, partitions 0-7) carries its 32 KiB and the other 15
only write the completion semaphore. The simulated figures are read from the device profile's
per-engine DMA rows (`neuron-profile view --output-format json`, "dma_engine"): the duration of
the one engine part of each transfer that moved data — what the AWS profile's tooltip calls the
"DMA Operation Duration" (C-1: 1,416 ns for the load; C-2: ≈1.2 µs for the store, read off the
same image).

C-3 — nki/deep-dives/nki-dge.rst: a `dma_copy` with `dge_mode=hwdge` issued from the Sync engine
costs ≈600 ns on the issuing engine. Kernel: one hwdge load of a [128, 512] bf16 tile and its
store; the figure is the profile's duration of the hwdge dma_copy instruction on SP.

C-4 — nki/deep-dives/nki-dma-bandwidth-guide.rst: every transfer costs ≈1.3 µs of descriptor
setup, synchronisation and semaphore-to-start. Kernel: a tiny load (one partition, two bf16
elements) and the VectorE copy that consumes it; the figure is the time from the dma_copy's
issue (the trigger) to the copy's issue (the consumer released by the completion semaphore),
both from the profile's instruction rows.
"""

import numpy as np

from fidelity import Row

CASES = ("C-1", "C-2", "C-3", "C-4")


def _kernels():
    from dma_overview_example1 import tensor_exp_kernel_isa
    import nki
    import nki.isa as nisa
    import nki.language as nl

    @nki.jit
    def hwdge_load(x):
        out = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        t = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x, dge_mode=nisa.dge_mode.hwdge, engine=nisa.engine.sync)
        nisa.dma_copy(dst=out, src=t)
        return out

    @nki.jit
    def tiny_load(x):
        out = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        t = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
        u = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.tensor_copy(dst=u, src=t)
        nisa.dma_copy(dst=out, src=u)
        return out

    return tensor_exp_kernel_isa, hwdge_load, tiny_load


def _bf16(shape, seed):
    import trnsim_nki
    rng = np.random.default_rng(seed)
    return trnsim_nki.host_array(rng.uniform(-1, 1, shape).astype(np.float32), "bfloat16")


def data_parts(profile, source, destination):
    """The profile's per-engine rows (ns) of the transfers from `source` to `destination`
    that carried data, in transfer order; and the count of semaphore-only rows of those
    transfers."""
    transfers = [i for i, d in enumerate(profile.dma())
                 if d["source"] == source and d["destination"] == destination]
    rows = [r for r in profile.json.get("dma_engine", []) if r["dma_id"] in transfers]
    return ([r for r in rows if r["transfer_bytes"] > 0],
            sum(1 for r in rows if r["transfer_bytes"] == 0))


def _one_data_part(profile, source, destination, what):
    parts, _ = data_parts(profile, source, destination)
    if len(parts) != 1:
        raise RuntimeError(f"{what}: expected one data-carrying DMA engine, the profile has "
                           f"{len(parts)}")
    return parts[0]["duration"]


def rows(ctx):
    exp_kernel, hwdge_load, tiny_load = _kernels()
    out = []

    p = ctx.profile(exp_kernel, _bf16((4, 4096), 1))
    out.append(Row(case="C-1", conf="H",
                   what="dma_copy [4,4096] bf16 HBM->SBUF: the data engine's transfer",
                   measured=1416.0, simulated=_one_data_part(p, "hbm", "sbuf", "C-1 load"),
                   unit="ns"))
    out.append(Row(case="C-2", conf="M", what="the same kernel's store: the data engine's transfer",
                   measured=1200.0, simulated=_one_data_part(p, "sbuf", "hbm", "C-2 store"),
                   unit="ns"))

    p = ctx.profile(hwdge_load, _bf16((128, 512), 2))
    issue = [r for r in p.instructions(engine="sp", opcode="dma_copy")]
    if not issue:
        raise RuntimeError("C-3: no dma_copy on SP in the profile")
    out.append(Row(case="C-3", conf="M", what="hwdge dma_copy: time on the issuing engine (SP)",
                   measured=600.0, simulated=issue[0]["duration"], unit="ns"))

    p = ctx.profile(tiny_load, _bf16((1, 2), 3))
    dma = [r for r in p.instructions(opcode="dma_copy")]
    consumer = p.instructions(engine="dve", opcode="tensor_copy")
    if not dma or not consumer:
        raise RuntimeError("C-4: the profile lacks the load or its consumer")
    trigger = min(r["timestamp"] for r in dma)
    out.append(Row(case="C-4", conf="M", what="tiny DMA: trigger to its consumer's issue",
                   measured=1300.0, simulated=consumer[0]["timestamp"] - trigger, unit="ns"))
    return out
