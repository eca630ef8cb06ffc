// Fuzzes what a virtio-net device writes back into the driver
// (drivers/virtio/net.cc): used-ring entries with any id and any length,
// entries for buffers the device never took or already returned, frames of
// any size, TX completions out of order, interleaved with the driver's own
// receive/release/transmit calls. The device is the host model
// (fake_net_device.h) over page-aligned host memory; a fresh device and
// driver per input.
//
// Input: a stream of operations, one byte each plus its operands (missing
// operand bytes read as 0). Checks, besides ASan/UBSan: every received
// frame lies inside one of the driver's DMA buffers and fits it, a handle
// from receive() releases once and only once, and the counters add up.
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "drivers/irq/irq.h"
#include "drivers/irq/plic.h"
#include "drivers/virtio/model/fake_net_device.h"
#include "drivers/virtio/net.h"
#include "fuzz/harness.h"
#include "fuzz/nic_stack_side.h"
#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/mem/page_allocator.h"

namespace {

using namespace starling;  // NOLINT(google-build-using-namespace): a harness

constexpr std::uint32_t kIrq = 8;
constexpr std::uint32_t kContext = 1;
constexpr std::size_t kPagesBytes = std::size_t{4} << 20;

void check(bool condition, const char* what) {
  fuzz::check(condition, "virtio_used_ring", what);
}

using fuzz::Input;

// Memory, PLIC and executor outlive the inputs: "physical" memory in the low
// 2 GiB (legacy QueuePFN holds 32 bits of page number).
struct World {
  World() : arena(1u << 20), frames(arena), use_frames(frames) {
    void* low = mmap(nullptr, kPagesBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    check(low != MAP_FAILED, "mmap");
    memory = static_cast<std::byte*>(low);
    plic.init();
    irq::init(plic);
  }
  std::vector<std::byte> arena;
  async::FrameAllocator frames;
  async::ScopedFrameAllocator use_frames;
  async::Executor executor;
  std::byte* memory = nullptr;
  std::vector<std::uint32_t> plic_words = std::vector<std::uint32_t>(0x202000 / 4, 0);
  Plic plic{{reinterpret_cast<std::uintptr_t>(plic_words.data()), kContext, 95}};
};

std::vector<std::byte> pattern(std::size_t length, std::uint8_t seed) {
  std::vector<std::byte> out(length);
  for (std::size_t i = 0; i < length; ++i) out[i] = std::byte(static_cast<std::uint8_t>(seed + i));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static World* world = new World();
  Input in(data, size);

  mem::PageAllocator pages;
  const mem::PhysRange range{mem::to_phys(world->memory),
                             mem::to_phys(world->memory) + kPagesBytes};
  check(pages.init({&range, 1}).ok(), "page allocator");
  virtio::testing::FakeNetDevice device;
  device.version = (in.u8() & 1) != 0 ? virtio::kVersionLegacy : virtio::kVersionModern;
  virtio::Net net;
  if (!net.init({.base = 0x1000'8000, .irq = kIrq, .model = &device}, pages).ok()) {
    irq::detach(kIrq);
    return 0;
  }
  fuzz::NicStackSide<virtio::Net> stack(net, std::span(world->memory, kPagesBytes),
                                        virtio::Net::kBufferBytes, "virtio_used_ring");
  std::vector<std::byte> scratch;
  while (!in.empty()) {
    auto& rx = *device.queue(0);
    auto& tx = *device.queue(1);
    switch (in.u8() % 10) {
      case 0: {  // a frame from the wire, any length the device might claim
        const std::size_t length = in.u16() % 2100;
        // One spare byte: an empty frame still has a non-null data() (the
        // model memcpy()s it, and memcpy's source must not be null).
        scratch = pattern(length + 1, in.u8());
        (void)device.deliver(std::span(scratch).first(length));
        break;
      }
      case 1:  // the device takes an RX buffer and keeps it
        if (rx.pending() != 0) (void)rx.take_avail();
        break;
      case 2: {  // a used entry as the device pleases: any id, any length
        const std::uint32_t id = in.u16();
        rx.complete(id, in.u32());
        break;
      }
      case 3:  // the stack polls; keeps some buffers, releases others
        stack.poll(in);
        break;
      case 4:  // the stack returns a held buffer, or a handle it never had
        stack.release(in);
        break;
      case 5:  // transmit: any length, including empty and oversized
        stack.transmit(in);
        break;
      case 6:  // the device sends what is queued
        device.consume_tx();
        break;
      case 7: {  // a TX used entry as the device pleases
        const std::uint32_t id = in.u16();
        tx.complete(id, in.u32());
        break;
      }
      case 8:  // the device takes a TX buffer without completing it
        if (tx.pending() != 0) (void)tx.take_avail();
        break;
      case 9:  // gather transmit of up to four fragments
        stack.transmit_gather(in);
        break;
    }
  }
  stack.release_all();
  irq::detach(kIrq);
  return 0;
}
