#include "kernel/metrics/stats_line.h"

#include "kernel/text/writer.h"

namespace starling::metrics {

using text::decimal_digits;
using text::TextWriter;

namespace {

bool wanted(std::string_view key, std::span<const std::string_view> only) {
  if (only.empty()) return true;
  for (std::string_view start : only) {
    if (key.substr(0, start.size()) == start) return true;
  }
  return false;
}

}  // namespace

std::size_t render_stats_line(const Registry& registry, std::string_view prefix,
                              std::span<char> out_buffer, std::span<const std::string_view> only) {
  TextWriter out(out_buffer);
  out.put(prefix);
  for (std::size_t s = 0; s < registry.sample_count(); ++s) {
    const Sample& sample = registry.sample(s);
    if (sample.line_key.empty() || !wanted(sample.line_key, only)) continue;
    const std::uint64_t value = sample.value();
    // " key=value", whole or not at all, leaving room for the newline.
    if (2 + sample.line_key.size() + decimal_digits(value) + 1 > out.room()) continue;
    out.put(' ');
    out.put(sample.line_key);
    out.put('=');
    out.put_decimal(value);
  }
  out.put('\n');
  return out.size();
}

}  // namespace starling::metrics
