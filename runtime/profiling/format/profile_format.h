// The profile file format (docs/profiling.md): trnsim's stand-in for AWS's NTFF. One JSON
// document per file holding one or more profiled executions of one model — the chip model's
// event trace (simulator/core/trace.h) and its statistics for each.
//
// This directory is the format's one home, as LevelDB keeps log_format.h, log_writer and
// log_reader together: this header names what both sides agree on, profile_writer.h writes the
// document (nrt_profile_stop, NEURON_RT_INSPECT_ENABLE capture), profile_reader.h parses and
// checks it (neuron-profile, tests). Change the format here and in both, never in one.
//
// Versioned: "format" is kProfileFormat, "version" kProfileVersion; a reader refuses another
// format and any other version. Fields are only ever added within a version, optional to
// readers. Times are integers in kProfileTimeUnit. Engines are named by isa::EngineName and
// listed in isa::Engine order in the document's "engines" (isa::kEngineCount names).
#pragma once

namespace trnsim::runtime::profiling {

inline constexpr char kProfileFormat[] = "trnsim-ntff";
inline constexpr int kProfileVersion = 1;
inline constexpr char kProfileTimeUnit[] = "ps";

}  // namespace trnsim::runtime::profiling
