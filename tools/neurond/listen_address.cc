#include "tools/neurond/listen_address.h"

#include <cctype>

namespace trnsim::neurond {

StatusOr<std::string> ParseListenAddress(std::string_view address, bool allow_remote) {
  const std::string text(address);
  if (address.starts_with("unix:")) {
    if (address.size() == 5) return InvalidError("listen address '" + text + "' has no path");
    return text;
  }
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == address.size()) {
    return InvalidError("listen address '" + text +
                        "' is neither unix:PATH nor HOST:PORT (e.g. 127.0.0.1:50051)");
  }
  std::string_view host = address.substr(0, colon);
  std::string_view port = address.substr(colon + 1);
  if (port.size() > 5) return InvalidError("listen address '" + text + "': port out of range");
  int port_number = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return InvalidError("listen address '" + text + "': port '" + std::string(port) +
                          "' is not a number");
    }
    port_number = port_number * 10 + (c - '0');
  }
  if (port_number > 65535) return InvalidError("listen address '" + text + "': port out of range");
  const bool loopback = host == "127.0.0.1" || host == "[::1]" || host == "localhost";
  if (!loopback && !allow_remote) {
    return InvalidError("listen address '" + text +
                        "' is not loopback (127.0.0.1, [::1], localhost or unix:PATH); "
                        "pass --allow-remote to listen beyond this host");
  }
  return text;
}

}  // namespace trnsim::neurond
