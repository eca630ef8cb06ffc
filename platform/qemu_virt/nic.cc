#include "platform/qemu_virt/nic.h"

namespace starling::board {
namespace {

constinit int found_slot = -1;
constinit bool probed = false;
constinit Error probe_error = Error::kNotFound;

}  // namespace

Result<Nic*> nic(mem::PageAllocator& pages) {
  static virtio::Net net;
  if (probed) {
    if (found_slot < 0) return Unexpected(probe_error);
    return &net;
  }
  probed = true;
  for (std::uint32_t slot = 0; slot < kVirtioMmioSlots; ++slot) {
    const std::uintptr_t base = kVirtioMmioBase + kVirtioMmioStride * slot;
    if (!virtio::Net::is_net_device(virtio::MmioDevice(base))) continue;
    auto ok = net.init({.base = base, .irq = kVirtioMmioFirstIrq + slot}, pages);
    if (!ok.ok()) {
      probe_error = ok.error();
      return Unexpected(ok.error());
    }
    found_slot = static_cast<int>(slot);
    return &net;
  }
  return Unexpected(Error::kNotFound);
}

int nic_slot() {
  return found_slot;
}

}  // namespace starling::board
