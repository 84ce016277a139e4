// chip_info(chip): the simulator's ChipSpec (simulator/spec/) as a dict — what a kernel tracer
// needs to lay out tiles and check limits (the ISA limits the builder validates against), and
// what an MFU figure needs (PE peak per physical core and dtype class, clocks). Every number is
// the spec's; where each comes from is cited in simulator/spec/*.cc.
#include <string>

#include "python/binding/binding.h"
#include "python/binding/errors.h"
#include "simulator/isa/limits.h"
#include "simulator/spec/instance_spec.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::python {
namespace py = pybind11;

namespace {

// Dense PE peak in FLOP/s of one physical core for each operand class, by the cost model's
// rules (simulator/cost/cost_model.cc): 16-bit at rows x columns MACs per PE cycle; fp8 gains
// the double_row factor (its K=256 pass at the 16-bit time); fp32 / fp32r pay their slowdowns.
py::dict PePeakFlops(const simulator::CostSpec& c) {
  const double bf16 = c.PePeakBf16Flops();
  py::dict d;
  d["bf16"] = bf16;
  d["fp16"] = bf16;
  d["fp8"] = bf16 * c.pe_double_row_factor;
  d["fp32"] = bf16 / c.pe_fp32_slowdown;
  d["fp32r"] = bf16 / c.pe_fp32r_slowdown;
  return d;
}

py::dict EngineClocks(const simulator::CostSpec& c) {
  py::dict d;
  d["pe"] = c.pe_clock_hz;
  d["act"] = c.act_clock_hz;
  d["dve"] = c.dve_clock_hz;
  d["pool"] = c.pool_clock_hz;
  d["sp"] = c.sp_clock_hz;
  return d;
}

// The instance types built from this chip, with the LNC each runs at by default; `default_lnc`
// gets the first one's (0 when none).
py::list Instances(const simulator::ChipSpec* spec, int* default_lnc) {
  py::list list;
  *default_lnc = 0;
  for (const simulator::InstanceSpec& inst : simulator::InstanceSpecs()) {
    if (inst.chip != spec) continue;
    if (*default_lnc == 0) *default_lnc = inst.default_lnc;
    py::dict d;
    d["name"] = inst.type_name;
    d["chips"] = inst.chip_count;
    d["physical_cores"] = inst.PhysicalCores();
    d["default_lnc"] = inst.default_lnc;
    list.append(d);
  }
  return list;
}

py::dict ChipInfo(const std::string& chip) {
  const simulator::ChipSpec* spec = kb::ChipSpecByName(chip);
  if (spec == nullptr) RaiseInvalid("unknown chip '" + chip + "' (expected trn2 or trn3)");
  const isa::IsaLimits limits = isa::LimitsFor(*spec);
  const simulator::CostSpec& c = spec->cost;
  py::dict d;
  d["chip"] = spec == &simulator::Trainium3Spec() ? "trn3" : "trn2";
  d["name"] = spec->name;
  d["core_arch"] = spec->core_arch;
  d["physical_cores_per_chip"] = spec->physical_cores;
  // One physical core's on-chip memories and the ISA limits (isa/limits.h).
  d["partitions"] = limits.partitions;
  d["sbuf_bytes_per_partition"] = limits.sbuf_bytes_per_partition;
  d["psum_bytes_per_partition"] = limits.psum_bytes_per_partition;
  d["psum_banks"] = limits.psum_banks;
  d["psum_bank_bytes"] = limits.psum_bank_bytes;
  d["registers_per_engine"] = limits.registers;
  d["semaphores_per_core"] = limits.semaphores;
  d["events_per_core"] = limits.events;
  d["dma_queues_per_core"] = limits.dma_queues;
  d["pe_max_contraction"] = limits.pe_max_contraction;
  d["pe_max_stationary_free"] = limits.pe_max_stationary_free;
  d["pe_max_moving_free_fp32"] = limits.pe_max_moving_free_fp32;
  d["pe_max_moving_free_bf16"] = limits.pe_max_moving_free_bf16;
  d["dve_transpose_max"] = limits.dve_transpose_max;
  d["bn_stats_max_free"] = limits.bn_stats_max_free;
  // Timing.
  d["clock_hz"] = c.pe_clock_hz;
  d["engine_clock_hz"] = EngineClocks(c);
  d["pe_rows"] = c.pe_rows;
  d["pe_columns"] = c.pe_columns;
  d["pe_peak_flops"] = PePeakFlops(c);
  d["dma_engines_per_core"] = c.dma_engines_per_core;
  d["dma_engine_bytes_per_s"] = c.dma_engine_bytes_per_s;
  d["hbm_bytes_per_chip"] = spec->HbmBytes();
  d["hbm_bytes_per_s_per_chip"] = c.hbm_bytes_per_s_per_chip;
  d["execution_overhead_ps"] = c.execution_overhead_ps;  // outside device time (calibration.md)
  d["hbm_bytes_per_s_per_core"] = c.HbmBytesPerSPerCore();
  int default_lnc = 0;
  d["instances"] = Instances(spec, &default_lnc);
  d["default_lnc"] = default_lnc;
  return d;
}

}  // namespace

void RegisterChipInfo(py::module_& m) {
  m.def("chip_info", &ChipInfo, py::arg("chip"),
        "The chip spec of 'trn2' or 'trn3' as a dict (partitions, SBUF/PSUM sizes, PE peak "
        "FLOP/s per physical core, clocks, DMA, instance types and their default LNC).");
}

}  // namespace trnsim::python
