#ifndef STARLING_KERNEL_ARCH_RISCV_TRAP_FRAME_H_
#define STARLING_KERNEL_ARCH_RISCV_TRAP_FRAME_H_

#include <array>
#include <cstddef>
#include <cstdint>

// What the trap vector (trap_vector.S) saves on the interrupted stack before
// it calls C++: every integer register and the four trap CSRs.
namespace starling::riscv {

// Layout (byte offsets; trap_vector.S hard-codes them, the static_asserts
// below keep the two in step):
//   0x000  x[0]      always 0 (stored so that x[i] is register xi)
//   0x008  x[1..31]  ra, sp (the value before the trap), gp, tp, t0..t6, s0..s11, a0..a7
//   0x100  sepc      where to resume (handlers may move it, e.g. past a probe)
//   0x108  sstatus   restored on the way out (SPP, SPIE)
//   0x110  scause    bit 63 = interrupt, low bits = code
//   0x118  stval     faulting address or instruction bits, per cause
//   0x120  (size; a multiple of 16 so sp stays psABI-aligned)
struct TrapFrame {
  std::array<std::uint64_t, 32> x;
  std::uint64_t sepc;
  std::uint64_t sstatus;
  std::uint64_t scause;
  std::uint64_t stval;

  std::uint64_t ra() const { return x[1]; }
  std::uint64_t sp() const { return x[2]; }
  std::uint64_t fp() const { return x[8]; }  // s0
};

inline constexpr std::size_t kTrapFrameSize = 0x120;
static_assert(sizeof(TrapFrame) == kTrapFrameSize);
static_assert(offsetof(TrapFrame, sepc) == 0x100);
static_assert(offsetof(TrapFrame, sstatus) == 0x108);
static_assert(offsetof(TrapFrame, scause) == 0x110);
static_assert(offsetof(TrapFrame, stval) == 0x118);
static_assert(kTrapFrameSize % 16 == 0);

inline constexpr std::uint64_t kScauseInterrupt = 1ull << 63;

// Supervisor interrupt causes (scause with bit 63 set); also their sie/sip bit.
enum class Interrupt : std::uint64_t {
  kSoftware = 1,
  kTimer = 5,
  kExternal = 9,
};

// ABI names of x0..x31, for register dumps.
inline constexpr std::array<const char*, 32> kRegisterNames = {
    "zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
    "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

// The privileged spec's name for an exception code (scause, bit 63 clear).
constexpr const char* exception_name(std::uint64_t code) {
  switch (code) {
    case 0:
      return "instruction address misaligned";
    case 1:
      return "instruction access fault";
    case 2:
      return "illegal instruction";
    case 3:
      return "breakpoint";
    case 4:
      return "load address misaligned";
    case 5:
      return "load access fault";
    case 6:
      return "store/AMO address misaligned";
    case 7:
      return "store/AMO access fault";
    case 8:
      return "environment call from U-mode";
    case 9:
      return "environment call from S-mode";
    case 12:
      return "instruction page fault";
    case 13:
      return "load page fault";
    case 15:
      return "store/AMO page fault";
    default:
      return "unknown exception";
  }
}

constexpr const char* interrupt_name(std::uint64_t code) {
  switch (code) {
    case 1:
      return "supervisor software interrupt";
    case 5:
      return "supervisor timer interrupt";
    case 9:
      return "supervisor external interrupt";
    default:
      return "unknown interrupt";
  }
}

}  // namespace starling::riscv

#endif  // STARLING_KERNEL_ARCH_RISCV_TRAP_FRAME_H_
