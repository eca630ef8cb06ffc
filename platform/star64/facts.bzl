"""The Star64's (JH7110) facts for its images and boot media (platform/image.bzl).

The board package is the one place that knows a board's addresses: the
image rules take them from here.
"""

STAR64 = struct(
    platform = "//platform:star64",
    board_name = "star64",
    # platform/star64/linker.ld: U-Boot's kernel_addr_r on the JH7110.
    load_address = "0x40200000",
    # Where Star64 boot scripts load the FIT: 512 MiB into the JH7110's DRAM
    # (0x40000000), far above the kernel at 0x40200000 and below U-Boot,
    # which relocates itself to the top of RAM (docs/star64.md, "What the
    # card holds").
    fit_address = "0x60000000",
    bootargs = "ip=dhcp",
    bootargs_help = [
        "starling.mac=6c:cf:39:00:12:34      GMAC0's MAC address (default: U-Boot's, from the EEPROM)",
        "starling.gmac=sddf|linux[,...]      GMAC0's DMA set-up (docs/star64.md)",
    ],
    readme_extra = ", starling.mac=6c:cf:39:00:12:34",
    # The vendor U-Boot on the board's SPI flash reads uEnv.txt.
    vendor_uenv = True,
    console = "UART0, 115200 8N1",
    # The vendor U-Boot boots a legacy uImage too.
    uimage = True,
)
