"""C-5: the floor of a near-empty kernel — a + b on [4, 3] fp16.

Kernel (neuron-runtime/nrtpy/tutorial-validate-benchmark.rst, the addition kernel of the nrtpy
tutorials; inputs `a_input`, `b_input`, both [4, 3] float16): two loads, one add, one store,
written with nki.language as such a kernel is: `nl.load` twice, `nl.add`, `nl.store`. The front
end chooses the engines and queues (loads on SP, the add on VectorE, the store from the engine
that produced the tile: python/trnsim_nki/ops_isa.py).

Measured: device-side time (`model.benchmark(mode="device")`, 100 iterations after 10
warm-ups): mean 3.2 us (min 3.0, max 4.1). The mean is the figure compared.

Simulated: the execution's device time (Report.duration_ps: first issue to the end of the
kernel, the per-kernel launch and completion costs included — docs/chip-model.md §2).
"""
import numpy as np

import nki
import nki.language as nl

from fidelity import Row

CASES = ("C-5",)


@nki.jit
def add_kernel(a_input, b_input):
    c_output = nl.ndarray(a_input.shape, dtype=a_input.dtype, buffer=nl.shared_hbm)
    a = nl.load(a_input)
    b = nl.load(b_input)
    c = nl.add(a, b)
    nl.store(c_output, c)
    return c_output


def rows(ctx):
    a = np.ones((4, 3), dtype=np.float16)
    b = np.ones((4, 3), dtype=np.float16)
    out, report = ctx.run(add_kernel, a, b)
    if not np.array_equal(np.asarray(out, dtype=np.float32), np.full((4, 3), 2.0, np.float32)):
        raise AssertionError("C-5: a + b is wrong")
    return [Row(case="C-5", conf="M", what="a+b on [4,3] fp16: device time (mean)",
                measured=3.2, simulated=report.duration_ps / 1e6, unit="us")]
