"""Every object file the compiler produced for an image, found on the action graph.

An aspect walks the application's dependency graph (deps, srcs) and collects
the outputs of every C++/C/assembly compile action, so a test sees lwIP's
objects the day lwIP becomes a dependency, without anyone listing them. It
also collects each link action's command line, which Bazel 4.2.3 exposes to
Starlark (compile command lines it does not: see compile_flags_test).
"""

load("//platform:transition.bzl", "BOARD_OPTION_INPUTS", "BOARD_OPTION_OUTPUTS", "TRANSITION_ALLOWLIST", "board_options")
load("//toolchain:compilers.bzl", "COMPILER_OPTIONS", "compiler_options")

ObjectsInfo = provider(
    doc = "Object files compiled for a binary, and its link command lines.",
    fields = ["objects", "link_argv"],
)

_COMPILE_MNEMONICS = ["CppCompile", "CAssemble", "CppAssemble"]

def _objects_aspect_impl(target, ctx):
    objects = []
    link_argv = []
    for action in target.actions:
        if action.mnemonic in _COMPILE_MNEMONICS:
            objects += [f for f in action.outputs.to_list() if f.path.endswith(".o")]
        elif action.mnemonic == "CppLink" and action.argv and action.argv[0].endswith("/clang"):
            # Archives are CppLink actions too; the clang driver runs only real links.
            link_argv.append(struct(output = action.outputs.to_list()[0].path, argv = action.argv))
    transitive = []
    transitive_argv = []
    for attr_name in ["deps", "srcs"]:
        for dep in getattr(ctx.rule.attr, attr_name, []):
            if ObjectsInfo in dep:
                transitive.append(dep[ObjectsInfo].objects)
                transitive_argv.append(dep[ObjectsInfo].link_argv)
    return [ObjectsInfo(
        objects = depset(objects, transitive = transitive),
        link_argv = depset(link_argv, transitive = transitive_argv),
    )]

objects_aspect = aspect(
    implementation = _objects_aspect_impl,
    attr_aspects = ["deps", "srcs"],
)

def _objects_transition_impl(settings, attr):
    # As the board's images build their ELF (board_options: the same
    # configuration, so these are the images' own objects, not a copy), with
    # the compiler asked for (compilers.bzl: its own output directories).
    options = board_options(settings, attr.platform)
    options.update(compiler_options(settings, attr.compiler))
    return options

_objects_transition = transition(
    implementation = _objects_transition_impl,
    inputs = BOARD_OPTION_INPUTS + COMPILER_OPTIONS,
    outputs = BOARD_OPTION_OUTPUTS + COMPILER_OPTIONS,
)

def _board_objects_impl(ctx):
    info = ctx.attr.binary[0][ObjectsInfo]
    objects = info.objects.to_list()

    # Exec-root paths (bazel-out/<configuration>/bin/...): which configuration
    # built each object is part of what neutral_objects_test checks.
    manifest = ctx.actions.declare_file(ctx.label.name + ".objects")
    ctx.actions.write(manifest, "\n".join([o.path for o in objects]) + "\n")
    links = ctx.actions.declare_file(ctx.label.name + ".link_argv")
    ctx.actions.write(links, "\n".join([" ".join(link.argv) for link in info.link_argv.to_list()]) + "\n")
    binary = ctx.attr.binary[0][DefaultInfo].files.to_list()
    files = objects + binary + [manifest, links]
    return [DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files))]

board_objects = rule(
    implementation = _board_objects_impl,
    attrs = dict(TRANSITION_ALLOWLIST, **{
        "binary": attr.label(mandatory = True, cfg = _objects_transition, aspects = [objects_aspect]),
        "platform": attr.string(mandatory = True),
        "compiler": attr.string(default = "", doc = "\"clang22\", \"seed\", or \"\": the toolchains in force"),
    }),
    doc = "The objects, link command lines and binary of a cc_binary built for a board (and compiler).",
)
