#include "drivers/irq/irq.h"

#include <array>

#include "kernel/hal/clock.h"

namespace starling::irq {
namespace {

// Enough for both boards (QEMU virt: 95 sources, JH7110: 136).
constexpr std::uint32_t kMaxSources = 256;

struct Slot {
  Handler handler = nullptr;
  void* context = nullptr;
  std::uint64_t count = 0;  // deliveries since attach
};

constinit const Plic* controller = nullptr;
constinit std::array<Slot, kMaxSources> slots{};
constinit std::uint64_t spurious = 0;

bool usable(std::uint32_t source) {
  return controller != nullptr && controller->valid(source) && source < kMaxSources;
}

// PLIC enables are read-modify-write on words shared by 32 sources; a trap in
// the middle of a task's update would lose the handler's.
class InterruptsMasked {
 public:
  InterruptsMasked() : were_enabled_(hal::mask_interrupts()) {}
  ~InterruptsMasked() { hal::restore_interrupts(were_enabled_); }
  InterruptsMasked(const InterruptsMasked&) = delete;
  InterruptsMasked& operator=(const InterruptsMasked&) = delete;

 private:
  bool were_enabled_;
};

}  // namespace

void init(const Plic& plic) {
  InterruptsMasked masked;
  controller = &plic;
  slots.fill(Slot{});
  spurious = 0;
}

Result<void> attach(std::uint32_t source, Handler handler, void* context, std::uint32_t priority) {
  if (controller == nullptr) {
    return Unexpected(Error::kUnsupported);
  }
  if (!usable(source) || handler == nullptr || priority == 0) {
    return Unexpected(Error::kInvalidArgument);
  }
  InterruptsMasked masked;
  if (slots[source].handler != nullptr) {
    return Unexpected(Error::kBusy);
  }
  slots[source] = Slot{handler, context};
  controller->set_priority(source, priority);
  controller->enable(source);
  return {};
}

void detach(std::uint32_t source) {
  if (!usable(source)) {
    return;
  }
  InterruptsMasked masked;
  controller->disable(source);
  controller->set_priority(source, 0);
  slots[source] = Slot{};
}

void mask(std::uint32_t source) {
  if (usable(source)) {
    InterruptsMasked masked;
    controller->disable(source);
  }
}

void unmask(std::uint32_t source) {
  if (usable(source) && slots[source].handler != nullptr) {
    InterruptsMasked masked;
    controller->enable(source);
  }
}

std::uint32_t dispatch() {
  if (controller == nullptr) {
    return 0;
  }
  const std::uint32_t source = controller->claim();
  if (source == 0) {
    return 0;
  }
  const Slot slot = usable(source) ? slots[source] : Slot{};
  if (slot.handler != nullptr) {
    ++slots[source].count;
    slot.handler(slot.context);
  } else {
    ++spurious;
  }
  // Completion while the source is still enabled (a disabled source's
  // completion is ignored: PLIC spec, "Interrupt Completion"), then mask it: one-shot delivery.
  controller->enable(source);
  controller->complete(source);
  controller->disable(source);
  return source;
}

std::uint64_t spurious_count() {
  return spurious;
}

std::uint64_t delivered_count(std::uint32_t source) {
  return usable(source) ? slots[source].count : 0;
}

}  // namespace starling::irq
