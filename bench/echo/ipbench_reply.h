#ifndef STARLING_BENCH_ECHO_IPBENCH_REPLY_H_
#define STARLING_BENCH_ECHO_IPBENCH_REPLY_H_

#include <optional>
#include <string_view>

#include "bench/echo/csv.h"

// The client side of the ipbench cpu_target_lukem utilisation protocol
// (docs/benchmarks.md): judging the server's replies. The socket
// work is in loadgen.cc; what can be wrong in the parsing is here.
namespace starling::bench {

// "100 IPBENCH V1.0" (the greeting) or "200 ..." (an accepted command):
// the line's code is the expected one, followed by a space or the end.
bool reply_has_code(std::string_view line, std::string_view code);

// The whole answer to STOP, up to the server's close:
//   "220 VALID DATA (Data to follow)\nContent-length: N\n,<idle>,<total>"
// The body must be exactly N bytes (a trailing newline is tolerated) and
// idle <= total. nullopt for anything else.
std::optional<Utilisation> parse_stop_reply(std::string_view reply);

}  // namespace starling::bench

#endif  // STARLING_BENCH_ECHO_IPBENCH_REPLY_H_
