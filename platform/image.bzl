"""Board images: one application ELF, linked for a board, packaged for its loader.

`starling_app` declares an application once and gives it one target per board:
  :<name>   the cc_binary (riscv64 only; built through the targets below)
  :qemu     ELF + raw Image for QEMU virt; `bazel run` boots it in QEMU
  :star64   ELF + raw Image (U-Boot `booti`) + legacy uImage (`bootm`)
  :host     (host = True) the same application as a Linux process on the host board
            (platform/host: its NIC is the DWMAC driver over a device model
            wired to a TAP device); `bazel run //apps/<app>:host -- --help`
Each image target switches to its board's platform itself (a transition on
--platforms), so nobody types --platforms for these.
"""

load(":transition.bzl", "TRANSITION_ALLOWLIST", "board_transition")

def _package_image(ctx):
    elf_in = ctx.attr.elf[0][DefaultInfo].files.to_list()
    if len(elf_in) != 1:
        fail("%s: elf must produce exactly one file, got %s" % (ctx.label, elf_in))
    elf = ctx.actions.declare_file(ctx.label.name + ".elf")
    image = ctx.actions.declare_file(ctx.label.name + ".Image")
    ctx.actions.symlink(output = elf, target_file = elf_in[0])

    # The ELF's first loaded byte is the Linux Image header (kernel/boot):
    # the raw binary from there on is what U-Boot's booti loads.
    objcopy = ctx.file._objcopy
    ctx.actions.run(
        executable = objcopy,
        arguments = ["-O", "binary", elf.path, image.path],
        inputs = [elf] + ctx.files._objcopy_deps,
        outputs = [image],
        mnemonic = "RawImage",
        progress_message = "Packaging raw Image %s" % image.short_path,
    )
    outputs = [elf, image]

    if ctx.attr.uimage:
        uimage = ctx.actions.declare_file(ctx.label.name + ".uImage")

        # mkimage prints the header it wrote even with -q: keep the build quiet.
        ctx.actions.run_shell(
            command = '"$@" >/dev/null',
            tools = [ctx.file._mkimage],
            arguments = [
                ctx.file._mkimage.path,
                "-A",
                "riscv",
                "-O",
                "linux",
                "-T",
                "kernel",
                "-C",
                "none",
                "-a",
                ctx.attr.load_address,
                "-e",
                ctx.attr.load_address,
                "-n",
                "Starling " + ctx.label.package,
                "-d",
                image.path,
                uimage.path,
            ],
            inputs = [image],
            outputs = [uimage],
            # mkimage stamps the time of the build unless told otherwise.
            env = {"SOURCE_DATE_EPOCH": "0"},
            mnemonic = "UImage",
            progress_message = "Packaging uImage %s" % uimage.short_path,
        )
        outputs.append(uimage)
    return elf, outputs

def _board_image_impl(ctx):
    _, outputs = _package_image(ctx)
    return [
        DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs)),
        OutputGroupInfo(images = depset(outputs)),
    ]

def _bash_double_quote(arg):
    # Double quotes: `${VAR:-default}` still expands when the launcher runs.
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'

def _qemu_image_impl(ctx):
    elf, outputs = _package_image(ctx)
    launcher = ctx.actions.declare_file(ctx.label.name + ".run.sh")
    ctx.actions.expand_template(
        template = ctx.file._launcher_template,
        output = launcher,
        substitutions = {
            "%RUNNER%": ctx.executable._runner.short_path,
            "%KERNEL%": elf.short_path,
            "%WORKSPACE%": ctx.workspace_name,
            "%QEMU_ARGS%": " ".join([_bash_double_quote(a) for a in ctx.attr.qemu_args]),
        },
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = outputs).merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(files = depset(outputs + [launcher]), executable = launcher, runfiles = runfiles),
        # The image files alone (without the launcher), for tests and packaging.
        OutputGroupInfo(images = depset(outputs)),
    ]

_COMMON_ATTRS = dict(TRANSITION_ALLOWLIST, **{
    "elf": attr.label(mandatory = True, cfg = board_transition),
    "platform": attr.string(mandatory = True),
    "uimage": attr.bool(default = False),
    "load_address": attr.string(),
    "_objcopy": attr.label(
        default = "@starling_llvm//:usr/lib/llvm-19/bin/llvm-objcopy",
        allow_single_file = True,
    ),
    "_objcopy_deps": attr.label(default = "@starling_llvm//:llvm-objcopy"),
    "_mkimage": attr.label(default = "@uboot_tools//:usr/bin/mkimage", allow_single_file = True),
})

board_image = rule(
    implementation = _board_image_impl,
    attrs = _COMMON_ATTRS,
    doc = "ELF + raw Image (+ uImage) of an application for one board.",
)

qemu_image = rule(
    implementation = _qemu_image_impl,
    attrs = dict(_COMMON_ATTRS, **{
        # QEMU arguments every launch gets (before any given after `--`);
        # bash expands ${VAR:-default} in them at launch time.
        "qemu_args": attr.string_list(),
        "_runner": attr.label(
            default = "//platform/qemu_virt:run_qemu",
            executable = True,
            cfg = "target",
        ),
        "_launcher_template": attr.label(
            default = "//platform/qemu_virt:launcher.sh.tpl",
            allow_single_file = True,
        ),
    }),
    executable = True,
    doc = "A QEMU virt image that `bazel run` boots.",
)

def starling_app(name, srcs, deps = [], qemu_args = [], host = False, **kwargs):
    """An application and its per-board images (:qemu, :star64) and host binary (:host).

    Args:
      name: the application's riscv64 cc_binary.
      srcs: its sources, the same on every board.
      deps: its libraries (the kernel and the board are added).
      qemu_args: extra QEMU arguments for :qemu (e.g. a NIC with hostfwd).
      host: also give the app a :host binary (an app with riscv64-only code,
        e.g. inline assembly or console input, leaves it off).
      **kwargs: passed to the cc_binary targets.
    """

    # An application's images are the apps layer's (layers.bzl: its package
    # default); test images elsewhere stay visible to every test.
    visibility = None if native.package_name().startswith("apps/") else ["//visibility:public"]
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + ["//kernel", "//platform:board"],
        target_compatible_with = ["//platform:riscv64"],
        visibility = visibility,
        **kwargs
    )
    qemu_image(
        name = "qemu",
        elf = ":" + name,
        platform = "//platform:qemu_virt",
        qemu_args = qemu_args,
        visibility = visibility,
    )
    board_image(
        name = "star64",
        elf = ":" + name,
        platform = "//platform:star64",
        uimage = True,
        # platform/star64/linker.ld: U-Boot's kernel_addr_r on the JH7110.
        load_address = "0x40200000",
        visibility = visibility,
    )
    if not host:
        return
    native.cc_binary(
        name = "host",
        srcs = srcs,
        deps = deps + ["//kernel", "//platform:board"],
        target_compatible_with = ["//platform:board_host"],
        visibility = visibility,
        **kwargs
    )
