// LWIP_HOOK_TCP_WRITE_REF's default (patch 0023, lwipopts.h), weak: lwIP's
// own PBUF_ROM for the bytes of a write without TCP_WRITE_FLAG_COPY, as
// unpatched lwIP makes. net/tcp/tx_reference.cc defines the real one,
// linked with any TCP user; this is for images and tests without net/tcp.
// Here, beside lwIP's sources, not with net/port's other hooks: it calls
// pbuf_alloc(), which a binary with those hooks but no lwIP lacks.
#include "lwip/pbuf.h"
#include "net/lwip/arch/hooks.h"

extern "C" [[gnu::weak]] struct pbuf* starling_tcp_write_ref(struct tcp_pcb*, const u8_t* data,
                                                             u16_t len) {
  pbuf* p = pbuf_alloc(PBUF_RAW, len, PBUF_ROM);
  if (p != nullptr) p->payload = const_cast<u8_t*>(data);
  return p;
}
