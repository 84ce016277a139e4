// String lists handed across the C ABI the way AWS's libnrt hands them (the inspect activity
// types and the system-trace event types): a malloc'd array of malloc'd NUL-terminated
// strings, owned by the caller, who frees each string and then the array with free() or with
// the API's matching free call (which is FreeStringArray).
#pragma once

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace trnsim::api {

// Frees `count` strings of `array`, then the array. NULL is a no-op.
inline void FreeStringArray(const char** array, size_t count) {
  if (array == nullptr) return;
  for (size_t i = 0; i < count; ++i) std::free(const_cast<char*>(array[i]));
  std::free(const_cast<char**>(array));
}

// On success *out receives the new array and *count its length. The array is never NULL, even
// for an empty list, so callers that test the pointer see success. NRT_RESOURCE when malloc
// fails; nothing is written or leaked then.
inline Status MallocStringArray(const std::vector<std::string_view>& names, const char*** out,
                                size_t* count) {
  size_t slots = names.empty() ? 1 : names.size();
  auto** array = static_cast<const char**>(std::calloc(slots, sizeof(char*)));
  if (array == nullptr) return ResourceError("cannot allocate the name array");
  for (size_t i = 0; i < names.size(); ++i) {
    char* copy = static_cast<char*>(std::malloc(names[i].size() + 1));
    if (copy == nullptr) {
      FreeStringArray(array, i);
      return ResourceError("cannot allocate a name of the array");
    }
    std::memcpy(copy, names[i].data(), names[i].size());
    copy[names[i].size()] = '\0';
    array[i] = copy;
  }
  *out = array;
  *count = names.size();
  return Status::Ok();
}

}  // namespace trnsim::api
