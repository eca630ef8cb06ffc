#ifndef STARLING_DRIVERS_IRQ_PLIC_H_
#define STARLING_DRIVERS_IRQ_PLIC_H_

#include <cstdint>

namespace starling {

// RISC-V Platform-Level Interrupt Controller (PLIC spec 1.0.0; the SiFive
// layout QEMU virt and the JH7110 share, docs/hardware/jh7110.md §3, docs/hardware/qemu-virt.md
// §3), driven for one context: the S-mode context of the boot hart. Which context that is, and how
// many sources exist, is the board's knowledge, passed in.
class Plic {
 public:
  struct Config {
    std::uintptr_t base;        // physical address of the register block
    std::uint32_t context;      // e.g. QEMU virt hart 0 S-mode = 1; JH7110 hart h = 2h
    std::uint32_t num_sources;  // the DT's riscv,ndev: valid source ids are 1..num_sources
  };

  // Register map (offsets from base; all 32-bit).
  static constexpr std::uintptr_t kPriority = 0x0;    // + 4 * source
  static constexpr std::uintptr_t kPending = 0x1000;  // bit per source
  static constexpr std::uintptr_t kEnable = 0x2000;   // + 0x80 * context, bit per source
  static constexpr std::uintptr_t kEnableStride = 0x80;
  static constexpr std::uintptr_t kContext = 0x20'0000;  // + 0x1000 * context
  static constexpr std::uintptr_t kContextStride = 0x1000;
  static constexpr std::uintptr_t kThreshold = 0x0;      // within a context's block
  static constexpr std::uintptr_t kClaimComplete = 0x4;  // within a context's block

  constexpr explicit Plic(const Config& config) : config_(config) {}

  // Every source disabled for this context and at priority 0 (never
  // delivered), threshold 0. Firmware may leave any of these set.
  void init() const;

  bool valid(std::uint32_t source) const { return source >= 1 && source <= config_.num_sources; }
  std::uint32_t num_sources() const { return config_.num_sources; }
  std::uint32_t context() const { return config_.context; }

  // Priority 0 means "never"; 1 is the lowest deliverable. QEMU implements
  // 3 bits, so values above 7 read back truncated. Invalid sources are ignored.
  void set_priority(std::uint32_t source, std::uint32_t priority) const;
  void enable(std::uint32_t source) const;
  void disable(std::uint32_t source) const;
  bool enabled(std::uint32_t source) const;

  // Sources at or below the threshold are not delivered to this context.
  void set_threshold(std::uint32_t threshold) const;

  // Takes the highest-priority pending source (0 if none) and clears its
  // pending bit; the source's gateway stays closed until complete().
  std::uint32_t claim() const;
  // Reopens the gateway. The spec ignores a completion for a source that is
  // not enabled in this context: complete before disabling.
  void complete(std::uint32_t source) const;

 private:
  volatile std::uint32_t& reg(std::uintptr_t offset) const {
    return *reinterpret_cast<volatile std::uint32_t*>(config_.base + offset);
  }
  volatile std::uint32_t& enable_word(std::uint32_t source) const {
    return reg(kEnable + kEnableStride * config_.context + 4 * (source / 32));
  }
  volatile std::uint32_t& context_reg(std::uintptr_t offset) const {
    return reg(kContext + kContextStride * config_.context + offset);
  }

  Config config_;
};

}  // namespace starling

#endif  // STARLING_DRIVERS_IRQ_PLIC_H_
