#ifndef STARLING_NET_IPBENCH_UTILISATION_H_
#define STARLING_NET_IPBENCH_UTILISATION_H_

#include "kernel/async/task.h"
#include "net/ipbench/protocol.h"
#include "net/tcp/tcp.h"

// The utilisation service over net/tcp (protocol in protocol.h).
namespace starling::net::ipbench {

// A measuring client (between START and STOP) that sends nothing for this
// long is closed (it would keep every other client out: one at a time).
// ipbench's client is quiet between START and STOP, for one sample run.
inline constexpr std::uint64_t kDefaultIdleTimeoutNs = 120'000'000'000;
// Outside a measurement (the greeting, HELLO, LOAD, SETUP) a client has this
// long for each next line: ipbench sends its commands back to back, so one
// that says nothing is only holding the service, and the next client in the
// backlog takes its place (issue 27: idle holders give way).
inline constexpr std::uint64_t kDefaultCommandTimeoutNs = 10'000'000'000;

// Serves one client on `stream` until STOP's data, QUIT, an error, EOF, or
// quiet past `idle_timeout_ns` while measuring, `command_timeout_ns`
// otherwise; closes the stream.
async::Task<void> serve_utilisation_client(
    TcpStream stream, Sampler sampler, void* context, std::uint64_t idle_timeout_ns,
    std::uint64_t command_timeout_ns = kDefaultCommandTimeoutNs) noexcept;
// Accepts clients one at a time, forever: a failed accept (no memory for a
// moment) is waited out and counted (accept_errors()), never the end of the
// service; only a closed listener (kCancelled) ends it.
async::Task<void> serve_utilisation(
    TcpListener& listener, Sampler sampler = executor_sampler, void* context = nullptr,
    std::uint64_t idle_timeout_ns = kDefaultIdleTimeoutNs,
    std::uint64_t command_timeout_ns = kDefaultCommandTimeoutNs) noexcept;

struct UtilisationStats {
  std::uint64_t clients = 0;
  std::uint64_t idle_timeouts = 0;     // measuring clients closed for saying nothing
  std::uint64_t command_timeouts = 0;  // clients closed for saying nothing between commands
  std::uint64_t accept_errors = 0;     // accept() failures waited out
};
const UtilisationStats& utilisation_stats() noexcept;

}  // namespace starling::net::ipbench

#endif  // STARLING_NET_IPBENCH_UTILISATION_H_
