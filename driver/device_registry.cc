// The explicit list of Device back ends. To add one: implement driver::Device in a folder of
// its own, expose an Open function, and add a row here (see driver/README.md).
#include <string>

#include "driver/device.h"
#include "driver/remote/remote_device.h"
#include "driver/sim/sim_device.h"

namespace trnsim::driver {
namespace {

struct Backend {
  const char* name;
  StatusOr<std::unique_ptr<Device>> (*open)(const DeviceOptions&);
};

constexpr Backend kBackends[] = {
    {"sim", &sim::OpenSimDevice},
    {"remote", &remote::OpenRemoteDevice},
};

}  // namespace

StatusOr<std::unique_ptr<Device>> OpenDevice(const DeviceOptions& options) {
  std::string known;
  for (const Backend& backend : kBackends) {
    if (options.backend == backend.name) return backend.open(options);
    known += (known.empty() ? "" : ", ") + std::string(backend.name);
  }
  return InvalidError("no device back end named '" + options.backend + "' in this build (has: " +
                      known + ")");
}

}  // namespace trnsim::driver
