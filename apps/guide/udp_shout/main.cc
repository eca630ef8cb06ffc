// A complete UDP service, shown whole in docs/writing-an-app.md ("A UDP
// service"; test/lint/doc_snippets.py keeps the copy exact): each datagram to port
// 7000 comes back in upper case. //test/host_board:guide_apps_test talks to it.
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/boot/app.h"
#include "net/udp/udp.h"
#include "platform/network.h"

namespace {
using namespace starling;

async::Task<void> shout(std::uint16_t port) {
  net::UdpSocket socket;
  if (auto bound = socket.bind(port); !bound.ok()) co_return bound;  // ends the task: an error
  for (;;) {
    auto datagram = co_await socket.receive_from();
    if (!datagram.ok() && datagram.error() == Error::kNoMemory) {
      co_await async::sleep_for(async::kMillisecond);  // frames are bounded: wait, go on
      continue;
    }
    if (!datagram.ok()) co_return Unexpected(datagram.error());
    if (!datagram->unicast) continue;  // never answer a broadcast
    std::byte reply[1472];
    const std::size_t n = datagram->data.copy_to(reply);  // at most sizeof(reply)
    for (std::byte& b : std::span(reply, n)) {
      if (b >= std::byte{'a'} && b <= std::byte{'z'}) b &= std::byte{0xDF};
    }
    // A reply the full TX ring refuses is lost, as on any UDP path.
    (void)socket.send_to(datagram->from, std::span<const std::byte>(reply, n));
  }
}

async::Task<int> serve(const BootInfo& boot) {
  async::Scope scope;  // the netif's task and ours run in it
  auto network = co_await board::bring_up_network("udp_shout", boot, scope);
  if (!network.ok()) co_return board::kNetworkFailed;  // the console says why
  if (!scope.spawn(shout(7000)).ok()) co_return board::kServiceStopped;
  co_return co_await board::serve_until_stopped("udp_shout", scope);  // prints "udp_shout: ready"
}
}  // namespace

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(serve(boot));
  return code.ok() ? *code : 1;
}
