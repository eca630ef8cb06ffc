// QEMU virt's entropy: the first virtio-rng device on the virtio-mmio slots
// (run_qemu.sh adds `-device virtio-rng-device`), probed on first use.
#include "kernel/hal/entropy.h"
#include "drivers/virtio/rng.h"
#include "platform/qemu_virt/nic.h"

namespace starling::hal {
namespace {

constinit bool probed = false;
constinit bool usable = false;
constinit Error probe_error = Error::kNotFound;  // why not, when !usable

virtio::Rng& rng() {
  static virtio::Rng device;
  return device;
}

}  // namespace

Result<void> fill_entropy(std::span<std::byte> out) {
  if (!probed) {
    probed = true;
    for (std::uint32_t slot = 0; slot < board::kVirtioMmioSlots; ++slot) {
      const virtio::MmioDevice device(board::kVirtioMmioBase + board::kVirtioMmioStride * slot);
      if (!virtio::Rng::is_rng_device(device)) continue;
      auto ok = rng().init(device);
      usable = ok.ok();
      if (!ok.ok()) probe_error = ok.error();
      break;
    }
  }
  if (!usable) return Unexpected(probe_error);
  return rng().read(out);
}

std::string_view entropy_source() {
  return "virtio-rng";
}

}  // namespace starling::hal
