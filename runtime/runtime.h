// Runtime: the NRT semantics behind libnrt's C API, one per process (Runtime::Get()). A thin
// owner: the lifecycle (nrt_init, nrt_close) and one subsystem per concern, each holding its
// own state and lock and reached through an accessor —
//   instance()     the instance and its logical cores       instance_queries.h
//   tensors()      tensors, tensor sets, completions          tensor_table.h
//   models()       load, unload, model queries                models.h
//   executions()   nrt_execute, implicit async, records       executions.h
//   async()        the nrta_* queues                          async_requests.h
//   collectives()  host collectives, nrta_cc, send/recv       collectives.h
//   profiling()    profiles, inspect, traces                  profiler.h
//   debug()        nrt_debug_client_*                         debug_clients.h
// What nrt_init builds for them to share (the device, the core map, the model registry, the
// executor, ...) is the Session (session.h), which the Lifecycle (lifecycle.h) owns and hands
// to each call. No lock is held across an execution or a host collective: they pin what they
// use (docs/architecture.md, "Locks and pins").
//
// Lifecycle (AWS's, see docs/decisions.md): START --Init--> INIT --Close--> CLOSED --Init-->
// INIT ... Calls that need the runtime return NRT_UNINITIALIZED before the first Init and
// NRT_CLOSED after Close; Init when already INIT is a no-op. In a child forked from an
// initialised process every such call returns NRT_FAILURE (the child shares no device).
//
// Thread safety: every method, from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "driver/device.h"
#include "runtime/async_requests.h"
#include "runtime/collectives.h"
#include "runtime/config.h"
#include "runtime/debug_clients.h"
#include "runtime/executions.h"
#include "runtime/instance_queries.h"
#include "runtime/lifecycle.h"
#include "runtime/models.h"
#include "runtime/profiler.h"
#include "runtime/tensor_table.h"

namespace trnsim::runtime {

class Runtime {
 public:
  static Runtime& Get();

  // nrt_init: NRT_INVALID for a framework type outside nrt_framework_type_t; otherwise
  // Session::Open's statuses.
  Status Init(uint32_t framework, const std::string& framework_version,
              const std::string& fal_version);
  // nrt_close: waits for running executions and host collectives and for every queued async
  // request, then ends profiling, unloads every model and frees every tensor and set.
  void Close();
  // OK when initialised; else NRT_UNINITIALIZED, NRT_CLOSED or NRT_FAILURE (forked child).
  Status CheckInitialized() const { return lifecycle_.Check(); }

  InstanceQueries& instance() { return instance_; }
  TensorTable& tensors() { return tensors_; }
  Models& models() { return models_; }
  Executions& executions() { return executions_; }
  AsyncRequests& async() { return async_; }
  Collectives& collectives() { return collectives_; }
  Profiler& profiling() { return profiler_; }
  DebugClients& debug() { return debug_; }

  // For layers above (tools, tests); valid only while initialised.
  driver::Device* device();
  const RuntimeConfig& config();

 private:
  Runtime();
  static void OnForkChild();  // pthread_atfork child handler

  // In dependency order: each is built from those above it.
  Lifecycle lifecycle_;
  Profiler profiler_;
  InstanceQueries instance_{lifecycle_};
  TensorTable tensors_{lifecycle_, profiler_.runtime_trace()};
  Models models_{lifecycle_, profiler_.sys_trace()};
  Executions executions_{lifecycle_, tensors_, profiler_.sys_trace()};
  AsyncRequests async_{lifecycle_};
  Collectives collectives_{lifecycle_, tensors_};
  DebugClients debug_{lifecycle_};
};

}  // namespace trnsim::runtime
