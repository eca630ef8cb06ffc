#ifndef STARLING_DRIVERS_VIRTIO_NET_TEST_RIG_H_
#define STARLING_DRIVERS_VIRTIO_NET_TEST_RIG_H_

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "drivers/irq/irq.h"
#include "drivers/irq/plic.h"
#include "drivers/virtio/model/fake_net_device.h"
#include "drivers/virtio/net.h"
#include "kernel/async/test_support.h"
#include "kernel/mem/page_allocator.h"

// Test-only: the rig the virtio-net driver's host tests share. The driver
// against the virtio-mmio device model (fake_net_device.h), rings and buffers
// from a page allocator over host memory, the interrupt through a PLIC on
// plain memory and irq::, the coroutine runtime on the host board.
namespace starling::virtio::testing {

inline constexpr std::uint32_t kRigIrq = 8;
inline constexpr std::uint32_t kRigContext = 1;
inline constexpr std::uintptr_t kRigClaim = 0x200004 + 0x1000 * kRigContext;

inline std::vector<std::byte> frame_of(std::uint32_t n, std::size_t length) {
  std::vector<std::byte> out(length);
  for (std::size_t i = 0; i < length; ++i) out[i] = static_cast<std::byte>((n * 7 + i) & 0xff);
  return out;
}

class NetRig : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  NetRig() : RuntimeFixture(std::size_t{4} << 20) {
    // 4 MiB of page-aligned "physical" memory, identity-mapped on the host,
    // in the low 2 GiB so that legacy QueuePFN (32 bits of pages) reaches it.
    void* low = mmap(nullptr, kPagesBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    EXPECT_NE(low, MAP_FAILED);
    pages_memory_ = static_cast<std::byte*>(low);
    const mem::PhysRange range{mem::to_phys(pages_memory_),
                               mem::to_phys(pages_memory_) + kPagesBytes};
    EXPECT_TRUE(pages_.init({&range, 1}).ok());
    plic_.init();
    irq::init(plic_);
    // The line going up = the trap running irq::dispatch() for our source.
    device_.raise_interrupt = [this] {
      plic_words_[kRigClaim / 4] = kRigIrq;
      irq::dispatch();
      plic_words_[kRigClaim / 4] = 0;
    };
  }
  ~NetRig() override { munmap(pages_memory_, kPagesBytes); }

  Result<void> init() {
    return net_.init({.base = 0x1000'8000, .irq = kRigIrq, .model = &device_}, pages_);
  }

  // Everything the driver received now, each buffer released at once.
  std::vector<std::vector<std::byte>> drain() {
    std::vector<std::vector<std::byte>> out;
    hal::RxFrame batch[16];
    for (;;) {
      const std::size_t n = net_.receive(batch);
      for (std::size_t i = 0; i < n; ++i) {
        out.emplace_back(batch[i].data.begin(), batch[i].data.end());
        EXPECT_TRUE(net_.release(batch[i].handle).ok());
      }
      if (n < 16) return out;
    }
  }

  static constexpr std::size_t kPagesBytes = std::size_t{4} << 20;
  std::byte* pages_memory_ = nullptr;
  mem::PageAllocator pages_;
  std::vector<std::uint32_t> plic_words_ = std::vector<std::uint32_t>(0x202000 / 4, 0);
  Plic plic_{{reinterpret_cast<std::uintptr_t>(plic_words_.data()), kRigContext, 95}};
  FakeNetDevice device_;
  Net net_;
};

}  // namespace starling::virtio::testing

#endif  // STARLING_DRIVERS_VIRTIO_NET_TEST_RIG_H_
