#include "net/http/router.h"

namespace starling::net::http {
namespace {

bool path_matches(const Route& route, std::string_view path) {
  if (route.prefix) return path.starts_with(route.path);
  return path == route.path;
}

}  // namespace

MethodSet Router::allowed(std::string_view path) const {
  MethodSet methods = 0;
  for (const Route& r : routes_) {
    if (path_matches(r, path)) methods |= r.methods;
  }
  return methods;
}

RouteMatch Router::match(Method method, std::string_view path) const {
  RouteMatch m;
  for (const Route& r : routes_) {
    if (!path_matches(r, path)) continue;
    m.allowed |= r.methods;
    if ((r.methods & method_bit(method)) != 0 && r.handler != nullptr && m.route == nullptr) {
      m.route = &r;
      m.status = Status::kOk;
    }
  }
  if (m.route == nullptr && m.allowed != 0) m.status = Status::kMethodNotAllowed;
  return m;
}

}  // namespace starling::net::http
