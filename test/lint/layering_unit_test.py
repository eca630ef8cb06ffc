#!/usr/bin/python3
"""The layering checker's rules on small graphs: each rule can fail."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layering  # noqa: E402

KINDS = {
    "//kernel/lib:result": "cc_library",
    "//kernel/console:input": "cc_library",
    "//drivers/irq:irq": "cc_library",
    "//net/udp:udp": "cc_library",
    "//platform/qemu_virt:board": "cc_library",
    "//platform:is_host": "config_setting",
    "//platform:riscv64": "constraint_value",
    "//apps/echo:echo": "cc_binary",
    "//drivers/virtio/model:fake_device": "cc_library",
    "//drivers/virtio:net_test": "cc_test",
    "//test/net:net_test": "sh_test",
    "//toolchain:flags": "cc_library",
}
TESTONLY = {"//drivers/virtio/model:fake_device", "//drivers/virtio:net_test", "//test/net:net_test"}


def check(*edges):
    return layering.violations(list(edges), KINDS, TESTONLY)


class LayeringTest(unittest.TestCase):
    def test_downward_edges_pass(self):
        self.assertEqual(
            check(
                ("//drivers/irq:irq", "//kernel/lib:result"),
                ("//platform/qemu_virt:board", "//drivers/irq:irq"),
                ("//apps/echo:echo", "//net/udp:udp"),
                ("//apps/echo:echo", "//platform/qemu_virt:board"),
                ("//kernel/console:input", "//platform:is_host"),
                ("//kernel/console:input", "//platform:riscv64"),
                ("//kernel/console:input", "//toolchain:flags"),
                ("//drivers/virtio:net_test", "//drivers/virtio/model:fake_device"),
                ("//test/net:net_test", "//apps/echo:echo"),
                ("//apps/echo:echo", "@lwip//:core"),
            ),
            [],
        )

    def test_kernel_on_driver_is_named(self):
        (line,) = check(("//kernel/console:input", "//drivers/irq:irq"))
        self.assertIn("//kernel/console:input -> //drivers/irq:irq", line)
        self.assertIn("kernel may not depend on drivers", line)

    def test_net_on_driver_and_app_on_driver(self):
        self.assertEqual(len(check(("//net/udp:udp", "//drivers/irq:irq"))), 1)
        self.assertEqual(len(check(("//apps/echo:echo", "//drivers/irq:irq"))), 1)

    def test_kernel_on_board_code_but_not_its_settings(self):
        self.assertEqual(len(check(("//kernel/console:input", "//platform/qemu_virt:board"))), 1)

    def test_production_on_test_code(self):
        lines = check(("//drivers/irq:irq", "//drivers/virtio/model:fake_device"))
        self.assertEqual(len(lines), 1)
        self.assertIn("production code depends on test code (testonly)", lines[0])
        lines = check(("//apps/echo:echo", "//test/net:net_test"))
        self.assertTrue(any("under //test" in l or "testonly" in l for l in lines))

    def test_reads_bazel_graph_output(self):
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            graph = os.path.join(d, "g")
            with open(graph, "w") as f:
                f.write('digraph mygraph {\n  node [shape=box];\n'
                        '  "//kernel/console:input"\n'
                        '  "//kernel/console:input" -> "//drivers/irq:irq"\n}\n')
            kinds = os.path.join(d, "k")
            with open(kinds, "w") as f:
                f.write("cc_library rule //kernel/console:input\nsource file //kernel/console:input.cc\n")
            self.assertEqual(layering.read_edges(graph), [("//kernel/console:input", "//drivers/irq:irq")])
            self.assertEqual(layering.read_kinds(kinds), {"//kernel/console:input": "cc_library"})


if __name__ == "__main__":
    unittest.main()
