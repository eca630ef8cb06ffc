"""Starling's compiler and linker flags: one named set per concern.

This is the only file that says which flags the toolchains pass. Each set
becomes a feature in toolchain/cc_toolchain_config.bzl, so the flags show up
by name on every action (`bazel aquery`) and the toolchain tests can check
them. Where does -msmall-data-limit=0 come from? SMALL_DATA, below.
"""

# Paths inside the execroot of a pinned toolchain (@starling_llvm for clang
# 19, @starling_llvm22 for clang 22: toolchain/pins.bzl's COMPILERS).
def llvm_paths(repo, major):
    llvm_root = "external/%s/usr/lib/llvm-%s" % (repo, major)
    return struct(
        resource_dir = llvm_root + "/lib/clang/" + major,
        # One copy for both compilers (toolchain/pins.bzl, PICOLIBC_PACKAGES).
        picolibc_include = "external/picolibc/usr/lib/picolibc/riscv64-unknown-elf/include",
        libcxx_include = llvm_root + "/include/c++/v1",
        # Our freestanding __config_site for that libc++ (toolchain/libcxx/N/).
        libcxx_config_site = "toolchain/libcxx/" + major,
    )

# Each board's ISA as its own device tree states it (the riscv,isa of the
# harts the kernel runs on). QEMU 7.2's `-cpu rv64`, the model run_qemu.sh
# starts: //platform/qemu_virt:cpu_extensions_test reads it from the device
# tree QEMU itself generates, so a QEMU whose model differs fails there.
# The Star64's U74 harts 1 to 4: docs/hardware/jh7110.md §4.
BOARD_ISA = {
    "qemu_virt": "rv64imafdch_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc",
    "star64": "rv64imafdc_zicntr_zicsr_zifencei_zihpm_zba_zbb",
}

# The extensions the kernel is compiled for, beyond rv64imac: every one must
# be in every board's ISA (checked below, when this file loads), since the
# kernel, drivers and lwIP are one build for all boards
# (platform/neutral_deps.bzl). Zicsr and Zifencei are separate extensions
# since ISA 2.2. Zba (sh1add..sh3add, add.uw: address arithmetic) and Zbb
# (rev8 for byte order, rotates, andn/orn, min/max, cpop/ctz) are what the
# U74 adds; docs/toolchain.md ("The ISA") gives their measured effect. F and
# D stay off although both boards have them: a trap then never saves
# floating-point state.
KERNEL_EXTENSIONS = ["zicsr", "zifencei", "zba", "zbb"]

def _board_extensions(isa):
    # "rv64imafdc_zicsr_zba" -> ["i", "m", "a", "f", "d", "c", "zicsr", "zba"]
    parts = isa[len("rv64"):].split("_")
    return [letter for letter in parts[0].elems()] + parts[1:]

def _kernel_march():
    for board, isa in BOARD_ISA.items():
        have = _board_extensions(isa)
        for ext in ["i", "m", "a", "c"] + KERNEL_EXTENSIONS:
            if ext not in have:
                fail("toolchain/flags.bzl: the kernel's -march needs %s, which %s (%s) lacks" %
                     (ext, board, isa))
    return "-march=rv64imac_" + "_".join(KERNEL_EXTENSIONS)

# The kernel's ISA and ABI: soft-float lp64, code and data anywhere in RAM.
RISCV64_ARCH = [
    "--target=riscv64-unknown-elf",
    _kernel_march(),
    "-mabi=lp64",
    "-mcmodel=medany",
]

# clang 19 defaults to -msmall-data-limit=8, which puts small globals into
# .sdata/.sbss; on a Star64 that cost lwIP's UDP echo 13% (821.7 vs 954.5
# Mb/s). clang 20+ defaults to 0. Pinned so no compiler default decides.
SMALL_DATA = ["-msmall-data-limit=0"]

# A kernel: no hosted environment, no common symbols.
FREESTANDING = ["-ffreestanding", "-fno-common"]

# No exceptions and no RTTI in kernel code; function-local statics need no
# locks on a single cooperative hart.
NO_EXCEPTIONS = ["-fno-exceptions"]
NO_RTTI = ["-fno-rtti", "-fno-threadsafe-statics"]

# Keep the frame pointer (s0) in every function that calls another: the
# kernel panic and the stall detector walk the frame chain for their
# backtraces. Not in leaf functions (they call nothing, so no frame of
# theirs is on the chain to walk): the frame record a leaf set up and took
# down was 7 of a small function's instructions (hal::now_ns: 17 -> 10), and
# 6.8% of a UDP echo's, 5.6% of a TCP echo's, 9.0% of a reflected frame's
# (docs/toolchain.md, "Frame pointers"). What a backtrace from inside a
# leaf lacks, its caller, is the ra register, which the reports print.
FRAME_POINTERS = ["-fno-omit-frame-pointer", "-momit-leaf-frame-pointer"]

# Compiler hardening for kernel code (docs/toolchain.md, "Hardening", argues
# each and gives its measured cost): a stack canary in every function with
# an array or an address-taken local (-strong: Linux's and Android's
# default). The kernel defines __stack_chk_guard, seeded from the board's
# entropy at boot, and __stack_chk_fail, which panics naming the function's
# address (kernel/boot/stack_protector.cc). Every local without an
# initialiser starts at zero (Linux's INIT_STACK_ALL_ZERO, Android's and
# Windows' choice): a read before the write sees 0, never an earlier frame's
# data. `pattern` finds such reads faster in a debugger but turns them into
# wild pointers in production; hot-path exemptions carry
# [[clang::uninitialized]] with the reason.
HARDENING = [
    "-fstack-protector-strong",
    "-ftrivial-auto-var-init=zero",
]

# One section per function and object, so the linker's --gc-sections can drop
# what nothing uses.
SECTIONS = ["-ffunction-sections", "-fdata-sections"]

CXX_STANDARD = ["-std=c++20"]

# Project code is warning-free; third-party code turns this feature off.
WARNINGS = ["-Wall", "-Wextra", "-Werror"]

# Only the toolchain's own headers: the pinned libc++ headers behind our
# freestanding __config_site, clang's resource headers, picolibc's headers.
# Nothing from /usr can be found, and Bazel rejects anything not declared.
def riscv64_cxx_includes(paths):
    return ["-nostdinc++", "-isystem", paths.libcxx_config_site, "-isystem", paths.libcxx_include]

def riscv64_includes(paths):
    return ["-nostdinc", "-isystem", paths.resource_dir + "/include", "-isystem", paths.picolibc_include]

# The same binary from any checkout or output base. The wrapper
# (toolchain/wrappers/dispatch.sh) replaces __EXEC_ROOT__ with the action's
# working directory, which Bazel does not expose to toolchain flags.
def reproducible(paths):
    return [
        "-ffile-prefix-map=__EXEC_ROOT__=.",
        "-no-canonical-prefixes",
        "-resource-dir=" + paths.resource_dir,
        "-Wno-builtin-macro-redefined",
        "-D__DATE__=\"redacted\"",
        "-D__TIMESTAMP__=\"redacted\"",
        "-D__TIME__=\"redacted\"",
    ]

# Static, no C runtime or libc from the toolchain: the kernel brings its own
# entry, memcpy and friends. lld drops unreferenced sections.
RISCV64_LINK = [
    "-fuse-ld=lld",
    "-nostdlib",
    "-static",
    "-Wl,--gc-sections",
    "-Wl,--build-id=none",
    "-no-canonical-prefixes",
]

# Per compilation mode: only optimisation and debug info change.
OPT = ["-O2", "-DNDEBUG"]
DBG = ["-Og", "-g"]
FASTBUILD = ["-O1"]

# Host (x86_64 Linux, glibc + libstdc++) for tests and the host board.
HOST_ARCH = ["--target=x86_64-pc-linux-gnu"]
HOST_INCLUDE_DIRECTORIES = [
    "/usr/include",
    "/usr/lib/gcc/x86_64-linux-gnu/12/include",
    "/usr/local/include",
]

def host_link(paths):
    return [
        "-fuse-ld=lld",
        "-no-canonical-prefixes",
        "-resource-dir=" + paths.resource_dir,
        "-lstdc++",
        "-lm",
        "-pthread",
    ]

# Host tests run under AddressSanitizer and UndefinedBehaviorSanitizer with
# the runtimes from the pinned libclang-rt-N-dev; any report fails the test.
SANITIZERS = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
]

# The host link runs the C driver; it must still pull in UBSan's C++ part.
SANITIZER_LINK = ["-fsanitize-link-c++-runtime"]

# libFuzzer (fuzz/fuzzer.bzl): coverage instrumentation for every compile of a
# fuzzer and its dependencies (the fuzz transition turns the `fuzzer` feature
# on for the whole dependency graph, since a per-target feature would not
# reach the libraries whose branches matter), and libFuzzer's runtime with
# its main() at the fuzzer's link.
FUZZER_COMPILE = ["-fsanitize=fuzzer-no-link"]
FUZZER_LINK = ["-fsanitize=fuzzer"]

FLAGS = struct(
    BOARD_ISA = BOARD_ISA,
    KERNEL_EXTENSIONS = KERNEL_EXTENSIONS,
    RISCV64_ARCH = RISCV64_ARCH,
    SMALL_DATA = SMALL_DATA,
    FREESTANDING = FREESTANDING,
    NO_EXCEPTIONS = NO_EXCEPTIONS,
    NO_RTTI = NO_RTTI,
    SECTIONS = SECTIONS,
    FRAME_POINTERS = FRAME_POINTERS,
    HARDENING = HARDENING,
    CXX_STANDARD = CXX_STANDARD,
    WARNINGS = WARNINGS,
    riscv64_cxx_includes = riscv64_cxx_includes,
    riscv64_includes = riscv64_includes,
    reproducible = reproducible,
    RISCV64_LINK = RISCV64_LINK,
    OPT = OPT,
    DBG = DBG,
    FASTBUILD = FASTBUILD,
    HOST_ARCH = HOST_ARCH,
    HOST_INCLUDE_DIRECTORIES = HOST_INCLUDE_DIRECTORIES,
    host_link = host_link,
    SANITIZERS = SANITIZERS,
    SANITIZER_LINK = SANITIZER_LINK,
    FUZZER_COMPILE = FUZZER_COMPILE,
    FUZZER_LINK = FUZZER_LINK,
)
