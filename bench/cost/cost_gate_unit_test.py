#!/usr/bin/env python3
"""cost_gate.py's budget file, margins, comparison, ELF sections and TLS run, on made-up figures."""

import os
import struct
import tempfile
import unittest

import cost_gate

BUDGETS = """# a comment
margin *.busy_instructions_per_packet 5%
margin size.* 1%
margin size.echo.qemu.text 2%
margin *.mmio_* 3%
udp_echo.busy_instructions_per_packet 1000
udp_echo.mmio_reads_per_packet 4.25
size.echo.qemu.text 10000   # trailing comment
size.echo.qemu.bss 500
"""


def write(text):
    f = tempfile.NamedTemporaryFile("w", delete=False, dir=os.environ.get("TEST_TMPDIR"))
    f.write(text)
    f.close()
    return f.name


def tiny_elf(sections):
    """A little-endian ELF64 with just section headers: [(name, size, flags)]."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n, _, _ in sections) + b".shstrtab\0"
    headers = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    at = 1
    for name, size, flags in sections:
        headers.append(struct.pack("<IIQQQQIIQQ", at, 1, flags, 0, 0, size, 0, 0, 1, 0))
        at += len(name) + 1
    shoff = 64 + len(names)
    headers.append(struct.pack("<IIQQQQIIQQ", at, 3, 0, 0, 64, len(names), 0, 0, 1, 0))
    ident = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    header = ident + struct.pack("<HHIQQQIHHHHHH", 2, 243, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                                 len(headers), len(headers) - 1)
    return header + names + b"".join(headers)


class BudgetsTest(unittest.TestCase):
    def setUp(self):
        self.path = write(BUDGETS)
        self.budgets, self.margins, self.lines = cost_gate.read_budgets(self.path)

    def test_reads_figures_and_margins(self):
        self.assertEqual(self.budgets["size.echo.qemu.text"], 10000)
        self.assertEqual(cost_gate.margin_for("udp_echo.busy_instructions_per_packet", self.margins), 5)
        # The last matching margin wins.
        self.assertEqual(cost_gate.margin_for("size.echo.qemu.text", self.margins), 2)
        self.assertEqual(cost_gate.margin_for("size.echo.qemu.bss", self.margins), 1)

    def test_over_the_margin_fails_within_passes(self):
        rows, failed = cost_gate.compare(
            {"udp_echo.busy_instructions_per_packet": 1049, "size.echo.qemu.text": 10201,
             "size.echo.qemu.bss": 500}, self.budgets, self.margins)
        self.assertEqual(failed, ["size.echo.qemu.text"])
        rows, failed = cost_gate.compare(
            {"udp_echo.busy_instructions_per_packet": 1051, "size.echo.qemu.text": 10000,
             "size.echo.qemu.bss": 500}, self.budgets, self.margins)
        self.assertEqual(failed, ["udp_echo.busy_instructions_per_packet"])
        verdicts = {r[0]: r[5] for r in rows}
        self.assertEqual(verdicts["udp_echo.busy_instructions_per_packet"], "OVER")

    def test_a_figure_without_a_budget_fails(self):
        _, failed = cost_gate.compare({"tcp_echo.busy_instructions_per_packet": 1},
                                      self.budgets, self.margins)
        self.assertEqual(failed, ["tcp_echo.busy_instructions_per_packet"])

    def test_far_under_is_reported_not_failed(self):
        rows, failed = cost_gate.compare({"size.echo.qemu.bss": 100}, self.budgets, self.margins)
        self.assertEqual(failed, [])
        self.assertIn("lower the budget", {r[0]: r[5] for r in rows}["size.echo.qemu.bss"])

    def test_bad_lines_are_named(self):
        with self.assertRaisesRegex(cost_gate.BudgetError, ":2: want '<figure> <number>'"):
            cost_gate.read_budgets(write("margin size.* 1%\nsize.x.text many\n"))
        with self.assertRaisesRegex(cost_gate.BudgetError, "no margin line matches"):
            cost_gate.compare({"other": 1}, {"other": 1}, [])

    def test_access_counts_have_two_decimals(self):
        self.assertEqual(self.budgets["udp_echo.mmio_reads_per_packet"], 4.25)
        rows, failed = cost_gate.compare({"udp_echo.mmio_reads_per_packet": 4.40},
                                         {"udp_echo.mmio_reads_per_packet": 4.25}, self.margins)
        self.assertEqual(failed, ["udp_echo.mmio_reads_per_packet"])  # 3.5% over a 3% margin
        rows, failed = cost_gate.compare({"udp_echo.mmio_reads_per_packet": 4.35},
                                         {"udp_echo.mmio_reads_per_packet": 4.25}, self.margins)
        self.assertEqual(failed, [])
        with self.assertRaisesRegex(cost_gate.BudgetError, ":2: want '<figure> <number>'"):
            cost_gate.read_budgets(write("margin size.* 1%\nsize.x.text 1.234\n"))

    def test_update_keeps_comments_and_margins(self):
        cost_gate.write_budgets(self.path, self.lines,
                                {"size.echo.qemu.text": 12345.2, "reflector.busy_instructions_per_packet": 99.5,
                                 "udp_echo.mmio_reads_per_packet": 5.123})
        text = open(self.path).read()
        self.assertIn("# a comment\nmargin *.busy_instructions_per_packet 5%", text)
        self.assertIn("size.echo.qemu.text 12346\n", text)
        self.assertIn("size.echo.qemu.bss 500\n", text)
        self.assertIn("reflector.busy_instructions_per_packet 100\n", text)
        self.assertIn("udp_echo.mmio_reads_per_packet 5.13\n", text)


class ElfTest(unittest.TestCase):
    def test_allocated_sections_only(self):
        path = write("")
        with open(path, "wb") as f:
            f.write(tiny_elf([(".text", 4096, 6), (".bss", 64, 3), (".comment", 10, 0)]))
        self.assertEqual(cost_gate.elf_sections(path), {".text": 4096, ".bss": 64})
        figures = cost_gate.section_figures([("x.qemu", path)])
        self.assertEqual(figures["size.x.qemu.text"], 4096)
        self.assertEqual(figures["size.x.qemu.rodata"], 0)

    def test_not_an_elf(self):
        with self.assertRaisesRegex(cost_gate.BudgetError, "not a little-endian ELF64"):
            cost_gate.elf_sections(write("hello"))

    def launcher(self, body):
        path = write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return path

    def test_tls_figures_are_read(self):
        lines = "".join(f"echo 'tls_cost: tls.{f}={100 + i}'\n"
                        for i, f in enumerate(cost_gate.TLS_FIGURES))
        figures = cost_gate.measure_tls(self.launcher("echo booting\n" + lines))
        self.assertEqual(figures["tls.full_handshake.server_instructions"], 100)
        self.assertEqual(len(figures), len(cost_gate.TLS_FIGURES))

    def test_a_failed_tls_run_is_named(self):
        body = "echo 'tls_cost: tls.full_handshake.server_instructions=5'\n"
        with self.assertRaisesRegex(cost_gate.BudgetError, "no figure for .*longest_step"):
            cost_gate.measure_tls(self.launcher(body))
        with self.assertRaisesRegex(cost_gate.BudgetError, "exit 1"):
            cost_gate.measure_tls(self.launcher("echo 'tls_cost: FAIL the handshake'; exit 1\n"))


if __name__ == "__main__":
    unittest.main()
