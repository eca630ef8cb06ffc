"""The transition that builds a dependency for one board's platform."""

def _board_transition_impl(settings, attr):  # buildifier: disable=unused-variable
    return {"//command_line_option:platforms": attr.platform}

# Rules using it take a string attribute `platform` (the board's platform()
# label) and the _allowlist_function_transition attribute below.
board_transition = transition(
    implementation = _board_transition_impl,
    inputs = [],
    outputs = ["//command_line_option:platforms"],
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
