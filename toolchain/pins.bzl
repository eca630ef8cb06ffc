"""Every package the build takes from Debian, pinned by exact version and sha256.

This is the one place to change a pin. To move to another version: change
`version`, run `bazel sync --only=<repository>`, and copy the "found" sha256
from the error message into `sha256` once you have checked where it came from.
"""

# The clang the riscv64 and host toolchains run. The version check refuses any
# other (toolchain/check_clang_version.sh).
CLANG_VERSION = "19.1.7"
LLVM_MAJOR = "19"

_LLVM = "1:19.1.7-3~deb12u1"

# Compiler, linker, binutils, resource headers, sanitizer runtimes, libc++
# headers, and the riscv64 C library headers.
LLVM_PACKAGES = {
    "clang-19": (_LLVM, "89ab931a9bbfd567a76df3141af5d5ec67b01d800150e614f2c9bf4671da9b08"),
    "libclang-cpp19": (_LLVM, "5daa784e1d747db320c16604729ffa805e6bfd72d3ac0b7cb0ee5f1a7ebc8aae"),
    "libllvm19": (_LLVM, "6edf3a8b28495cdba883d9760e0dca1a81983fc497a5f989dc64d0d96d23b4aa"),
    "libclang-common-19-dev": (_LLVM, "811c2d398ad772204ec05ffde485cbbc4c210abc5dcf0068ff9ca3e647591ce7"),
    "libclang-rt-19-dev": (_LLVM, "872464dcd1aa3538e417e177f74a4c549b19313acaa1fe9465d32b936e9ef8eb"),
    "lld-19": (_LLVM, "416e084363a16a7060eaa6343ed641dfe864b8208c39170ee00a5679e4b486a2"),
    "liblld-19": (_LLVM, "d7ec22abb56dc7d1ac7b92bea2f119a8a3ea2072fa63884baf4a157c952246a1"),
    "llvm-19": (_LLVM, "f91492c5b361ff12f540b9f6145cf638b5e0fb3f145fceabd6c4b9540eab4bf9"),
    "libc++-19-dev": (_LLVM, "21e79a3c1557f0dbc8dc2dd1f123523ab08784a8fa2204c0ef7937e3c9baad95"),
    "libc++abi-19-dev": (_LLVM, "78d59818a21a756868670d7b27d2737fd33b23f7597585d56e0656dd059147d9"),
    # The formatter the lint test runs (same LLVM as the compiler).
    "clang-format-19": (_LLVM, "294be761c32accb59d1fb8a27b4929d0f219a898b47fd52a8f5e2c841ab8d089"),
    "picolibc-riscv64-unknown-elf": ("1.8-1", "0dadfbd9eb6a6c2ce5e0b1466da03d5c99b901f5977f0bc17cc60c0a42fcee66"),
}

# picolibc ships 30-odd multilibs (1 GB extracted); the kernel uses one.
LLVM_EXTRACT = {
    "picolibc-riscv64-unknown-elf": [
        "./usr/lib/picolibc/riscv64-unknown-elf/include",
        "./usr/lib/picolibc/riscv64-unknown-elf/lib/release/rv64imac/lp64",
    ],
}

# GoogleTest, built from its source by Bazel for the host tests.
GOOGLETEST_PACKAGES = {
    "googletest": ("1.12.1-0.2", "927be72067517da503b6538026d451455c9e860f5dbfe237f792543db7d5a928"),
}

# mkimage, which wraps the Star64 Image into a FIT and a legacy uImage.
UBOOT_TOOLS_PACKAGES = {
    "u-boot-tools": ("2023.01+dfsg-2+deb12u3", "7d0b9a230495f133f0fdfde4f6f2a9b740022ee5216a096a3d66ce23437aff15"),
}

# lwIP, from Debian's source package: only the upstream .orig tarball is used
# (sha256 below is of lwip_2.1.3+dfsg1.orig.tar.xz, as in the .dsc's
# Checksums-Sha256). Fetched with `apt-get source`, which needs deb-src
# entries (setup.sh adds them).
LWIP_SOURCE = struct(
    package = "lwip",
    version = "2.1.3+dfsg1-2",
    sha256 = "0a8276d09fc4e97bbba2f953d74af2388fc2195ea156be9d7589e297a68fde24",
)

# Starling's patches to that source, applied in order by the @lwip rule
# (net/lwip/patches/README.md says what each fixes and which test proves it).
LWIP_PATCHES = [
    "//net/lwip/patches:0001-tcp-syn-cookies.patch",
    "//net/lwip/patches:0002-tcp-trim-out-of-order-segments-to-the-window.patch",
    "//net/lwip/patches:0003-tcp-option-parsing-bounds.patch",
    "//net/lwip/patches:0004-tcp-sequence-comparisons.patch",
    "//net/lwip/patches:0005-etharp-input-length-check.patch",
]

# buildifier, the Starlark formatter and linter, from the npm registry
# (the package ships prebuilt binaries; we use buildifier-linux_amd64).
BUILDIFIER_NPM = ("@bazel/buildifier", "8.2.1", "b96ea9b13003036c801f52bee6f9b0314738f8432e5cb9d814c89f59292604ee")
