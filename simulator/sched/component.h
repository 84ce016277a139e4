// Component: the minimal interface every simulated hardware block implements (an engine, a DMA
// queue, an HBM stack, a link).
//
// A component has a human-readable name for logs and reports, and a stable numeric id that is
// unique within its emulated instance and assigned when the instance is built from its spec
// (never from pointer values or registration order at run time). The id doubles as the
// scheduler's tie-break: a component passes `id()` as the EventPriority of the events it
// schedules, so simultaneous events of different components run in id order on every host.
//
// Lifecycle is explicit: the owner builds components, then calls Reset() before each run.
// Components never read a host clock; they learn the time from Scheduler::Now().
// Thread safety: a component is driven by its instance's scheduler thread only.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "simulator/sched/scheduler.h"

namespace trnsim::simulator {

using ComponentId = EventPriority;  // unique per instance; lower ids win same-instant ties

class Component {
 public:
  Component(std::string name, ComponentId id) : name_(std::move(name)), id_(id) {}
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return name_; }
  ComponentId id() const { return id_; }

  // Returns the component to its power-on state: queues empty, statistics zero. Pending events
  // are the scheduler's (Scheduler::Clear drops them); Reset must not schedule any.
  virtual void Reset() = 0;

 private:
  std::string name_;
  ComponentId id_;
};

}  // namespace trnsim::simulator
