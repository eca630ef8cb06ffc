#include "net/netif/netif.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "net/netif/fake_nic.h"
#include "net/netif/rx_pool.h"

namespace starling::net {
namespace {

using testing::FakeNic;

std::vector<std::byte> frame(std::size_t n, std::uint8_t fill) { return std::vector<std::byte>(n, std::byte{fill}); }

// The fake NIC signals an Event: an executor must exist.
class RxPoolTest : public ::testing::Test {
 protected:
  RxPoolTest() : arena_(1 << 20), frames_(arena_), use_frames_(frames_) {}
  void SetUp() override { ensure_lwip_initialized(); }
  std::vector<std::byte> arena_;
  async::FrameAllocator frames_;
  async::ScopedFrameAllocator use_frames_;
  async::Executor executor_;
  FakeNic nic_;
};

TEST_F(RxPoolTest, WrapsZeroCopyAndReturnsTheBufferOnFree) {
  RxPbufPool<FakeNic, 4> pool(nic_);
  ASSERT_TRUE(nic_.inject(frame(60, 0xAB)));
  hal::RxFrame rx[1];
  ASSERT_EQ(nic_.receive(rx), 1u);
  pbuf* p = pool.wrap(rx[0]);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->payload, rx[0].data.data());  // the driver's buffer itself: no copy
  EXPECT_EQ(p->tot_len, 60);
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

TEST_F(RxPoolTest, ExhaustionDropsAndCountsThenEveryWrapperComesBack) {
  constexpr std::size_t kPool = 8;
  RxPbufPool<FakeNic, kPool> pool(nic_);
  std::vector<pbuf*> held;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < kPool + 5; ++i) ASSERT_TRUE(nic_.inject(frame(100 + i, 1)));
    hal::RxFrame rx[32];
    const std::size_t n = nic_.receive(rx);
    ASSERT_EQ(n, kPool + 5);
    for (std::size_t i = 0; i < n; ++i) {
      if (pbuf* p = pool.wrap(rx[i])) held.push_back(p);
    }
    EXPECT_EQ(held.size(), kPool);
    EXPECT_EQ(pool.available(), 0u);
    EXPECT_EQ(pool.stats().exhausted, 5u * (round + 1));
    // dropped frames went straight back to the driver
    EXPECT_EQ(nic_.with_stack(), kPool);
    for (pbuf* p : held) pbuf_free(p);
    held.clear();
    EXPECT_EQ(pool.available(), kPool);
    EXPECT_EQ(nic_.with_stack(), 0u);
  }
  EXPECT_EQ(pool.stats().wrapped, 3 * kPool);
  EXPECT_EQ(pool.stats().returned, 3 * kPool);
  EXPECT_EQ(pool.stats().release_errors, 0u);
  EXPECT_EQ(nic_.bad_releases, 0u);
}

TEST_F(RxPoolTest, FreeingAChainReturnsEveryBuffer) {
  RxPbufPool<FakeNic, 4> pool(nic_);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(nic_.inject(frame(60, 2)));
  hal::RxFrame rx[3];
  ASSERT_EQ(nic_.receive(rx), 3u);
  pbuf* a = pool.wrap(rx[0]);
  pbuf_cat(a, pool.wrap(rx[1]));
  pbuf_cat(a, pool.wrap(rx[2]));
  EXPECT_EQ(a->tot_len, 180);
  EXPECT_EQ(pool.in_use(), 3u);
  pbuf_free(a);
  EXPECT_EQ(pool.in_use(), 0u);
  EXPECT_EQ(nic_.with_stack(), 0u);
}

}  // namespace
}  // namespace starling::net
