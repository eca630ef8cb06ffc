#include "kernel/metrics/registry.h"

namespace starling::metrics {
namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

std::uint64_t read_u64(const void* context) {
  return *static_cast<const std::uint64_t*>(context);
}

bool same_labels(const Sample& sample, const SampleSpec& spec) {
  if (sample.label_count != spec.label_count) return false;
  for (std::size_t i = 0; i < spec.label_count; ++i) {
    if (sample.labels[i].name != spec.labels[i].name ||
        sample.labels[i].value != spec.labels[i].value) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool valid_metric_name(std::string_view name) {
  if (name.empty() || !(name_start(name[0]) || name[0] == ':')) return false;
  for (char c : name) {
    if (!(name_start(c) || digit(c) || c == ':')) return false;
  }
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || !name_start(name[0]) || name.substr(0, 2) == "__") return false;
  for (char c : name) {
    if (!(name_start(c) || digit(c))) return false;
  }
  return true;
}

Result<std::uint16_t> Registry::family_index(const SampleSpec& spec) {
  for (std::size_t i = 0; i < family_count_; ++i) {
    if (families_[i].name != spec.name) continue;
    // One name, one meaning: a second component may add samples (other
    // labels) to a family, but not redefine it.
    if (families_[i].help != spec.help || families_[i].type != spec.type ||
        families_[i].decimals != spec.decimals) {
      return Unexpected(Error::kInvalidArgument);
    }
    return static_cast<std::uint16_t>(i);
  }
  if (family_count_ == kMaxFamilies) return Unexpected(Error::kNoMemory);
  if (spec.decimals > 18) return Unexpected(Error::kInvalidArgument);
  families_[family_count_] =
      Family{.name = spec.name, .help = spec.help, .type = spec.type, .decimals = spec.decimals};
  return static_cast<std::uint16_t>(family_count_++);
}

Result<void> Registry::add(const SampleSpec& spec, Reader read, const void* context) {
  const auto refuse = [this](Error error) -> Result<void> {
    ++refused_;
    return Unexpected(error);
  };
  if (read == nullptr || !valid_metric_name(spec.name) || spec.label_count > kMaxLabels ||
      spec.help.empty()) {
    return refuse(Error::kInvalidArgument);
  }
  for (std::size_t i = 0; i < spec.label_count; ++i) {
    if (!valid_label_name(spec.labels[i].name)) return refuse(Error::kInvalidArgument);
  }
  if (sample_count_ == kMaxSamples) return refuse(Error::kNoMemory);
  auto family = family_index(spec);
  if (!family.ok()) return refuse(family.error());
  for (std::size_t i = 0; i < sample_count_; ++i) {
    if (samples_[i].family == *family && same_labels(samples_[i], spec)) {
      return refuse(Error::kInvalidArgument);
    }
  }
  Sample& sample = samples_[sample_count_++];
  sample = Sample{.family = *family,
                  .label_count = static_cast<std::uint8_t>(spec.label_count),
                  .labels = spec.labels,
                  .read = read,
                  .context = context,
                  .line_key = spec.line_key};
  return {};
}

Result<void> Registry::add(const SampleSpec& spec, const std::uint64_t* value) {
  return add(spec, &read_u64, value);
}

// A constant-initialised global, not a function-local static: no guard
// variable, no constructor at boot.
constinit Registry g_registry;

Registry& registry() {
  return g_registry;
}

}  // namespace starling::metrics
