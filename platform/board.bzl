"""A board package's libraries: board_library (its board.cc and linker script, bound to its
platform) and board_cc_library (any other, its board-neutral deps built once for every board)."""

load("@rules_cc//cc:defs.bzl", "cc_library")
load(":neutral_deps.bzl", "split_neutral")

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
        deps = split_neutral(name + "_neutral_deps", deps + [
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
        ]),
    )

def board_cc_library(name, deps = [], **kwargs):
    """A board package's cc_library whose board-neutral deps are built once.

    The same as cc_library, but the deps outside //platform go through one
    neutral_deps target (platform/neutral_deps.bzl): the kernel, drivers and
    net it uses are the ones every board's image shares.

    Args:
      name: the cc_library's name.
      deps: label strings (no select()).
      **kwargs: cc_library's other attributes.
    """
    cc_library(
        name = name,
        deps = split_neutral(name + "_neutral_deps", deps, visibility = ["//visibility:private"]),
        **kwargs
    )
