"""A board package's library: its board.cc and linker script, bound to its platform."""

load("@rules_cc//cc:defs.bzl", "cc_library")

def board_library(name, board_constraint, deps = []):
    """The library //platform:board resolves to on this board's platform.

    Every riscv64 board gets the trap layer, the riscv64 clock (hal/clock.h)
    and the PLIC + irq registry; board.cc sets them up with its constants.

    Args:
      name: target name (by convention "board").
      board_constraint: the board's constraint_value in //platform.
      deps: the drivers this board binds to the HAL.
    """
    cc_library(
        name = name,
        srcs = ["board.cc"],
        # Every image of this board is linked with the board's memory layout.
        linkopts = ["-T $(location :linker.ld)"],
        target_compatible_with = [
            "//platform:riscv64",
            board_constraint,
        ],
        deps = deps + [
            ":linker.ld",
            "//drivers/irq",
            "//drivers/irq:external_interrupts",
            "//drivers/irq:plic",
            "//kernel/arch/riscv:clock",
            "//kernel/arch/riscv:sbi",
            "//kernel/arch/riscv:trap",
            "//kernel/boot:riscv",
            "//kernel/console",
            "//kernel/lib:result",
            "//kernel/hal",
            "//platform:uart_console",
        ],
    )
