#ifndef STARLING_KERNEL_METRICS_REGISTRY_H_
#define STARLING_KERNEL_METRICS_REGISTRY_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "kernel/lib/result.h"

// The image's metrics: each component registers its counters and gauges
// once, at bring-up, with a name, a help line and labels; renderers
// (prometheus.h: the Prometheus text format; stats_line.h: echo's one-line
// key=value reply) read them when asked. Nothing is copied or allocated:
// a sample is a name, labels and a way to read a value the component
// already keeps (a counter it increments anyway, or a function that
// computes a gauge), so registering costs the hot path nothing.
//
// Fixed capacity (kMaxFamilies, kMaxSamples): a registration past it is
// refused with kNoMemory and counted (refused()), never a crash; a name
// that is not a Prometheus metric name, a label name that is not a label
// name, two families of one name with different help or type, or one
// sample registered twice (same name, same labels) is refused with
// kInvalidArgument. Every string given must outlive the registry (string
// literals and static strings: the registry keeps the views).
//
// Not thread-safe (none is needed: one hart runs the kernel); values are
// read when a renderer runs, in the task that asked.
namespace starling::metrics {

static_assert(std::is_same_v<std::size_t, std::uint64_t>, "size_t counters are read as uint64_t");

enum class Type : std::uint8_t { kCounter, kGauge };

// Reads one value; `context` is what was registered with it.
using Reader = std::uint64_t (*)(const void* context);

struct Label {
  std::string_view name{};
  std::string_view value{};
};
inline constexpr std::size_t kMaxLabels = 2;

struct Family {
  std::string_view name{};  // e.g. "starling_nic_rx_frames_total"
  std::string_view help{};  // one line; \ and newlines are escaped on output
  Type type = Type::kCounter;
  // The samples count units of 10^-decimals of the metric's unit: a time
  // kept in nanoseconds is a metric in seconds with decimals = 9 (Prometheus
  // wants base units). Rendered exactly, as a decimal fraction.
  std::uint8_t decimals = 0;
};

struct Sample {
  std::uint16_t family = 0;  // index into the registry's families
  std::uint8_t label_count = 0;
  std::array<Label, kMaxLabels> labels{};
  Reader read = nullptr;
  const void* context = nullptr;
  // The key on echo's stats line (stats_line.h), empty if the sample is not
  // on it: the line's keys predate the registry and the benchmark and the
  // tests read them, so they stay as they were.
  std::string_view line_key{};

  std::uint64_t value() const { return read(context); }
};

// What a registration gives, besides the value source.
struct SampleSpec {
  std::string_view name{};
  std::string_view help{};
  Type type = Type::kCounter;
  std::array<Label, kMaxLabels> labels{};
  std::size_t label_count = 0;
  // On the stats line the value stays as kept (nanoseconds): its keys say so.
  std::string_view line_key{};
  std::uint8_t decimals = 0;  // Family::decimals
};

class Registry {
 public:
  constexpr Registry() = default;

  static constexpr std::size_t kMaxFamilies = 160;
  static constexpr std::size_t kMaxSamples = 256;

  Result<void> add(const SampleSpec& spec, Reader read, const void* context);

  // A counter or gauge the component keeps: read where it lives. (On both
  // targets, riscv64 and the host's x86-64, std::size_t is this type.)
  Result<void> add(const SampleSpec& spec, const std::uint64_t* value);

  std::size_t family_count() const { return family_count_; }
  std::size_t sample_count() const { return sample_count_; }
  const Family& family(std::size_t i) const { return families_[i]; }
  const Sample& sample(std::size_t i) const { return samples_[i]; }
  // Registrations refused (full, or invalid); each also returned an error.
  std::uint64_t refused() const { return refused_; }

 private:
  Result<std::uint16_t> family_index(const SampleSpec& spec);

  std::array<Family, kMaxFamilies> families_{};
  std::array<Sample, kMaxSamples> samples_{};
  std::size_t family_count_ = 0;
  std::size_t sample_count_ = 0;
  std::uint64_t refused_ = 0;
};

// [a-zA-Z_:][a-zA-Z0-9_:]* (the exposition format's metric names).
bool valid_metric_name(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved).
bool valid_label_name(std::string_view name);

// The image's registry (one kernel, one address space).
Registry& registry();

}  // namespace starling::metrics

#endif  // STARLING_KERNEL_METRICS_REGISTRY_H_
