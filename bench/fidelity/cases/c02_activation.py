"""C-2: the ScalarE part of nki-dma-overview.rst Example 1 — the activation-table load before the
first `exp`, and the `exp` itself.

Kernel (nki/get-started/about/nki-dma-overview.rst, Example 1, `tensor_exp_kernel_isa`): one
`dma_copy` of A[4, 4096] bf16 HBM -> SBUF, `nisa.activation(op=nl.exp)` on the [4, 4096] tile
into a second SBUF tile, one `dma_copy` back to HBM. Written here as the source writes it.

Measured (shared/reference/trainium-measurements.md C-2, read off the profile image
nki/img/overviews/nki-dma-intro-3.png): a ~1.33 us segment on ScalarE before the activation
(the table load of `natural_log_exp_and_others`), then the activation ~3.71 us.

Simulated: from the device profile (neuron-profile's json view) — the duration of the ACT row
`act_table_load` (the chip model's table-load segment, docs/chip-model.md §2) and of the ACT
`activation` row (its II plus ScalarE's fixed pipeline cost, CostSpec::act_fixed_cycles).
"""
import numpy as np

from dma_overview_example1 import tensor_exp_kernel_isa
from fidelity import Row

CASES = ("C-2",)


def _only(rows, what):
    if len(rows) != 1:
        raise AssertionError(f"C-2: expected one {what} row in the profile, found {len(rows)}")
    return rows[0]


def rows(ctx):
    import trnsim_nki
    a = trnsim_nki.host_array(np.ones((4, 4096), dtype=np.float32), "bfloat16")
    prof = ctx.profile(tensor_exp_kernel_isa, a)
    load = _only(prof.instructions(engine="act", opcode="act_table_load"), "act_table_load")
    exp = _only(prof.instructions(engine="act", opcode="activation"), "activation")
    if "natural_log_exp_and_others" not in load.get("operands", ""):
        raise AssertionError(f"C-2: the table load is of {load.get('operands')!r}")
    return [
        Row(case="C-2", conf="M", what="ScalarE activation-table load before the first exp",
            measured=1330.0, simulated=float(load["duration"]), unit="ns"),
        Row(case="C-2", conf="M", what="ScalarE activation(exp) on [4,4096] bf16",
            measured=3710.0, simulated=float(exp["duration"]), unit="ns"),
    ]
