#ifndef STARLING_DRIVERS_DWMAC_DWMAC_TEST_RIG_H_
#define STARLING_DRIVERS_DWMAC_DWMAC_TEST_RIG_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drivers/dwmac/dwmac.h"
#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/irq/irq.h"
#include "drivers/irq/plic.h"
#include "kernel/async/as_task.h"
#include "kernel/async/test_support.h"
#include "kernel/async/timeout.h"
#include "kernel/mem/page_allocator.h"
#include "kernel/test_frames/frames.h"

// Test-only: the rig the DWMAC driver's host tests share. The driver against
// the register-level device model (//drivers/dwmac/model:model), rings and
// buffers from a page allocator over the model's DMA region (addresses below
// 4 GiB, as on the JH7110), the model's interrupt line wired to
// Dwmac::interrupt() or through a PLIC on plain memory, and the coroutine
// runtime of the host board.
namespace starling::dwmac::testing {

inline constexpr hal::MacAddress kMac{{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5b}};
inline constexpr std::size_t kRegionBytes = std::size_t{4} << 20;

// An Ethernet frame to us of `length` bytes whose payload encodes `n`.
inline std::vector<std::byte> frame_of(std::uint32_t n, std::size_t length) {
  std::vector<std::byte> out(length);
  const test_frames::Ethernet eth{.dst = kMac.bytes, .src = {0x02, 0x07, 0x08, 0x09, 0x0a, 0x0b}};
  test_frames::write_ethernet(out, eth, 0x88B5);  // local experimental EtherType: a type frame
  for (std::size_t i = 14; i < length; ++i) out[i] = static_cast<std::byte>((n * 7 + i) & 0xff);
  return out;
}

// What the JH7110 reports (docs/hardware/dwmac.md §1.2 LOG: "User ID: 0x41, Synopsys ID:
// 0x52"), with SNPSVER in 7:0 and USERVER in 15:8 (docs/hardware/dwmac.md §2.2): 0x4152.
inline model::DwmacModel::Options jh7110() {
  model::DwmacModel::Options options;
  options.version = 0x0000'4152;
  return options;
}

// The runtime is a base: every member below is built after the executor and
// destroyed before it, the PLIC's words included (nothing the executor frees
// touches them).
// The driver's register accesses, by offset, on their way to the model: what
// a wake-up costs in uncached reads on the Star64.
class CountingBus : public mmio::RegisterBus {
 public:
  std::uint32_t read32(std::uint32_t offset) override {
    ++reads[offset];
    return inner->read32(offset);
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    ++writes[offset];
    inner->write32(offset, value);
  }
  static std::uint64_t total(const std::map<std::uint32_t, std::uint64_t>& by_offset) {
    std::uint64_t sum = 0;
    for (const auto& [offset, count] : by_offset) sum += count;
    return sum;
  }

  mmio::RegisterBus* inner = nullptr;
  std::map<std::uint32_t, std::uint64_t> reads, writes;
};

class DwmacRig : public ::testing::Test, public async::testing::RuntimeFixture {
 protected:
  DwmacRig() : RuntimeFixture(std::size_t{1} << 20) {
    region_ = model::DmaRegion::create(kRegionBytes);
    EXPECT_NE(region_, nullptr);
    const mem::PhysRange range{region_->base(), region_->base() + region_->size()};
    EXPECT_TRUE(pages_.init({&range, 1}).ok());
  }

  // The model with `options`, then the driver's init().
  Result<void> start(model::DwmacModel::Options options = jh7110(), Dwmac::BoardParams params = {},
                     std::uint64_t link_wait_ns = 1'000'000'000, std::uint32_t irq = 0) {
    model_ = std::make_unique<model::DwmacModel>(*region_, options);
    if (prepare_) prepare_(*model_);
    model_->on_interrupt_line([this, irq](bool up) {
      if (!up) return;
      ++line_raised_;
      if (irq == 0) {
        driver_.interrupt();  // no PLIC: the line's owner calls interrupt()
        return;
      }
      // Through the PLIC: the trap claims the source and irq:: dispatches.
      plic_words_[kClaim / 4] = irq;
      irq::dispatch();
      plic_words_[kClaim / 4] = 0;
    });
    model_->on_transmit(
        [this](std::span<const std::byte> f) { sent_.emplace_back(f.begin(), f.end()); });
    bus_.inner = model_.get();
    return driver_.init({.base = 0x1603'0000,
                         .irq = irq,
                         .model = &bus_,
                         .mac = kMac,
                         .params = params,
                         .phy = phy_params_,
                         .link_wait_ns = link_wait_ns},
                        pages_);
  }

  std::uint32_t reg(std::uint32_t offset) const { return model_->peek(offset); }

  // Everything received now, each buffer released at once.
  std::vector<std::vector<std::byte>> drain() {
    std::vector<std::vector<std::byte>> out;
    hal::RxFrame batch[32];
    for (;;) {
      const std::size_t n = driver_.receive(batch);
      std::vector<hal::RxHandle> handles;
      for (std::size_t i = 0; i < n; ++i) {
        out.emplace_back(batch[i].data.begin(), batch[i].data.end());
        handles.push_back(batch[i].handle);
      }
      EXPECT_TRUE(driver_.release(handles).ok());
      if (n < 32) return out;
    }
  }

  Result<void> wait() { return executor_.block_on(async::as_task(driver_.wait_for_work())); }
  // Frame `n` of `length` bytes out to the wire and the same frame in from
  // it, both intact: the port passes traffic both ways.
  void expect_traffic_both_ways(std::uint32_t n, std::size_t length) {
    const auto f = frame_of(n, length);
    std::span<const std::byte> one[] = {f};
    const std::size_t sent_before = sent_.size();
    ASSERT_EQ(*driver_.transmit(one), 1u);
    ASSERT_EQ(sent_.size(), sent_before + 1);
    EXPECT_EQ(sent_.back(), f);
    ASSERT_EQ(model_->receive_from_wire(f), model::DwmacModel::RxOutcome::kDelivered);
    const auto got = drain();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0], f);
  }

  // One frame accepted while the transmitter is stalled, then three link
  // polls of waiting: what the console showed meanwhile.
  std::string stall_one_frame() {
    model_->set_tx_stall(true);
    const auto f = frame_of(1, 100);
    std::span<const std::byte> one[] = {f};
    EXPECT_EQ(*driver_.transmit(one), 1u);
    ::testing::internal::CaptureStdout();
    wait_through_link_polls(3);
    return ::testing::internal::GetCapturedStdout();
  }
  // wait_for_work() through `polls` link polls (it returns only for work;
  // a stalled transmitter is none), each wait cut off after 0.6 s.
  void wait_through_link_polls(int polls) {
    for (int i = 0; i < polls; ++i) {
      const auto r = executor_.block_on(
          async::as_task(async::with_timeout(driver_.wait_for_work(), 600'000'000)));
      ASSERT_TRUE(r.ok() || r.error() == Error::kTimedOut);
    }
  }

  static constexpr std::uint32_t kContext = 1;
  static constexpr std::uintptr_t kClaim = 0x200004 + 0x1000 * kContext;
  std::vector<std::uint32_t> plic_words_ = std::vector<std::uint32_t>(0x202000 / 4, 0);
  Plic plic_{{reinterpret_cast<std::uintptr_t>(plic_words_.data()), kContext, 136}};
  std::unique_ptr<model::DmaRegion> region_;
  mem::PageAllocator pages_;
  std::unique_ptr<model::DwmacModel> model_;
  CountingBus bus_;  // the driver's path to model_
  std::vector<std::vector<std::byte>> sent_;
  int line_raised_ = 0;
  // Runs on the fresh model before the driver's init() (fault injection).
  std::function<void(model::DwmacModel&)> prepare_;
  // The board's PHY for the next start(): the driver's neutral settings
  // unless a test sets the board's.
  PhyParams phy_params_{};
  Dwmac driver_;
};

}  // namespace starling::dwmac::testing

#endif  // STARLING_DRIVERS_DWMAC_DWMAC_TEST_RIG_H_
