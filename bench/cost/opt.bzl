"""Targets built as --config=bench builds them: -c opt, no sanitizers.

The cost gate measures what the benchmark measures (docs/benchmarks.md), so
its images and generator are built optimised whatever `bazel test` was
asked for; the other tests keep the default build.
"""

def _bench_transition_impl(settings, attr):  # buildifier: disable=unused-variable
    return {
        "//command_line_option:compilation_mode": "opt",
        "//command_line_option:features": ["-sanitizers"],
    }

_bench_transition = transition(
    implementation = _bench_transition_impl,
    inputs = [],
    outputs = [
        "//command_line_option:compilation_mode",
        "//command_line_option:features",
    ],
)

def files_and_runfiles(ctx, targets):
    """The files and runfiles of several targets as one.

    Args:
      ctx: the rule context (for ctx.runfiles).
      targets: the targets whose DefaultInfo to merge.

    Returns:
      A DefaultInfo with all their files and runfiles.
    """
    files = depset(transitive = [t[DefaultInfo].files for t in targets])
    runfiles = ctx.runfiles(transitive_files = files)
    for t in targets:
        runfiles = runfiles.merge(t[DefaultInfo].default_runfiles)
    return DefaultInfo(files = files, runfiles = runfiles)

def _bench_build_impl(ctx):
    return [files_and_runfiles(ctx, ctx.attr.srcs)]

bench_build = rule(
    implementation = _bench_build_impl,
    attrs = {
        "srcs": attr.label_list(cfg = _bench_transition, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    doc = "The files (and runfiles) of srcs, built -c opt without sanitizers.",
)
