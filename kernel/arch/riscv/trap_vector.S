/*
 * The S-mode trap vector (stvec, direct mode): every exception and interrupt
 * lands here. It saves a TrapFrame (trap_frame.h) on the current stack, calls
 * starling_trap_dispatch(TrapFrame*) and resumes at the frame's sepc.
 *
 * One address space, no U-mode: a trap arrives on the kernel's one stack
 * (platform/<board>/linker.ld), so there is no stack switch, with one
 * exception: when sp has no room for a frame above the stack's bottom (it
 * overflowed into the guard page below, or is garbage), the frame goes on
 * the trap stack instead, so that the page fault is reported rather than
 * faulting again here. The trap stack sits above the boot stack: a nested
 * trap while the report runs there takes the usual path. sscratch holds t0
 * for the few instructions of that check.
 */

#define FRAME_SIZE	0x120
#define SEPC		0x100
#define SSTATUS		0x108
#define SCAUSE		0x110
#define STVAL		0x118

	.section .text.trap_vector, "ax", @progbits
	.globl	starling_trap_vector
	.type	starling_trap_vector, @function
	/* stvec's low two bits are the mode: the base must be 4-byte aligned. */
	.balign	4
starling_trap_vector:
	csrw	sscratch, t0
	lla	t0, __stack_bottom
	addi	t0, t0, FRAME_SIZE
	bltu	sp, t0, .Lon_trap_stack
	csrr	t0, sscratch
.Lframe:
	addi	sp, sp, -FRAME_SIZE
	sd	zero, 0(sp)
	sd	x1, 8(sp)
	sd	x3, 24(sp)
	sd	x4, 32(sp)
	sd	x5, 40(sp)
	sd	x6, 48(sp)
	sd	x7, 56(sp)
	sd	x8, 64(sp)
	sd	x9, 72(sp)
	sd	x10, 80(sp)
	sd	x11, 88(sp)
	sd	x12, 96(sp)
	sd	x13, 104(sp)
	sd	x14, 112(sp)
	sd	x15, 120(sp)
	sd	x16, 128(sp)
	sd	x17, 136(sp)
	sd	x18, 144(sp)
	sd	x19, 152(sp)
	sd	x20, 160(sp)
	sd	x21, 168(sp)
	sd	x22, 176(sp)
	sd	x23, 184(sp)
	sd	x24, 192(sp)
	sd	x25, 200(sp)
	sd	x26, 208(sp)
	sd	x27, 216(sp)
	sd	x28, 224(sp)
	sd	x29, 232(sp)
	sd	x30, 240(sp)
	sd	x31, 248(sp)
	/* x2 as the interrupted code saw it; t0 is saved, so free to use. */
	addi	t0, sp, FRAME_SIZE
	sd	t0, 16(sp)
	csrr	t0, sepc
	sd	t0, SEPC(sp)
	csrr	t0, sstatus
	sd	t0, SSTATUS(sp)
	csrr	t0, scause
	sd	t0, SCAUSE(sp)
	csrr	t0, stval
	sd	t0, STVAL(sp)

	mv	a0, sp
	call	starling_trap_dispatch

	/*
	 * sepc and sstatus come back from the frame: a handler may have moved
	 * sepc, and a nested trap in the handler overwrote both CSRs. sstatus.SIE
	 * is clear here (the trap cleared it), so nothing interrupts the restore.
	 */
	ld	t0, SEPC(sp)
	csrw	sepc, t0
	ld	t0, SSTATUS(sp)
	csrw	sstatus, t0
	ld	x1, 8(sp)
	ld	x3, 24(sp)
	ld	x4, 32(sp)
	ld	x5, 40(sp)
	ld	x6, 48(sp)
	ld	x7, 56(sp)
	ld	x8, 64(sp)
	ld	x9, 72(sp)
	ld	x10, 80(sp)
	ld	x11, 88(sp)
	ld	x12, 96(sp)
	ld	x13, 104(sp)
	ld	x14, 112(sp)
	ld	x15, 120(sp)
	ld	x16, 128(sp)
	ld	x17, 136(sp)
	ld	x18, 144(sp)
	ld	x19, 152(sp)
	ld	x20, 160(sp)
	ld	x21, 168(sp)
	ld	x22, 176(sp)
	ld	x23, 184(sp)
	ld	x24, 192(sp)
	ld	x25, 200(sp)
	ld	x26, 208(sp)
	ld	x27, 216(sp)
	ld	x28, 224(sp)
	ld	x29, 232(sp)
	ld	x30, 240(sp)
	ld	x31, 248(sp)
	addi	sp, sp, FRAME_SIZE
	sret

	/*
	 * The stack overflowed (or sp is garbage): the frame on the trap stack,
	 * the bad sp in the trap stack's top slot for starling_trap_dispatch to
	 * put in the frame (the frame's x2 would say the trap stack). Nothing
	 * returns from here: the fault it reports panics.
	 */
.Lon_trap_stack:
	mv	t0, sp
	lla	sp, __trap_stack_top
	sd	t0, -8(sp)
	addi	sp, sp, -16
	csrr	t0, sscratch
	j	.Lframe
	.size	starling_trap_vector, . - starling_trap_vector
