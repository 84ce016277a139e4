// DebugClients: nrt_debug_client_* over the session's debug streams (debug_clients.h).
#include "runtime/debug_clients.h"

namespace trnsim::runtime {

StatusOr<int> DebugClients::Connect(int vnc) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->debug_streams->Connect(vnc);
}

Status DebugClients::Close(int fd) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->debug_streams->Close(fd);
}

StatusOr<debug::DebugEvent> DebugClients::Read(int fd) {
  TRNSIM_ASSIGN_OR_RETURN(Lifecycle::Shared session, lifecycle_.Share());
  return session->debug_streams->Read(fd);
}

}  // namespace trnsim::runtime
