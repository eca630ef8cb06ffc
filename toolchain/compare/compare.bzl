"""The compiler configurations //toolchain/compare reports on.

`compiler_variant` builds its srcs -c opt without sanitizers (as the cost
gate and the benchmark build them) with the toolchains of one configuration
put first in resolution: clang 19's (registered, the default), clang 22's
(as --config=clang22 does) or the seed's, clang 19 at its default
small-data limit, a toolchain registered nowhere and visible only here and
to the toolchain tests: this transition is the one place that uses it.

`toolchain_flags` writes the command lines the C++ toolchain in force gives
a C++ compile and an executable link (its features, flags and tools: the
toolchain's share of every action on the graph), for the compiler-change
diff.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load("//bench/cost:opt.bzl", "files_and_runfiles")

# name -> the toolchains put first for it (--extra_toolchains): what the
# report's columns are.
VARIANTS = {
    "a_clang19": [],
    "b_clang19_default_small_data": ["//toolchain:riscv64_seed_elf_toolchain"],
    "c_clang22": [
        "//toolchain:riscv64_clang22_elf_toolchain",
        "//toolchain:host_clang22_linux_toolchain",
    ],
}

def variant_args(kinds):
    """compare.py's --variant arguments for these kinds of each configuration.

    Args:
      kinds: target kinds (echo_qemu, echo_star64, reflector_qemu, flags).

    Returns:
      One "--variant NAME KIND $(rootpaths ...)" per configuration and kind.
    """
    return ["--variant %s %s $(rootpaths :%s_%s)" % (v, k, v, k) for v in VARIANTS for k in kinds]

def variant_data(kinds):
    """The compiler_variant targets behind variant_args(kinds).

    Args:
      kinds: as for variant_args.

    Returns:
      Their labels.
    """
    return [":%s_%s" % (v, k) for v in VARIANTS for k in kinds]

def _variant_transition_impl(settings, attr):
    return {
        "//command_line_option:compilation_mode": "opt",
        "//command_line_option:features": ["-sanitizers"],
        "//command_line_option:extra_toolchains": attr.first_toolchains + settings["//command_line_option:extra_toolchains"],
        "//command_line_option:platforms": attr.platform or settings["//command_line_option:platforms"],
        # Each other configuration in directories of its own
        # (bazel-out/k8-opt-<variant>-ST-...). The default compiler's (no
        # toolchain put first) keeps the suffix in force: its options are then
        # the cost gate's (bench/cost/opt.bzl), whose images are the same
        # actions, built once for both.
        "//command_line_option:platform_suffix": (
            "-" + attr.variant if attr.first_toolchains else settings["//command_line_option:platform_suffix"]
        ),
    }

_variant_transition = transition(
    implementation = _variant_transition_impl,
    inputs = [
        "//command_line_option:extra_toolchains",
        "//command_line_option:platforms",
        "//command_line_option:platform_suffix",
    ],
    outputs = [
        "//command_line_option:compilation_mode",
        "//command_line_option:features",
        "//command_line_option:extra_toolchains",
        "//command_line_option:platforms",
        "//command_line_option:platform_suffix",
    ],
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
        "variant": attr.string(mandatory = True),
        "first_toolchains": attr.string_list(doc = "toolchain() labels put first in resolution"),
        # A board's platform() for targets that are not images (an image
        # picks its board itself); "" keeps the current one.
        "platform": attr.string(default = ""),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    doc = "srcs built -c opt, no sanitizers, with `first_toolchains` first.",
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
