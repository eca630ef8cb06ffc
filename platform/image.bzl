"""Board images: one application ELF, linked for a board, packaged for its loader.

`starling_app` declares an application once and gives it one target per board:
  :<name>   the cc_binary (riscv64 only; built through the targets below)
  :qemu     ELF + raw Image + FIT for QEMU virt; `bazel run` boots it in QEMU
  :star64   ELF + raw Image (U-Boot `booti`) + FIT (`bootm`, sha256-checked)
            + legacy uImage (`bootm`)
  :star64_sdcard, :qemu_disk
            a disk image (MBR, one FAT boot partition) that U-Boot's distro
            boot boots by itself: boot.scr, the FIT, the Image,
            boot/extlinux/extlinux.conf, uEnv.txt (the command line), README.txt;
            boot-files.cpio (the boot files, docs/boot-files.md) only when a
            boot_media target is given one: the apps' targets never are
  :star64_tftp, :qemu_tftp
            the same files for a TFTP server (boot.scr.uimg: distro boot's
            dhcp target)
  :host     (host = True) the same application as a Linux process on the host board
            (platform/host: its NIC is the DWMAC driver over a device model
            wired to a TAP device); `bazel run //apps/<app>:host -- --help`
Each image target switches to its board's platform itself (a transition on
--platforms), so nobody types --platforms for these.
"""

load("//platform/qemu_virt:facts.bzl", "QEMU_VIRT")
load("//platform/star64:facts.bzl", "STAR64")
load(":neutral_deps.bzl", "split_neutral")
load(":transition.bzl", "TRANSITION_ALLOWLIST", "board_transition")

# Each board's addresses, names and boot-media defaults: its own package's
# facts.bzl (the one place that knows them).
BOARDS = {
    "qemu": QEMU_VIRT,
    "star64": STAR64,
}

# (For test/image's boot media built against the Star64's loader.)
STAR64_FIT_ADDRESS = STAR64.fit_address

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
    outputs = [elf, image] + _fit(ctx, image)

    if ctx.attr.uimage:
        uimage = ctx.actions.declare_file(ctx.label.name + ".uImage")
        _mkimage_legacy(
            ctx,
            image_type = "kernel",
            name = "Starling " + ctx.label.package,
            data = image,
            out = uimage,
            extra = ["-a", ctx.attr.load_address, "-e", ctx.attr.load_address],
            mnemonic = "UImage",
        )
        outputs.append(uimage)
    return elf, outputs

def _fit_source(ctx, image, dtb):
    # A FIT's source (.its): the kernel with its load and entry addresses,
    # the optional device tree, a sha256 hash node for each (U-Boot checks
    # them before it boots) and one default configuration. /incbin/ paths
    # are relative to the .its, which sits beside the Image.
    fdt_node = ""
    fdt_ref = ""
    if dtb:
        fdt_node = """
		fdt-1 {
			description = "%s";
			data = /incbin/("%s");
			type = "flat_dt";
			arch = "riscv";
			compression = "none";
			hash-1 { algo = "sha256"; };
		};""" % (ctx.file.dts.basename, dtb.basename)
        fdt_ref = '\n\t\t\tfdt = "fdt-1";'
    return """/dts-v1/;

/ {
	description = "Starling %s for %s";
	#address-cells = <1>;

	images {
		kernel-1 {
			description = "Starling %s";
			data = /incbin/("%s");
			type = "kernel";
			arch = "riscv";
			os = "linux";
			compression = "none";
			load = <%s>;
			entry = <%s>;
			hash-1 { algo = "sha256"; };
		};%s
	};

	configurations {
		default = "conf-1";
		conf-1 {
			description = "Starling %s for %s";
			kernel = "kernel-1";%s
		};
	};
};
""" % (
        ctx.label.package,
        ctx.attr.board_name,
        ctx.label.package,
        image.basename,
        ctx.attr.load_address,
        ctx.attr.load_address,
        fdt_node,
        ctx.label.package,
        ctx.attr.board_name,
        fdt_ref,
    )

def _dtc_path_command(ctx):
    # mkimage runs `dtc` by name through the shell: the pinned one comes first.
    return 'PATH="$PWD/%s:/usr/bin:/bin"; export PATH; ' % ctx.file._dtc.dirname

def _fit(ctx, image):
    dtb = None
    if ctx.file.dts:
        dtb = ctx.actions.declare_file(ctx.label.name + ".dtb")
        ctx.actions.run(
            executable = ctx.file._dtc,
            arguments = ["-q", "-I", "dts", "-O", "dtb", "-o", dtb.path, ctx.file.dts.path],
            inputs = [ctx.file.dts],
            outputs = [dtb],
            mnemonic = "Dtc",
            progress_message = "Compiling device tree %s" % dtb.short_path,
        )
    its = ctx.actions.declare_file(ctx.label.name + ".its")
    ctx.actions.write(its, _fit_source(ctx, image, dtb))
    itb = ctx.actions.declare_file(ctx.label.name + ".itb")
    ctx.actions.run_shell(
        # mkimage lists the image it wrote: keep the build quiet.
        command = _dtc_path_command(ctx) + '"$@" >/dev/null',
        tools = [ctx.file._mkimage, ctx.file._dtc],
        arguments = [ctx.file._mkimage.path, "-f", its.path, itb.path],
        inputs = [its, image] + ([dtb] if dtb else []),
        outputs = [itb],
        # mkimage stamps the time of the build unless told otherwise.
        env = {"SOURCE_DATE_EPOCH": "0"},
        mnemonic = "Fit",
        progress_message = "Packaging FIT %s" % itb.short_path,
    )
    return [itb] + ([dtb] if dtb else [])

def _mkimage_legacy(ctx, image_type, name, data, out, extra, mnemonic):
    # A legacy U-Boot image (a 64-byte header before the data): the uImage
    # around a kernel, or the `source`-able boot script. mkimage prints the
    # header it wrote even with -q: keep the build quiet.
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
            image_type,
            "-C",
            "none",
        ] + extra + ["-n", name, "-d", data.path, out.path],
        inputs = [data],
        outputs = [out],
        # mkimage stamps the time of the build unless told otherwise.
        env = {"SOURCE_DATE_EPOCH": "0"},
        mnemonic = mnemonic,
        progress_message = "Packaging %s" % out.short_path,
    )

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
            "%RUNNER_ARGS%": " ".join([_bash_double_quote(a) for a in ctx.attr.runner_args]),
        },
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = outputs).merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(files = depset(outputs + [launcher]), executable = launcher, runfiles = runfiles),
        # The image files alone (without the launcher), for tests and packaging.
        OutputGroupInfo(images = depset(outputs)),
    ]

def _image_file(ctx, extension):
    files = [f for f in ctx.attr.image[OutputGroupInfo].images.to_list() if f.extension == extension]
    if len(files) != 1:
        fail("%s: %s gives %d .%s files, want one" % (ctx.label, ctx.attr.image.label, len(files), extension))
    return files[0]

# The names the boot files give the kernel on the card or the TFTP server.
_FIT_NAME = "starling.itb"
_IMAGE_NAME = "Image"

# The optional boot files archive (docs/boot-files.md) beside them: the boot
# script loads it as the kernel's initrd when it is there.
_BOOT_FILES_NAME = "boot-files.cpio"

def _expand(ctx, template, path, subs):
    out = ctx.actions.declare_file(path)
    ctx.actions.expand_template(template = template, output = out, substitutions = subs)
    return out

def _boot_media_impl(ctx):
    disk = ctx.attr.kind == "disk"
    itb = _image_file(ctx, "itb")
    image = _image_file(ctx, "Image")
    script_name = "boot.scr" if disk else "boot.scr.uimg"
    files_dir = ctx.label.name + ("_files/" if disk else "/")
    app = ctx.attr.image.label.package
    title = "Starling %s for %s" % (app, ctx.attr.board_name)
    vendor_line = ""
    extlinux_note = ""
    boot_files = ctx.file.boot_files
    if disk:
        where = "on this partition"
        owner = "card"
        if boot_files:
            initrd_note = ("Firmware that boots extlinux.conf (above) loads it through that\n" +
                           "file's initrd line: put a # before that line if you delete the\n" +
                           "archive.")
        else:
            initrd_note = ("Firmware that boots extlinux.conf (above) loads it only once the #\n" +
                           "is taken off the initrd line of boot/extlinux/extlinux.conf.")
        how = ("This partition (partition %d of the card) boots Starling through U-Boot:\n" % ctx.attr.partition +
               "power on and wait; no key press is needed.")
        image_line = ("  %s                 the same kernel as a raw Image (booti), which\n" % _IMAGE_NAME +
                      "                        boot/extlinux/extlinux.conf boots when U-Boot\n" +
                      "                        reads extlinux.conf instead of boot.scr\n")
        extlinux_note = ("\nFirmware that boots extlinux.conf first (mainline U-Boot's bootflow)\n" +
                         "takes the command line from boot/extlinux/extlinux.conf's append line\n" +
                         "instead: edit that one there.")
        if ctx.attr.vendor_uenv:
            vendor_line = ("  vf2_uEnv.txt          for the Star64's factory U-Boot (VisionFive 2 SDK):\n" +
                           "                        its boot2 runs boot.scr\n")
    else:
        how = ("Copy these files into the TFTP server's directory and have the DHCP\n" +
               "server name boot.scr.uimg as the boot file (or leave it: U-Boot's dhcp\n" +
               "target asks for boot.scr.uimg by name); U-Boot's distro boot fetches and\n" +
               "runs it when no disk holds a boot script.")
        image_line = ""
        where = "in the TFTP directory"
        owner = "TFTP directory"
        initrd_note = ("TFTP does not encrypt: a private key in %s crosses the\n" % _BOOT_FILES_NAME +
                       "network in the clear. Serve one only on a network you trust.")
    secrets = ("The project's own builds never put boot files, and so never a\n" +
               "private key, into what they make: you add yours to your own %s." % owner)
    if boot_files:
        boot_files_line = "  %s       the boot files (below), as built\n" % _BOOT_FILES_NAME
        built_note = ("This build put %s here: it was given\n%s.\n" % (_BOOT_FILES_NAME, boot_files.short_path) +
                      secrets)
    else:
        boot_files_line = ""
        built_note = secrets
    subs = {
        "%{APP}": app,
        "%{BOARD}": ctx.attr.board_name,
        "%{UNDERLINE}": "=" * len(title),
        "%{HOW}": how,
        "%{SCRIPT}": script_name,
        "%{SCRIPT_PAD}": " " * (20 - len(script_name)),
        "%{FIT}": _FIT_NAME,
        "%{IMAGE}": _IMAGE_NAME,
        "%{IMAGE_LINE}": image_line,
        "%{VENDOR_LINE}": vendor_line,
        "%{EXTLINUX_NOTE}": extlinux_note,
        "%{PARTITION}": str(ctx.attr.partition),
        "%{FIT_ADDRESS}": ctx.attr.fit_address,
        "%{BOOTARGS}": ctx.attr.bootargs,
        "%{EXTRA_HELP}": "".join(["#   %s\n" % line for line in ctx.attr.bootargs_help]),
        "%{README_EXTRA}": ctx.attr.readme_extra,
        "%{CONSOLE}": ctx.attr.console,
        "%{BOOT_FILES}": _BOOT_FILES_NAME,
        "%{BOOT_FILES_LINE}": boot_files_line,
        "%{BOOT_FILES_WHERE}": where,
        "%{BOOT_FILES_BUILT}": built_note,
        "%{BOOT_FILES_NOTE}": initrd_note,
        # extlinux.conf's initrd line, live when the card carries the archive:
        # U-Boot skips a label whose initrd it cannot load.
        "%{INITRD_COMMENT}": "" if boot_files else "#",
    }

    boot_cmd = _expand(ctx, ctx.file._boot_cmd if disk else ctx.file._tftp_cmd, files_dir + "boot.cmd", subs)
    script = ctx.actions.declare_file(files_dir + script_name)
    _mkimage_legacy(ctx, image_type = "script", name = title, data = boot_cmd, out = script, extra = [], mnemonic = "BootScript")
    uenv = _expand(ctx, ctx.file._uenv, files_dir + "uEnv.txt", subs)
    readme = _expand(ctx, ctx.file._readme, files_dir + "README.txt", subs)

    # Where each file goes (card or TFTP directory), in the order written.
    placed = [(script, script_name), (boot_cmd, "boot.cmd"), (itb, _FIT_NAME)]
    if disk:
        placed.append((image, _IMAGE_NAME))
        placed.append((_expand(ctx, ctx.file._extlinux, files_dir + "extlinux.conf", subs), "boot/extlinux/extlinux.conf"))
    placed.append((uenv, "uEnv.txt"))
    if disk and ctx.attr.vendor_uenv:
        placed.append((_expand(ctx, ctx.file._vf2_uenv, files_dir + "vf2_uEnv.txt", subs), "vf2_uEnv.txt"))
    placed.append((readme, "README.txt"))

    checked = None
    if boot_files:
        # The archive, copied only once make_initrd.py has read it as the
        # kernel reads it: another format, a compressed or damaged archive
        # fails the build, not the boot.
        checked = ctx.actions.declare_file(files_dir + _BOOT_FILES_NAME)
        ctx.actions.run_shell(
            command = '"$1" --list "$2" > /dev/null && cp "$2" "$3"',
            arguments = [ctx.executable._make_initrd.path, boot_files.path, checked.path],
            tools = [ctx.executable._make_initrd],
            inputs = [boot_files],
            outputs = [checked],
            mnemonic = "BootFiles",
            progress_message = "Checking boot files %s" % boot_files.short_path,
        )
        placed.append((checked, _BOOT_FILES_NAME))

    if not disk:
        outputs = [script, boot_cmd, uenv, readme]
        itb_copy = ctx.actions.declare_file(files_dir + _FIT_NAME)
        ctx.actions.symlink(output = itb_copy, target_file = itb)
        outputs.append(itb_copy)
        if checked:
            outputs.append(checked)
        return [DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs))]

    out = ctx.actions.declare_file(ctx.label.name + ".img")
    ctx.actions.run(
        executable = ctx.executable._make_disk,
        arguments = [
            "--mtools",
            ctx.file._mtools.path,
            "--out",
            out.path,
            "--size-mib",
            str(ctx.attr.size_mib),
            "--partition",
            str(ctx.attr.partition),
        ] + ["%s=%s" % (f.path, dest) for f, dest in placed],
        inputs = [f for f, _ in placed] + [ctx.file._mtools],
        outputs = [out],
        mnemonic = "BootDisk",
        progress_message = "Making boot disk %s" % out.short_path,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

boot_media = rule(
    implementation = _boot_media_impl,
    attrs = {
        "image": attr.label(mandatory = True, doc = "a :qemu or :star64 image target (its FIT and Image)"),
        "kind": attr.string(mandatory = True, values = ["disk", "tftp"]),
        "board_name": attr.string(mandatory = True),
        # Where the boot script loads the FIT: RAM that is neither the
        # kernel's (bootm copies the kernel out of it) nor U-Boot's.
        "fit_address": attr.string(mandatory = True),
        "bootargs": attr.string(mandatory = True, doc = "uEnv.txt's bootargs= value as built"),
        "bootargs_help": attr.string_list(doc = "more comment lines for uEnv.txt"),
        "readme_extra": attr.string(),
        "console": attr.string(mandatory = True),
        "size_mib": attr.int(default = 32),
        # The boot partition's MBR slot. 3: the VisionFive 2 SDK U-Boot
        # (the Star64's factory firmware) reads its files from partition 3
        # only; distro boot and bootflow find a bootable partition anywhere.
        "partition": attr.int(default = 3),
        # vf2_uEnv.txt, whose boot2 the factory U-Boot runs (Star64 only).
        "vendor_uenv": attr.bool(default = False),
        # The boot files (docs/boot-files.md), put beside the FIT as
        # boot-files.cpio. Optional, and never given by the project's own
        # targets: a private key belongs on its owner's card, not in a
        # build output that caches and copies may keep.
        "boot_files": attr.label(allow_single_file = True, doc = "a cpio newc archive (make_initrd.py)"),
        "_vf2_uenv": attr.label(default = "//platform/boot_media:vf2_uEnv.txt", allow_single_file = True),
        "_boot_cmd": attr.label(default = "//platform/boot_media:boot.cmd", allow_single_file = True),
        "_tftp_cmd": attr.label(default = "//platform/boot_media:tftp.cmd", allow_single_file = True),
        "_extlinux": attr.label(default = "//platform/boot_media:extlinux.conf", allow_single_file = True),
        "_uenv": attr.label(default = "//platform/boot_media:uEnv.txt", allow_single_file = True),
        "_readme": attr.label(default = "//platform/boot_media:README.txt", allow_single_file = True),
        "_make_disk": attr.label(default = "//platform/boot_media:make_disk", executable = True, cfg = "exec"),
        "_make_initrd": attr.label(default = "//platform/boot_media:make_initrd", executable = True, cfg = "exec"),
        "_mtools": attr.label(default = "@mtools//:usr/bin/mtools", allow_single_file = True),
        "_mkimage": attr.label(default = "@uboot_tools//:usr/bin/mkimage", allow_single_file = True),
    },
    doc = "Boot files U-Boot's distro boot finds by itself: a disk image or a TFTP directory.",
)

_COMMON_ATTRS = dict(TRANSITION_ALLOWLIST, **{
    "elf": attr.label(mandatory = True, cfg = board_transition),
    "platform": attr.string(mandatory = True),
    "uimage": attr.bool(default = False),
    # Where the kernel runs (its link address): the FIT's load and entry, the uImage's.
    "load_address": attr.string(mandatory = True),
    "board_name": attr.string(mandatory = True),
    # A device tree source to put in the FIT beside the kernel (optional:
    # without one U-Boot passes its own, ${fdtcontroladdr}).
    "dts": attr.label(allow_single_file = [".dts"]),
    "_dtc": attr.label(default = "@dtc//:usr/bin/dtc", allow_single_file = True),
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
        "runner_args": attr.string_list(),
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

def starling_app(name, srcs, deps = [], qemu_args = [], runner_args = [], host = False, **kwargs):
    """An application and its per-board images (:qemu, :star64) and host binary (:host).

    Args:
      name: the application's riscv64 cc_binary.
      srcs: its sources, the same on every board.
      deps: its libraries (the kernel and the board are added).
      qemu_args: extra QEMU arguments for :qemu (e.g. a NIC with hostfwd).
      runner_args: run_qemu.sh options :qemu always passes (e.g.
        --tls-throwaway), before the caller's.
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
        # The kernel and the app's board-neutral libraries once for every
        # board (neutral_deps.bzl); the board package and //platform's
        # board-facing libraries in the board's own configuration.
        deps = split_neutral(
            name + "_neutral_deps",
            deps + ["//kernel"],
            target_compatible_with = ["//platform:riscv64"],
            visibility = ["//visibility:private"],
        ) + ["//platform:board"],
        target_compatible_with = ["//platform:riscv64"],
        visibility = visibility,
        **kwargs
    )
    qemu_image(
        name = "qemu",
        elf = ":" + name,
        platform = QEMU_VIRT.platform,
        board_name = QEMU_VIRT.board_name,
        load_address = QEMU_VIRT.load_address,
        qemu_args = qemu_args,
        runner_args = runner_args,
        visibility = visibility,
    )
    board_image(
        name = "star64",
        elf = ":" + name,
        platform = STAR64.platform,
        board_name = STAR64.board_name,
        uimage = STAR64.uimage,
        load_address = STAR64.load_address,
        visibility = visibility,
    )
    for kind, suffix in [("disk", "disk"), ("tftp", "tftp")]:
        for image, board in BOARDS.items():
            boot_media(
                # The Star64's card is its "sdcard".
                name = image + "_" + ("sdcard" if kind == "disk" and image == "star64" else suffix),
                image = ":" + image,
                kind = kind,
                board_name = board.board_name,
                fit_address = board.fit_address,
                bootargs = board.bootargs,
                bootargs_help = board.bootargs_help,
                readme_extra = board.readme_extra,
                vendor_uenv = board.vendor_uenv,
                console = board.console,
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
