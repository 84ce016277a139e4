#include "common/version.h"

namespace trnsim {

const char* TrnsimVersion() { return TRNSIM_VERSION; }
const char* TrnsimGitHash() { return TRNSIM_GIT_HASH; }

}  // namespace trnsim
