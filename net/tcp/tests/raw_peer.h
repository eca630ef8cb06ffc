#ifndef STARLING_NET_TCP_TESTS_RAW_PEER_H_
#define STARLING_NET_TCP_TESTS_RAW_PEER_H_

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/lib/result.h"
#include "lwip/priv/tcp_priv.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"
#include "net/tcp/tcp.h"

// Test support: a TCP peer written frame by frame against our stack on
// NetifTestRig (production lwIP over FakeNic): its handshake, the data
// segments we sent it, SACK options, our pcb of the connection. For tests
// that must say exactly which segment arrives when (lwIP's patches, the
// per-peer share), where a second lwIP stack as the peer would decide
// itself.
namespace starling::net::testing {

// The peer's side of a handshake with our listener on `port` from
// `peer_port`: its SYN (MSS 1460, and `options`), then its ACK of our
// SYN-ACK; our ISN. The peer's next sequence number is kPeerSeq.
inline constexpr std::uint32_t kPeerSeq = 10000;
inline async::Task<std::uint32_t> handshake_from_peer(std::uint16_t port, std::uint16_t peer_port,
                                                      const Bytes& options = {}) {
  NetifTestRig::nic().sent.clear();
  (void)co_await NetifTestRig::deliver(
      tcp_frame(peer_port, port, kPeerSeq - 1, 0, 2 /*SYN*/, {}, 1460, 65535, options));
  std::uint32_t iss = 0;
  for (const Bytes& f : NetifTestRig::nic().sent) {
    if (f.size() >= 54 && get16(f, 36) == peer_port) iss = get32(f, 38);
  }
  (void)co_await NetifTestRig::deliver(tcp_frame(peer_port, port, kPeerSeq, iss + 1, 16 /*ACK*/));
  co_return iss;
}

// Data segments we sent to `peer_port` starting at `seq` (pure ACKs not
// counted), among the NIC's sent frames.
inline std::size_t data_sent_from(std::uint16_t peer_port, std::uint32_t seq) {
  std::size_t n = 0;
  for (const Bytes& f : NetifTestRig::nic().sent) {
    if (f.size() < 54 || get16(f, 36) != peer_port || get32(f, 38) != seq) continue;
    const std::size_t tcp_header = (std::to_integer<std::size_t>(f[46]) >> 4) * 4;
    if (get16(f, 16) > 20 + tcp_header) ++n;
  }
  return n;
}

// A SACK option (kind 5) reporting one block, [left, right).
inline Bytes sack_option(std::uint32_t left, std::uint32_t right) {
  Bytes sack = {std::byte{5}, std::byte{10}, {}, {}, {}, {}, {}, {}, {}, {}};
  put32(sack, 2, left);
  put32(sack, 6, right);
  return sack;
}

// lwIP's pcb of the connection between our `port` and the peer's.
inline tcp_pcb* pcb_of(std::uint16_t port, std::uint16_t peer_port) {
  for (tcp_pcb* p = tcp_active_pcbs; p != nullptr; p = p->next) {
    if (p->local_port == port && p->remote_port == peer_port) return p;
  }
  return nullptr;
}

// Our side of a connection the peer at `peer_port` opened with SACK
// permitted (the patches 0011-0016 need it): the stream, the first
// sequence number we send (our ISN + 1) and lwIP's pcb.
struct SackPeer {
  TcpListener listener;  // listen_and_connect_with_sack's own
  TcpStream stream;
  std::uint32_t first = 0;
  tcp_pcb* pcb = nullptr;
};
inline async::Task<SackPeer> connect_with_sack(TcpListener& listener, std::uint16_t port,
                                               std::uint16_t peer_port) {
  const Bytes sack_permitted = {std::byte{4}, std::byte{2}};
  const std::uint32_t iss =
      (co_await handshake_from_peer(port, peer_port, sack_permitted)).value_or(0);
  auto stream = co_await async::with_timeout(listener.accept(), async::kSecond);
  if (!stream.ok()) co_return Unexpected(stream.error());
  tcp_pcb* pcb = pcb_of(port, peer_port);
  if (pcb == nullptr) co_return Unexpected(Error::kNotFound);
  co_return SackPeer{.listener = {}, .stream = std::move(*stream), .first = iss + 1, .pcb = pcb};
}

// The same through a listener of its own at `port` (backlog 4), which the
// result keeps: the opening of most of the patch tests below.
inline async::Task<SackPeer> listen_and_connect_with_sack(std::uint16_t port,
                                                          std::uint16_t peer_port) {
  auto listener = TcpListener::listen(port, 4);
  if (!listener.ok()) co_return Unexpected(listener.error());
  auto peer = co_await connect_with_sack(*listener, port, peer_port);
  if (!peer.ok()) co_return Unexpected(peer.error());
  peer->listener = std::move(*listener);
  co_return std::move(*peer);
}

// Opens `peer`'s congestion window past its first three segments (slow
// start): 2,920 bytes written and acked at once by the peer at
// `peer_port`. Returns the sequence number our next data starts at.
inline async::Task<std::uint32_t> open_window(SackPeer& peer, std::uint16_t port,
                                              std::uint16_t peer_port, std::uint8_t seed) {
  EXPECT_EQ((co_await peer.stream.write(pattern(2920, seed))).value_or(0), 2920u);
  (void)co_await NetifTestRig::deliver(
      tcp_frame(peer_port, port, kPeerSeq, peer.first + 2920, 16 /*ACK*/));
  co_return peer.first + 2920;
}

}  // namespace starling::net::testing

#endif  // STARLING_NET_TCP_TESTS_RAW_PEER_H_
