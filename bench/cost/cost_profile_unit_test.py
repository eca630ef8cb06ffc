#!/usr/bin/env python3
"""cost_profile.py's log parsing, register names and parts, on a made-up QEMU log."""

import collections
import io
import os
import tempfile
import unittest

import cost_profile

LOG = """\
Trace 0: 0x7f00 [0000000000000000/0000000080200000/0020f001/ff020201] starling_trap_vector
Trace 0: 0x7f10 [0000000000000000/0000000080200004/0020f001/ff020201] starling_trap_vector
Trace 0: 0x7f20 [0000000000000000/0000000080300000/0020f001/ff020201] ip4_input
Trace 0: 0x7f30 [0000000000000000/0000000080400000/0020f001/ff020201] _ZN8starling3hal4idleEv
Trace 0: 0x7f40 [0000000000000000/0000000080500000/0020f001/ff020201] 
memory_region_ops_read cpu 0 mr 0x55 addr 0x10008060 value 0x1 size 4 name 'virtio-mmio'
memory_region_ops_write cpu 0 mr 0x55 addr 0x10008064 value 0x1 size 4 name 'virtio-mmio'
memory_region_ops_read cpu 0 mr 0x56 addr 0xc201004 value 0x8 size 4 name 'riscv.sifive.plic'
memory_region_ops_write cpu 0 mr 0x56 addr 0xc002080 value 0x100 size 4 name 'riscv.sifive.plic'
something else QEMU printed
"""


class ProfileTest(unittest.TestCase):
    def test_reads_instructions_and_accesses(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False,
                                         dir=os.environ.get("TEST_TMPDIR")) as f:
            f.write(LOG)
        symbols, accesses = cost_profile.read_window(f.name)
        self.assertEqual(symbols["starling_trap_vector"], 2)
        self.assertEqual(symbols["ip4_input"], 1)
        self.assertEqual(symbols["pc 0000000080500000"], 1)  # no symbol: named by PC
        self.assertEqual(sum(symbols.values()), 5)
        self.assertEqual(accesses[("read", "virtio-mmio@0x10008000 InterruptStatus")], 1)
        self.assertEqual(accesses[("write", "virtio-mmio@0x10008000 InterruptACK")], 1)
        self.assertEqual(accesses[("read", "PLIC ctx1 claim/complete")], 1)
        self.assertEqual(accesses[("write", "PLIC enable ctx1 word 0")], 1)

    def test_parts_by_bare_name(self):
        part = cost_profile.part_of
        self.assertEqual(part("starling::net::Netif<starling::virtio::Net, 256ul>::run()"),
                         "netif loop")  # a template argument does not make it the driver
        self.assertEqual(part("starling::virtio::SplitQueue::pop_used()"),
                         "driver (virtio-net, RingDriver)")
        self.assertEqual(part("starling::hal::idle()"), "idle (wfi)")
        self.assertEqual(part("tcp_output"), "lwIP")
        self.assertEqual(part("memcpy"), "copies (memcpy, memset)")
        self.assertEqual(part("starling::(anonymous namespace)::udp_echo(starling::net::Stack&)"),
                         "socket and application")
        self.assertEqual(part("something_unknown"), cost_profile.OTHER)

    def test_report_shares_exclude_idle(self):
        out = io.StringIO()
        names = {"_ZN8starling3hal4idleEv": "starling::hal::idle()"}
        cost_profile.report("udp_echo", 2, collections.Counter({"ip4_input": 6, "_ZN8starling3hal4idleEv": 2}),
                            {("read", "PLIC ctx1 claim/complete"): 2}, names, 5, False, out)
        text = out.getvalue()
        self.assertIn("per packet 3.0 busy instructions (4.0 with the idle loop), 1.00 MMIO reads", text)
        self.assertIn("lwIP", text)
        self.assertIn("100.0%", text)


if __name__ == "__main__":
    unittest.main()
