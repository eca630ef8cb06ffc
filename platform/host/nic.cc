#include "platform/host/nic.h"

#include <memory>
#include <optional>
#include <span>

#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "kernel/arch/host/interrupts.h"
#include "kernel/async/executor.h"
#include "kernel/async/interrupt_source.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/yield.h"
#include "kernel/console/console.h"
#include "platform/host/boot_options.h"
#include "platform/host/tap.h"

namespace starling::board {
namespace {

// DMA memory for the rings and buffers (both 256 x 2 KiB plus descriptors
// fit in well under 4 MiB).
constexpr std::size_t kDmaBytes = std::size_t{8} << 20;
// A TAP frame is at most MTU + header; anything larger (a misconfigured
// MTU) is read whole and refused by the model as the MAC would.
constexpr std::size_t kWireBufferBytes = 16 * 1024;
constexpr std::uint64_t kLinkWaitNs = 2'000'000'000;
// How often the TAP's state is looked at: a cable pulled or plugged shows
// within this, and the driver's PHY poll (0.5 s) then sees the link change.
constexpr std::uint64_t kCablePollNs = 100'000'000;

struct HostNic {
  std::unique_ptr<model::DmaRegion> region;
  mem::PageAllocator dma_pages;
  std::optional<model::DwmacModel> model;
  dwmac::Dwmac driver;
  host::Tap tap;
  async::InterruptSource tap_readable;
  std::byte wire_buffer[kWireBufferBytes];
};

constinit HostNic* g_nic = nullptr;
constinit bool g_probed = false;
constinit Error g_error = Error::kNotFound;
WireStats g_wire;

void fail(const char* what, Error error) {
  console::print("host: NIC ");
  console::print(what);
  console::print(": ");
  console::print(error_name(error));
  console::print("\n");
}

// The wire's receive side: frames waiting in the TAP go to the model, which
// DMAs them into the driver's ring and raises its interrupt line.
//
// On the board the MAC receives while the hart runs the stack; here the
// wire and the stack share one thread. A pump that read the TAP dry before
// the stack ran again spent the thread on frames the full ring could only
// drop, and under a flood of small frames the echoes fell as the offered
// rate rose (a receive livelock of the simulation, not of the driver:
// bench/echo's host_small leg, docs/benchmarks.md "Small packets"). So the
// pump offers the thread back (async::yield: only if someone else is
// waiting) every kFramesPerTurn frames, and at once when the model's RX
// DMA has run out of descriptors, so the driver can refill them; what the
// pump leaves in the TAP waits there, or is dropped by Linux's queue as a
// wire's excess is by the MAC's FIFO.
constexpr int kFramesPerTurn = 32;

async::Task<void> pump_wire(HostNic& nic) {
  for (;;) {
    co_await nic.tap_readable.wait();
    int frames = 0;
    for (;;) {
      auto n = nic.tap.read(nic.wire_buffer);
      if (!n.ok()) {
        fail("TAP read", n.error());
        co_return Unexpected(n.error());
      }
      if (*n == 0) break;
      ++g_wire.to_model;
      const auto outcome =
          nic.model->receive_from_wire(std::span<const std::byte>(nic.wire_buffer, *n));
      if (outcome != model::DwmacModel::RxOutcome::kDelivered &&
          outcome != model::DwmacModel::RxOutcome::kQueued) {
        ++g_wire.model_refused;
      }
      const bool ring_full = outcome == model::DwmacModel::RxOutcome::kQueued ||
                             outcome == model::DwmacModel::RxOutcome::kDroppedFifoFull;
      if (++frames == kFramesPerTurn || ring_full) {
        frames = 0;
        co_await async::yield();
      }
    }
  }
}

void print_cable(bool in) {
  console::print("host: TAP ");
  console::print(host::boot_options().tap);
  console::print(in ? " up: the cable is in\n" : " down: the cable is out\n");
}

// The cable: the Linux side of the TAP up or down (`ip link set NAME
// down` pulls it). The model's PHY follows; the driver finds out as on the
// board, by polling the PHY.
async::Task<void> follow_cable(HostNic& nic) {
  bool in = nic.model->phy().link_up();
  for (;;) {
    co_await async::sleep_for(kCablePollNs);
    auto up = nic.tap.up();
    if (!up.ok() || *up == in) continue;
    in = *up;
    print_cable(in);
    nic.model->phy().set_link(in);
  }
}

Result<HostNic*> bring_up() {
  const host::BootOptions& options = host::boot_options();
  if (options.tap.empty()) {
    console::print("host: no NIC: give the TAP device that is its wire, --tap=NAME\n");
    return Unexpected(Error::kNotFound);
  }
  auto nic = std::make_unique<HostNic>();
  nic->region = model::DmaRegion::create(kDmaBytes);
  if (nic->region == nullptr) {
    console::print("host: NIC: no DMA memory could be mapped below 4 GiB\n");
    return Unexpected(Error::kNoMemory);
  }
  const mem::PhysRange range{nic->region->base(), nic->region->base() + nic->region->size()};
  if (auto ok = nic->dma_pages.init(std::span<const mem::PhysRange>(&range, 1)); !ok.ok()) {
    return Unexpected(ok.error());
  }
  if (auto ok = nic->tap.open(options.tap); !ok.ok()) return Unexpected(ok.error());

  // A TAP that is down at boot is a board powered on without a cable.
  model::DwmacModel::Options model_options;
  if (auto up = nic->tap.up(); up.ok()) model_options.phy.link_up = *up;
  nic->model.emplace(*nic->region, model_options);
  if (!model_options.phy.link_up) print_cable(false);
  HostNic* raw = nic.get();
  nic->model->on_transmit([raw](std::span<const std::byte> frame) {
    if (raw->tap.write(frame).ok()) {
      ++g_wire.from_model;
    } else {
      ++g_wire.tap_write_errors;
    }
  });
  nic->model->on_interrupt_line([raw](bool level) {
    if (level) raw->driver.interrupt();
  });

  dwmac::Dwmac::Config config;
  config.model = &*nic->model;
  config.mac = options.mac;
  config.link_wait_ns = kLinkWaitNs;
  // The model's PHY is a YT8531 with no board timing: any RGMII setting
  // carries frames (the Star64's, measured, is checked by
  // //platform/star64:gmac0_test), so the driver's neutral PHY settings.
  if (auto ok = nic->driver.init(config, nic->dma_pages); !ok.ok()) {
    fail("driver init", ok.error());
    return Unexpected(ok.error());
  }
  if (auto ok = host::watch_fd(nic->tap.fd(), nic->tap_readable); !ok.ok()) {
    fail("watching the TAP", ok.error());
    return Unexpected(ok.error());
  }
  if (auto ok = async::Executor::current().spawn(pump_wire(*raw)); !ok.ok()) {
    fail("starting the wire", ok.error());
    return Unexpected(ok.error());
  }
  if (auto ok = async::Executor::current().spawn(follow_cable(*raw)); !ok.ok()) {
    fail("watching the cable", ok.error());
    return Unexpected(ok.error());
  }
  console::print("host: NIC dwmac (device model) on TAP ");
  console::print(options.tap);
  console::print("\n");
  return nic.release();  // lives as long as the process, like a device
}

}  // namespace

Result<Nic*> nic(mem::PageAllocator&) {
  if (!g_probed) {
    g_probed = true;
    auto up = bring_up();
    if (up.ok()) {
      g_nic = *up;
    } else {
      g_error = up.error();
    }
  }
  if (g_nic == nullptr) return Unexpected(g_error);
  return &g_nic->driver;
}

const WireStats& wire_stats() {
  return g_wire;
}

}  // namespace starling::board
