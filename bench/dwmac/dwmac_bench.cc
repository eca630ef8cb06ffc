// Frames through the DWMAC driver and its device model on the host: `n`
// frames of `size` bytes received (model wire -> RX ring -> receive() ->
// release()) and/or transmitted (transmit() -> TX ring -> model wire), in
// bursts of 32, reporting frames per second. The figures include the model's
// own work (it runs its DMA inside the register writes); callgrind.sh
// separates the driver's instructions from it.
//
//   dwmac_bench [rx|tx|both] [n] [size]
//   dwmac_bench --check     (whether sanitizers are on)

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "drivers/dwmac/dwmac.h"
#include "drivers/dwmac/model/dma_region.h"
#include "drivers/dwmac/model/dwmac_model.h"
#include "kernel/mem/page_allocator.h"

namespace {

using starling::dwmac::Dwmac;
using starling::model::DmaRegion;
using starling::model::DwmacModel;

constexpr starling::hal::MacAddress kMac{{0x6c, 0xcf, 0x39, 0x00, 0x75, 0x5b}};
constexpr std::size_t kBurst = 32;

std::vector<std::byte> make_frame(std::size_t size) {
  std::vector<std::byte> f(size);
  for (std::size_t i = 0; i < 6; ++i) f[i] = static_cast<std::byte>(kMac.bytes[i]);
  f[6] = std::byte{2};
  f[12] = std::byte{0x88};
  f[13] = std::byte{0xB5};
  for (std::size_t i = 14; i < size; ++i) f[i] = static_cast<std::byte>(i);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--check") == 0) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    std::puts("sanitizers: on");
    return 0;
#endif
#endif
    std::puts("sanitizers: off");
    return 0;
  }
  const char* mode = argc > 1 ? argv[1] : "both";
  const bool rx = std::strcmp(mode, "tx") != 0;
  const bool tx = std::strcmp(mode, "rx") != 0;
  const std::uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  const std::size_t size = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1514;

  auto region = DmaRegion::create(std::size_t{4} << 20);
  if (region == nullptr) {
    std::fprintf(stderr, "no DMA region below 4 GiB\n");
    return 1;
  }
  starling::mem::PageAllocator pages;
  const starling::mem::PhysRange range{region->base(), region->base() + region->size()};
  if (!pages.init({&range, 1}).ok()) return 1;
  DwmacModel model(*region);
  std::uint64_t wire_tx = 0;
  model.on_transmit([&](std::span<const std::byte>) { ++wire_tx; });
  Dwmac driver;
  const Dwmac::Config config{.base = 0x1603'0000,
                             .model = &model,
                             .mac = kMac,
                             .params = {},
                             .link_wait_ns = 1'000'000'000};
  if (!driver.init(config, pages).ok()) {
    std::fprintf(stderr, "init failed\n");
    return 1;
  }

  const auto frame = make_frame(size);
  std::span<const std::byte> spans[kBurst];
  for (auto& s : spans) s = frame;
  starling::hal::RxFrame got[kBurst];
  starling::hal::RxHandle handles[kBurst];

  const auto start = std::chrono::steady_clock::now();
  std::uint64_t received = 0, sent = 0;
  for (std::uint64_t done = 0; done < n; done += kBurst) {
    const std::size_t burst = n - done < kBurst ? n - done : kBurst;
    if (rx) {
      for (std::size_t i = 0; i < burst; ++i) (void)model.receive_from_wire(frame);
      const std::size_t k = driver.receive(std::span(got, burst));
      for (std::size_t i = 0; i < k; ++i) handles[i] = got[i].handle;
      (void)driver.release(std::span<const starling::hal::RxHandle>(handles, k));
      received += k;
    }
    if (tx) {
      auto r = driver.transmit(std::span(spans, burst));
      if (r.ok()) sent += *r;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("mode %s, %llu frames of %zu bytes\n", mode, static_cast<unsigned long long>(n),
              size);
  if (rx) {
    std::printf("rx: %llu frames, %.0f frames/s\n", static_cast<unsigned long long>(received),
                received / seconds);
  }
  if (tx) {
    std::printf("tx: %llu frames (%llu on the wire), %.0f frames/s\n",
                static_cast<unsigned long long>(sent), static_cast<unsigned long long>(wire_tx),
                sent / seconds);
  }
  std::printf("driver rx_drops %llu, tx_busy %llu\n",
              static_cast<unsigned long long>(driver.stats().rx_drops),
              static_cast<unsigned long long>(driver.stats().tx_busy));
  return (rx && received != n) || (tx && sent != n) ? 1 : 0;
}
