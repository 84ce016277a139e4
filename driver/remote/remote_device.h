// The remote back end: a driver::Device whose instance lives in a neurond daemon
// (tools/neurond). Every method is one RPC of proto/neurond.proto; Write, Read and LoadProgram
// stream their payload in chunks of kChunkBytes (driver/remote/chunking.h), so transfers of any
// size stay far below gRPC's message limit. Write hands gRPC each chunk as a view of the
// caller's buffer, and Read copies each chunk from gRPC's buffers straight to the caller's (both
// as raw messages of the same wire format), so a transfer makes no copies of its own. The
// channel uses the transfer settings of driver/remote/transport.h.
//
// Shared-memory data plane: on a unix: address, when the daemon's Hello offers it
// (HelloResponse.shared_memory), Connect creates a memfd region of
// RemoteOptions::shared_region_bytes and registers it on the daemon's side socket
// (shared_region.h); Write and Read then move bytes through it (shared_transfer.h), gRPC
// carrying only control. When that setup fails (no side socket, a refusal) the streams serve
// every transfer, with one log line; a transfer that finds the region busy with another
// thread's takes the stream too. Over TCP the streams are the only path.
//
// Session: OpenRemoteDevice says Hello (protocol version, pid, command line, trnsim version,
// token, DeviceOptions::faults as canonical text: the daemon injects them), checks the daemon's
// instance type, then holds an Attach stream open on a background thread for the device's
// life — when this process exits or dies the stream breaks and the daemon frees the session's
// cores, memory and programs. The destructor says Goodbye. Every later call carries the
// session key in the metadata entry "trnsim-session-key".
//
// Addresses: "unix:PATH", or "HOST:PORT" with HOST an IPv4 address, a bracketed IPv6 address or
// a host name ("127.0.0.1:PORT", "[::1]:PORT", "localhost:PORT").
//
// TLS: with DeviceOptions::tls_ca_file set the channel is TLS (server authentication only: no
// client certificate; the token still authenticates the client), trusting only the PEM
// certificates of that file, and the daemon's certificate must name the address's host — or
// DeviceOptions::tls_server_name when set (e.g. "localhost" for a certificate of that name
// reached at 127.0.0.1). An unreadable file, or one without a PEM certificate, is NRT_FAILURE
// naming the file and the address, before any connection. Otherwise the connection is plaintext:
// the daemon listens on loopback unless started with --allow-remote.
//
// Errors: a status the daemon returns is passed on unchanged. Transport problems name the
// daemon's address: unreachable or broken connection NRT_FAILURE (so is a failed TLS handshake:
// plaintext against a TLS daemon or the reverse, an untrusted certificate, a wrong name — the
// message says what to check), a deadline NRT_TIMEOUT, a refused token NRT_INVALID. Every RPC
// has a deadline (RemoteOptions; Execute gets the execution's host timeout plus rpc_deadline,
// and none when the execution has no timeout), so a dead or hung daemon never hangs the
// caller. Once the Attach stream has broken the session is gone on the daemon
// side, and every later call fails at once with NRT_FAILURE saying why.
//
// HostAddress returns nullptr: daemon memory cannot be mapped into this process.
//
// Thread safety: all methods may be called concurrently from any thread (as driver::Device).
#pragma once

#include <chrono>
#include <memory>

#include "driver/device.h"

namespace trnsim::driver::remote {

struct RemoteOptions {
  // Deadline of every unary RPC, of Hello and of the wait for the Attach confirmation.
  std::chrono::milliseconds rpc_deadline{30'000};
  // Streamed transfers (Write, Read) get rpc_deadline plus one second per this many bytes, so
  // a multi-GiB transfer is not cut short while a stalled one still ends.
  uint64_t stream_bytes_per_second = uint64_t{64} << 20;
  // The shared-memory data plane (shared_transfer.h): on a unix: address to a daemon that offers
  // it, Write and Read go through a memfd region of this many bytes (up to four pieces of a
  // quarter of it in flight) instead of the chunked stream. 0: always the stream.
  uint64_t shared_region_bytes = uint64_t{16} << 20;
};

// Connects to the daemon at options.address with options.token. When options.instance is set,
// the daemon must emulate that same instance type (NRT_INVALID naming both otherwise).
StatusOr<std::unique_ptr<Device>> OpenRemoteDevice(const DeviceOptions& options);
StatusOr<std::unique_ptr<Device>> OpenRemoteDevice(const DeviceOptions& options,
                                                   const RemoteOptions& remote_options);

// Checks the shape of a daemon address (see above); NRT_INVALID naming it otherwise.
Status ValidateDaemonAddress(const std::string& address);

}  // namespace trnsim::driver::remote
