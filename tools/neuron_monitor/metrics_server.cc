#include "tools/neuron_monitor/metrics_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

namespace trnsim::neuron_monitor {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kIdleTimeout = std::chrono::seconds(30);
constexpr uint64_t kBodyLimitBytes = 64 * 1024;
constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace

struct MetricsServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer retry{io};
  std::thread thread;
  std::string endpoint;
  std::mutex mutex;
  std::shared_ptr<const std::string> text = std::make_shared<const std::string>();

  std::shared_ptr<const std::string> Text() {
    std::lock_guard<std::mutex> lock(mutex);
    return text;
  }
  void Accept();
};

namespace {

// One client connection: read a request, answer it, repeat while the client keeps it alive.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, MetricsServer::Impl* server)
      : stream_(std::move(socket)), server_(server) {}

  void Read() {
    parser_.emplace();
    parser_->body_limit(kBodyLimitBytes);
    stream_.expires_after(kIdleTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset) {
      return Close();
    }
    if (ec) {  // a request that does not parse or is too large
      Reply(http::status::bad_request, "Bad Request\n", 11, false);
      return;
    }
    const http::request<http::string_body>& request = parser_->get();
    const std::string_view target(request.target().data(), request.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    const bool keep_alive = request.keep_alive();
    const unsigned version = request.version();
    if (path != "/metrics") {
      Reply(http::status::not_found, "Not Found\n", version, keep_alive);
    } else if (request.method() != http::verb::get && request.method() != http::verb::head) {
      Reply(http::status::method_not_allowed, "Method Not Allowed\n", version, keep_alive);
    } else {
      Reply(http::status::ok, *server_->Text(), version, keep_alive,
            request.method() == http::verb::head);
    }
  }

  void Reply(http::status status, std::string body, unsigned version, bool keep_alive,
             bool head = false) {
    response_ = {};
    response_.result(status);
    response_.version(version);
    response_.set(http::field::server, "neuron-monitor");
    response_.set(http::field::content_type,
                  status == http::status::ok ? kContentType : "text/plain; charset=utf-8");
    if (status == http::status::method_not_allowed) response_.set(http::field::allow, "GET, HEAD");
    response_.keep_alive(keep_alive);
    response_.body() = std::move(body);
    response_.prepare_payload();  // Content-Length of the body, also for HEAD
    if (head) response_.body().clear();
    stream_.expires_after(kIdleTimeout);
    if (head) {
      // Only the header: the Content-Length above stays what GET would send.
      serializer_.emplace(response_);
      http::async_write_header(
          stream_, *serializer_,
          [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWritten(ec); });
      return;
    }
    http::async_write(
        stream_, response_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWritten(ec); });
  }

  void OnWritten(beast::error_code ec) {
    if (ec || !response_.keep_alive()) return Close();
    Read();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  std::optional<http::response_serializer<http::string_body>> serializer_;
  MetricsServer::Impl* server_;
};

}  // namespace

void MetricsServer::Impl::Accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;  // shutting down
    if (ec) {
      // Out of descriptors or a transient failure: try again shortly rather than spin.
      retry.expires_after(std::chrono::milliseconds(100));
      retry.async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec) Accept();
      });
      return;
    }
    std::make_shared<Connection>(std::move(socket), this)->Read();
    Accept();
  });
}

MetricsServer::MetricsServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address,
                                                              int port) {
  auto impl = std::make_unique<Impl>();
  const std::string where = address + ":" + std::to_string(port);
  beast::error_code ec;
  tcp::resolver resolver(impl->io);
  const auto results = resolver.resolve(
      address, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return FailureError("cannot listen on " + where + ": " +
                        (ec ? ec.message() : std::string("no address")));
  }
  const tcp::endpoint endpoint = results.begin()->endpoint();
  tcp::acceptor& acceptor = impl->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return FailureError("cannot listen on " + where + ": " + ec.message());
  const tcp::endpoint bound = acceptor.local_endpoint(ec);
  const std::string host = bound.address().to_string();
  impl->endpoint =
      (bound.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(bound.port());
  impl->Accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    for (;;) {
      try {
        raw->io.run();
        return;
      } catch (const std::exception& e) {  // a handler failed: log it and keep serving
        std::fprintf(stderr, "neuron-monitor: metrics server: %s\n", e.what());
      }
    }
  });
  return std::unique_ptr<MetricsServer>(new MetricsServer(std::move(impl)));
}

MetricsServer::~MetricsServer() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MetricsServer::endpoint() const { return impl_->endpoint; }

void MetricsServer::Publish(std::string exposition) {
  auto text = std::make_shared<const std::string>(std::move(exposition));
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->text = std::move(text);
}

}  // namespace trnsim::neuron_monitor
