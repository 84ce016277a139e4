// Device profiles: per model (nrt_profile_start / _stop), per-core profile sessions
// (nrt_profile_session_*) and continuous profiling with its option object
// (docs/profiling.md §3, §7). The option object is a pure host object that works at any time.
// Inspect sessions are in inspect_shim.cc, nrt_trace_* in trace_shim.cc.
#include <new>
#include <string>

#include "api/src/shim.h"
#include "api/src/vnc_check.h"
#include "nrt/nrt_profile.h"
#include "runtime/profiling/continuous_options.h"

using trnsim::api::CheckInitializedVnc;
using trnsim::api::NullArgument;
using trnsim::api::Report;
using trnsim::api::Rt;
using trnsim::runtime::model::Model;
using trnsim::runtime::profiling::ContinuousOptions;

namespace {

// Option handles are the addresses of the runtime objects, created with new.
ContinuousOptions* Unwrap(nrt_profile_continuous_options_t* options) {
  return reinterpret_cast<ContinuousOptions*>(options);
}

}  // namespace

extern "C" {

// --- Per-model profile ------------------------------------------------------------------------

NRT_STATUS nrt_profile_start(nrt_model_t* model, const char* filename) {
  if (model == nullptr) return NullArgument(__func__, "model");
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return Report(__func__,
                Rt().profiling().StartProfile(reinterpret_cast<const Model*>(model), filename));
}

NRT_STATUS nrt_profile_stop(const char* filename) {
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return Report(__func__, Rt().profiling().StopProfile(filename));
}

// --- Per-core profile sessions ----------------------------------------------------------------

NRT_STATUS nrt_profile_session_start(int32_t vnc) {
  if (trnsim::Status ready = CheckInitializedVnc(vnc); !ready.ok()) return Report(__func__, ready);
  return Report(__func__, Rt().profiling().StartSession(vnc));
}

NRT_STATUS nrt_profile_session_stop(int32_t vnc, uint64_t* session_id) {
  if (session_id == nullptr) return NullArgument(__func__, "session_id");
  if (trnsim::Status ready = CheckInitializedVnc(vnc); !ready.ok()) return Report(__func__, ready);
  trnsim::StatusOr<uint64_t> id = Rt().profiling().StopSession(vnc);
  if (!id.ok()) return Report(__func__, id.status());
  *session_id = *id;
  return NRT_SUCCESS;
}

NRT_STATUS nrt_profile_session_serialize(uint64_t session_id, const char* filename) {
  if (filename == nullptr) return NullArgument(__func__, "filename");
  return Report(__func__, Rt().profiling().SerializeSession(session_id, filename));
}

NRT_STATUS nrt_profile_session_drop(uint64_t session_id) {
  return Report(__func__, Rt().profiling().DropSession(session_id));
}

NRT_STATUS nrt_profile_session_drop_all(int32_t vnc) {
  if (trnsim::Status ready = CheckInitializedVnc(vnc); !ready.ok()) return Report(__func__, ready);
  return Report(__func__, Rt().profiling().DropAllSessions(vnc));
}

// --- Continuous profiling ---------------------------------------------------------------------

NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t** options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  auto* made = new (std::nothrow) ContinuousOptions();
  if (made == nullptr) {
    return Report(__func__, trnsim::ResourceError("cannot allocate continuous-profiling options"));
  }
  *options = reinterpret_cast<nrt_profile_continuous_options_t*>(made);
  return NRT_SUCCESS;
}

NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t* options) {
  delete Unwrap(options);  // NULL is a no-op
  return NRT_SUCCESS;
}

NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t* options,
                                                         const char* output_dir) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (output_dir == nullptr) return NullArgument(__func__, "output_dir");
  return Report(__func__, Unwrap(options)->SetOutputDir(output_dir));
}

NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t* options) {
  // The options hold only the output directory, which save takes again.
  if (options == nullptr) return NullArgument(__func__, "options");
  return Report(__func__, Rt().profiling().StartContinuous());
}

NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t* options) {
  if (options == nullptr) return NullArgument(__func__, "options");
  if (trnsim::Status ready = CheckInitializedVnc(vnc); !ready.ok()) return Report(__func__, ready);
  return Report(__func__, Rt().profiling().SaveContinuous(int(vnc), Unwrap(options)->output_dir()));
}

NRT_STATUS nrt_profile_continuous_stop(void) {
  return Report(__func__, Rt().profiling().StopContinuous());
}

}  // extern "C"
