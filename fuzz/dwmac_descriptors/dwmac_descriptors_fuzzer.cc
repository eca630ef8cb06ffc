// Fuzzes what a DWC EQoS MAC hands the driver (drivers/dwmac): write-back
// descriptors with any status, length and error bits (first/last/context,
// OWN flipped back, lengths beyond the buffer, error summaries with or
// without their causes, impossible combinations), register values the
// driver reads (DMA status with any bit set, fatal bus errors, MDIO data),
// and the device model's own misbehaviour (frames with faults, a stalled
// TX, a bus error mid-transfer), interleaved with the driver's receive,
// release, transmit and interrupt service.
//
// The device is the register-level model (drivers/dwmac/model); a bus in
// front of it (FuzzBus) substitutes the fuzzer's value for the next read of
// a chosen register, and the harness writes descriptors straight into the
// rings, as a DMA engine would. A fresh model and driver per input.
//
// Checks, besides ASan/UBSan: every received frame lies inside one of the
// driver's buffers in DMA memory and fits it, a handle is handed out only
// while the stack does not hold it, and each releases exactly once.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "drivers/dwmac/descriptors.h"
#include "drivers/dwmac/dwmac.h"
#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "drivers/dwmac/registers.h"
#include "drivers/mmio/register_bus.h"
#include "fuzz/harness.h"
#include "fuzz/nic_stack_side.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/mem/page_allocator.h"

namespace {

using namespace starling;  // NOLINT(google-build-using-namespace): a harness
using dwmac::Descriptor;
using dwmac::Dwmac;

constexpr std::size_t kRegionBytes = std::size_t{4} << 20;
constexpr hal::MacAddress kMac{{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5b}};

void check(bool condition, const char* what) {
  fuzz::check(condition, "dwmac_descriptors", what);
}

using fuzz::Input;

// The model behind a bus that lies once per armed register.
class FuzzBus final : public mmio::RegisterBus {
 public:
  explicit FuzzBus(model::DwmacModel& model) : model_(&model) {}
  std::uint32_t read32(std::uint32_t offset) override {
    for (auto& o : overrides_) {
      if (o.armed && o.offset == offset) {
        o.armed = false;
        return o.value;
      }
    }
    return model_->read32(offset);
  }
  void write32(std::uint32_t offset, std::uint32_t value) override {
    model_->write32(offset, value);
  }
  void arm(std::uint32_t offset, std::uint32_t value) {
    for (auto& o : overrides_) {
      if (!o.armed || o.offset == offset) {
        o = {offset, value, true};
        return;
      }
    }
  }

 private:
  struct Override {
    std::uint32_t offset = 0;
    std::uint32_t value = 0;
    bool armed = false;
  };
  model::DwmacModel* model_;
  Override overrides_[4];
};

constexpr std::uint32_t kLyingRegisters[] = {
    dwmac::reg::kDmaCh0Status,        dwmac::reg::kDmaCh0MissFrameCount,
    dwmac::reg::kMacMdioData,         dwmac::reg::kMacMdioAddress,
    dwmac::reg::kDmaCh0CurrentRxDesc, dwmac::reg::kDmaCh0CurrentTxDesc,
};

struct World {
  World() : arena(1u << 20), frames(arena), use_frames(frames) {
    region = model::DmaRegion::create(kRegionBytes);
    check(region != nullptr, "DMA region");
  }
  std::vector<std::byte> arena;
  async::FrameAllocator frames;
  async::ScopedFrameAllocator use_frames;
  async::Executor executor;
  std::unique_ptr<model::DmaRegion> region;
};

Descriptor* ring_at(model::DwmacModel& model, std::uint32_t high, std::uint32_t low) {
  const std::uint64_t address = std::uint64_t{model.peek(high)} << 32 | model.peek(low);
  return reinterpret_cast<Descriptor*>(static_cast<std::uintptr_t>(address));
}

// One look at the device: wait_for_work() services what is pending and
// returns, or is cancelled at once if it would sleep.
async::Task<void> service_once(Dwmac& driver) {
  auto serviced = co_await async::with_timeout(driver.wait_for_work(), 1);
  (void)serviced;
  co_return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static World* world = new World();
  Input in(data, size);

  mem::PageAllocator pages;
  model::DmaRegion& region = *world->region;
  const mem::PhysRange range{region.base(), region.base() + region.size()};
  check(pages.init({&range, 1}).ok(), "page allocator");
  model::DwmacModel model(region);
  FuzzBus bus(model);
  Dwmac driver;
  model.on_interrupt_line([&driver](bool up) {
    if (up) driver.interrupt();
  });
  if (!driver
           .init({.base = 0x1603'0000, .model = &bus, .mac = kMac, .params = {}, .link_wait_ns = 0},
                 pages)
           .ok()) {
    return 0;
  }
  Descriptor* rx_ring =
      ring_at(model, dwmac::reg::kDmaCh0RxDescListHigh, dwmac::reg::kDmaCh0RxDescListAddress);
  Descriptor* tx_ring =
      ring_at(model, dwmac::reg::kDmaCh0TxDescListHigh, dwmac::reg::kDmaCh0TxDescListAddress);
  check(region.contains(reinterpret_cast<std::uintptr_t>(rx_ring),
                        sizeof(Descriptor) * Dwmac::kRxRingSize),
        "RX ring in DMA memory");
  check(region.contains(reinterpret_cast<std::uintptr_t>(tx_ring),
                        sizeof(Descriptor) * Dwmac::kTxRingSize),
        "TX ring in DMA memory");

  fuzz::NicStackSide<Dwmac> stack(
      driver,
      std::span(reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(region.base())),
                region.size()),
      Dwmac::kBufferBytes, "dwmac_descriptors");
  std::vector<std::byte> scratch;
  int services = 0;
  while (!in.empty()) {
    switch (in.u8() % 12) {
      case 0: {  // a frame from the wire, possibly with a fault
        const std::size_t length = in.u16() % 1600;
        const std::uint8_t faults = in.u8();
        scratch.assign(length + 1, std::byte{0x5a});
        for (std::size_t i = 0; i < 6 && i < length; ++i) scratch[i] = std::byte{kMac.bytes[i]};
        (void)model.receive_from_wire(std::span(scratch).first(length),
                                      {.crc_error = (faults & 1) != 0,
                                       .receive_error = (faults & 2) != 0,
                                       .giant = (faults & 4) != 0,
                                       .overflow = (faults & 8) != 0});
        break;
      }
      case 1: {  // the DMA engine writes back an RX descriptor as it pleases
        Descriptor& d = rx_ring[in.u8() % Dwmac::kRxRingSize];
        for (int w = 0; w < 3; ++w) d.store(w, in.u32());
        d.store(3, in.u32());
        break;
      }
      case 2: {  // ... or a TX descriptor
        Descriptor& d = tx_ring[in.u8() % Dwmac::kTxRingSize];
        d.store(3, in.u32());
        break;
      }
      case 3:  // the stack polls; keeps some buffers, releases others
        stack.poll(in);
        break;
      case 4:  // the stack returns a held buffer, or names one it never had
        stack.release(in);
        break;
      case 5:  // transmit: any length, including empty and oversized
        stack.transmit(in);
        break;
      case 6:  // gather transmit of up to four fragments
        stack.transmit_gather(in);
        break;
      case 7: {  // the next read of a register returns the fuzzer's value
        const std::uint32_t offset = kLyingRegisters[in.u8() % std::size(kLyingRegisters)];
        bus.arm(offset, in.u32());
        break;
      }
      case 8:  // an interrupt, serviced (bounded: a pass, not a wait)
        if (++services <= 16) {
          driver.interrupt();
          (void)world->executor.block_on(service_once(driver));
        }
        break;
      case 9:  // a bus error on one channel, mid-transfer
        model.inject_fatal_bus_error((in.u8() & 1) != 0 ? model::DwmacModel::Channel::kTx
                                                        : model::DwmacModel::Channel::kRx);
        break;
      case 10:
        model.set_tx_stall((in.u8() & 1) != 0);
        break;
      case 11:
        (void)driver.poll_link();
        break;
    }
  }
  // Everything the stack still holds goes back (a recovery may have reset
  // the rings: the handles must still be good for one release).
  stack.release_all();
  return 0;
}
