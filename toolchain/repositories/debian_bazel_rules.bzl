"""Bazel's own rule sets, taken from Debian's packages instead of the network.

Bazel 4.2.3 wants to download @rules_cc, @rules_java and @remote_coverage_tools
even for a pure C++ build. Debian ships rules_cc 0.0.4 and rules_java; these
rules point Bazel at them, and give it a coverage repository of our own.
"""

_DEBIAN_RULES_CC = "/usr/share/bazel/rules/cc"

# rules_cc 0.0.4 loads use_cpp_toolchain from @bazel_tools, which Bazel 4.2.3
# does not have yet: these two files get a local definition instead.
_NEEDS_USE_CPP_TOOLCHAIN = [
    "cc/private/rules_impl/cc_flags_supplier.bzl",
    "cc/private/rules_impl/compiler_flag.bzl",
]

_COMPAT_BZL = '''"""use_cpp_toolchain for Bazel 4.2.3 (added to @bazel_tools later)."""

def use_cpp_toolchain(mandatory = True):  # buildifier: disable=unused-variable
    return ["@bazel_tools//tools/cpp:toolchain_type"]
'''

def _debian_rules_cc_impl(rctx):
    src = rctx.path(_DEBIAN_RULES_CC)
    if not src.exists:
        fail("starling: %s is missing. Install Debian's bazel-rules-cc: run `sudo ./setup.sh`." % _DEBIAN_RULES_CC)
    result = rctx.execute(["cp", "-R", str(src) + "/.", "."])
    if result.return_code != 0:
        fail("starling: cannot copy %s: %s" % (src, result.stderr))
    rctx.file("cc/private/rules_impl/use_cpp_toolchain_compat.bzl", _COMPAT_BZL)
    for path in _NEEDS_USE_CPP_TOOLCHAIN:
        text = rctx.read(path)
        patched = text.replace(
            '"find_cpp_toolchain", "use_cpp_toolchain")',
            '"find_cpp_toolchain")\nload("//cc/private/rules_impl:use_cpp_toolchain_compat.bzl", "use_cpp_toolchain")',
        )
        if patched == text:
            fail("starling: %s/%s no longer loads use_cpp_toolchain as expected; update toolchain/repositories/debian_bazel_rules.bzl" % (src, path))
        rctx.file(path, patched)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    local = False,
)

_COVERAGE_BUILD = '''# Coverage tools Bazel 4.2.3 would download. Offline they are not available;
# `bazel coverage` fails with this message instead of a network error.
package(default_visibility = ["//visibility:public"])

sh_binary(
    name = "lcov_merger",
    srcs = ["unavailable.sh"],
)

sh_binary(
    name = "coverage_report_generator",
    srcs = ["unavailable.sh"],
)

filegroup(
    name = "coverage_output_generator",
    srcs = ["unavailable.sh"],
)
'''

_UNAVAILABLE = '''#!/bin/sh
echo "starling: bazel coverage is not supported: Bazel's coverage tools are not packaged by Debian and cannot be downloaded here." >&2
exit 1
'''

def _coverage_tools_impl(rctx):
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD.bazel", _COVERAGE_BUILD)
    rctx.file("unavailable.sh", _UNAVAILABLE, executable = True)

unavailable_coverage_tools = repository_rule(implementation = _coverage_tools_impl)
