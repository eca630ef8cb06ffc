// Fuzzes the console's line discipline (kernel/console/line_editor.h): the
// serial port delivers whatever a terminal, a script or line noise sends.
// Besides "no crash, no UB", checks what the editor promises against a
// shadow of the line built from the events it reports: the line never
// outgrows its buffer, holds no CR or LF, and is exactly what the echoed
// appends and erases say it is. The first byte picks the line's capacity.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernel/console/line_editor.h"

namespace {

using starling::console::LineEditor;

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<char> line(data[0] % 80);
  LineEditor editor;
  editor.begin(line);
  std::string shadow;  // what the terminal shows of the current line
  for (std::size_t i = 1; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    switch (editor.feed(c)) {
      case LineEditor::Event::kIgnored:
        break;
      case LineEditor::Event::kAppended:
        check(c != '\r' && c != '\n');
        shadow.push_back(c);
        break;
      case LineEditor::Event::kErased:
        check(!shadow.empty());
        shadow.pop_back();
        break;
      case LineEditor::Event::kLineDone:
        check(c == '\r' || c == '\n');
        check(std::string(line.data(), editor.length()) == shadow);
        shadow.clear();
        editor.begin(line);
        break;
    }
    check(editor.length() <= line.size());
    check(editor.length() == shadow.size());
  }
  return 0;
}
