#include "net/http/site.h"

#include <algorithm>

namespace starling::net::http {
namespace {

// A path ending in '/' names the directory's index.html.
constexpr std::string_view kIndex = "index.html";
constexpr std::size_t kMaxPath = 256;
// Names as constants: a literal passed as a string_view is measured by a
// call to strlen at run time here (-ffreestanding), ~50 instructions each.
constexpr std::string_view kETag = "ETag";
constexpr std::string_view kIfNoneMatch = "if-none-match";

std::string_view opaque(std::string_view tag) {
  if (tag.starts_with("W/")) tag.remove_prefix(2);
  return tag;
}

}  // namespace

const SiteFile* Site::find(std::string_view path) const {
  const auto it =
      std::lower_bound(files.begin(), files.end(), path,
                       [](const SiteFile& f, std::string_view p) { return f.path < p; });
  if (it == files.end() || it->path != path) return nullptr;
  return &*it;
}

bool etag_matches(std::string_view list, std::string_view etag) {
  while (!list.empty()) {
    while (!list.empty() && (list.front() == ' ' || list.front() == '\t' || list.front() == ',')) {
      list.remove_prefix(1);
    }
    if (list.empty()) break;
    if (list.front() == '*') return true;
    std::size_t end = list.starts_with("W/") ? 2 : 0;
    if (end >= list.size() || list[end] != '"') return false;  // not an entity tag: no match
    const std::size_t close = list.find('"', end + 1);
    if (close == std::string_view::npos) return false;
    if (opaque(list.substr(0, close + 1)) == opaque(etag)) return true;
    list.remove_prefix(close + 1);
  }
  return false;
}

async::Task<Response> serve_site(const Request& request) {
  const auto* site = static_cast<const Site*>(request.context);
  std::string_view path = request.path;
  const SiteFile* file = nullptr;
  if (site != nullptr && path.ends_with('/') && path.size() + kIndex.size() <= kMaxPath) {
    char index[kMaxPath];
    std::copy(path.begin(), path.end(), index);
    std::copy(kIndex.begin(), kIndex.end(), index + path.size());
    file = site->find(std::string_view(index, path.size() + kIndex.size()));
  } else if (site != nullptr) {
    file = site->find(path);
  }
  if (file == nullptr) co_return status_response(Status::kNotFound);
  Response r;
  (void)r.add_header(kETag, file->etag);
  if (etag_matches(request.header(kIfNoneMatch), file->etag)) {
    r.status = Status::kNotModified;
    co_return r;
  }
  r.content_type = file->content_type;
  r.body = std::as_bytes(std::span(file->data.data(), file->data.size()));
  co_return r;
}

}  // namespace starling::net::http
