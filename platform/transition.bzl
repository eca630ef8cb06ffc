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
