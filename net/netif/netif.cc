#include "net/netif/netif.h"

#include "lwip/init.h"

namespace starling::net {
namespace {
constinit bool lwip_initialized = false;
}  // namespace

void ensure_lwip_initialized() {
  if (lwip_initialized) return;
  lwip_init();
  lwip_initialized = true;
}

}  // namespace starling::net
