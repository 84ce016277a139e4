"""What one execution of a kernel did on the emulated chip, from trnsim_get_execution_stats.

  latency_us     simulated time of the execution (the longest core), the figure AWS's
                 benchmark reports as nc_latency
  engines        per physical core and engine: busy/wait time, instructions, utilisation
  flops          2·K·M·N summed over every matmul
  mfu            flops / (latency × the PE peak of the cores the kernel ran on), for the
                 matmuls' dtype class (fp32 runs at a quarter of the bf16 rate, fp8 at the
                 bf16 rate unless double_row — chip_info's figures)
"""


def peak_flops(info, dtype_class="bf16"):
    """The PE peak of one physical core, flop/s, from the native module's chip_info()."""
    peaks = info["pe_peak_flops"]
    return float(peaks.get(dtype_class) or peaks["bf16"])


def _matmul_class(trace):
    for instrs in trace.cores:
        for instr in instrs:
            if instr.opcode == "load_stationary":
                isa = instr.operands[0].tensor.dtype.isa
                return "fp32" if isa in ("fp32", "fp32r") else (
                    "fp8" if isa.startswith("fp8") else "bf16")
    return "bf16"


class Report:
    def __init__(self, stats, chip, trace):
        self.chip = chip
        self.stats = stats
        self.duration_ps = int(stats["duration_ps"])
        self.latency_us = self.duration_ps / 1e6
        cores = stats.get("cores", [])
        self.engines = [core.get("engines", {}) for core in cores]
        self.flops = sum(int(e.get("pe", {}).get("flops", 0)) for e in self.engines)
        self.dtype_class = _matmul_class(trace)
        used = max(1, sum(1 for instrs in trace.cores if instrs))
        peak = peak_flops(trace.info, self.dtype_class) * used
        seconds = self.duration_ps * 1e-12
        self.mfu = self.flops / (seconds * peak) if peak and seconds else 0.0

    def utilization(self, engine, core=0):
        return float(self.engines[core].get(engine, {}).get("utilization", 0.0))

    def __repr__(self):
        return (f"Report({self.chip}: {self.latency_us:.3f} us simulated, "
                f"{self.flops / 1e9:.3f} GFLOP, MFU {100 * self.mfu:.1f}%)")
