#!/usr/bin/env python3
"""neutral_objects_test's check on made-up manifests: it passes the shared
build and fails, naming the cause, each way the sharing can break."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import neutral_objects_test as t  # noqa: E402

NEUTRAL = "k8-fastbuild-ST-aaaa"


def objects(board_config, neutral_config=NEUTRAL, count=25):
    lines = [f"bazel-out/{neutral_config}/bin/kernel/async/_objs/async/f{i}.o" for i in range(count)]
    lines.append(f"bazel-out/{board_config}/bin/platform/star64/_objs/board/board.o")
    lines.append(f"bazel-out/{board_config}/bin/apps/echo/_objs/echo/main.o")
    return lines


class CheckTest(unittest.TestCase):
    def run_main(self, manifests):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, lines in manifests.items():
                p = os.path.join(d, f"{name}_objects.objects")
                with open(p, "w") as f:
                    f.write("\n".join(lines) + "\n")
                paths.append(p)
            return t.main(paths)

    def test_shared_build_passes(self):
        self.assertEqual(self.run_main({"echo_qemu_virt": objects("k8-fastbuild-ST-q"),
                                        "echo_star64": objects("k8-fastbuild-ST-s")}), 0)

    def test_neutral_built_per_board_fails(self):
        failures = t.check({"q": t.read_lines(objects("k8-fastbuild-ST-q", "k8-fastbuild-ST-q")),
                            "s": t.read_lines(objects("k8-fastbuild-ST-s", "k8-fastbuild-ST-s"))})
        self.assertTrue(any("built in 2 configurations" in f for f in failures), failures)

    def test_board_package_in_neutral_configuration_fails(self):
        failures = t.check({"q": t.read_lines(objects(NEUTRAL)),
                            "s": t.read_lines(objects("k8-fastbuild-ST-s"))})
        self.assertTrue(any("neutral configuration" in f for f in failures), failures)

    def test_boards_sharing_a_board_configuration_fails(self):
        failures = t.check({"q": t.read_lines(objects("k8-fastbuild-ST-x")),
                            "s": t.read_lines(objects("k8-fastbuild-ST-x"))})
        self.assertTrue(any("same configuration" in f for f in failures), failures)

    def test_too_few_objects_fails(self):
        failures = t.check({"q": t.read_lines(objects("k8-fastbuild-ST-q", count=3)),
                            "s": t.read_lines(objects("k8-fastbuild-ST-s"))})
        self.assertTrue(any("only 3 objects" in f for f in failures), failures)

    def test_one_manifest_is_an_error(self):
        self.assertEqual(self.run_main({"echo_qemu_virt": objects("k8-fastbuild-ST-q")}), 2)


if __name__ == "__main__":
    unittest.main()
