// docs/star64.md's tables of the `starling.gmac=` keys, made from their
// declarations (gmac_params.cc, through gmac_keys()) with the board's settings
// (gmac0.h's kGmac0Params and kGmac0Phy) as the defaults, so the page cannot drift from
// what the parser takes. //platform/star64:gmac_keys_doc_test compares.
//
//   gmac_keys_doc FILE            FILE with its generated tables made anew, on stdout
//   gmac_keys_doc --update FILE   the same, written back to FILE (a relative
//                                 FILE is the workspace's, under bazel run)
//
// Each table sits between a line starting kBegin, naming its group, and a
// line kEnd; everything else in FILE is copied as it is.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "platform/star64/gmac0.h"
#include "platform/star64/gmac_params.h"

namespace {

using namespace starling::board;  // NOLINT: a host tool

constexpr std::string_view kBegin = "<!-- Generated from platform/star64/gmac_params.cc (";
constexpr std::string_view kEnd = "<!-- End of the generated table -->";
constexpr std::string_view kRegenerate =
    " keys): bazel run //platform/star64:gmac_keys_doc -- --update docs/star64.md -->";

constexpr std::string_view group_name(GmacKeyGroup group) {
  switch (group) {
    case GmacKeyGroup::kDma:
      return "dma";
    case GmacKeyGroup::kPhy:
      return "phy";
    case GmacKeyGroup::kDiagnostics:
      return "diagnostics";
  }
  return "?";
}

std::string joined(const GmacKey& key, std::string_view between) {
  std::string out;
  for (std::string_view name : key.names) {
    if (name.empty()) continue;
    if (!out.empty()) out += between;
    out += name;
  }
  return out;
}

std::string listed(const GmacKey& key) {
  std::string out;
  for (std::uint16_t v : key.only) {
    if (v == 0) break;
    if (!out.empty()) out += ", ";
    out += std::to_string(v);
  }
  return out;
}

// How the key is written: `mode=sf` / `mode=thr`, `osr=N`, ...
std::string item(const GmacKey& key) {
  const std::string k(key.key);
  switch (key.kind) {
    case GmacKeyKind::kSwitch:
      return (key.bare ? "`" + k + "`, `" : "`") + k + "=on`/`off`";
    case GmacKeyKind::kChoice: {
      std::string out;
      for (std::string_view name : key.names) {
        if (name.empty()) continue;
        out += (out.empty() ? "`" : " / `") + k + "=" + std::string(name) + "`";
      }
      return out;
    }
    case GmacKeyKind::kNumber:
      return "`" + k + "=" + std::string(key.placeholder) + "`";
    case GmacKeyKind::kRange:
      return "`" + k + "=N`, `" + k + "=M..N`";
    case GmacKeyKind::kSpeeds:
      return "`" + k + "=none` / `" + k + "=" + joined(key, "+") + "`";
  }
  return k;
}

// The values taken, where the item does not show them.
std::string values(const GmacKey& key) {
  if (!key.values.empty()) return std::string(key.values);
  switch (key.kind) {
    case GmacKeyKind::kNumber:
    case GmacKeyKind::kRange:
      if (key.only[0] != 0) return listed(key);
      return std::to_string(key.low) + " to " + std::to_string(key.high);
    case GmacKeyKind::kSpeeds:
      return joined(key, ", ") + ", each once, joined by +";
    case GmacKeyKind::kSwitch:
    case GmacKeyKind::kChoice:
      break;
  }
  return "";
}

// The board's setting as the key would write it.
std::string board_default(const GmacKey& key) {
  const std::uint32_t n = key.field.get({kGmac0Params, kGmac0Phy});
  std::string v;
  switch (key.kind) {
    case GmacKeyKind::kSwitch:
      v = n != 0 ? "on" : "off";
      break;
    case GmacKeyKind::kChoice:
      v = n < key.names.size() ? std::string(key.names[n]) : "?";
      break;
    case GmacKeyKind::kNumber:
      if (n == 0 && key.low > 0) return "";  // pbl= when TX and RX differ
      v = std::to_string(n);
      break;
    case GmacKeyKind::kRange:
      v = std::to_string(n >> 16) + ".." + std::to_string(n & 0xFFFF);
      break;
    case GmacKeyKind::kSpeeds:
      for (std::size_t i = 0; i < key.names.size(); ++i) {
        if ((n & (1u << i)) == 0) continue;
        if (!v.empty()) v += "+";
        v += key.names[i];
      }
      if (v.empty()) v = "none";
      break;
  }
  return "`" + std::string(key.key) + "=" + v + "`";
}

// A table cell: a '|' would end it.
std::string cell(std::string text) {
  for (std::size_t i = text.find('|'); i != std::string::npos; i = text.find('|', i + 2)) {
    text.replace(i, 1, "\\|");
  }
  return text;
}

std::string table(GmacKeyGroup group) {
  std::string out = "| item | meaning | values | the board's |\n|---|---|---|---|\n";
  for (const GmacKey& key : gmac_keys()) {
    if (key.group != group) continue;
    out += "| " + cell(item(key)) + " | " + cell(std::string(key.help)) + " | " +
           cell(values(key)) + " | " + cell(board_default(key)) + " |\n";
  }
  return out;
}

// `page` with every generated table made anew; false if a group has no
// table, or a table no end.
bool regenerate(const std::string& page, std::string* out) {
  std::istringstream in(page);
  std::string line;
  bool seen[3] = {};
  while (std::getline(in, line)) {
    *out += line + "\n";
    if (line.rfind(kBegin, 0) != 0) continue;
    const std::string_view rest = std::string_view(line).substr(kBegin.size());
    bool known = false;
    for (auto group : {GmacKeyGroup::kDma, GmacKeyGroup::kPhy, GmacKeyGroup::kDiagnostics}) {
      if (rest != std::string(group_name(group)) + std::string(kRegenerate)) continue;
      known = true;
      seen[static_cast<int>(group)] = true;
      *out += table(group);
    }
    if (!known) {
      std::fprintf(stderr, "gmac_keys_doc: not a generated table's first line: %s\n", line.c_str());
      return false;
    }
    bool ended = false;
    while (!ended && std::getline(in, line)) ended = line == kEnd;
    if (!ended) {
      std::fprintf(stderr, "gmac_keys_doc: a table without its end line %s\n", kEnd.data());
      return false;
    }
    *out += line + "\n";
  }
  for (auto group : {GmacKeyGroup::kDma, GmacKeyGroup::kPhy, GmacKeyGroup::kDiagnostics}) {
    if (seen[static_cast<int>(group)]) continue;
    std::fprintf(stderr, "gmac_keys_doc: no table for the %s keys; add the lines\n%s%s%s\n%s\n",
                 group_name(group).data(), kBegin.data(), group_name(group).data(),
                 kRegenerate.data(), kEnd.data());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool update = argc == 3 && std::string_view(argv[1]) == "--update";
  if (argc != 2 && !update) {
    std::fprintf(stderr, "usage: gmac_keys_doc [--update] docs/star64.md\n");
    return 2;
  }
  std::string path = argv[argc - 1];
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update && workspace != nullptr && !path.empty() && path[0] != '/') {
    path = std::string(workspace) + "/" + path;
  }
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "gmac_keys_doc: cannot read %s\n", path.c_str());
    return 1;
  }
  std::stringstream page;
  page << file.rdbuf();
  std::string out;
  if (!regenerate(page.str(), &out)) return 1;
  if (!update) {
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  file.close();
  std::ofstream(path) << out;
  return 0;
}
