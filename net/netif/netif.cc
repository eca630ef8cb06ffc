#include "net/netif/netif.h"

#include "lwip/init.h"
#include "net/port/random.h"

namespace starling::net {
namespace {
constinit bool lwip_initialized = false;
}  // namespace

void ensure_lwip_initialized() {
  if (lwip_initialized) return;
  // Keys before lwIP draws its first random number (lwip_init seeds its
  // local-port counters with LWIP_RAND).
  seed_from_board_entropy();
  lwip_init();
  lwip_initialized = true;
}

}  // namespace starling::net
