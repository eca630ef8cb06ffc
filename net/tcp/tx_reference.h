#ifndef STARLING_NET_TCP_TX_REFERENCE_H_
#define STARLING_NET_TCP_TX_REFERENCE_H_

#include <cstddef>
#include <span>

#include "lwip/pbuf.h"

// Internal to net/tcp: received bytes sent back without a copy.
//
// A TcpStream write of bytes that lie in the connection's first received
// pbuf (what peek() showed: an echo, a proxy) is queued without
// TCP_WRITE_FLAG_COPY. lwIP then asks, for each segment piece, for a pbuf
// referring to the bytes (net/lwip/patches/0023-tcp-write-reference-hook.patch),
// and gets one of ours: a custom pbuf that holds the received pbuf (a
// reference on it) until lwIP frees the piece. lwIP frees it when the peer
// has acknowledged the segment, or the connection is reset, aborted or
// timed out, and never before, retransmissions included; only then does
// the received buffer go back to the NIC. The ownership rule: nobody
// writes a received buffer while it is held (the NIC gets it back only
// from its last holder), and the bytes a write referred to stay as they
// were even after the reader consume()s them.
//
// Bounded: kTxReferences at once over all connections (a peer that never
// acknowledges holds at most these, and their buffers, which its segment
// share bounds too); past that, writes copy as before, counted
// (TcpStats::tx_reference_fallbacks).
namespace starling::net::detail {

inline constexpr std::size_t kTxReferences = 64;

// Free references now.
std::size_t tx_references_free() noexcept;

// The received pbuf among `rx`'s (a connection's unread chain) that holds
// all of `data`, if it is the first with bytes (what peek() shows);
// nullptr otherwise.
pbuf* received_owner(pbuf* rx, std::span<const std::byte> data) noexcept;

// While alive, the hook refers to bytes inside `owner` with pbufs that hold
// it. One at a time, around a tcp_write() without TCP_WRITE_FLAG_COPY.
class TxReferenceOwner {
 public:
  explicit TxReferenceOwner(pbuf* owner) noexcept;
  ~TxReferenceOwner();
  TxReferenceOwner(const TxReferenceOwner&) = delete;
  TxReferenceOwner& operator=(const TxReferenceOwner&) = delete;
};

}  // namespace starling::net::detail

#endif  // STARLING_NET_TCP_TX_REFERENCE_H_
