"""cc_toolchain_config rules for the riscv64 kernel and the x86_64 host.

Both run the pinned clang from @starling_llvm; the flag sets come from
toolchain/flags.bzl and are composed here as features, one feature per set.
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
load(":flags.bzl", flags = "FLAGS")

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
    return feature(
        name = name,
        enabled = enabled,
        flag_sets = [flag_set(actions = actions, flag_groups = [flag_group(flags = flag_list)])],
    )

def _mode_features():
    # Bazel enables the feature named after --compilation_mode.
    return [
        _flags_feature("opt", _ALL_COMPILE, flags.OPT, enabled = False),
        _flags_feature("dbg", _ALL_COMPILE, flags.DBG, enabled = False),
        _flags_feature("fastbuild", _ALL_COMPILE, flags.FASTBUILD, enabled = False),
    ]

def _tool_paths():
    # Every tool goes through the same wrapper, which runs the binary of the
    # same name from @starling_llvm.
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
    return [tool_path(name = name, path = "wrappers/" + tool) for name, tool in tools.items()]

def _riscv64_features():
    return [
        _flags_feature("riscv64_arch", _ALL_COMPILE + _LINK, flags.RISCV64_ARCH),
        _flags_feature("small_data_limit", _ALL_COMPILE, flags.SMALL_DATA),
        _flags_feature("freestanding", _ALL_COMPILE, flags.FREESTANDING),
        _flags_feature("no_exceptions", _CODE_COMPILE, flags.NO_EXCEPTIONS),
        _flags_feature("no_rtti", _CXX_COMPILE, flags.NO_RTTI),
        _flags_feature("function_data_sections", _CODE_COMPILE, flags.SECTIONS),
        _flags_feature("frame_pointers", _CODE_COMPILE, flags.FRAME_POINTERS),
        _flags_feature("cxx_standard", _CXX_COMPILE, flags.CXX_STANDARD),
        # libc++ (C++ only) must come before clang's and picolibc's headers.
        feature(
            name = "hermetic_includes",
            enabled = True,
            flag_sets = [
                flag_set(actions = _CXX_COMPILE, flag_groups = [flag_group(flags = flags.RISCV64_CXX_INCLUDES)]),
                flag_set(actions = _ALL_COMPILE, flag_groups = [flag_group(flags = flags.RISCV64_INCLUDES)]),
            ],
        ),
        _flags_feature("reproducible", _ALL_COMPILE, flags.REPRODUCIBLE),
        _flags_feature("project_warnings", _ALL_COMPILE, flags.WARNINGS),
        _flags_feature("bare_metal_link", _LINK, flags.RISCV64_LINK),
    ] + _mode_features()

def _host_features():
    return [
        feature(name = "supports_pic", enabled = True),
        _flags_feature("host_arch", _ALL_COMPILE + _LINK, flags.HOST_ARCH),
        _flags_feature("cxx_standard", _CXX_COMPILE, flags.CXX_STANDARD),
        _flags_feature("reproducible", _ALL_COMPILE, flags.REPRODUCIBLE),
        _flags_feature("project_warnings", _ALL_COMPILE, flags.WARNINGS),
        _flags_feature("host_link", _LINK, flags.HOST_LINK),
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
    if ctx.attr.target == "riscv64":
        features = _riscv64_features()
        include_dirs = []
        identity = dict(
            toolchain_identifier = "starling-riscv64-elf-clang",
            target_system_name = "riscv64-unknown-elf",
            target_cpu = "riscv64",
            target_libc = "none",
            abi_version = "lp64",
            abi_libc_version = "none",
        )
    else:
        features = _host_features()
        include_dirs = flags.HOST_INCLUDE_DIRECTORIES
        identity = dict(
            toolchain_identifier = "starling-host-linux-clang",
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
        tool_paths = _tool_paths(),
        **identity
    )

starling_cc_toolchain_config = rule(
    implementation = _starling_cc_toolchain_config_impl,
    attrs = {
        "target": attr.string(mandatory = True, values = ["riscv64", "host"]),
    },
    provides = [CcToolchainConfigInfo],
)

def starling_cc_toolchain(name, target, compiler_files, linker_files):
    """A cc_toolchain `<name>_cc_toolchain` running the pinned clang for `target`.

    Args:
      name: prefix of the targets it declares (<name>_cc_toolchain, <name>_config).
      target: "riscv64" or "host" (starling_cc_toolchain_config).
      compiler_files: what compile actions need (clang, headers, wrappers).
      linker_files: what link actions need (lld, runtimes, wrappers).
    """
    native.filegroup(
        name = name + "_all_files",
        srcs = [
            compiler_files,
            linker_files,
            "@starling_llvm//:llvm-ar",
            "@starling_llvm//:llvm-objcopy",
            "@starling_llvm//:llvm-strip",
        ],
    )
    starling_cc_toolchain_config(
        name = name + "_config",
        target = target,
    )
    all_files = ":%s_all_files" % name
    cc_toolchain(
        name = name + "_cc_toolchain",
        all_files = all_files,
        ar_files = all_files,
        as_files = compiler_files,
        compiler_files = compiler_files,
        dwp_files = all_files,
        linker_files = linker_files,
        objcopy_files = all_files,
        strip_files = all_files,
        supports_param_files = True,
        toolchain_config = ":%s_config" % name,
    )
