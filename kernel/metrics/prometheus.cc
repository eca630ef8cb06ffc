#include "kernel/metrics/prometheus.h"

#include "kernel/text/writer.h"

namespace starling::metrics {

using text::decimal_digits;
using text::TextWriter;
namespace {

void put_escaped(TextWriter& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out.put("\\\\");
    } else if (c == '\n') {
      out.put("\\n");
    } else if (quote && c == '"') {
      out.put("\\\"");
    } else {
      out.put(c);
    }
  }
}

void put_sample(TextWriter& out, const Family& family, const Sample& sample) {
  out.put(family.name);
  if (sample.label_count != 0) {
    out.put('{');
    for (std::size_t i = 0; i < sample.label_count; ++i) {
      if (i != 0) out.put(',');
      out.put(sample.labels[i].name);
      out.put("=\"");
      put_escaped(out, sample.labels[i].value, /*quote=*/true);
      out.put('"');
    }
    out.put('}');
  }
  out.put(' ');
  out.put_fixed(sample.value(), family.decimals);
  out.put('\n');
}

}  // namespace

Result<std::size_t> render_prometheus(const Registry& registry, std::span<char> out_buffer) {
  TextWriter out(out_buffer);
  for (std::size_t f = 0; f < registry.family_count() && !out.overflowed(); ++f) {
    const Family& family = registry.family(f);
    out.put("# HELP ");
    out.put(family.name);
    out.put(' ');
    put_escaped(out, family.help, /*quote=*/false);
    out.put("\n# TYPE ");
    out.put(family.name);
    out.put(family.type == Type::kCounter ? " counter\n" : " gauge\n");
    for (std::size_t s = 0; s < registry.sample_count(); ++s) {
      const Sample& sample = registry.sample(s);
      if (sample.family == f) put_sample(out, family, sample);
    }
  }
  if (out.overflowed()) return Unexpected(Error::kNoMemory);
  return out.size();
}

}  // namespace starling::metrics
