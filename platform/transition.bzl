"""The transition that builds a dependency for one board's platform."""

# What board_options reads and sets: a transition that uses it takes these
# among its inputs and outputs.
BOARD_OPTION_INPUTS = [
    "//command_line_option:compilation_mode",
    "//command_line_option:features",
]
BOARD_OPTION_OUTPUTS = BOARD_OPTION_INPUTS + ["//command_line_option:platforms"]

def board_options(settings, platform):
    """The options an image's ELF is built with for one board.

    An image is optimised unless debugging was asked for: the default mode
    (fastbuild) builds it as -c opt does, so `bazel run //apps/echo:qemu`
    boots what the benchmarks measure and the Star64 card carries what users
    ship; -c dbg stays dbg. And without sanitizers (a host feature: the
    riscv64 toolchain has none), as the cost gate's and the compiler report's
    transitions set it. The same options are the same configuration: every
    image, the cost gate's and the toolchain tests' object lists share one
    build of the kernel, drivers and net instead of one per mode
    (docs/testing.md).

    Args:
      settings: the transition's settings (BOARD_OPTION_INPUTS among them).
      platform: the board's platform() label.

    Returns:
      The values of BOARD_OPTION_OUTPUTS.
    """

    # (An enum option: str() for its name.)
    mode = str(settings["//command_line_option:compilation_mode"])
    features = settings["//command_line_option:features"]
    return {
        "//command_line_option:platforms": platform,
        "//command_line_option:compilation_mode": "opt" if mode == "fastbuild" else mode,
        "//command_line_option:features": features if "-sanitizers" in features else features + ["-sanitizers"],
    }

def _board_transition_impl(settings, attr):
    return board_options(settings, attr.platform)

# Rules using it take a string attribute `platform` (the board's platform()
# label) and the _allowlist_function_transition attribute below.
board_transition = transition(
    implementation = _board_transition_impl,
    inputs = BOARD_OPTION_INPUTS,
    outputs = BOARD_OPTION_OUTPUTS,
)

TRANSITION_ALLOWLIST = {
    "_allowlist_function_transition": attr.label(
        default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
    ),
}

# The board platforms whose libraries below the board package are
# board-neutral: built once, in :riscv64_neutral's configuration, for every
# board (neutral_deps below).
_RISCV64_BOARDS = ["qemu_virt", "star64"]

def _neutral_transition_impl(settings, attr):  # buildifier: disable=unused-variable
    platforms = settings["//command_line_option:platforms"]
    if len(platforms) == 1:
        platform = platforms[0]
        if platform.package == "platform" and platform.name in _RISCV64_BOARDS:
            return {"//command_line_option:platforms": "//platform:riscv64_neutral"}

    # The host board, a neutral build already, anything else: unchanged. (An
    # unchanged value leaves the configuration as it is: the host's libraries
    # are not built a second time.)
    return {"//command_line_option:platforms": [str(p) for p in platforms]}

neutral_transition = transition(
    implementation = _neutral_transition_impl,
    inputs = ["//command_line_option:platforms"],
    outputs = ["//command_line_option:platforms"],
)
