// A complete TCP service, shown whole in docs/writing-an-app.md ("A TCP
// service"; test/lint/doc_snippets.py keeps the copy exact): port 7001 answers
// "hello, " and the first thing a client sends, then closes.
// //test/host_board:guide_apps_test talks to it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/timeout.h"
#include "kernel/boot/app.h"
#include "net/tcp/handoff.h"
#include "net/tcp/tcp.h"
#include "platform/network.h"

namespace {
using namespace starling;

std::uint64_t g_refused = 0;  // connections reset: no coroutine frame for them

async::Task<void> greet(net::StreamHandoff handoff) {
  net::TcpStream stream = handoff.take();
  std::byte name[64];
  auto n = co_await async::with_timeout(stream.read(name), 10 * async::kSecond);
  if (!n.ok() || *n == 0) {  // silent, gone or reset: nothing to answer
    stream.abort();
    co_return {};
  }
  constexpr std::string_view kHello = "hello, ";
  auto said = co_await stream.write(std::as_bytes(std::span(kHello)));
  if (said.ok()) said = co_await stream.write(std::span<const std::byte>(name, *n));
  if (!said.ok()) {
    stream.abort();  // an RST: the answer is incomplete
    co_return {};
  }
  co_return stream.close();  // a FIN: the answer is whole
}

async::Task<void> hello(std::uint16_t port) {
  auto listener = net::TcpListener::listen(port, 8);
  if (!listener.ok()) co_return Unexpected(listener.error());
  async::Scope connections;  // one task per connection; ending hello cancels them
  for (;;) {
    auto stream = co_await listener->accept();
    if (!stream.ok() && stream.error() == Error::kNoMemory) {
      co_await async::sleep_for(async::kMillisecond);  // frames are bounded: wait, go on
      continue;
    }
    if (!stream.ok()) co_return Unexpected(stream.error());
    // A spawn that finds no frame resets this one connection (the handoff
    // does it), which is all there is to do: its result is not needed.
    (void)connections.spawn(greet(net::StreamHandoff(std::move(*stream), &g_refused)));
  }
}

async::Task<int> serve(const BootInfo& boot) {
  async::Scope scope;
  auto network = co_await board::bring_up_network("tcp_hello", boot, scope);
  if (!network.ok()) co_return board::kNetworkFailed;
  if (!scope.spawn(hello(7001)).ok()) co_return board::kServiceStopped;
  co_return co_await board::serve_until_stopped("tcp_hello", scope);
}
}  // namespace

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(serve(boot));
  return code.ok() ? *code : 1;
}
