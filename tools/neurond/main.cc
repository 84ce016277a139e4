// neurond: hosts one emulated Trainium instance for many client processes (trnsim's libnrt
// with TRNSIM_DAEMON=ADDR). See tools/neurond/README.md.
//
//   neurond --listen ADDR --instance TYPE [--lnc N] [--token-file F] [--allow-remote]
//           [--tls-cert PEM --tls-key PEM]
//           [--max-sessions N] [--max-sessions-per-peer N] [--max-threads N]
//           [--show-all-processes] [--max-session-memory BYTES]
//           [--max-session-program-memory BYTES] [--shutdown-grace-ms MS]
//           [--max-trace-events N] [--max-trace-bytes BYTES] [--max-exec-events N]
//           [--max-exec-ms MS] [--cluster-listen HOST:PORT [--ultraserver ID] [--peer-ca PEM]]
//   neurond --version | --help
//
// Started by systemd socket activation (LISTEN_PID/LISTEN_FDS, socket_activation.h) it serves
// the socket it was passed; --listen may then be left out, and must name that socket if given.
//
// SIGTERM or SIGINT: stop accepting calls, let calls in flight finish (up to the grace period),
// end every session, exit 0. Exit 1 when the daemon cannot start, 2 for bad arguments.
#include <CLI/CLI.hpp>
#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <optional>

#include "common/env.h"
#include "common/log.h"
#include "common/token_file.h"
#include "common/version.h"
#include "simulator/spec/instance_spec.h"
#include "tools/cli/version_text.h"
#include "tools/neurond/credentials.h"
#include "tools/neurond/daemon.h"

namespace {

using namespace trnsim;

// The daemon logs at INFO (one line per session open and close) unless NEURON_RT_LOG_LEVEL
// says otherwise.
void ConfigureDaemonLogging() {
  Environment env = Environment::FromProcess();
  if (env.Raw(EnvVar::kLogLevel).has_value()) {
    ConfigureLogging(env);
    return;
  }
  std::map<std::string, std::string> values = {{"NEURON_RT_LOG_LEVEL", "INFO"}};
  if (auto location = env.Raw(EnvVar::kLogLocation)) {
    values["NEURON_RT_LOG_LOCATION"] = std::string(*location);
  }
  ConfigureLogging(Environment::FromMap(values));
}

// Fixed malloc thresholds, so that memory a session used goes back to the host when it ends.
// By default glibc raises its mmap threshold (up to 32 MiB) when a large block is freed, and its
// trim threshold to twice that. A core's SBUF (24 MiB, reference::CoreState) was then served
// from the executing gRPC thread's arena and, when the core was released, stayed in that arena's
// top chunk: below the raised trim threshold, and out of malloc_trim's reach (it trims only the
// main arena's top). After 16 clients (api.remote.load), 45-170 MiB stayed resident that way, in
// ~32 MiB arena heaps whose memory malloc_info showed as free, and malloc_trim(0) gave back
// nothing. (SBUF and PSUM are now their own mappings, simulator/memory/lazy_buffer.h; other large
// blocks still take this path.) Fixed values turn the dynamic thresholds off: blocks of 4 MiB and
// more get their own mapping, unmapped on free, and an arena's free top is trimmed on free once
// above 64 MiB. The trim threshold was glibc's default 128 KiB until issue 21: every execution's
// working blocks below 4 MiB then went back to the host when freed and were faulted in again,
// zero-filled, by the next execution — page faults were 40% of the daemon's CPU and added ~4.5 ms
// to vector_add_fp32 over in-process (bench/README "nrt_remote_bench"). 64 MiB keeps such blocks
// for the next execution; it bounds what an idle arena keeps to 64 MiB, while anything of 4 MiB
// or more is still unmapped on free.
// What stays is then per arena, and glibc makes up to eight arenas per host core: after 16
// clients (api.remote.load, 2 cores) 13-16 arenas kept 1-2 MiB each, 13-16 MiB in all, and
// malloc_trim(0) gave back 0.2 MiB of it (it never shrinks a thread arena's top). One arena
// per host core bounds that by the cores, not by the threads that ever ran: +0.8 MiB with one
// arena, +1.8 MiB with two, +4.8 MiB with four, on the same load. Threads beyond the cores
// cannot all be in malloc at once, and the hot paths allocate from thread-local scratch:
// vector_add_fp32 and a tiny NEFF through the daemon took the same time with 2 arenas as with
// the default (nrt_remote_bench, same run).
void ConfigureMalloc() {
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  mallopt(M_ARENA_MAX, cores > 0 ? static_cast<int>(cores) : 1);
}

int Fail(const Status& status) {
  std::fprintf(stderr, "neurond: %s\n", status.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"neurond: one emulated Trainium instance shared by many trnsim clients"};
  std::string listen, instance_name, token_file, tls_cert, tls_key;
  neurond::DaemonOptions options;
  int64_t grace_ms = 10000;
  int64_t max_exec_ms = options.service.max_exec_time.count();
  app.add_option("--listen", listen,
                 "unix:PATH, 127.0.0.1:PORT, [::1]:PORT or localhost:PORT (PORT 0: any free); "
                 "required unless systemd passes the socket");
  app.add_option("--instance", instance_name, "the instance type, e.g. trn2.48xlarge")->required();
  app.add_option("--lnc", options.service.lnc,
                 "cores are taken in whole logical cores of this many physical ones (1 or 2)");
  app.add_option("--token-file", token_file, "clients must present this file's first line");
  app.add_flag("--allow-remote", options.allow_remote, "allow a non-loopback listen address");
  CLI::Option* cert_option = app.add_option(
      "--tls-cert", tls_cert, "serve TLS with this PEM certificate (chain); needs --tls-key");
  CLI::Option* key_option =
      app.add_option("--tls-key", tls_key, "the PEM private key of --tls-cert (no passphrase)");
  cert_option->needs(key_option);
  key_option->needs(cert_option);
  app.add_option("--max-sessions", options.service.max_sessions, "sessions open at once")
      ->capture_default_str();
  app.add_option("--max-sessions-per-peer", options.service.max_sessions_per_peer,
                 "sessions one client (host address, or local uid) may hold at once")
      ->capture_default_str();
  app.add_option("--max-threads", options.service.max_threads,
                 "threads serving calls; a call past them is refused (RESOURCE_EXHAUSTED)")
      ->capture_default_str();
  app.add_flag("--show-all-processes", options.service.show_all_processes,
               "Status shows other sessions' pid and command line on TCP/TLS too");
  app.add_option("--max-session-memory", options.service.max_session_memory_bytes,
                 "bytes one session may hold: device memory, programs and uploads (0: no limit)")
      ->capture_default_str();
  app.add_option("--max-session-program-memory", options.service.max_session_program_bytes,
                 "bytes of loaded programs and uploads one session may hold (0: no limit)")
      ->capture_default_str();
  app.add_option("--max-trace-events", options.service.max_trace_events,
                 "events one execution's trace may record; past it the trace is truncated")
      ->capture_default_str();
  app.add_option("--max-trace-bytes", options.service.max_trace_bytes,
                 "host bytes one execution's trace may hold; past it the trace is truncated")
      ->capture_default_str();
  app.add_option("--max-exec-events", options.service.max_exec_events,
                 "scheduler events one execution may run before NRT_TIMEOUT (0: 2^28)")
      ->capture_default_str();
  app.add_option("--max-exec-ms", max_exec_ms,
                 "the longest host time of one execution, whatever its timeout (0: its own)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--cluster-listen", options.cluster.listen,
                 "also serve other daemons of multi-instance jobs on this HOST:PORT, the "
                 "address a job's NEURON_RT_ROOT_COMM_ID names (docs/cluster.md)");
  app.add_option("--ultraserver", options.cluster.ultraserver,
                 "the Trn2 UltraServer this trn2u.48xlarge node belongs to: jobs across "
                 "nodes with the same ID use its Z links instead of EFA")
      ->needs("--cluster-listen");
  app.add_option("--peer-ca", options.cluster.peer_ca_file,
                 "PEM roots the TLS certificates of other daemons chain to (with --tls-cert)")
      ->needs("--cluster-listen");
  app.add_option("--shutdown-grace-ms", grace_ms,
                 "on SIGTERM, how long calls in flight may take to finish")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.set_version_flag("--version",
                       trnsim::cli::VersionText("neurond", trnsim::TrnsimVersion(),
                                                trnsim::TrnsimGitHash()),
                       "print the trnsim version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 prints the message (or the help); a bad command line is exit status 2 whatever
    // CLI11's own code for it.
    return app.exit(error) == 0 ? 0 : 2;
  }

  StatusOr<std::optional<neurond::InheritedSocket>> inherited =
      neurond::InheritedListenSocket(Environment::FromProcess(), getpid());
  if (!inherited.ok()) return Fail(inherited.status());
  if (!inherited->has_value() && listen.empty()) {
    std::fprintf(stderr,
                 "neurond: --listen is required (unless started by systemd socket "
                 "activation)\nRun with --help for more information.\n");
    return 2;
  }
  options.inherited = *inherited;

  ConfigureDaemonLogging();
  ConfigureMalloc();
  StatusOr<const simulator::InstanceSpec*> instance = simulator::FindInstanceSpec(instance_name);
  if (!instance.ok()) return Fail(instance.status());
  options.instance = *instance;
  options.listen = listen;
  options.service.max_exec_time = std::chrono::milliseconds(max_exec_ms);
  if (!token_file.empty()) {
    StatusOr<std::string> token = ReadTokenFile(token_file);
    if (!token.ok()) return Fail(token.status());
    options.service.token = *token;
  }
  if (!tls_cert.empty() || !tls_key.empty()) {
    StatusOr<neurond::TlsKeyPair> tls = neurond::ReadTlsKeyPair(tls_cert, tls_key);
    if (!tls.ok()) return Fail(tls.status());
    options.tls = *std::move(tls);
  }

  // Block the signals before any thread starts so that only sigwait below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  StatusOr<std::unique_ptr<neurond::Daemon>> daemon = neurond::Daemon::Start(options);
  if (!daemon.ok()) return Fail(daemon.status());
  std::printf("neurond: listening on %s\n", (*daemon)->address().c_str());
  if (!(*daemon)->cluster_address().empty()) {
    std::printf("neurond: cluster on %s\n", (*daemon)->cluster_address().c_str());
  }
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  TRNSIM_LOG(Info, Tool) << "neurond: " << (signal_number == SIGTERM ? "SIGTERM" : "SIGINT")
                         << ", draining";
  (*daemon)->Shutdown(std::chrono::milliseconds(grace_ms));
  daemon->reset();
  return 0;
}
