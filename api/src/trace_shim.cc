// nrt_trace_start / nrt_trace_stop (nrt_experimental.h): the system trace of every visible core,
// optionally with tensor allocations, written to a file by the stop (docs/profiling.md §7,
// runtime/profiling/runtime_trace.h).
#include "api/src/shim.h"
#include "nrt/nrt_experimental.h"

using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;

extern "C" {

NRT_STATUS nrt_trace_start(bool trace_mem) {
  return Report(__func__, Rt().profiling().StartTrace(trace_mem));
}

NRT_STATUS nrt_trace_stop(const char* filename) {
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return Report(__func__, Rt().profiling().StopTrace(filename));
}

}  // extern "C"
