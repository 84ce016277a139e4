#include "tools/device_plugin/kubelet_agent.h"

#include <sys/stat.h>

#include <optional>

#include "common/log.h"
#include "tools/device_plugin/registration.h"

namespace trnsim::device_plugin {
namespace {

using Identity = std::tuple<long, long, long, long>;

std::optional<Identity> SocketIdentity(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return std::nullopt;
  return Identity{long(info.st_dev), long(info.st_ino), long(info.st_ctim.tv_sec),
                  long(info.st_ctim.tv_nsec)};
}

}  // namespace

KubeletAgent::KubeletAgent(std::string kubelet_dir,
                           std::vector<std::unique_ptr<PluginServer>>* servers,
                           std::chrono::milliseconds register_deadline)
    : kubelet_dir_(std::move(kubelet_dir)),
      servers_(servers),
      register_deadline_(register_deadline),
      entries_(servers->size()) {}

void KubeletAgent::Tick() {
  const std::optional<Identity> kubelet = SocketIdentity(kubelet_dir_ + "/" + kKubeletSocket);
  for (size_t i = 0; i < servers_->size(); ++i) {
    PluginServer& server = *(*servers_)[i];
    Entry& entry = entries_[i];
    auto fail = [&](const Status& status) {
      entry.registered = false;
      if (status.message() == entry.last_error) return;
      entry.last_error = status.message();
      TRNSIM_LOG(Error, Tool) << "trnsim-device-plugin: " << status.message() << " (retrying)";
    };
    if (!server.running() || !SocketIdentity(server.socket_path()).has_value()) {
      if (server.running()) {
        TRNSIM_LOG(Info, Tool) << "trnsim-device-plugin: " << server.socket_path()
                               << " was removed (kubelet restarted?); serving it again";
      }
      if (Status started = server.Start(); !started.ok()) {
        fail(started);
        continue;
      }
      entry.registered = false;
    }
    if (entry.registered && kubelet.has_value() && entry.kubelet == *kubelet) continue;
    if (!kubelet.has_value()) {
      // One line for all resources, not one each.
      entry.registered = false;
      if (!kubelet_missing_logged_) {
        TRNSIM_LOG(Error, Tool) << "trnsim-device-plugin: kubelet's socket " << kubelet_dir_ << "/"
                                << kKubeletSocket << " is not there yet (waiting for it)";
      }
      kubelet_missing_logged_ = true;
      continue;
    }
    kubelet_missing_logged_ = false;
    if (Status registered =
            RegisterWithKubelet(kubelet_dir_, server.resource(), register_deadline_);
        !registered.ok()) {
      fail(registered);
      continue;
    }
    entry.registered = true;
    entry.kubelet = *kubelet;
    entry.last_error.clear();
    ++registrations_;
    TRNSIM_LOG(Info, Tool) << "trnsim-device-plugin: registered " << ResourceName(server.resource())
                           << " (endpoint " << EndpointName(server.resource()) << ") with kubelet";
  }
}

}  // namespace trnsim::device_plugin
