#!/usr/bin/env python3
"""`ip6=` on the kernel command line (issue 30), the QEMU image on a TAP
whose Linux side already holds 2001:db8:1::15. Three boots:

1. `ip6=2001:db8:1::15/64`: duplicate address detection finds Linux on it;
   the console says the address is used by another host and not used, and
   the link-local address still works (UDP echo).
2. `ip6=2001:db8:1::16/64`: free; printed valid (static), and UDP echo
   answers there from Linux's 2001:db8:1::2.
3. `ip6=2001:db8:1::16` (no prefix length): refused with the reason, and
   the default (SLAAC, the link-local address) kept.

Bounded: each boot waits at most 20 s; the namespace is removed at the end.
"""
import os
import subprocess
import sys

import host_process
import ipv6_echo_test as v6

LINK_LOCAL = r"net: ipv6 address (fe80::[0-9a-f:]+) valid \(link-local\)"


def boot(args, append):
    os.environ["STARLING_ECHO_NETDEV"] = "tap,id=n0,ifname=st0,script=no,downscript=no"
    return host_process.App([args.qemu, "--timeout", "60", "--", "-append", append])


def inside(args):
    failures = []
    for address in (v6.LINUX_LL, "2001:db8:1::15", v6.LINUX_GLOBAL):
        subprocess.run(["ip", "-6", "addr", "add", address + "/64", "dev", v6.TAP, "nodad"],
                       check=True)
    app = boot(args, "ip6=2001:db8:1::15/64")
    try:
        if v6.wait_console(app, r"net: ipv6 address 2001:db8:1::15 is used by another host "
                                r"\(duplicate address detection\): not used", 20) is None:
            failures.append("ip6=2001:db8:1::15/64, held by Linux: no duplicate line")
        ll = v6.wait_console(app, LINK_LOCAL, 10)
        if ll is None or v6.udp6(ll.group(1), b"dup") != b"dup":
            failures.append("with the static address duplicate, echo over link-local failed")
        if "2001:db8:1::15 valid" in app.console():
            failures.append("the duplicate address was printed valid")
    finally:
        app.stop()
    text_first = app.console()

    app = boot(args, "ip6=2001:db8:1::16/64")
    try:
        if v6.wait_console(app, r"net: ipv6 address 2001:db8:1::16 valid \(static\)", 20) is None:
            failures.append("ip6=2001:db8:1::16/64: not printed valid (static)")
        elif v6.udp6("2001:db8:1::16", b"static", source=v6.LINUX_GLOBAL) != b"static":
            failures.append("UDP echo over the static address failed")
    finally:
        app.stop()
    text_second = app.console()

    app = boot(args, "ip6=2001:db8:1::16")
    try:
        if v6.wait_console(app, r"echo: ignoring bootargs ip6=: bad prefix length", 20) is None:
            failures.append("ip6= without a prefix length: no refusal with the reason")
        if v6.wait_console(app, LINK_LOCAL, 10) is None:
            failures.append("after a refused ip6=, no link-local address (the default)")
    finally:
        app.stop()
    for name, text in (("first boot", text_first), ("second boot", text_second)):
        print(f"---- {name}: ipv6 lines ----")
        print("\n".join(line for line in text.splitlines() if "ipv6" in line))
        for bad in host_process.CONSOLE_ALARMS:
            if bad in text:
                failures.append(f"a console shows {bad}")
    return host_process.report(app, failures)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
