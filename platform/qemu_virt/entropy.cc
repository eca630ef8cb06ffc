// QEMU virt's entropy: the first virtio-rng device on the virtio-mmio slots
// (run_qemu.sh adds `-device virtio-rng-device`), probed on first use.
//
// QEMU answers the first request 10 to 130 ms later (seen in the tests' boot
// logs), and the driver polls: read from the network bring-up, a task, that
// wait held the hart and the stall detector rightly reported it on most
// boots. So the first bytes are read at boot instead (prime_entropy, before
// any task) and served from here once.
#include "kernel/hal/entropy.h"

#include <array>
#include <cstddef>
#include <cstring>

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

// Read at boot, served once (from the end) and wiped as they go. Two
// seeds' worth: net's keys take 32 bytes.
constinit std::array<std::byte, 64> primed{};
constinit std::size_t primed_bytes = 0;

Result<void> read_device(std::span<std::byte> out) {
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

}  // namespace

void prime_entropy() {
  if (primed_bytes == 0 && read_device(primed).ok()) primed_bytes = primed.size();
}

Result<void> fill_entropy(std::span<std::byte> out) {
  if (out.size() > primed_bytes) return read_device(out);
  std::byte* from = primed.data() + (primed_bytes - out.size());
  std::memcpy(out.data(), from, out.size());
  std::memset(from, 0, out.size());  // used once: no key's material left behind
  primed_bytes -= out.size();
  return {};
}

std::string_view entropy_source() {
  return "virtio-rng";
}

std::string_view boot_entropy(std::span<std::byte> out) {
  return fill_entropy(out).ok() ? entropy_source() : std::string_view{};
}

}  // namespace starling::hal
