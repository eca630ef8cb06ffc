/*
 * The first bytes of every Starling image: the RISC-V Linux Image header that
 * U-Boot's `booti` checks, then `_start`, where OpenSBI (QEMU -kernel) or
 * U-Boot enters in S-mode with a0 = hart id and a1 = device-tree address.
 *
 * Both live in this one file on purpose: the ENTRY symbol is `__image_header`
 * (the ELF starts where booti starts, and the header's first word jumps to
 * `_start`), so the linker pulls this object in and `_start` comes with it.
 *
 * Symbols the linker script must provide: __image_size (absolute, image end
 * minus image start, .bss and stack included), __stack_top, __bss_start,
 * __bss_end (both 8-byte aligned at least). The script must place .text.head
 * first, with KEEP, since nothing references it.
 */

	.section .text.head, "ax", @progbits
	.globl	__image_header
	.type	__image_header, @object

	/*
	 * With the C extension on, `j` assembles to a 2-byte c.j and shifts every
	 * field after it; U-Boot then reports "Bad Linux RISCV Image magic!".
	 * norelax: the header's size must be known to the assembler (the check
	 * below); clang 22's assembler leaves code sizes open for the linker's
	 * relaxation otherwise, and refuses ". - __image_header" as not absolute.
	 */
	.option	push
	.option	norvc
	.option	norelax
__image_header:
	j	_start			/* 0x00 code0 */
	.word	0			/* 0x04 code1 */
	.dword	0x200000		/* 0x08 text_offset: booti moves us to RAM base + 2 MiB */
	.dword	__image_size		/* 0x10 image_size: booti refuses 0; covers .bss and stack */
	.dword	0			/* 0x18 flags: bit 0 clear = little-endian */
	.word	2			/* 0x20 version 0.2 (major 0 << 16 | minor 2) */
	.word	0			/* 0x24 res1 */
	.dword	0			/* 0x28 res2 */
	.ascii	"RISCV\0\0\0"		/* 0x30 magic: deprecated, Linux still writes it */
	.ascii	"RSC\x05"		/* 0x38 magic2: the one booti checks */
	.word	0			/* 0x3c res3 */
	.if	. - __image_header != 0x40
	.error	"the Image header must be exactly 64 bytes"
	.endif
	.option	pop
	.size	__image_header, . - __image_header

	.section .text.entry, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	/*
	 * Firmware may leave interrupts enabled; nothing can handle them until the
	 * trap layer exists, so mask them and park any trap in a visible hang.
	 */
	csrw	sie, zero
	csrci	sstatus, 0x2		/* sstatus.SIE */
	lla	t0, __boot_trap_hang
	csrw	stvec, t0

	/* gp is deliberately left alone: -msmall-data-limit=0 means nothing is gp-relative. */
	lla	sp, __stack_top

	/* a0 (hart id) and a1 (dtb) stay untouched for starling_kernel_start. */
	lla	t0, __bss_start
	lla	t1, __bss_end
1:	bgeu	t0, t1, 2f
	sd	zero, 0(t0)
	addi	t0, t0, 8
	j	1b
2:
	call	starling_kernel_start
	/* starling_kernel_start is [[noreturn]]; if that promise breaks, stop here. */
	j	__boot_trap_hang
	.size	_start, . - _start

	/* stvec needs a 4-byte aligned base (its low two bits are the mode). */
	.balign	4
	.type	__boot_trap_hang, @function
__boot_trap_hang:
	wfi
	j	__boot_trap_hang
	.size	__boot_trap_hang, . - __boot_trap_hang
