#include "net/ipbench/utilisation.h"

#include <array>
#include <span>
#include <utility>

#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"

namespace starling::net::ipbench {

namespace {
async::Task<void> send(TcpStream& s, std::string_view text) {
  if (text.empty()) co_return {};
  Result<std::size_t> w = co_await s.write(std::as_bytes(std::span(text.data(), text.size())));
  if (!w) co_return Unexpected(w.error());
  co_return {};
}
}  // namespace

constinit UtilisationStats g_stats{};

const UtilisationStats& utilisation_stats() noexcept {
  return g_stats;
}

async::Task<void> serve_utilisation_client(TcpStream stream, Sampler sampler, void* context,
                                           std::uint64_t idle_timeout_ns,
                                           std::uint64_t command_timeout_ns) noexcept {
  UtilisationProtocol protocol;
  Result<void> r = co_await send(stream, UtilisationProtocol::kGreeting);
  if (!r) co_return r;
  std::array<char, 256> buf;
  for (;;) {
    const bool measuring = protocol.measuring();
    Result<std::size_t> n =
        co_await async::with_timeout(stream.read(std::as_writable_bytes(std::span(buf))),
                                     measuring ? idle_timeout_ns : command_timeout_ns);
    if (!n && n.error() == Error::kTimedOut) {
      ++(measuring ? g_stats.idle_timeouts : g_stats.command_timeouts);
      break;
    }
    if (!n) co_return Unexpected(n.error());
    if (*n == 0) break;  // client went away
    UtilisationProtocol::Output out =
        protocol.feed(std::string_view(buf.data(), *n), sampler(context));
    r = co_await send(stream, out.reply);
    if (!r) co_return r;
    if (out.close) break;
  }
  co_return stream.close();
}

async::Task<void> serve_utilisation(TcpListener& listener, Sampler sampler, void* context,
                                    std::uint64_t idle_timeout_ns,
                                    std::uint64_t command_timeout_ns) noexcept {
  for (;;) {
    Result<TcpStream> s = co_await listener.accept();
    if (!s && s.error() == Error::kCancelled) co_return Unexpected(s.error());
    if (!s) {
      ++g_stats.accept_errors;
      co_await async::sleep_for(async::kMillisecond);
      continue;
    }
    ++g_stats.clients;
    // One client at a time; a client's failure does not stop the service.
    (void)co_await serve_utilisation_client(std::move(*s), sampler, context, idle_timeout_ns,
                                            command_timeout_ns);
  }
}

}  // namespace starling::net::ipbench
