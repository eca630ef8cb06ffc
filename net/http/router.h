#ifndef STARLING_NET_HTTP_ROUTER_H_
#define STARLING_NET_HTTP_ROUTER_H_

#include <cstddef>
#include <span>
#include <string_view>

#include "kernel/async/task.h"
#include "net/http/request.h"
#include "net/http/response.h"
#include "net/http/status.h"

// Routes: a path (exact, or a prefix ending in '/'), the methods it takes,
// its handler and the largest body it accepts. The first route whose path
// matches and takes the method wins; a path some route matches with other
// methods only is 405 (with Allow), no match at all is 404.
//
//   async::Task<Response> hello(const Request&) { ... co_return r; }
//   constexpr Route kRoutes[] = {{.path = "/hello", .handler = hello}};
//   Router router(kRoutes);
namespace starling::net::http {

using Handler = async::Task<Response> (*)(const Request& request);

struct Route {
  std::string_view path{};
  bool prefix = false;             // path is a prefix ("/static/")
  MethodSet methods = kGetOrHead;  // HEAD: the GET handler runs, the body is not sent
  Handler handler = nullptr;
  std::size_t max_body = 0;       // request body bytes (0: none; over it: 413)
  const void* context = nullptr;  // Request::context for the handler
  // Its owner's only (net/http/management.h): a bearer token or a client
  // certificate the server was given at boot, else 401/403.
  bool management = false;
};

struct RouteMatch {
  const Route* route = nullptr;  // null: status says why
  Status status = Status::kNotFound;
  MethodSet allowed = 0;  // the methods routes take for this path (405's Allow)
};

class Router {
 public:
  explicit constexpr Router(std::span<const Route> routes) : routes_(routes) {}
  RouteMatch match(Method method, std::string_view path) const;
  // The methods some route takes for `path` (0: none matches it).
  MethodSet allowed(std::string_view path) const;

 private:
  std::span<const Route> routes_;
};

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_ROUTER_H_
