#ifndef STARLING_KERNEL_ARCH_RISCV_CSR_H_
#define STARLING_KERNEL_ARCH_RISCV_CSR_H_

#include <cstdint>

// Supervisor-mode CSR access. The CSR number must be an assembler immediate,
// hence a template parameter rather than a function argument.
namespace starling::riscv {

enum class Csr : std::uint16_t {
  kSstatus = 0x100,
  kSie = 0x104,
  kStvec = 0x105,
  kSscratch = 0x140,
  kSepc = 0x141,
  kScause = 0x142,
  kStval = 0x143,
  kSip = 0x144,
  kStimecmp = 0x14D,  // Sstc only: reading it elsewhere is an illegal instruction
  kSatp = 0x180,
  kCycle = 0xC00,
  kTime = 0xC01,
  kInstret = 0xC02,
};

// Bits of sstatus and sie the kernel touches (privileged spec, "Supervisor CSRs").
inline constexpr std::uint64_t kSstatusSie = 1u << 1;   // S-mode global interrupt enable
inline constexpr std::uint64_t kSstatusSpie = 1u << 5;  // SIE before the trap
inline constexpr std::uint64_t kSstatusSpp = 1u << 8;   // privilege before the trap (1 = S)
inline constexpr std::uint64_t kSieSsie = 1u << 1;      // software interrupt
inline constexpr std::uint64_t kSieStie = 1u << 5;      // timer interrupt
inline constexpr std::uint64_t kSieSeie = 1u << 9;      // external (PLIC) interrupt

template <Csr kCsr>
inline std::uint64_t csr_read() {
  std::uint64_t value;
  asm volatile("csrr %0, %1" : "=r"(value) : "i"(static_cast<std::uint16_t>(kCsr)));
  return value;
}

template <Csr kCsr>
inline void csr_write(std::uint64_t value) {
  asm volatile("csrw %0, %1" : : "i"(static_cast<std::uint16_t>(kCsr)), "r"(value) : "memory");
}

template <Csr kCsr>
inline void csr_set(std::uint64_t bits) {
  asm volatile("csrs %0, %1" : : "i"(static_cast<std::uint16_t>(kCsr)), "r"(bits) : "memory");
}

template <Csr kCsr>
inline void csr_clear(std::uint64_t bits) {
  asm volatile("csrc %0, %1" : : "i"(static_cast<std::uint16_t>(kCsr)), "r"(bits) : "memory");
}

// Clears `bits` and returns the CSR's previous value, in one instruction.
template <Csr kCsr>
inline std::uint64_t csr_read_clear(std::uint64_t bits) {
  std::uint64_t old;
  asm volatile("csrrc %0, %1, %2"
               : "=r"(old)
               : "i"(static_cast<std::uint16_t>(kCsr)), "r"(bits)
               : "memory");
  return old;
}

// Sleeps until an interrupt is pending (even a masked one) or, as the spec
// allows, for no reason at all: callers always loop around it.
inline void wfi() {
  asm volatile("wfi" : : : "memory");
}

// Stops this hart for good; used when even firmware shutdown has failed.
[[noreturn]] inline void halt() {
  csr_clear<Csr::kSstatus>(kSstatusSie);
  for (;;) {
    wfi();
  }
}

}  // namespace starling::riscv

#endif  // STARLING_KERNEL_ARCH_RISCV_CSR_H_
