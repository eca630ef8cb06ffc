"""A repository made of pinned Debian packages, fetched with apt and verified.

Each package is fetched with `apt-get download NAME=VERSION` (apt's own client,
so the archive configured on this machine is used), checked against the pinned
sha256 and the version recorded inside the .deb, and extracted with dpkg-deb
into the repository. Nothing is read from the system's /usr at build time.

Downloads are kept in a cache shared by every output base
($STARLING_DEB_CACHE, default ~/.cache/starling/debs); a cached file is used
only if its sha256 matches the pin.
"""

def _deb_filename(name, version, arch):
    # apt-get download writes "name_version_arch.deb" with ':' spelled '%3a'.
    return "%s_%s_%s.deb" % (name, version.replace(":", "%3a"), arch)

def _sha256(rctx, path):
    result = rctx.execute(["sha256sum", str(path)])
    if result.return_code != 0:
        fail("starling: cannot hash %s: %s" % (path, result.stderr))
    return result.stdout.split(" ")[0]

def _fix_hint(rctx, name, version):
    return "\n".join([
        "",
        "How to fix:",
        "  * apt's package lists may be stale or missing: run `sudo ./setup.sh` (it runs apt-get update).",
        "  * if Debian no longer serves %s=%s, pick the version it serves" % (name, version),
        "    (`apt-cache policy %s`), then update version and sha256 in toolchain/pins.bzl" % name,
        "    (repository @%s) and rerun; the error will show the sha256 it found." % rctx.name,
    ])

def _fetch_one(rctx, cache, name, version, sha256, arch):
    filename = _deb_filename(name, version, arch)
    cached = cache.get_child(filename)
    if cached.exists and _sha256(rctx, cached) == sha256:
        return cached

    # Download into a private directory first so a failed or wrong download
    # never replaces a good cached file.
    tmp = rctx.path("_download/" + name)
    rctx.execute(["rm", "-rf", str(tmp)])
    rctx.execute(["mkdir", "-p", str(tmp)])
    result = rctx.execute(
        ["apt-get", "download", "-q", "%s=%s" % (name, version)],
        working_directory = str(tmp),
        timeout = 600,
    )
    if result.return_code != 0:
        fail("starling: `apt-get download %s=%s` failed:\n%s%s" % (
            name,
            version,
            result.stderr.strip(),
            _fix_hint(rctx, name, version),
        ))
    matches = [f for f in tmp.readdir() if f.basename.endswith(".deb")]
    if len(matches) != 1:
        fail("starling: apt-get download %s=%s produced %s, expected one .deb" % (name, version, matches))
    got = matches[0]

    found_version = rctx.execute(["dpkg-deb", "-f", str(got), "Version"]).stdout.strip()
    if found_version != version:
        fail("starling: version mismatch for %s: expected %s, found %s.%s" % (
            name,
            version,
            found_version,
            _fix_hint(rctx, name, version),
        ))
    found_sha = _sha256(rctx, got)
    if found_sha != sha256:
        fail("\n".join([
            "starling: sha256 mismatch for %s %s" % (name, version),
            "  expected: %s" % sha256,
            "  found:    %s" % found_sha,
            "The archive served different bytes under the same version. If you changed",
            "the pin on purpose, set sha256 = \"%s\" for %s in toolchain/pins.bzl." % (found_sha, name),
            "Otherwise do not trust this download: check apt's sources.",
        ]))
    rctx.execute(["mkdir", "-p", str(cache)])
    result = rctx.execute(["cp", "-f", str(got), str(cached) + ".part"])
    if result.return_code == 0:
        rctx.execute(["mv", "-f", str(cached) + ".part", str(cached)])
        got = cached
    return got

def _debian_packages_impl(rctx):
    arch = rctx.execute(["dpkg", "--print-architecture"]).stdout.strip()
    if not arch:
        fail("starling: dpkg is missing: this build fetches its toolchain as Debian packages. Run it on Debian 12 after `sudo ./setup.sh`.")
    env = rctx.os.environ
    cache_dir = env.get("STARLING_DEB_CACHE") or (env.get("HOME", "/tmp") + "/.cache/starling/debs")
    cache = rctx.path(cache_dir)

    for name, pin in rctx.attr.packages.items():
        version, sha256 = pin.split(" ")
        pkg_arch = "all" if name in rctx.attr.arch_all else arch
        deb = _fetch_one(rctx, cache, name, version, sha256, pkg_arch)
        members = rctx.attr.extract.get(name, [])
        cmd = "dpkg-deb --fsys-tarfile '%s' | tar -x --no-same-owner -C . %s" % (
            deb,
            " ".join(["'%s'" % m for m in members]),
        )
        result = rctx.execute(["sh", "-c", cmd])
        if result.return_code != 0:
            fail("starling: cannot extract %s: %s" % (deb, result.stderr))
    rctx.execute(["rm", "-rf", "_download"])

    for link, target in rctx.attr.symlinks.items():
        rctx.execute(["ln", "-sfn", target, link])

    # Documentation is most of some packages and no build input.
    rctx.execute(["rm", "-rf", "usr/share/doc", "usr/share/man", "usr/share/lintian"])

    if rctx.attr.version_check:
        check = rctx.path(rctx.attr.version_check)
        binary = rctx.path(rctx.attr.version_check_binary)
        result = rctx.execute(["sh", str(check), str(binary), rctx.attr.expected_version])
        if result.return_code != 0:
            fail(result.stderr + result.stdout)

    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.template("BUILD.bazel", rctx.attr.build_file, substitutions = rctx.attr.build_substitutions, executable = False)

debian_packages = repository_rule(
    implementation = _debian_packages_impl,
    attrs = {
        "packages": attr.string_dict(mandatory = True, doc = "name -> 'version sha256'"),
        "arch_all": attr.string_list(doc = "packages whose architecture is 'all'"),
        "extract": attr.string_list_dict(doc = "name -> members to extract (default: all)"),
        "symlinks": attr.string_dict(doc = "link -> target, created after extraction"),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
        "build_substitutions": attr.string_dict(doc = "placeholder -> value, in build_file"),
        "version_check": attr.label(allow_single_file = True),
        "version_check_binary": attr.string(),
        "expected_version": attr.string(),
    },
    environ = ["STARLING_DEB_CACHE"],
)

def pinned(packages):
    """Turns a pins.bzl table into the string_dict the rule takes."""
    return {name: "%s %s" % (version, sha256) for name, (version, sha256) in packages.items()}
