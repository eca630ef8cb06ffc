#include "kernel/console/line_editor.h"

namespace starling::console {
namespace {

constexpr char kBackspace = '\b';
constexpr char kDelete = 0x7f;

}  // namespace

LineEditor::Event LineEditor::feed(char c) {
  if (skip_lf_ && c == '\n') {
    skip_lf_ = false;
    return Event::kIgnored;
  }
  skip_lf_ = false;
  if (c == '\r' || c == '\n') {
    skip_lf_ = (c == '\r');
    return Event::kLineDone;
  }
  if (c == kBackspace || c == kDelete) {
    if (length_ == 0) return Event::kIgnored;
    --length_;
    return Event::kErased;
  }
  if (length_ == line_.size()) return Event::kIgnored;
  line_[length_++] = c;
  return Event::kAppended;
}

}  // namespace starling::console
