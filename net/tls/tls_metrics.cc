#include "net/tls/tls_metrics.h"

#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>

#include "net/tls/certificate_dates.h"
#include "net/tls/mbedtls_port.h"
#include "net/tls/tls.h"

namespace starling::net::tls {
namespace {

struct Labelled {
  std::string_view value;  // a static string: the registry keeps the view
  const std::uint64_t* sample;
};

// One sample per label value under one name.
Result<void> add_labelled(metrics::Registry& registry, std::string_view name, std::string_view help,
                          std::string_view label, std::span<const Labelled> samples,
                          metrics::Type type = metrics::Type::kCounter) {
  for (const Labelled& s : samples) {
    const metrics::SampleSpec spec{.name = name,
                                   .help = help,
                                   .type = type,
                                   .labels = {metrics::Label{.name = label, .value = s.value}},
                                   .label_count = 1};
    if (auto ok = registry.add(spec, s.sample); !ok.ok()) return ok;
  }
  return {};
}

// starling_tls_state's samples: index = ServingState, 1 for the current.
constexpr std::size_t kStates = 4;
std::uint64_t g_state[kStates] = {0, 1, 0, 0};  // kNoCredentials until told

}  // namespace

void set_serving_state(ServingState state) noexcept {
  for (std::uint64_t& s : g_state) s = 0;
  g_state[static_cast<std::size_t>(state)] = 1;
}

Result<void> register_tls_metrics(metrics::Registry& registry) {
  using metrics::Type;
  const Labelled states[] = {{"serving", &g_state[0]},
                             {"no_credentials", &g_state[1]},
                             {"no_entropy", &g_state[2]},
                             {"bad_credentials", &g_state[3]}};
  static_assert(std::size(states) == kStates);
  if (auto ok = add_labelled(registry, "starling_tls_state",
                             "Whether TLS is served, or why not: the current state is 1.", "state",
                             states, Type::kGauge);
      !ok.ok()) {
    return ok;
  }
  const TlsStats& s = tls_stats();
  const TlsMemoryStats& m = tls_memory_stats();
  static constexpr std::uint64_t kBudget = kTlsMemoryBytes;
  const Labelled versions[] = {{"1.3", &s.tls13}, {"1.2", &s.tls12}};
  if (auto ok = add_labelled(registry, "starling_tls_handshakes_total",
                             "TLS handshakes completed, by version.", "version", versions);
      !ok.ok()) {
    return ok;
  }
  const Labelled failures[] = {
      {"alert_sent", &s.alerts_sent},    {"alert_received", &s.alerts_received},
      {"bad_record", &s.bad_records},    {"no_memory", &s.no_memory},
      {"closed_early", &s.closed_early}, {"timeout", &s.timeouts}};
  if (auto ok = add_labelled(registry, "starling_tls_failures_total",
                             "TLS connections that failed, by why.", "kind", failures);
      !ok.ok()) {
    return ok;
  }
  const CertificateDateStats& d = certificate_date_stats();
  const Labelled dates[] = {{"unchecked", &d.unchecked}, {"refused", &d.refused}};
  if (auto ok = add_labelled(registry, "starling_tls_client_cert_dates_total",
                             "Client certificates whose validity dates were checked against the "
                             "wall clock and refused, or not checked: the clock was unset.",
                             "result", dates);
      !ok.ok()) {
    return ok;
  }
  const struct {
    metrics::SampleSpec spec;
    const std::uint64_t* value;
  } entries[] = {
      {{.name = "starling_tls_resumptions_total",
        .help = "TLS handshakes that resumed a session from a ticket."},
       &s.resumed},
      {{.name = "starling_tls_sessions", .help = "TLS sessions open now.", .type = Type::kGauge},
       &s.sessions_in_use},
      {{.name = "starling_tls_memory_bytes",
        .help = "Bytes Mbed TLS holds now.",
        .type = Type::kGauge},
       &m.in_use},
      {{.name = "starling_tls_memory_max_bytes",
        .help = "The most bytes Mbed TLS held at once.",
        .type = Type::kGauge},
       &m.peak},
      {{.name = "starling_tls_memory_limit_bytes",
        .help = "Mbed TLS's memory budget (the bound).",
        .type = Type::kGauge},
       &kBudget},
      {{.name = "starling_tls_memory_refused_total",
        .help = "Mbed TLS allocations refused: past the budget."},
       &m.refused},
  };
  for (const auto& e : entries) {
    if (auto ok = registry.add(e.spec, e.value); !ok.ok()) return ok;
  }
  return {};
}

}  // namespace starling::net::tls
