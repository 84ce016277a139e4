// FaultSpec: a TRNSIM_FAULTS specification (docs/faults.md) as typed values — which executions
// of which models on which cores fail, and how. It is plain data: parsing and printing only;
// the decisions are FaultPlan's (driver/faults/fault_plan.h).
//
// Grammar:  <rule>[;<rule>...]      rule = <kind>[:<key>=<value>[,<key>=<value>...]]
// Kinds:    hbm_ue repairable_hbm_ue nc_ue dma_abort collectives timeout nq_overflow corrupt hang
//           load_oom
// Keys:     model=<fnmatch glob of the NEFF name>
//           nc=<logical core, numbered as the process numbers them (nrt_load's vnc)>
//           core=<instance-wide physical core>  (what the runtime turns nc= into for the device)
//           exec=<N>    the N-th matching execution (1-based), counted per rule and per core
//           prob=<0..1> with seed=<u64>  fire with this probability, decided by a hash
//           count=<N>   at most N faults from this rule
// Empty rules (";;", a trailing ';') and spaces around tokens are ignored.
//
// Errors: ParseFaultSpec returns NRT_INVALID with one message naming the rule (by its 1-based
// position and text) and the bad kind, key or value. It never crashes on any input.
// Thread safety: values; ParseFaultSpec and FormatFaultSpec are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace trnsim::driver::faults {

enum class FaultKind {
  kHbmUe,            // NRT_EXEC_HW_ERR_HBM_UE; poisons the HBM stack until re-init
  kRepairableHbmUe,  // NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE; likewise (repaired at reset)
  kNcUe,             // NRT_EXEC_HW_ERR_NC_UE; the physical core fails until re-init
  kDmaAbort,         // NRT_EXEC_HW_ERR_DMA_ABORT; likewise
  kCollectives,      // NRT_EXEC_HW_ERR_COLLECTIVES; this execution only
  kTimeout,          // NRT_TIMEOUT; this execution only
  kNqOverflow,       // NRT_EXEC_SW_NQ_OVERFLOW; this execution only
  kCorrupt,          // success, with output words overwritten (silent data corruption)
  kHang,             // NRT_TIMEOUT after the execution timeout; the core hangs until re-init
  kLoadOom,          // NRT_RESOURCE from the model's program load (HBM exhausted)
};

// The kind's name in the grammar ("hbm_ue", ...).
std::string_view FaultKindName(FaultKind kind);

struct FaultRule {
  FaultKind kind = FaultKind::kHbmUe;
  std::string model_glob;                // empty: any model
  std::optional<int> nc;                 // logical core of the process (runtime side only)
  std::optional<int> physical_core;      // instance-wide physical core
  std::optional<uint64_t> exec_ordinal;  // 1-based; unset: every matching execution
  std::optional<double> probability;     // in [0, 1]; unset: always
  uint64_t seed = 0;
  std::optional<uint64_t> max_faults;  // unset: no limit
};

struct FaultSpec {
  std::vector<FaultRule> rules;
  bool empty() const { return rules.empty(); }
};

// Parses a TRNSIM_FAULTS value; "" is an empty spec.
StatusOr<FaultSpec> ParseFaultSpec(std::string_view text);

// The canonical text of `spec`: rules in order, keys in the grammar's order, only the keys that
// are set. ParseFaultSpec(FormatFaultSpec(s)) gives back `s` (prob is printed exactly).
std::string FormatFaultSpec(const FaultSpec& spec);

}  // namespace trnsim::driver::faults
