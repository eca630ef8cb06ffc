// Host test: the bounded formatter (writer.h) and the small printf
// (printf.h), under ASan/UBSan.
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdint>
#include <limits>
#include <string>

#include "kernel/text/printf.h"
#include "kernel/text/writer.h"

namespace starling::text {
namespace {

std::string format(const char* f, ...) {
  Line<128> line;
  va_list args;
  va_start(args, f);
  vformat(line, f, args);
  va_end(args);
  return std::string(line.view());
}

TEST(TextWriterTest, NumbersInEveryBase) {
  Line<128> w;
  w.put_decimal(0);
  w.put(' ');
  w.put_decimal(std::numeric_limits<std::uint64_t>::max());
  w.put(' ');
  w.put_signed(std::numeric_limits<std::int64_t>::min());
  w.put(' ');
  w.put_hex(0xbeef);
  w.put(' ');
  w.put_hex(0xa, 4, true);
  w.put(' ');
  w.put_hex(~std::uint64_t{0});
  w.put(' ');
  w.put_fixed(123456, 9);
  EXPECT_EQ(w.view(),
            "0 18446744073709551615 -9223372036854775808 beef 000A ffffffffffffffff 0.000123456");
  EXPECT_FALSE(w.overflowed());
}

TEST(TextWriterTest, NeverWritesPastItsEndAndSaysSo) {
  Line<5> w;
  w.put("abc");
  w.put_decimal(12345);
  EXPECT_EQ(w.view(), "abc12");
  EXPECT_TRUE(w.overflowed());
  EXPECT_EQ(w.room(), 0u);
}

TEST(PrintfTest, EachConversionTakesOneArgumentOfItsSize) {
  EXPECT_EQ(format("%d %i %u %x %X %c %s %%", -5, 7, 8u, 0xabu, 0xabu, 'q', "str"),
            "-5 7 8 ab AB q str %");
  // ll reads one long long (a second read would show the next argument).
  EXPECT_EQ(format("%lld %s", -1234567890123LL, "next"), "-1234567890123 next");
  EXPECT_EQ(format("%llu %lx %zu", 18446744073709551615ULL, 0xfffffffffUL, std::size_t{42}),
            "18446744073709551615 fffffffff 42");
  EXPECT_EQ(format("%5d|%-3s|%08x", 1, "a", 0x1fu), "1|a|1f");  // widths read, ignored
  EXPECT_EQ(format("%s", static_cast<const char*>(nullptr)), "(null)");
  EXPECT_EQ(format("%q and %"), "%? and ");
  EXPECT_EQ(format("%p", reinterpret_cast<void*>(0x1000)), "0x1000");
}

}  // namespace
}  // namespace starling::text
