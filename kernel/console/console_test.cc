#include "kernel/console/console.h"

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

}  // namespace
}  // namespace starling::console
