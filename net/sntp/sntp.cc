#include "net/sntp/sntp.h"

#include "kernel/hal/clock.h"
#include "kernel/lib/bootargs.h"
#include "kernel/wall_clock/wall_clock.h"
#include "lwip/apps/sntp.h"
#include "net/address/ip_address_lwip.h"

namespace starling::net {
namespace {

namespace wc = wall_clock;
using metrics::Label;
using metrics::Type;

constexpr std::string_view kServersKey = "sntp";
constexpr std::string_view kPollKey = "sntp.poll_s";
constexpr std::string_view kServersFix = "fix: sntp=ADDR[,ADDR], sntp=dhcp or sntp=off";

void refuse(text::TextWriter& why, std::string_view value, std::string_view what) {
  why.put("sntp=");
  why.put(value);
  why.put(": ");
  why.put(what);
  why.put("; ");
  why.put(kServersFix);
}

bool parse_servers(std::string_view value, SntpConfig& config, text::TextWriter& why) {
  if (value == "off") {
    config.mode = SntpConfig::Mode::kOff;
    return true;
  }
  if (value == "dhcp") {
    config.mode = SntpConfig::Mode::kDhcp;
    return true;
  }
  SntpConfig parsed = config;
  parsed.mode = SntpConfig::Mode::kServers;
  parsed.server_count = 0;
  for (std::string_view rest = value;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (parsed.server_count == kSntpMaxServers) {
      refuse(why, value, "more than two servers");
      return false;
    }
    const auto address = parse_ip(item);
    if (!address) {
      refuse(why, value, "not an IPv4 or IPv6 address");
      return false;
    }
    parsed.servers[parsed.server_count++] = *address;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  config = parsed;
  return true;
}

std::uint64_t synchronized(const void*) {
  return wc::is_set() ? 1 : 0;
}

std::uint64_t unix_ns_now(const void*) {
  const auto ns = wc::now_unix_ns();
  return ns && *ns > 0 ? static_cast<std::uint64_t>(*ns) : 0;
}

std::uint64_t since_set_ns(const void*) {
  return wc::is_set() ? hal::now_ns() - wc::stats().last_set_ns : 0;
}

}  // namespace

bool parse_sntp_bootargs(std::string_view bootargs, SntpConfig& config, text::TextWriter& why) {
  bool ok = true;
  const BootargValue servers = bootarg_value(bootargs, kServersKey);
  if (servers.repeated) {
    refuse(why, servers.value, "given twice");
    ok = false;
  } else if (servers.found) {
    ok = parse_servers(servers.value, config, why);
  }
  text::Line<160> poll_why;
  const NumberParamReading poll =
      read_number(bootargs, kPollKey, kSntpMinPollSeconds, kSntpMaxPollSeconds,
                  kSntpDefaultPollSeconds, /*off=*/false, poll_why);
  if (poll.refused) {
    if (!ok) why.put("; ");
    why.put(poll_why.view());
    ok = false;
  }
  config.poll_seconds = static_cast<std::uint32_t>(poll.value);
  return ok;
}

void configure_sntp(const SntpConfig& config) noexcept {
  set_sntp_poll_seconds(config.poll_seconds);
  sntp_setoperatingmode(SNTP_OPMODE_POLL);
  for (std::size_t i = 0; i < kSntpMaxServers; ++i) {
    if (config.mode == SntpConfig::Mode::kServers && i < config.server_count) {
      const ip_addr_t address = to_lwip(config.servers[i]);
      sntp_setserver(static_cast<u8_t>(i), &address);
    } else {
      sntp_setserver(static_cast<u8_t>(i), nullptr);
    }
  }
  sntp_servermode_dhcp(config.mode == SntpConfig::Mode::kDhcp ? 1 : 0);
}

void start_sntp(const SntpConfig& config) noexcept {
  if (config.mode == SntpConfig::Mode::kOff) return;
  sntp_init();
}

void stop_sntp() noexcept {
  sntp_stop();
}

Result<void> register_clock_metrics(metrics::Registry& registry) {
  static constexpr std::string_view kResponsesHelp =
      "SNTP responses: accepted (the clock took the time) or refused, and why.";
  const SntpStats& s = sntp_stats();
  struct Counted {
    std::string_view result;
    const std::uint64_t* value;
  };
  const Counted responses[] = {
      {"accepted", &wc::stats().sets},
      {"origin", &s.refused_origin},
      {"unsynchronised", &s.refused_unsynchronised},
      {"stratum", &s.refused_stratum},
      {"no_time", &s.refused_no_time},
      {"kiss_of_death", &s.kiss_of_death},
      {"before_floor", &wc::stats().refused_floor},
  };
  const Result<void> results[] = {
      registry.add({.name = "starling_clock_synchronized",
                    .help = "1 once SNTP has set the wall clock (UTC), else 0: no Date header, "
                            "certificate dates not checked.",
                    .type = Type::kGauge},
                   synchronized, nullptr),
      registry.add({.name = "starling_clock_unix_seconds",
                    .help = "The wall clock now, in seconds since 1970-01-01T00:00:00Z (0 while "
                            "unset).",
                    .type = Type::kGauge,
                    .decimals = 9},
                   unix_ns_now, nullptr),
      registry.add({.name = "starling_clock_since_set_seconds",
                    .help = "Seconds since the wall clock last took a time from SNTP (0 while "
                            "unset).",
                    .type = Type::kGauge,
                    .decimals = 9},
                   since_set_ns, nullptr),
      registry.add({.name = "starling_clock_last_step_seconds",
                    .help = "How far the last time SNTP gave moved the wall clock, either way.",
                    .type = Type::kGauge,
                    .decimals = 9},
                   &wc::stats().last_step_abs_ns),
      registry.add({.name = "starling_clock_steps_back_total",
                    .help = "Times a time from SNTP moved the wall clock back."},
                   &wc::stats().steps_back),
      registry.add({.name = "starling_sntp_requests_unsent_total",
                    .help = "SNTP requests that could not be sent (no route or source address "
                            "yet), each tried again a second later."},
                   &s.unsent),
  };
  for (const Result<void>& result : results) {
    if (!result.ok()) return result;
  }
  for (const Counted& c : responses) {
    auto r = registry.add({.name = "starling_sntp_responses_total",
                           .help = kResponsesHelp,
                           .labels = {Label{.name = "result", .value = c.result}},
                           .label_count = 1},
                          c.value);
    if (!r.ok()) return r;
  }
  return {};
}

}  // namespace starling::net
