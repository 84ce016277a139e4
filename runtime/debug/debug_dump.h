// DebugDump: the runtime's built-in consumer of the debug streams, on when
// NEURON_RT_DEBUG_OUTPUT_DIR is set (docs/debug-stream.md, "Built-in consumer"). Each device
// print is written, before the execution that made it returns, to
//
//   <dir>/<prefix>/core_<vnc>/<iteration>/tensor.npy   the values, for numpy.load
//   <dir>/<prefix>/core_<vnc>/<iteration>/info.json    the event's fields
//
// - <prefix> is the print's prefix made a safe directory name (PrefixDirName).
// - <iteration> counts the prints of that prefix on that core in this process, from 0: one
//   directory per print, so a print in a loop and a print in every execution both number
//   0, 1, 2, ...
// - tensor.npy has the event's shape. Types NumPy has are written as themselves (float32r as
//   float32); bfloat16 and the fp8 types, which NumPy lacks, are widened exactly to float32
//   (every value, NaN payload included, converts back bit for bit); info.json's "dtype" keeps
//   the original name and "npy_dtype" says what the file holds.
// - info.json: {"prefix", "logical_nc_id", "pipe", "dtype", "npy_dtype", "shape",
//   "data_bytes"}.
//
// Errors (a directory or file that cannot be written) are returned for the caller to log; they
// never fail an execution.
//
// Thread safety: Write may be called from any thread; one mutex guards the counters and files.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "driver/debug_print.h"

namespace trnsim::runtime::debug {

class DebugDump {
 public:
  explicit DebugDump(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  // Writes one print of logical core `vnc`.
  Status Write(std::string_view prefix, int vnc, const driver::DebugPrint& print);

 private:
  std::string dir_;
  std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> iterations_;
};

// A directory name for `prefix`: '/', control characters and NUL become '_'; "", "." and ".."
// get a leading '_'; a name over 200 bytes is cut to 183 and ends in '_' and 16 hex digits of a
// hash of the whole prefix (file names are at most 255 bytes; distinct prefixes stay distinct).
std::string PrefixDirName(std::string_view prefix);

}  // namespace trnsim::runtime::debug
