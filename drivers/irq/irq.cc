#include "drivers/irq/irq.h"

#include <array>
#include <atomic>

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

// A source per bit (kept out of Slot: two bools there were 2 KiB of .bss).
// Atomic words: the trap sets a bit while a task may be clearing another
// in the same word, and an atomic OR / AND (one AMO instruction on RV64A)
// needs no interrupt masking, which cost unmask() two out-of-line calls
// per wake-up.
class SourceSet {
 public:
  bool has(std::uint32_t source) const {
    return (word(source).load(std::memory_order_relaxed) >> (source % 64)) & 1;
  }
  void set(std::uint32_t source, bool on) {
    if (on) {
      word(source).fetch_or(bit(source), std::memory_order_relaxed);
    } else {
      word(source).fetch_and(~bit(source), std::memory_order_relaxed);
    }
  }
  // Clears the source's bit; whether it was set.
  bool take(std::uint32_t source) {
    return (word(source).fetch_and(~bit(source), std::memory_order_relaxed) & bit(source)) != 0;
  }
  void clear() {
    for (auto& w : words_) w.store(0, std::memory_order_relaxed);
  }

 private:
  static std::uint64_t bit(std::uint32_t source) { return std::uint64_t{1} << (source % 64); }
  std::atomic<std::uint64_t>& word(std::uint32_t source) { return words_[source / 64]; }
  const std::atomic<std::uint64_t>& word(std::uint32_t source) const { return words_[source / 64]; }

  std::array<std::atomic<std::uint64_t>, 4> words_{};
};

constinit const Plic* controller = nullptr;
constinit std::array<Slot, kMaxSources> slots{};
// Claimed by dispatch() and not completed yet: the PLIC's gateway for the
// source is closed, so it is not delivered again until unmask().
constinit SourceSet claimed{};
constinit SourceSet masked_sources{};  // disabled by mask()
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
  claimed.clear();
  masked_sources.clear();
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
  // A source claimed while it had no handler still has its gateway closed:
  // complete it once enabled, or it would never be delivered.
  slots[source] = Slot{handler, context};
  controller->set_priority(source, priority);
  controller->enable(source);
  masked_sources.set(source, false);
  if (claimed.has(source)) controller->complete(source);
  claimed.set(source, false);
  return {};
}

void detach(std::uint32_t source) {
  if (!usable(source)) {
    return;
  }
  InterruptsMasked masked;
  // Reopen a gateway left closed (completion counts only while enabled),
  // then disable: a later attach starts from a clean source.
  if (claimed.has(source)) {
    controller->enable(source);
    controller->complete(source);
  }
  controller->disable(source);
  controller->set_priority(source, 0);
  slots[source] = Slot{};
  claimed.set(source, false);
  masked_sources.set(source, false);
}

void mask(std::uint32_t source) {
  if (usable(source)) {
    InterruptsMasked masked;
    controller->disable(source);
    masked_sources.set(source, true);
  }
}

// The common call, once per wake-up of a driver: one completion write when
// the source was delivered, nothing when it was not (the driver re-arms
// before every sleep), the enable word touched only after mask().
namespace {
// unmask()'s rare part, out of line: inside it, its interrupt masking made
// every unmask() save nine registers (~20 instructions a wake-up).
[[gnu::noinline, gnu::cold]] void enable_masked(std::uint32_t source) {
  InterruptsMasked masked;
  controller->enable(source);  // before completing: completion needs it enabled
  masked_sources.set(source, false);
}
}  // namespace

void unmask(std::uint32_t source) {
  if (!usable(source) || slots[source].handler == nullptr) return;
  if (masked_sources.has(source)) enable_masked(source);  // rare: after mask()
  // The gateway stays closed until the completion, so no trap can claim the
  // source again between the take and the write.
  if (claimed.take(source)) controller->complete(source);
}

std::uint32_t dispatch() {
  if (controller == nullptr) {
    return 0;
  }
  const std::uint32_t source = controller->claim();
  if (source == 0) {
    return 0;
  }
  // One-shot delivery without touching the enable word: the claim closes
  // the source's gateway and only its completion reopens it (PLIC spec,
  // "Interrupt Gateways" and "Interrupt Completion"), so the completion
  // waits for unmask(). A claim here and a completion there are the PLIC's
  // two accesses per interrupt, as Linux's and sDDF's drivers pay; the
  // enable / complete / disable this replaced were four more (two of them
  // reads) on every delivery, and unmask's enable two more.
  if (!usable(source)) {
    ++spurious;  // past the registry's table: never completed, stays closed
    return source;
  }
  Slot& slot = slots[source];
  claimed.set(source, true);
  if (slot.handler != nullptr) {
    ++slot.count;
    slot.handler(slot.context);
  } else {
    ++spurious;  // no handler: never completed (unmask refuses it), stays closed
  }
  return source;
}

std::uint64_t spurious_count() {
  return spurious;
}

std::uint64_t delivered_count(std::uint32_t source) {
  return usable(source) ? slots[source].count : 0;
}

}  // namespace starling::irq
