#include "kernel/console/line_editor.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace starling::console {
namespace {

// Feeds `input` and collects the finished lines (a line of capacity `cap`).
std::vector<std::string> lines_of(std::string_view input, std::size_t cap = 16) {
  std::vector<std::string> lines;
  std::vector<char> line(cap);
  LineEditor editor;
  editor.begin(line);
  for (char c : input) {
    if (editor.feed(c) == LineEditor::Event::kLineDone) {
      lines.emplace_back(line.data(), editor.length());
      editor.begin(line);
    }
  }
  return lines;
}

TEST(LineEditor, CrLfAndCrLfEndLinesOnce) {
  EXPECT_EQ(lines_of("a\rb\nc\r\nd\n\re\r"),
            (std::vector<std::string>{"a", "b", "c", "d", "", "e"}));
}

TEST(LineEditor, TheLfOfACrLfPairIsSwallowedAcrossLines) {
  std::vector<char> line(8);
  LineEditor editor;
  editor.begin(line);
  EXPECT_EQ(editor.feed('x'), LineEditor::Event::kAppended);
  EXPECT_EQ(editor.feed('\r'), LineEditor::Event::kLineDone);
  editor.begin(line);  // the next read_line call; its first byte is the LF
  EXPECT_EQ(editor.feed('\n'), LineEditor::Event::kIgnored);
  EXPECT_EQ(editor.feed('\n'), LineEditor::Event::kLineDone);  // a second LF is a line
  EXPECT_EQ(editor.length(), 0u);
}

TEST(LineEditor, BackspaceAndDeleteEraseOneCharacter) {
  EXPECT_EQ(lines_of("helo\b\blp\x7flo\n"), (std::vector<std::string>{"hello"}));
  std::vector<char> line(8);
  LineEditor editor;
  editor.begin(line);
  EXPECT_EQ(editor.feed('\b'), LineEditor::Event::kIgnored);  // nothing to erase
  EXPECT_EQ(editor.feed('a'), LineEditor::Event::kAppended);
  EXPECT_EQ(editor.feed(0x7f), LineEditor::Event::kErased);
  EXPECT_EQ(editor.length(), 0u);
}

TEST(LineEditor, BytesBeyondTheCapacityAreDroppedNotEchoed) {
  std::vector<char> line(4);
  LineEditor editor;
  editor.begin(line);
  for (char c : std::string_view("abcd")) EXPECT_EQ(editor.feed(c), LineEditor::Event::kAppended);
  EXPECT_EQ(editor.feed('e'), LineEditor::Event::kIgnored);
  EXPECT_EQ(editor.feed('\b'), LineEditor::Event::kErased);
  EXPECT_EQ(editor.feed('z'), LineEditor::Event::kAppended);
  EXPECT_EQ(editor.feed('\n'), LineEditor::Event::kLineDone);
  EXPECT_EQ(std::string(line.data(), editor.length()), "abcz");
  // A zero-capacity line still ends.
  LineEditor empty;
  empty.begin({});
  EXPECT_EQ(empty.feed('q'), LineEditor::Event::kIgnored);
  EXPECT_EQ(empty.feed('\r'), LineEditor::Event::kLineDone);
}

TEST(LineEditor, EveryByteValueIsAccepted) {
  std::vector<char> line(300);
  LineEditor editor;
  editor.begin(line);
  for (int b = 0; b < 256; ++b) (void)editor.feed(static_cast<char>(b));
  EXPECT_LE(editor.length(), line.size());
}

}  // namespace
}  // namespace starling::console
