#include "kernel/text/printf.h"

#include <cstdint>
#include <string_view>

namespace starling::text {

void vformat(TextWriter& out, const char* format, va_list args) {
  for (const char* p = format; *p != '\0'; ++p) {
    if (*p != '%') {
      out.put(*p);
      continue;
    }
    ++p;
    while (*p == '-' || *p == '0' || *p == ' ' || *p == '+' || *p == '#' ||
           (*p >= '1' && *p <= '9') || *p == '.') {
      ++p;
    }
    int longs = 0;
    bool size_arg = false;
    while (*p == 'l' || *p == 'h' || *p == 'z') {
      if (*p == 'l') ++longs;
      if (*p == 'z') size_arg = true;
      ++p;
    }
    // One va_arg per conversion, of the type the modifiers name (h and hh
    // arrive promoted to int).
    switch (*p) {
      case 'd':
      case 'i':
        out.put_signed(longs >= 2   ? va_arg(args, long long)
                       : longs == 1 ? va_arg(args, long)
                       : size_arg   ? static_cast<long long>(va_arg(args, std::size_t))
                                    : va_arg(args, int));
        break;
      case 'u':
      case 'x':
      case 'X': {
        const std::uint64_t v = longs >= 2   ? va_arg(args, unsigned long long)
                                : longs == 1 ? va_arg(args, unsigned long)
                                : size_arg   ? va_arg(args, std::size_t)
                                             : va_arg(args, unsigned);
        if (*p == 'u') {
          out.put_decimal(v);
        } else {
          out.put_hex(v, 1, *p == 'X');
        }
        break;
      }
      case 'c':
        out.put(static_cast<char>(va_arg(args, int)));
        break;
      case 's': {
        const char* s = va_arg(args, const char*);
        out.put(s != nullptr ? std::string_view(s) : std::string_view("(null)"));
        break;
      }
      case 'p':
        out.put("0x");
        out.put_hex(reinterpret_cast<std::uintptr_t>(va_arg(args, void*)));
        break;
      case '%':
        out.put('%');
        break;
      case '\0':
        return;  // a lone '%' at the end
      default:
        out.put("%?");
        break;
    }
  }
}

}  // namespace starling::text
