"""The pinned compilers a transition can put first, and where their outputs go.

One table for every rule that builds something with a compiler other than
the one in force: the compiler report (//toolchain/compare), the toolchain
tests' object lists (//toolchain/tests:objects.bzl) and their image variants
(image_variant.bzl). Each compiler's outputs go to bazel-out/k8-<mode>-<name>
(`--platform_suffix=-<name>`), as `--config=clang22` (.bazelrc) does, so the
same compiler in the same mode is one configuration for all of them: lwIP
and the kernel built once per compiler, not once per rule that asks.
"""

# name -> the toolchain() labels put first in resolution (--extra_toolchains).
COMPILER_TOOLCHAINS = {
    "clang22": [
        "//toolchain:riscv64_clang22_elf_toolchain",
        "//toolchain:host_clang22_linux_toolchain",
    ],
    # The seed's configuration: clang 19 without the small-data pin (its
    # default, -msmall-data-limit=8), registered nowhere: only these
    # transitions reach it.
    "seed": ["//toolchain:riscv64_seed_elf_toolchain"],
}

def compiler_options(settings, compiler):
    """extra_toolchains and platform_suffix for a compiler ("": the one in force).

    Args:
      settings: a transition's settings, with extra_toolchains and
        platform_suffix among its inputs.
      compiler: a key of COMPILER_TOOLCHAINS, or "".

    Returns:
      The values of COMPILER_OPTIONS.
    """
    if not compiler:
        return {
            "//command_line_option:extra_toolchains": settings["//command_line_option:extra_toolchains"],
            "//command_line_option:platform_suffix": settings["//command_line_option:platform_suffix"],
        }
    return {
        "//command_line_option:extra_toolchains": COMPILER_TOOLCHAINS[compiler] +
                                                  settings["//command_line_option:extra_toolchains"],
        "//command_line_option:platform_suffix": "-" + compiler,
    }

# A transition using compiler_options() takes these as inputs and outputs.
COMPILER_OPTIONS = [
    "//command_line_option:extra_toolchains",
    "//command_line_option:platform_suffix",
]
