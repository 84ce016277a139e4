#include "runtime/version.h"

namespace trnsim::runtime {

const char* TrnsimVersion() { return TRNSIM_VERSION; }
const char* TrnsimGitHash() { return TRNSIM_GIT_HASH; }

}  // namespace trnsim::runtime
