#ifndef STARLING_KERNEL_TEXT_PRINTF_H_
#define STARLING_KERNEL_TEXT_PRINTF_H_

#include <cstdarg>

#include "kernel/text/writer.h"

namespace starling::text {

// A small printf for C code's diagnostics (lwIP's LWIP_PLATFORM_DIAG):
// %s %d %i %u %x %X %c %p %%, with the l, ll, h, hh and z length modifiers;
// flags, widths and precisions are read and ignored. An unknown conversion
// writes "%?". Into `out`, bounded as every TextWriter is.
void vformat(TextWriter& out, const char* format, va_list args);

}  // namespace starling::text

#endif  // STARLING_KERNEL_TEXT_PRINTF_H_
