#ifndef STARLING_KERNEL_CONSOLE_LINE_EDITOR_H_
#define STARLING_KERNEL_CONSOLE_LINE_EDITOR_H_

#include <cstddef>
#include <span>

// The console's line discipline, bytes in and a line out, without the UART
// (console::read_line drives it; host tests and a fuzzer drive it directly):
// CR, LF or CR LF end a line (the LF of a CR LF pair is swallowed even when
// it arrives with a later read), backspace and DEL erase one character, bytes
// beyond the line's capacity are dropped and not echoed. Input is whatever a
// terminal, a script or line noise sends: every byte is acceptable.
namespace starling::console {

class LineEditor {
 public:
  // What a byte did, so the caller can echo it: kAppended (show the byte),
  // kErased (show "\b \b"), kLineDone (show a newline; length() is the line).
  enum class Event { kIgnored, kAppended, kErased, kLineDone };

  // Starts a new line in `line`; the CR LF state carries over from the
  // previous line.
  void begin(std::span<char> line) {
    line_ = line;
    length_ = 0;
  }

  Event feed(char c);

  std::size_t length() const { return length_; }

 private:
  std::span<char> line_;
  std::size_t length_ = 0;
  bool skip_lf_ = false;  // the LF of a CR LF pair that ended the last line
};

}  // namespace starling::console

#endif  // STARLING_KERNEL_CONSOLE_LINE_EDITOR_H_
