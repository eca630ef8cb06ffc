#include "bench/echo/stats_line.h"

#include <charconv>

namespace starling::bench {

std::optional<StatsLine> parse_stats_line(std::string_view text) {
  constexpr std::string_view kPrefix = "STARLING-STATS";
  if (!text.starts_with(kPrefix)) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  StatsLine line;
  while (!text.empty()) {
    if (text.front() != ' ') return std::nullopt;
    text.remove_prefix(1);
    const auto end = text.find(' ');
    const std::string_view field = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end);
    const auto eq = field.find('=');
    if (eq == 0 || eq == std::string_view::npos || eq + 1 == field.size()) return std::nullopt;
    std::uint64_t value = 0;
    const char* first = field.data() + eq + 1;
    const char* last = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last) return std::nullopt;
    line.insert_or_assign(std::string(field.substr(0, eq)), value);
  }
  return line;
}

std::optional<std::uint64_t> stats_delta(const StatsLine& before, const StatsLine& after,
                                         std::string_view key) {
  const auto b = before.find(key);
  const auto a = after.find(key);
  if (b == before.end() || a == after.end() || a->second < b->second) return std::nullopt;
  return a->second - b->second;
}

}  // namespace starling::bench
