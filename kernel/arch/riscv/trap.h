#ifndef STARLING_KERNEL_ARCH_RISCV_TRAP_H_
#define STARLING_KERNEL_ARCH_RISCV_TRAP_H_

#include "kernel/arch/riscv/trap_frame.h"

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

// Sets (or, with nullptr, clears) the handler for one S-mode interrupt. An
// interrupt with no handler panics: it was enabled in sie by mistake.
void set_interrupt_handler(Interrupt interrupt, InterruptHandler handler, void* context);

// How many times `interrupt` has been taken since boot.
std::uint64_t interrupt_count(Interrupt interrupt);

// Enables / disables one interrupt in sie. Delivery still needs sstatus.SIE,
// which only hal::idle() (and restore_interrupts) opens.
void enable_interrupt(Interrupt interrupt);
void disable_interrupt(Interrupt interrupt);

// Runs `probe` (which should execute one instruction that might not exist,
// e.g. a read of an optional CSR) and returns false if it raised an illegal
// instruction exception, which is then skipped instead of panicking.
bool runs_without_illegal_instruction(void (*probe)());

}  // namespace starling::riscv

#endif  // STARLING_KERNEL_ARCH_RISCV_TRAP_H_
