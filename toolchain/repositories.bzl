"""The project's external repositories, all made of pinned Debian packages."""

load(
    "//toolchain:pins.bzl",
    "BUILDIFIER_NPM",
    "CHRONY_PACKAGES",
    "COMPILERS",
    "DTC_PACKAGES",
    "GOOGLETEST_PACKAGES",
    "HTTP_PARSER_SOURCE",
    "LIBFDT_SOURCE",
    "LWIP_PATCHES",
    "LWIP_SOURCE",
    "MBEDTLS_PATCHES",
    "MBEDTLS_SOURCE",
    "MTOOLS_PACKAGES",
    "PICOLIBC_EXTRACT",
    "PICOLIBC_PACKAGES",
    "PROMETHEUS_PACKAGES",
    "UBOOT_TOOLS_PACKAGES",
)
load("//toolchain/repositories:debian_packages.bzl", "debian_packages", "pinned")
load("//toolchain/repositories:debian_source.bzl", "debian_source")
load("//toolchain/repositories:npm_package.bzl", "npm_package")

def starling_repositories():
    """Declares every external repository; called from WORKSPACE."""
    for compiler in COMPILERS.values():
        major = compiler.major
        debian_packages(
            name = compiler.repo,
            packages = pinned(compiler.packages),
            # Debian puts this link in llvm-N-dev (tens of MB we do not
            # need); clang's RUNPATH ($ORIGIN/../lib) looks for libLLVM here.
            symlinks = {
                "usr/lib/llvm-%s/lib/libLLVM.so.%s.1" % (major, major): "../../x86_64-linux-gnu/libLLVM.so.%s.1" % major,
            },
            build_file = "//toolchain/repositories:BUILD.llvm",
            build_substitutions = {"%{major}": major},
            version_check = "//toolchain:check_clang_version.sh",
            version_check_binary = "usr/lib/llvm-%s/bin/clang" % major,
            expected_version = compiler.version,
        )
    debian_packages(
        name = "picolibc",
        packages = pinned(PICOLIBC_PACKAGES),
        arch_all = ["picolibc-riscv64-unknown-elf"],
        extract = PICOLIBC_EXTRACT,
        build_file = "//toolchain/repositories:BUILD.picolibc",
    )
    debian_packages(
        name = "googletest",
        packages = pinned(GOOGLETEST_PACKAGES),
        arch_all = ["googletest"],
        build_file = "//toolchain/repositories:BUILD.googletest",
    )
    debian_packages(
        name = "uboot_tools",
        packages = pinned(UBOOT_TOOLS_PACKAGES),
        extract = {"u-boot-tools": ["./usr/bin/mkimage"]},
        build_file = "//toolchain/repositories:BUILD.uboot_tools",
    )
    debian_packages(
        name = "prometheus",
        packages = pinned(PROMETHEUS_PACKAGES),
        extract = {"prometheus": ["./usr/bin/promtool", "./usr/bin/prometheus"]},
        build_file = "//toolchain/repositories:BUILD.prometheus",
    )
    debian_packages(
        name = "chrony",
        packages = pinned(CHRONY_PACKAGES),
        extract = {"chrony": ["./usr/sbin/chronyd"]},
        build_file = "//toolchain/repositories:BUILD.chrony",
    )
    debian_packages(
        name = "dtc",
        packages = pinned(DTC_PACKAGES),
        extract = {"device-tree-compiler": ["./usr/bin/dtc"]},
        build_file = "//toolchain/repositories:BUILD.dtc",
    )
    debian_packages(
        name = "mtools",
        packages = pinned(MTOOLS_PACKAGES),
        # One binary; mformat, mcopy... are its names (`mtools -c mcopy ...`).
        extract = {"mtools": ["./usr/bin/mtools"]},
        build_file = "//toolchain/repositories:BUILD.mtools",
    )
    debian_source(
        name = "lwip",
        package = LWIP_SOURCE.package,
        version = LWIP_SOURCE.version,
        sha256 = LWIP_SOURCE.sha256,
        # lwIP's Doxygen documentation: no build input.
        remove = ["doc"],
        # Starling's fixes to lwIP 2.1.3, each tested (net/lwip/patches/README.md).
        patches = LWIP_PATCHES,
        build_file = "//toolchain/repositories:BUILD.lwip",
    )
    debian_source(
        name = "mbedtls",
        package = MBEDTLS_SOURCE.package,
        version = MBEDTLS_SOURCE.version,
        sha256 = MBEDTLS_SOURCE.sha256,
        # Documentation, the test suites, sample programs and Windows
        # project files: no build input.
        remove = ["docs", "doxygen", "tests", "programs", "visualc", "ChangeLog.d"],
        # Starling's changes, each tested (net/tls/patches/README.md).
        patches = MBEDTLS_PATCHES,
        build_file = "//toolchain/repositories:BUILD.mbedtls",
    )
    debian_source(
        name = "http_parser",
        package = HTTP_PARSER_SOURCE.package,
        version = HTTP_PARSER_SOURCE.version,
        sha256 = HTTP_PARSER_SOURCE.sha256,
        build_file = "//toolchain/repositories:BUILD.http_parser",
    )
    debian_source(
        name = "libfdt",
        package = LIBFDT_SOURCE.package,
        version = LIBFDT_SOURCE.version,
        sha256 = LIBFDT_SOURCE.sha256,
        # Only libfdt/ is built: dtc itself, its tests, pylibfdt and the
        # documentation are no build input.
        remove = ["tests", "pylibfdt", "Documentation", "scripts"],
        build_file = "//toolchain/repositories:BUILD.libfdt",
    )
    npm_package(
        name = "buildifier",
        package = BUILDIFIER_NPM[0],
        version = BUILDIFIER_NPM[1],
        sha256 = BUILDIFIER_NPM[2],
        build_file_content = "exports_files([\"buildifier-linux_amd64\"])\n",
    )
