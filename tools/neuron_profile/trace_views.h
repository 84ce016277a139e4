// The event views of a profile (docs/profiling.md §5):
//   PerfettoJson  `--output-format perfetto`: a Chrome JSON trace (opens in ui.perfetto.dev and
//                 chrome://tracing). One process per (execution, core), one thread per engine
//                 and per DMA queue that moved something; a complete ("X") slice per
//                 instruction and per transfer; a flow arrow ("s" -> "f") from the instruction
//                 or transfer whose update satisfied a semaphore/event wait to the waiting
//                 instruction. ts/dur in microseconds (the format's unit), from simulated ps.
//   LegacyJson    `--output-format json`: AWS's legacy device JSON shape, {"summary": [...],
//                 "instruction": [...]} plus "dma": [...]; timestamps and durations in ns.
// An instruction made by a kernel source line (source_map.h) — and a transfer such an
// instruction issued — also has nki_source_location ("path/k.py:42", AWS's field) and nki_api
// (the NKI call): in its JSON row, and in the args of its Perfetto slice.
#pragma once

#include <string>

#include "tools/neuron_profile/profile.h"

namespace trnsim::neuron_profile {

std::string PerfettoJson(const ProfileDocument& profile);
std::string LegacyJson(const ProfileDocument& profile);

}  // namespace trnsim::neuron_profile
