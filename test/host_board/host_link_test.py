#!/usr/bin/env python3
"""Link life on the host board (issue 26): the echo app's NIC is the DWMAC
driver over the device model, whose cable is the TAP's Linux side (`ip link
set st0 down` pulls it, `up` plugs it in; platform/host/nic.cc).

Checks, each with a deadline: booted with the cable out, the app still comes
up (the MAC's reset does not wait for a cable), says there is no link, and
echoes nothing, and its data-path self-test (MAC loopback) passed;
plugged in, the driver reports the link and UDP echo works;
pulled, it reports the link down; plugged in again, echo works again; no
NIC errors or resets in the counters afterwards.
"""
import subprocess
import sys
import time

import host_process
from host_process import App, report

GUEST = "10.0.2.15"


def cable(state):
    subprocess.run(["ip", "link", "set", "st0", state], check=True)


def echo_works():
    try:
        return host_process.udp_roundtrip(GUEST, b"link-life", tries=10, timeout=0.5) == b"link-life"
    except OSError:  # the interface is down: no route
        return False


def stats():
    try:
        return host_process.echo_stats(GUEST)
    except OSError:
        return {}


def inside(args):
    failures = []
    cable("down")
    app = App([args.app, "--tap=st0", "--ip=10.0.2.15/24,gw=10.0.2.2"])
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("booted without a cable, the echo app never printed 'echo: ready'")
            return finish(app, failures)
        if "host: TAP st0 down: the cable is out" not in app.console():
            failures.append("the boot did not say the cable is out")
        if "dwmac: software reset (DMA_MODE.SWR) did not complete" in app.console():
            failures.append("the MAC's reset waited for the cable")
        # Issue 46: the first-power-on self-test needs no cable (MAC loopback
        # on the PHY's RX clock) and says what passed.
        if ("dwmac: self-test passed: a 128-byte frame through MAC loopback, TX descriptor 0 and "
                "RX descriptor 0 written back, payload intact, IPv4 and UDP checksums inserted"
                not in app.console()):
            failures.append("no 'dwmac: self-test passed' line at boot")
        if echo_works():
            failures.append("an echo came back with the cable out")

        for round_ in (1, 2):
            cable("up")
            mark = app.console().count("dwmac: link up")
            deadline = time.monotonic() + args.timeout
            while app.console().count("dwmac: link up") <= mark and time.monotonic() < deadline:
                time.sleep(0.05)
            if app.console().count("dwmac: link up") <= mark:
                failures.append(f"plug-in {round_}: the driver never reported the link up")
            elif not echo_works():
                failures.append(f"plug-in {round_}: UDP echo does not work")
            else:
                print(f"plug-in {round_}: link up, echo works")
            if round_ == 2:
                break
            mark = app.console().count("dwmac: link down")
            cable("down")
            deadline = time.monotonic() + args.timeout
            while app.console().count("dwmac: link down") <= mark and time.monotonic() < deadline:
                time.sleep(0.05)
            if app.console().count("dwmac: link down") <= mark:
                failures.append("pulled: the driver never reported the link down")
            else:
                print("pulled: link down reported")

        counters = stats()
        print("stats:", " ".join(f"{k}={v}" for k, v in sorted(counters.items())))
        if counters.get("nic_rx_frames", 0) == 0:
            failures.append("no STATS reply (or no frames through the NIC) after the last plug-in")
        for key in ("nic_rx_errors", "nic_resets"):
            if counters.get(key, 0) != 0:
                failures.append(f"{key} {counters.get(key)}")
    finally:
        app.stop()
    return finish(app, failures)


def finish(app, failures):
    return report(app, failures, ("host: NIC dwmac (device model) on TAP st0",
                                  "host: TAP st0 up: the cable is in", "dwmac: link down"))


def main():
    return host_process.app_test_main(__file__, __doc__, inside)


if __name__ == "__main__":
    sys.exit(main())
