// Runtime: the process's one instance, nrt_init and nrt_close over the subsystems, and the
// fork handlers (runtime.h).
#include "runtime/runtime.h"

#include <pthread.h>

#include "common/env.h"
#include "common/log.h"

namespace trnsim::runtime {
namespace {

constexpr uint32_t kFrameworkTypeFirst = 1;  // NRT_FRAMEWORK_TYPE_NO_FW
constexpr uint32_t kFrameworkTypeLast = 5;   // NRT_FRAMEWORK_TYPE_PRECHECK

}  // namespace

Runtime& Runtime::Get() {
  // Never destroyed: libnrt may be called from other libraries' static destructors.
  static Runtime* runtime = new Runtime();
  return *runtime;
}

Runtime::Runtime() : profiler_(lifecycle_) {
  pthread_atfork([] { Get().lifecycle_.LockForFork(); }, [] { Get().lifecycle_.UnlockAfterFork(); },
                 &Runtime::OnForkChild);
}

void Runtime::OnForkChild() {
  Runtime& self = Get();
  // The child got a copy of the parent's state but shares no device with it: it must not free
  // anything the parent holds; everything it owns is abandoned.
  self.lifecycle_.BecomeForkedChild();
  self.tensors_.AbandonAfterFork();  // a parent's thread may hold its lock
}

Status Runtime::Init(uint32_t framework, const std::string& framework_version,
                     const std::string& fal_version) {
  return lifecycle_.Init(
      [&]() -> StatusOr<std::unique_ptr<Session>> {
        Environment env = Environment::FromProcess();
        ConfigureLogging(env);
        if (framework < kFrameworkTypeFirst || framework > kFrameworkTypeLast) {
          return InvalidError("framework type " + std::to_string(framework) +
                              " is not a valid nrt_framework_type_t");
        }
        return Session::Open(env, &profiler_.sys_trace());
      },
      [&](Session& session) {
        profiler_.Started(session);
        TRNSIM_LOG(Info, Nrt) << "initialised on emulated " << session.config.instance->type_name
                              << ", LNC=" << session.config.lnc << ", logical cores "
                              << session.VisibleText() << " (framework " << framework << " '"
                              << framework_version << "', fal '" << fal_version << "')";
      });
}

void Runtime::Close() {
  async_.ShutDown();  // queued requests complete first; they call back into the runtime
  const bool closed = lifecycle_.Close([this](Session& session) {
    profiler_.Closing(session);
    session.ShutDown();    // executor, streams, collectives, send/recv, models
    collectives_.Clear();  // nrta_cc contexts
    tensors_.Clear();      // device memory goes back before the device does
  });
  if (closed) {
    TRNSIM_LOG(Info, Nrt) << "closed";
  }
}

driver::Device* Runtime::device() {
  StatusOr<Lifecycle::Shared> session = lifecycle_.Share();
  return session.ok() ? (*session)->device.get() : nullptr;
}

const RuntimeConfig& Runtime::config() {
  StatusOr<Lifecycle::Shared> session = lifecycle_.Share();
  static const RuntimeConfig kNone;
  return session.ok() ? (*session)->config : kNone;
}

}  // namespace trnsim::runtime
