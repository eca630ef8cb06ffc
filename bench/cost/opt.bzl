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

def _bench_build_impl(ctx):
    files = depset(transitive = [t[DefaultInfo].files for t in ctx.attr.srcs])
    runfiles = ctx.runfiles(transitive_files = files)
    for t in ctx.attr.srcs:
        runfiles = runfiles.merge(t[DefaultInfo].default_runfiles)
    return [DefaultInfo(files = files, runfiles = runfiles)]

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
