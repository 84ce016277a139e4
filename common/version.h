// trnsim's own version ("0.1.0", the CMake project version) and the git commit it was built from
// ("unknown" outside git). Compiled into one library, trnsim_version (common/CMakeLists.txt), the
// one place the build injects them; every layer that names trnsim's version reads it here.
#pragma once

namespace trnsim {

const char* TrnsimVersion();
const char* TrnsimGitHash();

}  // namespace trnsim
