"""Every package the build takes from Debian, pinned by exact version and sha256.

This is the one place to change a pin. To move to another version: change
`version`, run `bazel sync --only=<repository>`, and copy the "found" sha256
from the error message into `sha256` once you have checked where it came from.
"""

# The clangs the riscv64 and host toolchains run. clang 19.1.7 is the default;
# clang 22.1.8 is chosen with `--config=clang22` (toolchain/BUILD.bazel). The
# version check refuses any other (toolchain/check_clang_version.sh).
CLANG_VERSION = "19.1.7"
LLVM_MAJOR = "19"
CLANG22_VERSION = "22.1.8"

_LLVM = "1:19.1.7-3~deb12u1"
_LLVM22 = "1:22.1.8-1~deb12u1"

# The riscv64 C library headers: the same for every compiler.
_PICOLIBC = ("1.8-1", "0dadfbd9eb6a6c2ce5e0b1466da03d5c99b901f5977f0bc17cc60c0a42fcee66")

# Compiler, linker, binutils, resource headers, sanitizer runtimes and libc++
# headers (the riscv64 C library headers: PICOLIBC_PACKAGES).
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
}

# The second compiler, the same set from Debian's llvm-toolchain-22
# (bookworm-security), 71 MB of .debs.
LLVM22_PACKAGES = {
    "clang-22": (_LLVM22, "b6ffc4ffae2bf3d0757bab0623701060b30f5bb59e7ba4123d66b56fbb91362a"),
    "libclang-cpp22": (_LLVM22, "662a8497190dd6cebaee2ac9421ed9d91cb1199eeabd154eafc4b5c1ac01d4b3"),
    "libllvm22": (_LLVM22, "729ec3e943d320515c2bbdc96acfffd7ce34861e62bd5c42726bf586d644dfe2"),
    "libclang-common-22-dev": (_LLVM22, "833d7559bfbe169d7927dfe151cae48bf352da5202e36034a206688ae33f9031"),
    "libclang-rt-22-dev": (_LLVM22, "e637f2395fd744311599971dd0542526a1482521861a02d8b1bf5086de9a7365"),
    "lld-22": (_LLVM22, "13103b3fb3195bfeade9835d3906a4cc91002010f9013d98aa1fc55b841d07b4"),
    "liblld-22": (_LLVM22, "538ad201ca6e898d5a02b52572d28e129e9822e4aaea5418f157a18813b6ac72"),
    "llvm-22": (_LLVM22, "fcde579693b3f1cf1da596694c1add8a961ab1e1bd22744d4bff165d4f865add"),
    "libc++-22-dev": (_LLVM22, "8931d220c251fd5576c00e47dc0034b57a7c84d26e99b4679d7b13f039e6a8f4"),
    "libc++abi-22-dev": (_LLVM22, "99c745a1a09a849358d7ebbb1945a966e05469d1b79ba009714da2980140c2ee"),
}

# The riscv64 C library headers, one repository (@picolibc) shared by both
# compilers: its .deb is 115 MB and 1 GB unpacked (30-odd multilibs, of which
# the kernel uses one), the largest package of the toolchain, so it is
# fetched and unpacked once, not once per compiler.
PICOLIBC_PACKAGES = {
    "picolibc-riscv64-unknown-elf": _PICOLIBC,
}
PICOLIBC_EXTRACT = {
    "picolibc-riscv64-unknown-elf": [
        "./usr/lib/picolibc/riscv64-unknown-elf/include",
        "./usr/lib/picolibc/riscv64-unknown-elf/lib/release/rv64imac/lp64",
    ],
}

# Each compiler: its repository, its LLVM major (the directory names in the
# packages: usr/lib/llvm-N, lib/clang/N, libLLVM.so.N.1), its version and
# packages. Each has its toolchains in toolchain/BUILD.bazel.
COMPILERS = {
    "clang19": struct(repo = "starling_llvm", major = LLVM_MAJOR, version = CLANG_VERSION, packages = LLVM_PACKAGES),
    "clang22": struct(repo = "starling_llvm22", major = "22", version = CLANG22_VERSION, packages = LLVM22_PACKAGES),
}

# GoogleTest, built from its source by Bazel for the host tests.
GOOGLETEST_PACKAGES = {
    "googletest": ("1.12.1-0.2", "927be72067517da503b6538026d451455c9e860f5dbfe237f792543db7d5a928"),
}

# mkimage, which wraps the Star64 Image into a FIT and a legacy uImage.
UBOOT_TOOLS_PACKAGES = {
    "u-boot-tools": ("2023.01+dfsg-2+deb12u3", "7d0b9a230495f133f0fdfde4f6f2a9b740022ee5216a096a3d66ce23437aff15"),
}

# Prometheus: promtool, its own checker (`promtool check metrics`, `check
# config`, `check rules`), which the httpd tests run on the /metrics page,
# and the server, which //test/metrics:prometheus_fleet_test runs (a real
# scrape of several appliances). Only the two binaries are extracted, nothing
# is installed (no service, no user).
PROMETHEUS_PACKAGES = {
    "prometheus": ("2.42.0+ds-5+deb12u1", "81d59a24fce84f7fbe97a45a4f2914b6a5881b5cd1db2a6a0e129e515e1a5f55"),
}

# chrony's chronyd: a real NTP server on the test link (//test/http:sntp_qemu_test
# serves the image its time from a namespace; -x: it never sets the host's
# clock). Only the binary is extracted, nothing installed (no service, no
# user). It loads libcap2, libedit2, libgnutls30, libnettle8 and libseccomp2
# from the system (setup.sh installs them).
CHRONY_PACKAGES = {
    "chrony": ("4.3-2+deb12u3", "0b215bde3a8b31d1da5a5afbf24a16dce65701f56f3f8b789cb18dfb664b4a61"),
}

# dtc, which mkimage runs to compile a FIT's source (.its) into the .itb
# (mkimage calls `dtc` by name: platform/image.bzl puts this one first on
# PATH). It loads libyaml-0.so.2 from the system (setup.sh installs it).
DTC_PACKAGES = {
    "device-tree-compiler": ("1.6.1-4+b1", "f56fbb1e1da6545619dd2a17b7a85b2c4c674bd276d1b844e01a8b9901dd349d"),
}

# mtools, which formats and fills the FAT boot partition of the disk images
# without root or loop devices (platform/boot_media/make_disk.py).
MTOOLS_PACKAGES = {
    "mtools": ("4.0.33-1+really4.0.32-1", "972e0857ff43dbfc4c9255844c97b5d2cb0287720216d04c95b4e7fa483aec99"),
}

# lwIP 2.2.1, from Debian 13's source package: only the upstream .orig
# tarball is used (sha256 below is of lwip_2.2.1+dfsg1.orig.tar.xz, as in the
# .dsc's Checksums-Sha256). Fetched with `apt-get source`, which needs the
# Debian 13 deb-src entries setup.sh adds (starling-trixie-src.sources; no
# Debian 13 binary package can be installed: setup.sh pins them out). Debian's
# own patches are not applied (its +deb13u1 fix, CVE-2026-8836, is in SNMPv3,
# which no Starling image builds).
LWIP_SOURCE = struct(
    package = "lwip",
    version = "2.2.1+dfsg1-1+deb13u1",
    sha256 = "83729c274c499d3348e9fbbe043a3113f3fa8953e7efddc7c21c7fcbb1f2b7b1",
)

# http-parser (Node.js's HTTP/1.x request parser, a single C file without
# allocation or libc I/O), from Debian's source package like lwIP: only the
# upstream .orig tarball (sha256 as in the .dsc's Checksums-Sha256). net/http
# builds it freestanding for every board.
HTTP_PARSER_SOURCE = struct(
    package = "http-parser",
    version = "2.9.4-5",
    sha256 = "467b9e30fd0979ee301065e70f637d525c28193449e1b13fbcb1b1fab3ad224f",
)

# Mbed TLS 3.6 (the LTS line, supported to 2027), from Debian 13's source
# package like lwIP: only the upstream .orig tarball (sha256 as in the .dsc's
# Checksums-Sha256). net/tls builds it freestanding with a configuration of
# its own (net/tls/mbedtls_config.h; docs/tls.md says why this library).
MBEDTLS_SOURCE = struct(
    package = "mbedtls",
    version = "3.6.6-0.1~deb13u1",
    sha256 = "8fb65fae8dcae5840f793c0a334860a411f884cc537ea290ce1c52bb64ca007a",
)

# libfdt (the flattened device tree library of dtc, which U-Boot, Linux and
# Zephyr build), from Debian 13's source package device-tree-compiler 1.7.2
# like lwIP: only the upstream .orig tarball (sha256 as in the .dsc's
# Checksums-Sha256). Debian 12's source (1.6.1) is the same library two years
# older; its binary dtc (DTC_PACKAGES) compiles the test device trees.
# kernel/fdt builds libfdt/ freestanding and reads boot device trees with it.
LIBFDT_SOURCE = struct(
    package = "device-tree-compiler",
    version = "1.7.2-2",
    sha256 = "92d8ca769805ae1f176204230438fe52808f4e1c7944053c9eec0e649b237539",
)

# Starling's patches to that source, applied in order by the @lwip rule
# (net/lwip/patches/README.md says what each fixes and which test proves it).
LWIP_PATCHES = [
    "//net/lwip/patches:0001-tcp-syn-cookies.patch",
    "//net/lwip/patches:0002-tcp-trim-out-of-order-segments-to-the-window.patch",
    "//net/lwip/patches:0003-tcp-option-parsing-bounds.patch",
    "//net/lwip/patches:0005-etharp-input-length-check.patch",
    "//net/lwip/patches:0006-ip4-reassembly-per-source-share.patch",
    "//net/lwip/patches:0007-nd6-link-layer-option-bounds.patch",
    "//net/lwip/patches:0008-ip6-reassembly-free-without-first-fragment.patch",
    "//net/lwip/patches:0009-icmp6-error-rate-hook.patch",
    "//net/lwip/patches:0010-ip6-reassembly-per-source-share.patch",
    "//net/lwip/patches:0011-tcp-sack-blocks-make-duplicate-acks.patch",
    "//net/lwip/patches:0012-tcp-newreno-partial-acks.patch",
    "//net/lwip/patches:0013-tcp-dsack-undoes-spurious-fast-retransmits.patch",
    "//net/lwip/patches:0014-tcp-probe-a-stalled-fast-recovery.patch",
    "//net/lwip/patches:0015-tcp-sacked-bytes-mark-a-loss.patch",
    "//net/lwip/patches:0016-tcp-timeout-keeps-the-queue-in-order.patch",
    "//net/lwip/patches:0017-pbuf-header-room-hook.patch",
    "//net/lwip/patches:0018-tcp-new-syn-reopens-time-wait.patch",
    "//net/lwip/patches:0019-sntp-sanity-checks.patch",
    "//net/lwip/patches:0020-sntp-polls-without-waiting.patch",
    "//net/lwip/patches:0021-tcp-sacks-past-a-resend-mark-it-lost.patch",
    "//net/lwip/patches:0022-tcp-write-copies-co-aligned.patch",
    "//net/lwip/patches:0023-tcp-write-reference-hook.patch",
]

# Starling's fixes to Mbed TLS, each tested (net/tls/patches/README.md).
MBEDTLS_PATCHES = [
    "//net/tls/patches:0001-tls13-server-chooses-the-suite-by-its-own-order.patch",
    "//net/tls/patches:0002-x509-name-compare-of-empty-values.patch",
    "//net/tls/patches:0003-psa-x25519-public-key-by-everest.patch",
    "//net/tls/patches:0004-inverse-mod-a-prime-by-fermat.patch",
    "//net/tls/patches:0005-rv64-has-64-bit-bignum-limbs.patch",
    "//net/tls/patches:0006-x25519-public-key-by-a-fixed-base-comb.patch",
]

# buildifier, the Starlark formatter and linter, from the npm registry
# (the package ships prebuilt binaries; we use buildifier-linux_amd64).
BUILDIFIER_NPM = ("@bazel/buildifier", "8.2.1", "b96ea9b13003036c801f52bee6f9b0314738f8432e5cb9d814c89f59292604ee")
