#ifndef STARLING_KERNEL_ARCH_RISCV_TRAP_H_
#define STARLING_KERNEL_ARCH_RISCV_TRAP_H_

#include <initializer_list>

#include "kernel/arch/riscv/trap_frame.h"
#include "kernel/mem/memory_layout.h"

// S-mode traps: the vector, and what runs for each kind of trap.
//   exceptions -> panic (kernel/panic), with the frame, unless a probe expects it
//   interrupts -> the handler set for that interrupt (timer, external, software)
// Interrupt handlers run with interrupts masked, on the interrupted stack, and
// must only acknowledge, mask and mark something ready (DESIGN.md, "Interrupts
// only wake"): application code runs later, from the executor.
namespace starling::riscv {

using InterruptHandler = void (*)(void* context);

// Points stvec at the trap vector. From then on a fault panics with a report
// instead of hanging in entry.S's parking loop. Interrupts stay masked.
void trap_init();

// A page fault's cause in words, for its panic report: the boot's paging
// (kernel/boot/paging.h) sets one that names what lives at `address`
// ("write to .text", "stack overflow: guard page below the stack"). It
// returns a NUL-terminated text that stays valid until the next call.
using PageFaultDescriber = const char* (*)(std::uint64_t address, mem::Access access);
void set_page_fault_describer(PageFaultDescriber describer);

// Sets (or, with nullptr, clears) the handler for one S-mode interrupt. An
// interrupt with no handler panics: it was enabled in sie by mistake.
void set_interrupt_handler(Interrupt interrupt, InterruptHandler handler, void* context);

// How many times `interrupt` has been taken since boot.
std::uint64_t interrupt_count(Interrupt interrupt);

// Enables / disables one interrupt in sie. Delivery still needs sstatus.SIE,
// which hal::idle() opens, and the busy tick while tasks run (for the
// interrupts allowed outside idle, below).
void enable_interrupt(Interrupt interrupt);
void disable_interrupt(Interrupt interrupt);

// For the busy tick (kernel/hal/busy_tick.h), which opens sstatus.SIE while
// tasks run: outside idle only the interrupts in `allowed` are live in sie,
// the others (devices) wait for idle as before, so a driver's handler never
// runs in the middle of its own task. enable_interrupt() of one that is not
// allowed takes effect in idle. All allowed (the default) turns it off.
void allow_outside_idle(std::initializer_list<Interrupt> allowed);
void allow_all_outside_idle();
// hal::idle() around wfi: every enabled interrupt live, then only the allowed.
void enter_idle();
void leave_idle();
bool in_idle();

// After wfi, with sstatus.SIE still clear: runs the handler of each
// interrupt pending and enabled in sie (sip & sie), here, as the trap would,
// without taking it: no trap frame saved and restored for a wake-up the
// idle loop is waiting for anyway (issue 49's wake path: the trap vector
// and dispatch were ~125 instructions a wake). Returns false if one
// pending has no handler: the caller then lets the trap take it, so that
// it panics with a frame as any stray interrupt does. interrupted_frame()
// is nullptr for handlers run this way (they interrupted only idle).
bool run_pending_interrupts();

// The frame of the interrupt being handled, for a handler that samples what
// it interrupted (the busy tick); nullptr outside an interrupt handler.
const TrapFrame* interrupted_frame();

// Runs `probe` (which should execute one instruction that might not exist,
// e.g. a read of an optional CSR) and returns false if it raised an illegal
// instruction exception, which is then skipped instead of panicking.
bool runs_without_illegal_instruction(void (*probe)());

}  // namespace starling::riscv

#endif  // STARLING_KERNEL_ARCH_RISCV_TRAP_H_
