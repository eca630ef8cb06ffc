#include "net/tcp/tx_reference.h"

#include <array>
#include <cstdint>
#include <utility>

#include "kernel/async/check.h"
#include "net/lwip/arch/hooks.h"
#include "net/tcp/conn.h"

namespace starling::net::detail {
namespace {

struct TxReference {
  pbuf_custom custom;  // first: lwIP's pbuf* is the reference's address
  pbuf* owner = nullptr;
  TxReference* next_free = nullptr;
};

std::array<TxReference, kTxReferences> g_references;
TxReference* g_free = nullptr;
bool g_listed = false;
pbuf* g_owner = nullptr;  // while a TxReferenceOwner is alive

void list_free() noexcept {
  if (g_listed) return;
  g_listed = true;
  for (TxReference& r : g_references) {
    r.next_free = g_free;
    g_free = &r;
  }
}

// lwIP is done with the piece: the received pbuf loses our reference (and
// goes back to its NIC if that was the last).
void release(pbuf* p) noexcept {
  auto* r = reinterpret_cast<TxReference*>(p);
  pbuf* owner = std::exchange(r->owner, nullptr);
  r->next_free = g_free;
  g_free = r;
  --g_stats.tx_references_held;
  pbuf_free(owner);
}

bool inside(const pbuf* owner, const void* data, std::size_t len) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  const auto begin = reinterpret_cast<std::uintptr_t>(owner->payload);
  return at >= begin && at + len <= begin + owner->len;
}

}  // namespace

std::size_t tx_references_free() noexcept {
  return kTxReferences - g_stats.tx_references_held;
}

pbuf* received_owner(pbuf* rx, std::span<const std::byte> data) noexcept {
  for (pbuf* q = rx; q != nullptr; q = q->next) {
    if (q->len == 0) continue;
    return inside(q, data.data(), data.size()) ? q : nullptr;
  }
  return nullptr;
}

TxReferenceOwner::TxReferenceOwner(pbuf* owner) noexcept {
  async::detail::check(g_owner == nullptr);
  g_owner = owner;
}

TxReferenceOwner::~TxReferenceOwner() {
  g_owner = nullptr;
}

}  // namespace starling::net::detail

using starling::net::detail::g_free;
using starling::net::detail::g_owner;
using starling::net::detail::TxReference;

// LWIP_HOOK_TCP_WRITE_REF: bytes inside the owner of the write under way
// get a pbuf that holds it; anything else lwIP's own PBUF_ROM (bytes that
// live for ever). NULL when no reference is free: the write fails with
// ERR_MEM (TcpStream's writes ask only with enough free, so they never see
// this).
extern "C" struct pbuf* starling_tcp_write_ref(struct tcp_pcb*, const u8_t* data, u16_t len) {
  namespace detail = starling::net::detail;
  if (g_owner == nullptr || !detail::inside(g_owner, data, len)) {
    pbuf* rom = pbuf_alloc(PBUF_RAW, len, PBUF_ROM);
    if (rom != nullptr) rom->payload = const_cast<u8_t*>(data);
    return rom;
  }
  detail::list_free();
  TxReference* r = g_free;
  if (r == nullptr) return nullptr;
  g_free = r->next_free;
  r->next_free = nullptr;
  r->custom.custom_free_function = &detail::release;
  pbuf_ref(g_owner);
  r->owner = g_owner;
  ++detail::g_stats.tx_references_held;
  ++detail::g_stats.tx_referenced;
  pbuf* p = pbuf_alloced_custom(PBUF_RAW, len, PBUF_REF, &r->custom, const_cast<u8_t*>(data), len);
  // The segment may go out from the received buffer itself, its headers
  // written in front of the bytes (Netif::send_in_place). The room there is
  // what the owner had in front of them (a fresh frame: its own headers),
  // and only when the bytes start at the first the reader has not consumed:
  // bytes before them that it may still read are nobody's room. Everything
  // up to the bytes' end is claimed then, so no later piece's headers
  // overwrite bytes this one still sends (a retransmission copies them).
  p->in_buffer_of = g_owner;
  u8_t* const room = g_owner->room_start;
  if (room != nullptr) {
    if (data == g_owner->payload && data >= room) p->room_start = room;
    if (data + len > room) g_owner->room_start = const_cast<u8_t*>(data) + len;
  }
  return p;
}
