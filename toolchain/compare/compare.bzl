"""The compiler configurations //toolchain/compare reports on.

`compiler_variant` builds its srcs -c opt without sanitizers (as the cost
gate and the benchmark build them) with the toolchains of one configuration
put first in resolution: clang 19's (registered, the default), clang 22's
(as --config=clang22 does) or the seed's, clang 19 at its default
small-data limit, a toolchain registered nowhere (//toolchain:compilers.bzl
names it for these transitions and the toolchain tests').

`toolchain_flags` writes the command lines the C++ toolchain in force gives
a C++ compile and an executable link (its features, flags and tools: the
toolchain's share of every action on the graph), for the compiler-change
diff.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load("//bench/cost:opt.bzl", "files_and_runfiles")
load("//toolchain:compilers.bzl", "COMPILER_OPTIONS", "compiler_options")

# name -> the compiler put first (compilers.bzl; "": the one in force): the
# report's columns. Each in its compiler's own output directories, shared
# with the toolchain tests' builds by the same compiler.
VARIANTS = {
    "a_clang19": "",
    "b_clang19_default_small_data": "seed",
    "c_clang22": "clang22",
}

def variant_args(kinds, variants = None):
    """compare.py's --variant arguments for these kinds of each configuration.

    Args:
      kinds: target kinds (echo_qemu, echo_star64, reflector_qemu, flags).
      variants: the configurations (VARIANTS' names); default all.

    Returns:
      One "--variant NAME KIND $(rootpaths ...)" per configuration and kind.
    """
    return ["--variant %s %s $(rootpaths :%s_%s)" % (v, k, v, k) for v in (variants or VARIANTS) for k in kinds]

def variant_data(kinds, variants = None):
    """The compiler_variant targets behind variant_args(kinds, variants).

    Args:
      kinds: as for variant_args.
      variants: as for variant_args.

    Returns:
      Their labels.
    """
    return [":%s_%s" % (v, k) for v in (variants or VARIANTS) for k in kinds]

def _variant_transition_impl(settings, attr):
    options = compiler_options(settings, attr.compiler)
    options.update({
        "//command_line_option:compilation_mode": "opt",
        "//command_line_option:features": ["-sanitizers"],
        "//command_line_option:platforms": attr.platform or settings["//command_line_option:platforms"],
    })
    return options

# (The default compiler's configuration keeps the suffix in force: its
# options are then the cost gate's (bench/cost/opt.bzl), whose images are the
# same actions, built once for both.)
_variant_transition = transition(
    implementation = _variant_transition_impl,
    inputs = ["//command_line_option:platforms"] + COMPILER_OPTIONS,
    outputs = [
        "//command_line_option:compilation_mode",
        "//command_line_option:features",
        "//command_line_option:platforms",
    ] + COMPILER_OPTIONS,
)

def _compiler_variant_impl(ctx):
    # The files again under <name>/: runfiles are keyed by short path, which
    # is the same in every configuration, so three configurations' qemu.elf
    # would otherwise be one file in the report's runfiles.
    own = []
    for target in ctx.attr.srcs:
        for f in target[DefaultInfo].files.to_list():
            link = ctx.actions.declare_file("%s/%s" % (ctx.label.name, f.basename))
            ctx.actions.symlink(output = link, target_file = f)
            own.append(link)
    info = files_and_runfiles(ctx, ctx.attr.srcs)
    return [DefaultInfo(
        files = depset(own),
        runfiles = ctx.runfiles(files = own).merge(info.default_runfiles),
    )]

compiler_variant = rule(
    implementation = _compiler_variant_impl,
    attrs = {
        "srcs": attr.label_list(cfg = _variant_transition, mandatory = True),
        "compiler": attr.string(doc = "a key of compilers.bzl's COMPILER_TOOLCHAINS, or \"\": the one in force"),
        # A board's platform() for targets that are not images (an image
        # picks its board itself); "" keeps the current one.
        "platform": attr.string(default = ""),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    doc = "srcs built -c opt, no sanitizers, with `compiler`'s toolchains first.",
)

def _toolchain_flags_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compile_variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_compile_flags = [],
    )
    link_variables = cc_common.create_link_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        is_linking_dynamic_library = False,
    )
    lines = []
    for kind, action, variables in [
        ("compile", ACTION_NAMES.cpp_compile, compile_variables),
        ("link", ACTION_NAMES.cpp_link_executable, link_variables),
    ]:
        tool = cc_common.get_tool_for_action(feature_configuration = features, action_name = action)
        argv = cc_common.get_memory_inefficient_command_line(
            feature_configuration = features,
            action_name = action,
            variables = variables,
        )
        lines.append("%s %s" % (kind, " ".join([tool] + argv)))
    out = ctx.actions.declare_file(ctx.label.name + ".flags")
    ctx.actions.write(out, "\n".join(lines) + "\n")
    return [DefaultInfo(files = depset([out]))]

toolchain_flags = rule(
    implementation = _toolchain_flags_impl,
    attrs = {
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "The C++ toolchain's compile and link command lines in this configuration.",
)
