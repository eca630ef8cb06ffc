#!/usr/bin/env python3
"""Stateless DHCPv6 (issue 30) against dnsmasq, a router and DHCPv6 server
nobody here wrote, on the TAP beside the echo app (--qemu: the QEMU image
on virtio-net; --app: the host board's DWMAC driver over the model).

dnsmasq advertises 2001:db8:1::/64 with the A and O flags (`ra-stateless`)
and answers Information-requests with two DNS servers. Then:

1. the app prints a SLAAC address from dnsmasq's prefix as valid;
2. it asks for the rest of its configuration (dnsmasq logs the
   Information-request) and prints `net: dns servers 2001:db8:1::53
   2001:db8:1::54`; its stats line counts 2 servers;
3. a DHCPv6 Reply with a transaction id it never sent (scapy, carrying
   another server) changes nothing: no new line, still 2 servers;
4. UDP echo answers over the SLAAC address.

Bounded: dnsmasq and the app run at most the test's seconds; a handful of
packets; the namespace is removed at the end.
"""
import re
import subprocess
import sys
import time

import host_process
import ipv6_echo_test as v6

DNS = ("2001:db8:1::53", "2001:db8:1::54")
FORGED_DNS = "2001:db8:66::1"
SERVERS_LINE = "net: dns servers " + " ".join(DNS)


def dnsmasq(log_path):
    """dnsmasq as the link's router and stateless DHCPv6 server only (no DNS
    service: --port=0), in the foreground, logging to `log_path`."""
    return subprocess.Popen(
        ["timeout", "120", "/usr/sbin/dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null",
         "--port=0", f"--interface={v6.TAP}", "--bind-interfaces", "--user=root",
         "--pid-file=", "--dhcp-leasefile=/tmp/starling-dnsmasq.leases", "--enable-ra", "--ra-param=st0,5",
         f"--dhcp-range={v6.PREFIX},ra-stateless,64,10m",
         "--dhcp-option=option6:dns-server," + ",".join(f"[{a}]" for a in DNS),
         "--log-dhcp", f"--log-facility={log_path}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def forged_reply(mac, guest_mac, guest_ll):
    from scapy.all import Ether, IPv6, UDP  # noqa: PLC0415
    from scapy.layers.dhcp6 import (DHCP6_Reply, DHCP6OptDNSServers,  # noqa: PLC0415
                                    DHCP6OptServerId)
    return [Ether(src=mac, dst=guest_mac) / IPv6(src=v6.LINUX_LL, dst=guest_ll) /
            UDP(sport=547, dport=546) / DHCP6_Reply(trid=0xABCDE) / DHCP6OptServerId() /
            DHCP6OptDNSServers(dnsservers=[FORGED_DNS])]


def inside(args):
    failures = []
    subprocess.run(["ip", "-6", "addr", "add", v6.LINUX_GLOBAL + "/64", "dev", v6.TAP, "nodad"],
                   check=True)
    log_path = "/tmp/starling-dnsmasq.log"
    server = dnsmasq(log_path)
    app = host_process.app_for(args, "10.0.2.15/24,gw=10.0.2.2")
    try:
        if not app.wait_for("echo: ready", args.timeout):
            failures.append("the echo app never printed 'echo: ready'")
            return host_process.echo_report(app, failures, args)
        slaac = v6.wait_console(app, r"net: ipv6 address (2001:db8:1:[0-9a-f:]+) valid \(SLAAC\)",
                                20)
        if slaac is None:
            failures.append("no SLAAC address from dnsmasq's router advertisement")
        if v6.wait_console(app, re.escape(SERVERS_LINE), 20) is None:
            failures.append(f"console never printed '{SERVERS_LINE}'")
        stats = host_process.echo_stats(v6.GUEST_V4, only="dns_")
        print("stats:", stats)
        if stats.get("dns_servers") != 2:
            failures.append(f"dns_servers={stats.get('dns_servers')}, want 2")

        ll = v6.wait_console(app, r"net: ipv6 address (fe80::[0-9a-f:]+) valid \(link-local\)", 5)
        if ll is not None:
            guest_ll = ll.group(1)
            v6.scapy_send(forged_reply(v6.linux_mac(), v6.guest_mac_from(guest_ll), guest_ll))
            time.sleep(2.5)  # more than the watch's second
            if FORGED_DNS in app.console():
                failures.append("a Reply with a transaction id never sent set a DNS server")
            if host_process.echo_stats(v6.GUEST_V4, only="dns_").get("dns_servers") != 2:
                failures.append("the forged Reply changed the number of DNS servers")
        else:
            failures.append("no link-local address printed")
        if slaac is not None and \
                v6.udp6(slaac.group(1), b"dhcp6", source=v6.LINUX_GLOBAL) != b"dhcp6":
            failures.append("UDP echo over the SLAAC address failed")
    finally:
        app.stop()
        server.terminate()
        server.wait(timeout=10)
    with open(log_path, errors="replace") as f:
        log = f.read()
    print("---- dnsmasq ----")
    print(log[-2000:])
    if "information-request" not in log.lower():
        failures.append("dnsmasq logged no Information-request from the app")
    return host_process.echo_report(app, failures, args)


def main():
    return host_process.app_test_main(__file__, __doc__, inside, qemu=True)


if __name__ == "__main__":
    sys.exit(main())
