// The image's metrics page as an application's network bring-up registers
// it (platform/network.cc's set: runtime, pages, NIC and netif, lwIP, TCP)
// with httpd's (the HTTP server's and TLS's), on the host over a fake NIC with some traffic, plus
// one sample whose label value needs escaping. Prints the Prometheus page, a line "---", then the
// stats line, for //test/metrics:prometheus_format_test to parse with a parser that is not ours.
// With --reference: docs/metrics-reference.md instead, every family as the
// registrations declare it (name, type, labels, stats-line keys, help), for
// //test/metrics:metrics_reference_test to compare with the checked-in page.
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/runtime_metrics.h"
#include "kernel/mem/page_allocator.h"
#include "kernel/mem/page_metrics.h"
#include "kernel/metrics/page.h"
#include "kernel/metrics/prometheus.h"
#include "kernel/metrics/registry.h"
#include "kernel/metrics/stats_line.h"
#include "net/http/server_metrics.h"
#include "net/lwip/lwip_metrics.h"
#include "net/netif/fake_nic.h"
#include "net/netif/ip_metrics.h"
#include "net/netif/netif.h"
#include "net/netif/netif_metrics.h"
#include "net/sntp/sntp.h"
#include "net/tcp/tcp_metrics.h"
#include "net/tls/tls_metrics.h"

namespace {

using namespace starling;  // NOLINT: a test program

alignas(4096) std::array<std::byte, 64 * 4096> g_memory;
alignas(64) std::array<std::byte, 64 * 1024> g_frames;
std::uint64_t g_tricky = 7;

// docs/metrics-reference.md: one row per family, from the registry.
void print_reference(const metrics::Registry& registry) {
  std::printf(
      "# Metrics reference\n\n"
      "<!-- Generated: bazel run //test/metrics:metrics_page -- --reference >"
      " docs/metrics-reference.md -->\n\n"
      "Every family a network application registers (platform/network.cc's set and\n"
      "httpd's HTTP and TLS families), as the registrations declare them: the\n"
      "Prometheus page and the stats line render the same declarations, and\n"
      "`//test/metrics:metrics_reference_test` fails when this page differs from\n"
      "them. An application's own families (apps/echo's `starling_echo_*`, ...)\n"
      "are its own. How they are kept and served: [metrics.md](metrics.md).\n\n"
      "| family | type | labels | stats line | help |\n|---|---|---|---|---|\n");
  for (std::size_t f = 0; f < registry.family_count(); ++f) {
    const metrics::Family& family = registry.family(f);
    if (family.name == "starling_test_escaping") continue;
    std::string labels;
    std::string keys;
    for (std::size_t i = 0; i < registry.sample_count(); ++i) {
      const metrics::Sample& sample = registry.sample(i);
      if (sample.family != f) continue;
      for (std::size_t l = 0; l < sample.label_count; ++l) {
        const std::string name(sample.labels[l].name);
        if (labels.find("`" + name + "`") == std::string::npos) {
          labels += (labels.empty() ? "`" : ", `") + name + "`";
        }
      }
      if (!sample.line_key.empty()) {
        keys += (keys.empty() ? "`" : ", `") + std::string(sample.line_key) + "`";
      }
    }
    std::string help(family.help);
    for (char& c : help) {
      if (c == '|') c = '/';
    }
    std::printf("| `%.*s` | %s | %s | %s | %s |\n", static_cast<int>(family.name.size()),
                family.name.data(), family.type == metrics::Type::kGauge ? "gauge" : "counter",
                labels.c_str(), keys.c_str(), help.c_str());
  }
}

int run(bool reference) {
  mem::PageAllocator pages;
  const auto base = reinterpret_cast<std::uintptr_t>(g_memory.data());
  const mem::PhysRange range{base, base + g_memory.size()};
  if (!pages.init(std::span<const mem::PhysRange>(&range, 1)).ok()) return 10;
  (void)pages.allocate(3);

  async::FrameAllocator frames(g_frames);
  async::Executor executor;
  net::testing::FakeNic nic;
  net::Netif<net::testing::FakeNic> netif(nic);
  if (!netif.start(net::kQemuUserDefault).ok()) return 11;
  // A frame in, so the NIC's and the netif's counters are not all zero.
  std::vector<std::byte> frame(60, std::byte{0});
  for (int i = 0; i < 6; ++i) frame[i] = std::byte{0xff};
  frame[12] = std::byte{0x08};
  frame[13] = std::byte{0x06};  // ARP, too short to mean anything: a runt
  (void)nic.inject(frame);

  metrics::Registry& registry = metrics::registry();
  const Result<void> results[] = {
      async::register_runtime_metrics(registry, executor, &frames),
      mem::register_page_metrics(registry, pages),
      net::register_netif_metrics(registry, netif, "fake"),
      net::register_lwip_metrics(registry),
      net::register_tcp_metrics(registry),
      net::register_ip_metrics(registry),
      net::register_clock_metrics(registry),
      net::http::register_http_metrics(registry),
      net::tls::register_tls_metrics(registry),
      metrics::register_render_metrics(registry),
      registry.add({.name = "starling_test_escaping",
                    .help = "A help line with a backslash \\ and a\nnewline.",
                    .type = metrics::Type::kGauge,
                    .labels = {{{"path", "C:\\dir \"quoted\"\nnext"}}},
                    .label_count = 1,
                    .line_key = "test_escaping"},
                   &g_tricky),
  };
  for (const auto& r : results) {
    if (!r.ok()) {
      std::fprintf(stderr, "registration failed: %s\n", error_name(r.error()));
      return 12;
    }
  }
  if (reference) {
    print_reference(registry);
    return 0;
  }
  static std::array<char, 64 * 1024> page;
  // Twice, as an app's scrapes do: the second page shows the first's cost.
  if (!metrics::render_page(registry, page).ok()) return 13;
  const auto size = metrics::render_page(registry, page);
  if (!size.ok()) return 13;
  std::fwrite(page.data(), 1, *size, stdout);
  std::printf("---\n");
  std::array<char, 1472> line;
  const std::size_t n = metrics::render_stats_line(registry, "STARLING-STATS", line);
  std::fwrite(line.data(), 1, n, stdout);
  std::fprintf(stderr, "metrics page: %zu bytes, %zu families, %zu samples\n", *size,
               registry.family_count(), registry.sample_count());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return run(argc > 1 && std::strcmp(argv[1], "--reference") == 0);
}
