#include "bench/echo/ipbench_reply.h"

#include <charconv>
#include <cstdint>

namespace starling::bench {
namespace {

// Takes one line (without '\n') off the front of text; nullopt if no '\n'.
std::optional<std::string_view> take_line(std::string_view& text) {
  const auto nl = text.find('\n');
  if (nl == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::optional<std::uint64_t> parse_u64(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return v;
}

}  // namespace

bool reply_has_code(std::string_view line, std::string_view code) {
  if (!line.starts_with(code)) return false;
  return line.size() == code.size() || line[code.size()] == ' ';
}

std::optional<Utilisation> parse_stop_reply(std::string_view reply) {
  auto status = take_line(reply);
  if (!status || !reply_has_code(*status, "220")) return std::nullopt;
  auto length_line = take_line(reply);
  constexpr std::string_view kLength = "Content-length: ";
  if (!length_line || !length_line->starts_with(kLength)) return std::nullopt;
  auto length = parse_u64(length_line->substr(kLength.size()));
  if (!length) return std::nullopt;
  std::string_view body = reply;
  if (body.size() == *length + 1 && body.back() == '\n') body.remove_suffix(1);
  if (body.size() != *length || !body.starts_with(',')) return std::nullopt;
  body.remove_prefix(1);
  const auto comma = body.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  auto idle = parse_u64(body.substr(0, comma));
  auto total = parse_u64(body.substr(comma + 1));
  if (!idle || !total || *idle > *total) return std::nullopt;
  return Utilisation{*idle, *total};
}

}  // namespace starling::bench
