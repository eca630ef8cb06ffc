// Received bytes written back without a copy (net/tcp/tx_reference.h), from
// the wire: production lwIP over the netif and FakeNic, a peer written
// frame by frame, so the test says when acknowledgements come. What each
// case proves: the piece lwIP sends is the received buffer itself; that
// buffer goes back to the NIC only once lwIP is done with the segment
// (acknowledged, aborted, after a close's data is acknowledged), not when
// the reader consumes it; a retransmission after the reader moved on still
// carries the received bytes; and past kTxReferences writes copy.
#include "net/tcp/tx_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>

#include "kernel/async/timeout.h"
#include "lwip/priv/tcp_priv.h"
#include "net/netif/test_frames.h"
#include "net/netif/test_rig.h"
#include "net/tcp/tcp.h"
#include "net/tcp/tests/raw_peer.h"

namespace starling::net {
namespace {

using namespace testing;  // NOLINT: the frame builders, the rig and the raw peer

class TxReferenceTest : public ::testing::Test {
 protected:
  NetifTestRig rig_;
};

// The bytes we sent `peer_port` from sequence number `from` on, `n` of
// them, each from the last frame that carried it (a retransmission wins).
Bytes sent_stream(std::uint16_t peer_port, std::uint32_t from, std::size_t n) {
  std::map<std::uint32_t, std::byte> at;
  for (const Bytes& f : NetifTestRig::nic().sent) {
    if (f.size() < 54 || get16(f, 36) != peer_port) continue;
    const std::size_t tcp_header = (std::to_integer<std::size_t>(f[46]) >> 4) * 4;
    const std::size_t end = 14 + get16(f, 16);
    const std::uint32_t seq = get32(f, 38);
    for (std::size_t i = 34 + tcp_header; i < end && i < f.size(); ++i) {
      at[seq + static_cast<std::uint32_t>(i - 34 - tcp_header)] = f[i];
    }
  }
  Bytes out;
  for (std::uint32_t s = from; s < from + n; ++s) {
    auto it = at.find(s);
    if (it == at.end()) break;
    out.push_back(it->second);
  }
  return out;
}

// The peer's data segment `offset` bytes into its stream, acknowledging
// our first `acked` bytes.
Bytes peer_data(std::uint16_t port, std::uint16_t peer_port, const SackPeer& to,
                std::uint32_t offset, std::uint32_t acked, const Bytes& payload) {
  return tcp_frame(peer_port, port, kPeerSeq + offset, to.first + acked, 16 | 8, payload);
}

// NIC buffers the stack holds now (zero-copy frames: more than 256 bytes).
std::size_t held_buffers() {
  return NetifTestRig::netif().rx_pool().in_use();
}

// The last data pbuf of the newest segment lwIP holds for `pcb`.
const pbuf* newest_data_pbuf(const tcp_pcb* pcb) {
  const tcp_seg* seg = pcb->unsent != nullptr ? pcb->unsent : pcb->unacked;
  if (seg == nullptr) return nullptr;
  while (seg->next != nullptr) seg = seg->next;
  const pbuf* p = seg->p;
  while (p->next != nullptr) p = p->next;
  return p;
}

TEST_F(TxReferenceTest, AnEchoedPieceIsSentFromItsBufferAndHeldUntilAcknowledged) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    constexpr std::uint16_t kPort = 1501;
    constexpr std::uint16_t kPeerPort = 47001;
    auto peer = co_await listen_and_connect_with_sack(kPort, kPeerPort);
    EXPECT_TRUE(peer.ok());
    if (!peer.ok()) co_return {};
    const TcpStats before = tcp_stats();
    const std::size_t buffers = held_buffers();
    const std::uint64_t in_place = NetifTestRig::nic().stats().tx_in_place;
    const Bytes data = pattern(1000, 3);
    (void)co_await NetifTestRig::deliver(peer_data(kPort, kPeerPort, *peer, 0, 0, data));
    auto piece = co_await peer->stream.peek();
    EXPECT_TRUE(piece.ok() && piece->size() == data.size());
    if (!piece.ok()) co_return {};
    EXPECT_EQ((co_await peer->stream.write(*piece)).value_or(0), data.size());
    EXPECT_EQ(tcp_stats().tx_referenced, before.tx_referenced + 1);
    EXPECT_EQ(tcp_stats().tx_references_held, before.tx_references_held + 1);
    const pbuf* sent = newest_data_pbuf(peer->pcb);
    EXPECT_NE(sent, nullptr);
    if (sent != nullptr) {
      EXPECT_NE(sent->flags & PBUF_FLAG_IS_CUSTOM, 0) << "not our reference";
      EXPECT_EQ(sent->payload, static_cast<const void*>(piece->data())) << "the bytes were copied";
    }
    EXPECT_EQ(sent_stream(kPeerPort, peer->first, data.size()), data);
    // Sent from the received buffer itself, its headers where the received
    // ones were (Netif::send_in_place).
    EXPECT_EQ(NetifTestRig::nic().stats().tx_in_place, in_place + 1);
    // The reader moves on: the buffer stays held (not back with the NIC).
    EXPECT_TRUE(peer->stream.consume(piece->size()).ok());
    EXPECT_EQ(held_buffers(), buffers + 1);
    EXPECT_EQ(tcp_stats().tx_references_held, before.tx_references_held + 1);
    // More frames arrive (each takes the first free NIC buffer: a buffer
    // given back too early would now hold other bytes) and are read.
    std::byte sink[600];
    for (std::uint32_t i = 0; i < 3; ++i) {
      (void)co_await NetifTestRig::deliver(
          peer_data(kPort, kPeerPort, *peer, 1000 + 500 * i, 0, pattern(500, 40 + i)));
      EXPECT_EQ((co_await async::with_timeout(peer->stream.read(sink), async::kSecond)).value_or(0),
                500u);
    }
    // The segment is resent (its timer, forced): still the received bytes.
    NetifTestRig::nic().sent.clear();
    tcp_rexmit_rto(peer->pcb);
    (void)co_await NetifTestRig::settle();
    EXPECT_EQ(data_sent_from(kPeerPort, peer->first), 1u) << "not resent";
    EXPECT_EQ(sent_stream(kPeerPort, peer->first, data.size()), data)
        << "the resent segment's bytes changed";
    // Copied, not in place: its header would overwrite the room the first
    // transmission's frame used, which a NIC may still be reading.
    EXPECT_EQ(NetifTestRig::nic().stats().tx_in_place, in_place + 1);
    // Acknowledged: the reference goes, and the buffer back to the NIC.
    (void)co_await NetifTestRig::deliver(
        tcp_frame(kPeerPort, kPort, kPeerSeq + 2500, peer->first + 1000, 16));
    EXPECT_EQ(tcp_stats().tx_references_held, before.tx_references_held);
    EXPECT_EQ(held_buffers(), buffers);
    peer->stream.abort();
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// A piece written before the bytes in front of it (an application's own
// order): the reader may still read those bytes, so no header is written
// over them. The first bytes, written next, are copied too (a reference
// claims its buffer up to its end: simpler than keeping holes, and this
// order is rare), and both pieces reach the peer as written, a
// retransmission included.
TEST_F(TxReferenceTest, APieceWrittenBeforeTheBytesInFrontOfItLeavesThemAlone) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    constexpr std::uint16_t kPort = 1504;
    constexpr std::uint16_t kPeerPort = 47005;
    auto peer = co_await listen_and_connect_with_sack(kPort, kPeerPort);
    EXPECT_TRUE(peer.ok());
    if (!peer.ok()) co_return {};
    const std::uint64_t in_place = NetifTestRig::nic().stats().tx_in_place;
    const std::size_t held = tcp_stats().tx_references_held;
    const Bytes data = pattern(1000, 9);
    (void)co_await NetifTestRig::deliver(peer_data(kPort, kPeerPort, *peer, 0, 0, data));
    auto piece = co_await peer->stream.peek();
    EXPECT_TRUE(piece.ok() && piece->size() == data.size());
    if (!piece.ok() || piece->size() != data.size()) co_return {};
    EXPECT_EQ((co_await peer->stream.write(piece->subspan(500))).value_or(0), 500u);
    EXPECT_EQ(NetifTestRig::nic().stats().tx_in_place, in_place) << "no room: copied";
    EXPECT_TRUE(std::equal(piece->begin(), piece->end(), data.begin()))
        << "bytes the reader has not consumed were written over";
    EXPECT_EQ((co_await peer->stream.write(piece->first(500))).value_or(0), 500u);
    EXPECT_EQ(NetifTestRig::nic().stats().tx_in_place, in_place);
    EXPECT_EQ(tcp_stats().tx_references_held, held + 2);
    Bytes expected(data.begin() + 500, data.end());
    expected.insert(expected.end(), data.begin(), data.begin() + 500);
    EXPECT_EQ(sent_stream(kPeerPort, peer->first, 1000), expected);
    EXPECT_TRUE(peer->stream.consume(1000).ok());
    NetifTestRig::nic().sent.clear();
    tcp_rexmit_rto(peer->pcb);
    (void)co_await NetifTestRig::settle();
    EXPECT_EQ(sent_stream(kPeerPort, peer->first, 1000), expected) << "resent bytes changed";
    peer->stream.abort();
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

TEST_F(TxReferenceTest, AbortAndCloseLetTheBuffersGo) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    constexpr std::uint16_t kPort = 1502;
    auto listener = TcpListener::listen(kPort, 4);
    EXPECT_TRUE(listener.ok());
    if (!listener.ok()) co_return {};
    const std::size_t held = tcp_stats().tx_references_held;
    const std::size_t buffers = held_buffers();
    // Echoed, never acknowledged, then aborted: lwIP frees the segment.
    auto a = co_await connect_with_sack(*listener, kPort, 47002);
    EXPECT_TRUE(a.ok());
    if (!a.ok()) co_return {};
    (void)co_await NetifTestRig::deliver(peer_data(kPort, 47002, *a, 0, 0, pattern(300, 5)));
    auto piece = co_await a->stream.peek();
    EXPECT_TRUE(piece.ok());
    if (!piece.ok()) co_return {};
    EXPECT_EQ((co_await a->stream.write(*piece)).value_or(0), 300u);
    EXPECT_TRUE(a->stream.consume(300).ok());
    EXPECT_EQ(tcp_stats().tx_references_held, held + 1);
    EXPECT_EQ(held_buffers(), buffers + 1);
    a->stream.abort();
    EXPECT_EQ(tcp_stats().tx_references_held, held);
    EXPECT_EQ(held_buffers(), buffers);
    // Echoed, then closed: the data (and FIN) still go out and are resent
    // as needed, so the buffer is held until the peer acknowledges them.
    auto b = co_await connect_with_sack(*listener, kPort, 47003);
    EXPECT_TRUE(b.ok());
    if (!b.ok()) co_return {};
    (void)co_await NetifTestRig::deliver(peer_data(kPort, 47003, *b, 0, 0, pattern(300, 6)));
    piece = co_await b->stream.peek();
    EXPECT_TRUE(piece.ok());
    if (!piece.ok()) co_return {};
    EXPECT_EQ((co_await b->stream.write(*piece)).value_or(0), 300u);
    EXPECT_TRUE(b->stream.consume(300).ok());
    EXPECT_TRUE(b->stream.close().ok());
    EXPECT_EQ(tcp_stats().tx_references_held, held + 1)
        << "let go before the data was acknowledged";
    EXPECT_EQ(held_buffers(), buffers + 1);
    (void)co_await NetifTestRig::deliver(
        tcp_frame(47003, kPort, kPeerSeq + 300, b->first + 301, 16));  // data and FIN
    EXPECT_EQ(tcp_stats().tx_references_held, held);
    EXPECT_EQ(held_buffers(), buffers);
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

// 70 pieces written back, none acknowledged: all but one of the
// kTxReferences are held, the rest copied and counted; once acknowledged, every byte went out
// as received and nothing is held.
TEST_F(TxReferenceTest, PastTheBoundWritesCopy) {
  Result<void> r = rig_.run([]() -> async::Task<void> {
    constexpr std::uint16_t kPort = 1503;
    constexpr std::uint16_t kPeerPort = 47004;
    constexpr std::uint32_t kPieces = 70;
    constexpr std::uint32_t kBytes = 100;
    static_assert(kPieces > detail::kTxReferences);
    auto peer = co_await listen_and_connect_with_sack(kPort, kPeerPort);
    EXPECT_TRUE(peer.ok());
    if (!peer.ok()) co_return {};
    const TcpStats before = tcp_stats();
    Bytes all;
    for (std::uint32_t i = 0; i < kPieces; ++i) {
      const Bytes data = pattern(kBytes, 60 + i);
      all.insert(all.end(), data.begin(), data.end());
      (void)co_await NetifTestRig::deliver(peer_data(kPort, kPeerPort, *peer, kBytes * i, 0, data));
      auto piece = co_await peer->stream.peek();
      EXPECT_TRUE(piece.ok() && piece->size() == kBytes);
      if (!piece.ok()) co_return {};
      EXPECT_EQ((co_await peer->stream.write(*piece)).value_or(0), kBytes);
      EXPECT_TRUE(peer->stream.consume(kBytes).ok());
    }
    // A write asks for a reference only with two free (a chunk may need
    // two pieces), so the last one stays free.
    const TcpStats during = tcp_stats();
    EXPECT_EQ(during.tx_references_held, detail::kTxReferences - 1);
    EXPECT_EQ(during.tx_referenced - before.tx_referenced, detail::kTxReferences - 1);
    // (A write that crosses into a new segment takes two.)
    EXPECT_GE(during.tx_reference_fallbacks - before.tx_reference_fallbacks,
              kPieces - (detail::kTxReferences - 1));
    // Acknowledged as it goes out, until all of it has.
    for (int round = 0; round < 20; ++round) {
      const std::uint32_t acked = peer->pcb->snd_nxt - peer->first;
      (void)co_await NetifTestRig::deliver(
          tcp_frame(kPeerPort, kPort, kPeerSeq + kBytes * kPieces, peer->first + acked, 16));
      if (acked == kBytes * kPieces) break;
    }
    EXPECT_EQ(sent_stream(kPeerPort, peer->first, all.size()), all);
    EXPECT_EQ(tcp_stats().tx_references_held, before.tx_references_held);
    peer->stream.abort();
    co_return {};
  }());
  EXPECT_TRUE(r.ok()) << error_name(r.error());
}

}  // namespace
}  // namespace starling::net
