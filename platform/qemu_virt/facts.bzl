"""QEMU virt's facts for its images and boot media (platform/image.bzl).

The board package is the one place that knows a board's addresses: the
image rules take them from here.
"""

QEMU_VIRT = struct(
    platform = "//platform:qemu_virt",
    board_name = "qemu-virt",
    # platform/qemu_virt/linker.ld: RAM base + the Image's text_offset.
    load_address = "0x80200000",
    # kernel_addr_r of Debian's qemu-riscv64_smode U-Boot: 60 MiB above the
    # kernel, below U-Boot's scripts (0x8c100000).
    fit_address = "0x84000000",
    # QEMU user networking's guest address and gateway.
    bootargs = "ip=10.0.2.15/24,gw=10.0.2.2",
    bootargs_help = [],
    readme_extra = "",
    vendor_uenv = False,
    console = "QEMU's serial console",
    uimage = False,
)
