// KubeletAgent: keeps every served resource registered with kubelet, across kubelet restarts.
// Each Tick():
//  - a resource whose endpoint socket is gone (kubelet clears its device-plugin directory when
//    it starts) or whose server is not running is served again (PluginServer::Start);
//  - a resource is registered again when it has not been registered with the kubelet.sock that
//    is there now (identified by device, inode and change time, so a recreated socket is a new
//    kubelet) or its endpoint was just restarted.
// A failure is logged once (one line) until it changes or succeeds, and retried at the next
// Tick, so a plugin started before kubelet registers as soon as kubelet is up.
//
// Thread safety: one thread calls Tick(); `servers` must outlive the agent.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tools/device_plugin/plugin_server.h"

namespace trnsim::device_plugin {

class KubeletAgent {
 public:
  KubeletAgent(std::string kubelet_dir, std::vector<std::unique_ptr<PluginServer>>* servers,
               std::chrono::milliseconds register_deadline);

  void Tick();
  // How many registrations have succeeded (all resources, since the start): for tests and logs.
  int registrations() const { return registrations_; }

 private:
  using Identity = std::tuple<long, long, long, long>;  // dev, inode, ctime s, ctime ns
  struct Entry {
    bool registered = false;
    Identity kubelet{};      // the kubelet.sock it registered with
    std::string last_error;  // logged once
  };

  const std::string kubelet_dir_;
  std::vector<std::unique_ptr<PluginServer>>* servers_;
  const std::chrono::milliseconds register_deadline_;
  std::vector<Entry> entries_;
  int registrations_ = 0;
  bool kubelet_missing_logged_ = false;
};

}  // namespace trnsim::device_plugin
