// The hooks net/lwip/arch/cc.h declares, defined once for every board:
//   starling_lwip_assert: LWIP_PLATFORM_ASSERT -> the kernel's panic with
//                         lwIP's message, file and line (riscv64); on the
//                         host board a message on stderr and abort().
//   starling_lwip_diag:   LWIP_PLATFORM_DIAG -> the console, through the
//                         kernel's small printf (kernel/text/printf.h), one
//                         message of up to 256 bytes at a time.
//   starling_tcp_inpacket: admits every segment, weakly: net/tcp/peer_share.cc
//                         defines the real one (one peer's share of
//                         received pbufs), linked with any TCP user.
// (starling_lwip_rand and the TCP ISN hook: net/port/random.cc; the
// reassembly share's hook: net/fairness/reassembly_share.cc.)
#include <cstdarg>
#include <cstdint>
#include <string_view>

#include "kernel/console/console.h"
#include "kernel/text/printf.h"
#include "kernel/text/writer.h"
#include "net/lwip/arch/cc.h"
#include "net/lwip/arch/hooks.h"

#if defined(__riscv)
#include "kernel/panic/panic.h"
#else
#include <cstdio>
#include <cstdlib>
#endif

namespace {

using starling::console::print;

}  // namespace

extern "C" void starling_lwip_assert(const char* message, const char* file, int line) {
#if defined(__riscv)
  starling::text::Line<256> text;
  text.put("lwIP assertion failed: ");
  text.put(message != nullptr ? message : "(null)");
  text.put(" at ");
  text.put(file != nullptr ? file : "?");
  text.put(':');
  text.put_signed(line);
  text.put('\n');
  print(text.view());
  starling::panic("lwIP assertion failed");
#else
  std::fprintf(stderr, "lwIP assertion failed: %s at %s:%d\n", message, file, line);
  std::abort();
#endif
}

extern "C" void starling_lwip_diag(const char* format, ...) {
  starling::text::Line<256> line;
  va_list args;
  va_start(args, format);
  starling::text::vformat(line, format, args);
  va_end(args);
  print(line.view());
}

extern "C" [[gnu::weak]] err_t starling_tcp_inpacket(struct tcp_pcb*, u32_t, struct pbuf*) {
  return ERR_OK;
}
