#include "kernel/arch/riscv/trap.h"

#include <array>
#include <cstdint>
#include <string_view>

#include "kernel/arch/riscv/csr.h"
#include "kernel/panic/backtrace.h"
#include "kernel/panic/panic.h"

extern "C" void starling_trap_vector();
extern "C" void starling_trap_dispatch(starling::riscv::TrapFrame* frame);

namespace starling::riscv {
namespace {

constexpr std::uint64_t kIllegalInstruction = 2;
constexpr std::uint64_t kInstructionPageFault = 12;
constexpr std::uint64_t kLoadPageFault = 13;
constexpr std::uint64_t kStorePageFault = 15;

struct HandlerSlot {
  InterruptHandler handler = nullptr;
  void* context = nullptr;
  std::uint64_t count = 0;  // interrupts taken, for the console monitor
};

// Indexed by interrupt code (1, 5, 9; the others stay empty).
constinit HandlerSlot handlers[16] = {};

// sie as enable_interrupt()/disable_interrupt() asked for it, and which of
// those bits may be live outside idle (allow_outside_idle).
constinit std::uint64_t sie_enabled = 0;
constinit std::uint64_t sie_outside_idle = ~0ull;
constinit bool idle_now = false;

// The interrupt being handled (interrupted_frame()).
constinit const TrapFrame* handling = nullptr;

constinit PageFaultDescriber page_fault_describer = nullptr;

// "page fault: write at 0x0000000080201000: write to .text": built in place,
// no allocation (the heap may be what broke).
constinit char page_fault_text[192] = {};

void append(std::size_t& at, std::string_view text) {
  for (char c : text) {
    if (at + 1 < sizeof(page_fault_text)) page_fault_text[at++] = c;
  }
  page_fault_text[at] = '\0';
}

const char* describe_page_fault(std::uint64_t code, std::uint64_t address) {
  const mem::Access access = code == kInstructionPageFault ? mem::Access::kExecute
                             : code == kLoadPageFault      ? mem::Access::kRead
                                                           : mem::Access::kWrite;
  std::size_t at = 0;
  append(at, "page fault: ");
  append(at, mem::access_name(access));
  append(at, " at ");
  std::array<char, 18> hex;
  append(at, backtrace::format_hex64(address, hex));
  if (page_fault_describer != nullptr) {
    append(at, ": ");
    append(at, page_fault_describer(address, access));
  }
  return page_fault_text;
}

// The overflowing sp a fault on the trap stack left in its top slot
// (trap_vector.S), for the frame's x2.
extern "C" char __trap_stack_top[];

std::uint64_t sie_bit(Interrupt interrupt) {
  return 1ull << static_cast<std::uint64_t>(interrupt);
}

// Set while runs_without_illegal_instruction() runs its probe.
constinit volatile bool probing = false;
constinit volatile bool probe_faulted = false;

// Length of the instruction at `pc`: 16-bit compressed unless its low two bits
// are 0b11 (the spec's base encoding). Read as halfwords: pc may be only
// 2-byte aligned with the C extension.
std::uint64_t instruction_length(std::uint64_t pc) {
  const std::uint16_t low = *reinterpret_cast<const volatile std::uint16_t*>(pc);
  return (low & 0x3) == 0x3 ? 4 : 2;
}

// Runs the handler set for interrupt `code` and counts it; false if there
// is none (the trap then panics, the idle loop lets the trap take it).
bool run_handler(std::uint64_t code) {
  if (code >= sizeof(handlers) / sizeof(handlers[0]) || handlers[code].handler == nullptr) {
    return false;
  }
  ++handlers[code].count;
  handlers[code].handler(handlers[code].context);
  return true;
}

void handle_interrupt(TrapFrame& frame, std::uint64_t code) {
  if (!run_handler(code)) panic(frame, interrupt_name(code));
}

}  // namespace

void set_page_fault_describer(PageFaultDescriber describer) {
  page_fault_describer = describer;
}

void trap_init() {
  // Direct mode: the low two bits are 0, and the vector is 4-byte aligned.
  csr_write<Csr::kStvec>(reinterpret_cast<std::uintptr_t>(&starling_trap_vector));
}

void set_interrupt_handler(Interrupt interrupt, InterruptHandler handler, void* context) {
  const auto code = static_cast<std::uint64_t>(interrupt);
  // The trap may read the slot at any time: clear the handler before changing
  // the context, and publish the handler last.
  handlers[code].handler = nullptr;
  asm volatile("" : : : "memory");
  handlers[code].context = context;
  asm volatile("" : : : "memory");
  handlers[code].handler = handler;
}

std::uint64_t interrupt_count(Interrupt interrupt) {
  return handlers[static_cast<std::uint64_t>(interrupt)].count;
}

void enable_interrupt(Interrupt interrupt) {
  const std::uint64_t bit = sie_bit(interrupt);
  sie_enabled |= bit;
  if (idle_now || (sie_outside_idle & bit) != 0) csr_set<Csr::kSie>(bit);
}

void disable_interrupt(Interrupt interrupt) {
  const std::uint64_t bit = sie_bit(interrupt);
  sie_enabled &= ~bit;
  csr_clear<Csr::kSie>(bit);
}

void allow_outside_idle(std::initializer_list<Interrupt> allowed) {
  std::uint64_t mask = 0;
  for (Interrupt i : allowed) mask |= sie_bit(i);
  sie_outside_idle = mask;
  if (!idle_now) csr_clear<Csr::kSie>(sie_enabled & ~mask);
}

void allow_all_outside_idle() {
  sie_outside_idle = ~0ull;
  csr_set<Csr::kSie>(sie_enabled);
}

void enter_idle() {
  idle_now = true;
  csr_set<Csr::kSie>(sie_enabled);
}

void leave_idle() {
  idle_now = false;
  csr_clear<Csr::kSie>(sie_enabled & ~sie_outside_idle);
}

bool in_idle() {
  return idle_now;
}

bool run_pending_interrupts() {
  std::uint64_t pending = csr_read<Csr::kSip>() & csr_read<Csr::kSie>();
  while (pending != 0) {
    const auto code = static_cast<std::uint64_t>(__builtin_ctzll(pending));
    pending &= pending - 1;
    if (!run_handler(code)) return false;
  }
  return true;
}

const TrapFrame* interrupted_frame() {
  return handling;
}

bool runs_without_illegal_instruction(void (*probe)()) {
  probe_faulted = false;
  probing = true;
  probe();
  probing = false;
  return !probe_faulted;
}

}  // namespace starling::riscv

extern "C" void starling_trap_dispatch(starling::riscv::TrapFrame* frame) {
  using namespace starling::riscv;
  const std::uint64_t code = frame->scause & ~kScauseInterrupt;
  if ((frame->scause & kScauseInterrupt) != 0) {
    // Interrupts do not nest (the trap masks them), so one pointer will do.
    handling = frame;
    handle_interrupt(*frame, code);
    handling = nullptr;
    return;
  }
  if (code == kIllegalInstruction && probing) {
    probing = false;
    probe_faulted = true;
    frame->sepc += instruction_length(frame->sepc);
    return;
  }
  if (code == kInstructionPageFault || code == kLoadPageFault || code == kStorePageFault) {
    const auto top = reinterpret_cast<std::uintptr_t>(__trap_stack_top);
    const auto at = reinterpret_cast<std::uintptr_t>(frame);
    if (at < top && top - at <= 16 + sizeof(TrapFrame)) {
      frame->x[2] = *reinterpret_cast<const std::uint64_t*>(top - 8);  // the sp that overflowed
    }
    starling::panic(*frame, describe_page_fault(code, frame->stval));
  }
  starling::panic(*frame, exception_name(code));
}
