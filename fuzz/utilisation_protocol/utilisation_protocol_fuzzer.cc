// Fuzzes the ipbench utilisation protocol (net/ipbench/protocol.h): the bytes
// of TCP 1237 come from anyone on the network. The first input byte picks the
// segment size (1..16), so a line arrives whole, split or several per feed
// as TCP may deliver it; the rest is the byte stream. Checks the state
// machine's promises as well as memory safety: a reply is one of the
// protocol's, never longer than the buffer, `consumed` never exceeds what was
// fed, and closing is final.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/ipbench/protocol.h"

namespace {

using starling::net::ipbench::Sample;
using starling::net::ipbench::UtilisationProtocol;

void check(bool condition) {
  if (!condition) std::abort();
}

bool known_reply(std::string_view reply) {
  return reply.empty() || reply.starts_with("200 OK") || reply.starts_with("220 VALID DATA") ||
         reply.starts_with("400 ERROR (");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t segment = data[0] % 16 + 1;
  std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

  UtilisationProtocol protocol;
  // Cycle counters that may run backwards between START and STOP (a wrapped
  // or misread counter): the difference must still be computed without UB.
  Sample now{.idle_cycles = 0xFFFFFFFFFFFFFF00u, .total_cycles = 5};
  bool was_closed = false;
  while (!stream.empty()) {
    const std::string_view bytes = stream.substr(0, segment);
    stream.remove_prefix(bytes.size());
    const auto out = protocol.feed(bytes, now);
    check(out.consumed <= bytes.size());
    check(out.reply.size() <= 512);
    check(known_reply(out.reply));
    if (out.close) check(protocol.closed());
    if (was_closed) check(protocol.closed());
    was_closed = protocol.closed();
    now.idle_cycles += static_cast<std::uint64_t>(bytes.size()) * 977;
    now.total_cycles -= bytes.size();
  }
  return 0;
}
