"""Board-neutral libraries, built once for every riscv64 board.

Only the board packages (platform/<board>), //platform's board-facing
targets and the applications' own sources know which board they are built
for (the concrete NIC type, addresses, the linker script). The kernel,
drivers and net below them select nothing on the board, yet as plain deps
they would be compiled once per board's platform: the same objects, twice
over, in every compilation mode (about 250 core-seconds of a cold
`bazel test //...`). `neutral_deps` takes them through a transition to
//platform:riscv64_neutral (riscv64, no board), so every board's image links
the one build of them; on the host it changes nothing.

A board-specific target reached through it fails loudly: //platform:board and
:nic resolve to incompatible targets on the neutral platform.
//toolchain/tests:neutral_objects_test checks, on the images' real objects,
that the boards share every object outside the board-specific packages.
"""

load(":transition.bzl", "TRANSITION_ALLOWLIST", "neutral_transition")

# CcInfo is Bazel 4.2.3's built-in: Debian's rules_cc has no cc_info.bzl to load.
# buildifier: disable=native-cc-info
def _neutral_deps_impl(ctx):
    return [cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])]

neutral_deps = rule(
    implementation = _neutral_deps_impl,
    attrs = dict(TRANSITION_ALLOWLIST, **{
        # Named deps, as cc_library's: aspects that walk deps (objects.bzl's)
        # walk through it.
        "deps": attr.label_list(cfg = neutral_transition, providers = [CcInfo]),  # buildifier: disable=native-cc-info
    }),
    doc = "The CcInfo of its deps, built for the board-neutral riscv64 platform.",
)

# Packages whose code knows its board: everything under them stays in the
# board's configuration.
BOARD_SPECIFIC_PREFIXES = ["//platform:", "//platform/"]

def is_board_specific(label):
    """Whether a dependency (as written in a BUILD file) knows its board.

    Args:
      label: a label string; relative ones (":x") are the caller's package.

    Returns:
      True for //platform targets and the caller's own package when that is
      a board package; False for everything else.
    """
    if label.startswith(":") or not label.startswith("//"):
        return native.package_name().startswith("platform")
    return any([label.startswith(p) for p in BOARD_SPECIFIC_PREFIXES])

def split_neutral(name, deps, **kwargs):
    """Deps with the board-neutral ones replaced by one neutral_deps target.

    Args:
      name: the neutral_deps target to declare (when there are neutral deps).
      deps: a list of label strings (no select()).
      **kwargs: the neutral_deps target's common attributes (visibility,
        target_compatible_with).

    Returns:
      The board-specific deps, plus ":<name>" when any were neutral.
    """
    specific = [d for d in deps if is_board_specific(d)]
    neutral = [d for d in deps if not is_board_specific(d)]
    if not neutral:
        return specific
    neutral_deps(name = name, deps = neutral, **kwargs)
    return specific + [":" + name]
