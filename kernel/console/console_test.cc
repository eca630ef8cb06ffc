#include "kernel/console/console.h"

#include <string>

#include "gtest/gtest.h"

namespace starling::console {
namespace {

// What the stall detector asks before it prints from an interrupt: has the
// last print ended its line? (The "in progress" half needs an interrupt in
// the middle of a print: //test/runtime:stall_qemu_test.)
TEST(Console, AtLineStartOnlyAfterANewline) {
  print("console_test: a line\n");
  EXPECT_TRUE(at_line_start());
  print("console_test: half a line");
  EXPECT_FALSE(at_line_start());
  print("");  // nothing printed: nothing changes
  EXPECT_FALSE(at_line_start());
  print(", the rest\n");
  EXPECT_TRUE(at_line_start());
  print_dec(42);
  EXPECT_FALSE(at_line_start());
  print("\n");
  print_hex(0x2a);
  EXPECT_FALSE(at_line_start());
  print(" and more\nconsole_test: ");
  EXPECT_FALSE(at_line_start());
  print("end\n");
  EXPECT_TRUE(at_line_start());
}

// Every refusal has one shape (operators and tests grep ": ignoring ").
TEST(Console, FormatIgnoringJoinsWhatAndSaysWhatIsInForce) {
  text::Line<128> line;
  format_ignoring(line, "echo", {"bootargs ip=: ", "bad netmask"}, "using the default");
  EXPECT_EQ(line.view(), "echo: ignoring bootargs ip=: bad netmask; using the default");
  text::Line<128> bare;
  format_ignoring(bare, "httpd", {"httpd.http= (want serve or redirect)"});
  EXPECT_EQ(bare.view(), "httpd: ignoring httpd.http= (want serve or redirect)");
}

// Printed as one line, even when too long for the line's buffer.
TEST(Console, PrintIgnoringEndsItsLineEvenWhenCut) {
  print_ignoring("console_test", {"a.key=: ", "too large"}, "keeping 8");
  EXPECT_TRUE(at_line_start());
  const std::string long_what(400, 'x');
  print_ignoring("console_test", {long_what});
  EXPECT_TRUE(at_line_start());
}

}  // namespace
}  // namespace starling::console
