#include "net/netif/netif.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/async/test_support.h"
#include "net/netif/fake_nic.h"
#include "net/netif/rx_pool.h"

namespace starling::net {
namespace {

using testing::FakeNic;

std::vector<std::byte> frame(std::size_t n, std::uint8_t fill) {
  return std::vector<std::byte>(n, std::byte{fill});
}

// The fake NIC signals an Event: an executor must exist.
class RxPoolTest : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  RxPoolTest() : RuntimeFixture(1 << 20) {}
  void SetUp() override { ensure_lwip_initialized(); }
  FakeNic nic_;
};

// Above kCopyBreak a frame stays in the driver's buffer.
constexpr std::size_t kLarge = 600;
static_assert(kLarge > RxPbufPool<FakeNic, 4>::kCopyBreak);

TEST_F(RxPoolTest, WrapsZeroCopyAndReturnsTheBufferOnFree) {
  RxPbufPool<FakeNic, 4> pool(nic_);
  ASSERT_TRUE(nic_.inject(frame(kLarge, 0xAB)));
  hal::RxFrame rx[1];
  ASSERT_EQ(nic_.receive(rx), 1u);
  pbuf* p = pool.wrap(rx[0]);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->payload, rx[0].data.data());  // the driver's buffer itself: no copy
  EXPECT_EQ(p->tot_len, kLarge);
  EXPECT_EQ(pool.in_use(), 1u);
  EXPECT_EQ(nic_.with_stack(), 1u);
  pbuf_ref(p);  // a second owner (e.g. a queued datagram)
  pbuf_free(p);
  EXPECT_EQ(nic_.with_stack(), 1u);  // still referenced
  pbuf_free(p);
  EXPECT_EQ(nic_.with_stack(), 0u);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_EQ(pool.stats().returned, 1u);
  EXPECT_EQ(nic_.bad_releases, 0u);
}

// A small frame (a one-byte TCP segment, an ACK) cannot pin a DMA buffer:
// it is copied and the buffer is back with the driver before wrap() returns.
TEST_F(RxPoolTest, SmallFramesAreCopiedAndTheirBufferGoesBackAtOnce) {
  RxPbufPool<FakeNic, 4> pool(nic_);
  for (std::size_t size : {std::size_t{14}, std::size_t{60}, RxPbufPool<FakeNic, 4>::kCopyBreak}) {
    ASSERT_TRUE(nic_.inject(frame(size, 0xC3)));
    hal::RxFrame rx[1];
    ASSERT_EQ(nic_.receive(rx), 1u);
    pbuf* p = pool.wrap(rx[0]);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(nic_.with_stack(), 0u) << size;
    EXPECT_EQ(pool.in_use(), 0u);
    EXPECT_EQ(p->tot_len, size);
    std::vector<std::byte> got(size);
    EXPECT_EQ(pbuf_copy_partial(p, got.data(), static_cast<u16_t>(size), 0), size);
    EXPECT_EQ(got, frame(size, 0xC3));
    pbuf_free(p);
  }
  EXPECT_EQ(pool.stats().copied_small, 3u);
  EXPECT_EQ(pool.stats().wrapped, 0u);
}

// Past kZeroCopyLimit held buffers every frame is copied: a quarter of the
// ring always stays with the device, however long the stack holds the rest.
TEST_F(RxPoolTest, PastTheZeroCopyLimitFramesAreCopied) {
  constexpr std::size_t kPool = 8;
  using Pool = RxPbufPool<FakeNic, kPool>;
  static_assert(Pool::kZeroCopyLimit == 6);
  Pool pool(nic_);
  std::vector<pbuf*> held;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < kPool + 5; ++i) ASSERT_TRUE(nic_.inject(frame(kLarge + i, 1)));
    hal::RxFrame rx[32];
    const std::size_t n = nic_.receive(rx);
    ASSERT_EQ(n, kPool + 5);
    for (std::size_t i = 0; i < n; ++i) {
      pbuf* p = pool.wrap(rx[i]);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(p->tot_len, kLarge + i);
      held.push_back(p);
    }
    EXPECT_EQ(pool.in_use(), Pool::kZeroCopyLimit);
    EXPECT_EQ(nic_.with_stack(), Pool::kZeroCopyLimit);  // the copied ones went back
    EXPECT_EQ(pool.stats().copied_pressure, (kPool + 5 - Pool::kZeroCopyLimit) * (round + 1));
    for (pbuf* p : held) pbuf_free(p);
    held.clear();
    EXPECT_EQ(pool.available(), kPool);
    EXPECT_EQ(nic_.with_stack(), 0u);
  }
  EXPECT_EQ(pool.stats().wrapped, 3 * Pool::kZeroCopyLimit);
  EXPECT_EQ(pool.stats().returned, 3 * Pool::kZeroCopyLimit);
  EXPECT_EQ(pool.stats().max_in_use, Pool::kZeroCopyLimit);  // outlives the frees
  EXPECT_EQ(pool.stats().exhausted, 0u);
  EXPECT_EQ(pool.stats().release_errors, 0u);
  EXPECT_EQ(nic_.bad_releases, 0u);
}

// PBUF_POOL empty: under pressure a frame is dropped (never pinned), counted,
// its buffer released; a small frame falls back to zero copy while wrappers last.
TEST_F(RxPoolTest, NoPoolMemoryForACopy) {
  constexpr std::size_t kPool = 4;
  using Pool = RxPbufPool<FakeNic, kPool>;
  Pool pool(nic_);
  std::vector<pbuf*> pool_memory;
  while (pbuf* q = pbuf_alloc(PBUF_RAW, 1, PBUF_POOL)) pool_memory.push_back(q);
  std::vector<pbuf*> held;
  for (std::size_t i = 0; i < Pool::kZeroCopyLimit + 2; ++i) {
    ASSERT_TRUE(nic_.inject(frame(kLarge, 2)));
  }
  ASSERT_TRUE(nic_.inject(frame(60, 3)));
  hal::RxFrame rx[16];
  const std::size_t n = nic_.receive(rx);
  ASSERT_EQ(n, Pool::kZeroCopyLimit + 3);
  for (std::size_t i = 0; i < n; ++i) {
    if (pbuf* p = pool.wrap(rx[i])) held.push_back(p);
  }
  // kZeroCopyLimit large frames zero-copy, 2 dropped, the small one dropped
  // too (limit reached: it could not be copied, and it may not pin a buffer).
  EXPECT_EQ(held.size(), Pool::kZeroCopyLimit);
  EXPECT_EQ(pool.stats().copy_failed, 3u);
  EXPECT_EQ(nic_.with_stack(), Pool::kZeroCopyLimit);
  for (pbuf* p : held) pbuf_free(p);
  held.clear();
  // Below the limit a small frame with no pool memory still gets through.
  ASSERT_TRUE(nic_.inject(frame(60, 4)));
  ASSERT_EQ(nic_.receive(std::span(rx, 1)), 1u);
  pbuf* p = pool.wrap(rx[0]);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->payload, rx[0].data.data());
  pbuf_free(p);
  for (pbuf* q : pool_memory) pbuf_free(q);
  EXPECT_EQ(nic_.with_stack(), 0u);
  EXPECT_EQ(nic_.bad_releases, 0u);
}

TEST_F(RxPoolTest, FreeingAChainReturnsEveryBuffer) {
  RxPbufPool<FakeNic, 4> pool(nic_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(nic_.inject(frame(kLarge, 2)));
  hal::RxFrame rx[3];
  ASSERT_EQ(nic_.receive(rx), 3u);
  pbuf* a = pool.wrap(rx[0]);
  pbuf_cat(a, pool.wrap(rx[1]));
  pbuf_cat(a, pool.wrap(rx[2]));
  EXPECT_EQ(a->tot_len, 3 * kLarge);
  EXPECT_EQ(pool.in_use(), 3u);
  pbuf_free(a);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_EQ(nic_.with_stack(), 0u);
}

// TX through linkoutput: a chain of 1..N pbufs (empty ones among them) goes
// to the NIC as its pbufs' own bytes (the fragment pointers are the
// payloads: no staging copy), is copied exactly once by the NIC (bytes
// copied == frame length) and arrives byte-identical. Only a chain beyond
// kMaxTxFragments is staged first, and says so in tx_gathered.
class LinkOutputTest : public RxPoolTest {};

TEST_F(LinkOutputTest, ChainsGoToTheNicAsFragmentsCopiedOnce) {
  using N = Netif<FakeNic, 8>;
  static FakeNic nic;
  static N netif(nic);
  ASSERT_TRUE(netif.start(kQemuUserDefault).ok());
  struct netif* lwip = netif.lwip_netif();
  constexpr std::size_t kMax = N::kMaxTxFragments;
  std::uint64_t chained = 0;
  const auto frames_before = netif.stats().tx_frames;  // e.g. the gratuitous ARP at netif up
  for (std::size_t n = 1; n <= kMax + 4; ++n) {
    // The frame's bytes: n slices of `whole`, each its own PBUF_REF.
    std::vector<std::byte> whole(60 + 50 * n);
    for (std::size_t i = 0; i < whole.size(); ++i)
      whole[i] = std::byte(static_cast<std::uint8_t>(i * 13 + n));
    pbuf* head = nullptr;
    std::vector<std::pair<const std::byte*, std::size_t>> slices;
    std::size_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = i + 1 == n ? whole.size() - at : whole.size() / n;
      pbuf* q = pbuf_alloc(PBUF_RAW, static_cast<u16_t>(len), PBUF_REF);
      ASSERT_NE(q, nullptr);
      q->payload = whole.data() + at;
      slices.emplace_back(whole.data() + at, len);
      at += len;
      if (head == nullptr) {
        head = q;
      } else {
        pbuf_cat(head, q);
      }
      if (i == 0 && n > 1) {  // an empty pbuf: skipped
        pbuf* empty = pbuf_alloc(PBUF_RAW, 0, PBUF_REF);
        ASSERT_NE(empty, nullptr);
        empty->payload = whole.data();
        pbuf_cat(head, empty);
      }
    }
    const auto copied = nic.bytes_copied;
    const auto gathered = netif.stats().tx_gathered;
    ASSERT_EQ(lwip->linkoutput(lwip, head), ERR_OK) << n;
    pbuf_free(head);
    ASSERT_EQ(nic.sent.back(), whole) << n;
    EXPECT_EQ(nic.bytes_copied - copied, whole.size()) << n;  // each byte copied once, by the NIC
    const auto& fragments = nic.sent_fragments.back();
    if (n <= kMax) {
      ASSERT_EQ(fragments.size(), n);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(fragments[i].data(), slices[i].first) << n << " " << i;  // straight from the pbuf
        EXPECT_EQ(fragments[i].size(), slices[i].second);
      }
      EXPECT_EQ(netif.stats().tx_gathered, gathered);
      chained += n > 1;
    } else {
      ASSERT_EQ(fragments.size(), 1u);  // staged: the one case with a second copy
      EXPECT_EQ(netif.stats().tx_gathered, gathered + 1);
    }
  }
  EXPECT_EQ(netif.stats().tx_chained, chained);
  EXPECT_EQ(netif.stats().tx_frames - frames_before, kMax + 4);

  // A full ring: ERR_WOULDBLOCK (kBusy to a sender), counted, nothing recorded.
  const auto sent = nic.sent.size();
  std::vector<std::byte> bytes(100, std::byte{1});
  pbuf* a = pbuf_alloc(PBUF_RAW, 50, PBUF_REF);
  pbuf* b = pbuf_alloc(PBUF_RAW, 50, PBUF_REF);
  a->payload = bytes.data();
  b->payload = bytes.data() + 50;
  pbuf_cat(a, b);
  nic.busy = true;
  EXPECT_EQ(lwip->linkoutput(lwip, a), ERR_WOULDBLOCK);
  EXPECT_EQ(netif.stats().tx_busy_drops, 1u);
  EXPECT_EQ(nic.sent.size(), sent);
  nic.busy = false;
  EXPECT_EQ(lwip->linkoutput(lwip, a), ERR_OK);
  EXPECT_EQ(nic.sent.back(), bytes);
  pbuf_free(a);

  // Too long for a frame: refused by the NIC, counted as an error.
  std::vector<std::byte> big(hal::kMaxFrameBytes + 1);
  pbuf* c = pbuf_alloc(PBUF_RAW, static_cast<u16_t>(big.size()), PBUF_REF);
  c->payload = big.data();
  EXPECT_EQ(lwip->linkoutput(lwip, c), ERR_IF);
  EXPECT_EQ(netif.stats().tx_errors, 1u);
  pbuf_free(c);
}

// The fake refuses what kernel/hal/nic.h's contract refuses, as the real
// drivers do (their tests): an empty or oversize frame is kInvalidArgument
// when it comes first, and ends the batch (the frames before it sent) when
// it does not. A test that passes over FakeNic then holds on a driver.
TEST_F(RxPoolTest, FakeNicRefusesWhatTheContractRefuses) {
  const auto ok = frame(60, 1), empty = frame(0, 0), big = frame(hal::kMaxFrameBytes + 1, 2);
  const std::span<const std::byte> first_bad[] = {empty, ok};
  auto r = nic_.transmit(first_bad);
  EXPECT_FALSE(r.ok());
  if (!r.ok()) EXPECT_EQ(r.error(), Error::kInvalidArgument);
  const std::span<const std::byte> second_bad[] = {ok, big, ok};
  r = nic_.transmit(second_bad);
  EXPECT_TRUE(r.ok());
  if (r.ok()) EXPECT_EQ(*r, 1u);
  EXPECT_EQ(nic_.sent.size(), 1u);
  const std::span<const std::byte> largest[] = {std::span(big).first(hal::kMaxFrameBytes)};
  r = nic_.transmit(largest);
  EXPECT_TRUE(r.ok() && *r == 1u);
}

}  // namespace
}  // namespace starling::net
