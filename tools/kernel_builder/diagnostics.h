// Diagnostics: the first error of a kernel build. The typed emit helpers (Stream) return a plain
// InstRef so that generator code stays readable; when one fails, its error is recorded here
// and the returned InstRef is invalid. KernelBuilder::Build() returns the first error.
#pragma once

#include "common/status.h"

namespace trnsim::kb {

class Diagnostics {
 public:
  // Keeps `status` if it is the first error; OK statuses are ignored.
  void Record(const Status& status) {
    if (!status.ok() && first_.ok()) first_ = status;
  }
  bool ok() const { return first_.ok(); }
  const Status& first() const { return first_; }

 private:
  Status first_;
};

}  // namespace trnsim::kb
