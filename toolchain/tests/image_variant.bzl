"""An application's board image in another compilation mode and compiler, in this build.

reproducible_test compares an image built from scratch by a nested Bazel
(`-c dbg --config=clang22`, in an output base of its own) with the same image
from the outer build: this rule gives the outer build's copy, whatever mode
and compiler the outer build itself was asked for.
"""

load("//platform:transition.bzl", "TRANSITION_ALLOWLIST")
load("//toolchain:compilers.bzl", "COMPILER_OPTIONS", "compiler_options")

def _variant_transition_impl(settings, attr):
    # As --config=clang22 does: its toolchains first, its own directories.
    options = compiler_options(settings, attr.compiler)
    options["//command_line_option:compilation_mode"] = attr.compilation_mode
    return options

_variant_transition = transition(
    implementation = _variant_transition_impl,
    inputs = COMPILER_OPTIONS,
    outputs = ["//command_line_option:compilation_mode"] + COMPILER_OPTIONS,
)

def _image_variant_impl(ctx):
    # Under this target's own name: runfiles paths leave out the output
    # directory, so two variants' apps/hello/star64.elf would be one file.
    outputs = []
    for f in ctx.attr.image[0][DefaultInfo].files.to_list():
        out = ctx.actions.declare_file(ctx.label.name + "/" + f.basename)
        ctx.actions.symlink(output = out, target_file = f)
        outputs.append(out)
    return [DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs))]

image_variant = rule(
    implementation = _image_variant_impl,
    attrs = dict(TRANSITION_ALLOWLIST, **{
        "image": attr.label(mandatory = True, cfg = _variant_transition),
        "compilation_mode": attr.string(mandatory = True, values = ["fastbuild", "opt", "dbg"]),
        "compiler": attr.string(default = "", doc = "\"clang22\", or \"\": the toolchains in force"),
    }),
    doc = "The files of an image target (//apps/x:star64) built in the given mode with the given compiler.",
)
