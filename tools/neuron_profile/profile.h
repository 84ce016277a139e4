// A profile as neuron-profile's views see it: the profile format's reader types
// (runtime/profiling/format/profile_reader.h, the format's one home), named here so the views
// read as one namespace, plus the engines' labels.
#pragma once

#include <string>

#include "runtime/profiling/format/profile_reader.h"

namespace trnsim::neuron_profile {

using runtime::profiling::CoreCounters;
using runtime::profiling::DmaEnginePart;
using runtime::profiling::DmaEvent;
using runtime::profiling::EngineCounters;
using runtime::profiling::EventSource;
using runtime::profiling::EventWait;
using runtime::profiling::ExecutionRecord;
using runtime::profiling::InstructionEvent;
using runtime::profiling::ParseProfile;
using runtime::profiling::ProfileDocument;
using runtime::profiling::QueueCounters;
using runtime::profiling::ReadProfile;
using runtime::profiling::SourceLocation;
using runtime::profiling::SyncUpdateEvent;

// "PE" for "pe": the engine's upper-case name, as the chip model's messages spell it.
std::string EngineLabel(const ProfileDocument& profile, int engine);

}  // namespace trnsim::neuron_profile
