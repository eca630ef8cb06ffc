#include "net/ipbench/utilisation.h"

#include <array>
#include <span>
#include <utility>

namespace starling::net::ipbench {

namespace {
async::Task<void> send(TcpStream& s, std::string_view text) {
  if (text.empty()) co_return {};
  Result<std::size_t> w = co_await s.write(std::as_bytes(std::span(text.data(), text.size())));
  if (!w) co_return Unexpected(w.error());
  co_return {};
}
}  // namespace

async::Task<void> serve_utilisation_client(TcpStream stream, Sampler sampler,
                                           void* context) noexcept {
  UtilisationProtocol protocol;
  Result<void> r = co_await send(stream, UtilisationProtocol::kGreeting);
  if (!r) co_return r;
  std::array<char, 256> buf;
  for (;;) {
    Result<std::size_t> n = co_await stream.read(std::as_writable_bytes(std::span(buf)));
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

async::Task<void> serve_utilisation(TcpListener& listener, Sampler sampler,
                                    void* context) noexcept {
  for (;;) {
    Result<TcpStream> s = co_await listener.accept();
    if (!s) co_return Unexpected(s.error());
    // One client at a time; a client's failure does not stop the service.
    (void)co_await serve_utilisation_client(std::move(*s), sampler, context);
  }
}

}  // namespace starling::net::ipbench
