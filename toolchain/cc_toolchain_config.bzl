"""cc_toolchain_config rules for the riscv64 kernel and the x86_64 host.

Both run a pinned clang (toolchain/pins.bzl's COMPILERS: clang 19 from
@starling_llvm by default, clang 22 from @starling_llvm22 with
--config=clang22); the flag sets come from toolchain/flags.bzl and are
composed here as features, one feature per set. One toolchain per compiler
(starling_cc_toolchain).
"""

load("@rules_cc//cc:action_names.bzl", "ACTION_NAMES")
load(
    "@rules_cc//cc:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
)
load("@rules_cc//cc:defs.bzl", "cc_toolchain")
load(":flags.bzl", "llvm_paths", flags = "FLAGS")
load(":pins.bzl", "COMPILERS")

_C_COMPILE = [ACTION_NAMES.c_compile]
_CXX_COMPILE = [
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]
_ASSEMBLE = [ACTION_NAMES.assemble, ACTION_NAMES.preprocess_assemble]
_ALL_COMPILE = _C_COMPILE + _CXX_COMPILE + _ASSEMBLE
_CODE_COMPILE = _C_COMPILE + _CXX_COMPILE
_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags_feature(name, actions, flag_list, enabled = True):
    # An empty set is a feature with no flags (rules_cc refuses an empty
    # flag_group): the name stays on the actions either way.
    return feature(
        name = name,
        enabled = enabled,
        flag_sets = [flag_set(actions = actions, flag_groups = [flag_group(flags = flag_list)])] if flag_list else [],
    )

def _mode_features():
    # Bazel enables the feature named after --compilation_mode.
    return [
        _flags_feature("opt", _ALL_COMPILE, flags.OPT, enabled = False),
        _flags_feature("dbg", _ALL_COMPILE, flags.DBG, enabled = False),
        _flags_feature("fastbuild", _ALL_COMPILE, flags.FASTBUILD, enabled = False),
    ]

def _tool_paths(compiler):
    # Every tool goes through the same wrapper (wrappers/dispatch.sh), which
    # runs the binary of the same name from the compiler's repository.
    tools = {
        "gcc": "clang",
        "cpp": "clang",
        "ld": "ld.lld",
        "ar": "llvm-ar",
        "nm": "llvm-nm",
        "objcopy": "llvm-objcopy",
        "objdump": "llvm-objdump",
        "strip": "llvm-strip",
        "gcov": "llvm-cov",
        "dwp": "llvm-dwp",
    }
    return [tool_path(name = name, path = "wrappers/%s/%s" % (compiler, tool)) for name, tool in tools.items()]

def _riscv64_features(paths, small_data):
    return [
        _flags_feature("riscv64_arch", _ALL_COMPILE + _LINK, flags.RISCV64_ARCH),
        # small_data False: the feature off, the compiler's own default; only
        # the seed's toolchain, for //toolchain/compare (never a normal build).
        _flags_feature("small_data_limit", _ALL_COMPILE, flags.SMALL_DATA, enabled = small_data),
        _flags_feature("freestanding", _ALL_COMPILE, flags.FREESTANDING),
        _flags_feature("no_exceptions", _CODE_COMPILE, flags.NO_EXCEPTIONS),
        _flags_feature("no_rtti", _CXX_COMPILE, flags.NO_RTTI),
        _flags_feature("function_data_sections", _CODE_COMPILE, flags.SECTIONS),
        _flags_feature("frame_pointers", _CODE_COMPILE, flags.FRAME_POINTERS),
        _flags_feature("hardening", _CODE_COMPILE, flags.HARDENING),
        _flags_feature("cxx_standard", _CXX_COMPILE, flags.CXX_STANDARD),
        # libc++ (C++ only) must come before clang's and picolibc's headers.
        feature(
            name = "hermetic_includes",
            enabled = True,
            flag_sets = [
                flag_set(actions = _CXX_COMPILE, flag_groups = [flag_group(flags = flags.riscv64_cxx_includes(paths))]),
                flag_set(actions = _ALL_COMPILE, flag_groups = [flag_group(flags = flags.riscv64_includes(paths))]),
            ],
        ),
        _flags_feature("reproducible", _ALL_COMPILE, flags.reproducible(paths)),
        _flags_feature("project_warnings", _ALL_COMPILE, flags.WARNINGS),
        _flags_feature("bare_metal_link", _LINK, flags.RISCV64_LINK),
    ] + _mode_features()

def _host_features(paths):
    return [
        feature(name = "supports_pic", enabled = True),
        _flags_feature("host_arch", _ALL_COMPILE + _LINK, flags.HOST_ARCH),
        _flags_feature("cxx_standard", _CXX_COMPILE, flags.CXX_STANDARD),
        _flags_feature("reproducible", _ALL_COMPILE, flags.reproducible(paths)),
        _flags_feature("project_warnings", _ALL_COMPILE, flags.WARNINGS),
        _flags_feature("host_link", _LINK, flags.host_link(paths)),
        feature(
            name = "sanitizers",
            enabled = True,
            flag_sets = [
                flag_set(actions = _ALL_COMPILE + _LINK, flag_groups = [flag_group(flags = flags.SANITIZERS)]),
                flag_set(actions = _LINK, flag_groups = [flag_group(flags = flags.SANITIZER_LINK)]),
            ],
        ),
        # Off by default: fuzz/fuzzer.bzl turns it on (a transition) for a
        # fuzzer and everything it links, never for ordinary host builds.
        feature(
            name = "fuzzer",
            enabled = False,
            flag_sets = [
                flag_set(actions = _CODE_COMPILE, flag_groups = [flag_group(flags = flags.FUZZER_COMPILE)]),
                flag_set(actions = [ACTION_NAMES.cpp_link_executable], flag_groups = [flag_group(flags = flags.FUZZER_LINK)]),
            ],
        ),
    ] + _mode_features()

def _starling_cc_toolchain_config_impl(ctx):
    compiler = COMPILERS[ctx.attr.compiler]
    paths = llvm_paths(compiler.repo, compiler.major)
    if ctx.attr.target == "riscv64":
        features = _riscv64_features(paths, ctx.attr.small_data_pin)
        include_dirs = []
        identity = dict(
            toolchain_identifier = "starling-riscv64-elf-" + ctx.attr.compiler,
            target_system_name = "riscv64-unknown-elf",
            target_cpu = "riscv64",
            target_libc = "none",
            abi_version = "lp64",
            abi_libc_version = "none",
        )
    else:
        features = _host_features(paths)
        include_dirs = flags.HOST_INCLUDE_DIRECTORIES
        identity = dict(
            toolchain_identifier = "starling-host-linux-" + ctx.attr.compiler,
            target_system_name = "x86_64-pc-linux-gnu",
            target_cpu = "k8",
            target_libc = "glibc",
            abi_version = "local",
            abi_libc_version = "local",
        )
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = include_dirs,
        host_system_name = "x86_64-pc-linux-gnu",
        compiler = "clang",
        tool_paths = _tool_paths(ctx.attr.compiler),
        **identity
    )

starling_cc_toolchain_config = rule(
    implementation = _starling_cc_toolchain_config_impl,
    attrs = {
        "target": attr.string(mandatory = True, values = ["riscv64", "host"]),
        "compiler": attr.string(mandatory = True, values = COMPILERS.keys()),
        "small_data_pin": attr.bool(default = True),
    },
    provides = [CcToolchainConfigInfo],
)

def _compiler_files(name, target, compiler):
    """Declares <name>_{compiler,linker,all}_files; returns their labels."""
    repo = "@%s//" % COMPILERS[compiler].repo
    wrappers = "//toolchain:%s_wrappers" % compiler
    if target == "riscv64":
        compile = [
            wrappers,
            "//toolchain:libcxx_config_site",
            repo + ":clang",
            repo + ":libcxx_headers",
            "@picolibc//:picolibc_headers",
            repo + ":resource_headers",
        ]
        link = [wrappers, repo + ":lld"]
    else:
        compile = [wrappers, repo + ":clang", repo + ":resource_headers"]
        link = [wrappers, repo + ":lld", repo + ":sanitizer_runtimes"]
    prefix = name
    native.filegroup(name = prefix + "_compiler_files", srcs = compile)
    native.filegroup(name = prefix + "_linker_files", srcs = link)
    native.filegroup(
        name = prefix + "_all_files",
        srcs = [":%s_compiler_files" % prefix, ":%s_linker_files" % prefix] +
               [repo + ":llvm-ar", repo + ":llvm-objcopy", repo + ":llvm-strip"],
    )
    return struct(
        compiler = ":%s_compiler_files" % prefix,
        linker = ":%s_linker_files" % prefix,
        all = ":%s_all_files" % prefix,
    )

def starling_cc_toolchain(name, target, compiler = "clang19", small_data_pin = True):
    """A cc_toolchain `<name>_cc_toolchain` running one pinned clang for `target`.

    Each compiler (and the seed's configuration) is a toolchain of its own:
    toolchain/BUILD.bazel registers clang 19's in WORKSPACE, and
    --config=clang22 puts clang 22's first with --extra_toolchains. (Bazel
    4.2.3 configures toolchains in the host configuration, so a select() in
    the toolchain on a build setting would follow the command line but never
    a transition; toolchain resolution follows both.)

    Args:
      name: prefix of the targets it declares.
      target: "riscv64" or "host" (starling_cc_toolchain_config).
      compiler: a key of toolchain/pins.bzl's COMPILERS.
      small_data_pin: False only for the seed's configuration (clang 19 at its
        default small-data limit), which //toolchain/compare alone uses.
    """
    files = _compiler_files(name, target, compiler)
    starling_cc_toolchain_config(
        name = name + "_config",
        target = target,
        compiler = compiler,
        small_data_pin = small_data_pin,
    )
    cc_toolchain(
        name = name + "_cc_toolchain",
        all_files = files.all,
        ar_files = files.all,
        as_files = files.compiler,
        compiler_files = files.compiler,
        dwp_files = files.all,
        linker_files = files.linker,
        objcopy_files = files.all,
        strip_files = files.all,
        supports_param_files = True,
        toolchain_config = ":%s_config" % name,
    )
