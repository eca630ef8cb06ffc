// The hooks net/lwip/arch/cc.h declares, defined once for every board:
//   starling_lwip_assert: LWIP_PLATFORM_ASSERT -> the kernel's panic with
//                         lwIP's message, file and line (riscv64); on the
//                         host board a message on stderr and abort().
//   starling_lwip_diag:   LWIP_PLATFORM_DIAG -> the console (a small printf:
//                         %s %d %i %u %x %X %c %p %%, with l/ll/h/hh/z
//                         length modifiers; widths are parsed and ignored).
//   starling_tcp_inpacket: admits every segment, weakly: net/tcp/tcp.cc
//                         defines the real one (one peer's share of
//                         received pbufs), linked with any TCP user.
// (starling_lwip_rand and the TCP ISN hook: net/port/random.cc; the
// reassembly share's hook: net/fairness/reassembly_share.cc.)
#include <cstdarg>
#include <cstdint>
#include <string_view>

#include "kernel/console/console.h"
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

void print_unsigned(std::uint64_t value, unsigned base, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char text[24];
  std::size_t n = 0;
  do {
    text[sizeof(text) - 1 - n++] = digits[value % base];
    value /= base;
  } while (value != 0);
  print(std::string_view(text + sizeof(text) - n, n));
}

}  // namespace

extern "C" void starling_lwip_assert(const char* message, const char* file, int line) {
#if defined(__riscv)
  print("lwIP assertion failed: ");
  print(message != nullptr ? message : "(null)");
  print(" at ");
  print(file != nullptr ? file : "?");
  print(":");
  starling::console::print_dec(line);
  print("\n");
  starling::panic("lwIP assertion failed");
#else
  std::fprintf(stderr, "lwIP assertion failed: %s at %s:%d\n", message, file, line);
  std::abort();
#endif
}

extern "C" void starling_lwip_diag(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const char* run = format;
  for (const char* p = format; *p != '\0'; ++p) {
    if (*p != '%') continue;
    print(std::string_view(run, static_cast<std::size_t>(p - run)));
    ++p;
    while (*p == '-' || *p == '0' || *p == ' ' || *p == '+' || *p == '#' ||
           (*p >= '1' && *p <= '9') || *p == '.') {
      ++p;
    }
    int longs = 0;
    bool size_t_arg = false;
    while (*p == 'l' || *p == 'h' || *p == 'z') {
      if (*p == 'l') ++longs;
      if (*p == 'z') size_t_arg = true;
      ++p;
    }
    switch (*p) {
      case 'd':
      case 'i': {
        std::int64_t v = (longs >= 1 || size_t_arg) ? va_arg(args, long) : va_arg(args, int);
        if (longs >= 2) v = va_arg(args, long long);
        starling::console::print_dec(v);
        break;
      }
      case 'u':
      case 'x':
      case 'X': {
        std::uint64_t v =
            (longs >= 1 || size_t_arg) ? va_arg(args, unsigned long) : va_arg(args, unsigned);
        print_unsigned(v, *p == 'u' ? 10 : 16, *p == 'X');
        break;
      }
      case 'c': {
        const char c = static_cast<char>(va_arg(args, int));
        print(std::string_view(&c, 1));
        break;
      }
      case 's': {
        const char* s = va_arg(args, const char*);
        print(s != nullptr ? s : "(null)");
        break;
      }
      case 'p':
        starling::console::print_hex(reinterpret_cast<std::uintptr_t>(va_arg(args, void*)));
        break;
      case '%':
        print("%");
        break;
      case '\0':
        --p;  // a lone '%' at the end
        break;
      default:
        print("%?");
        break;
    }
    run = p + 1;
  }
  print(run);
  va_end(args);
}

extern "C" [[gnu::weak]] err_t starling_tcp_inpacket(struct tcp_pcb*, struct pbuf*) {
  return ERR_OK;
}
