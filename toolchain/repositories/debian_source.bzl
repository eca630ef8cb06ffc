"""A repository made of a pinned Debian source package's upstream tarball.

`apt-get source --download-only --tar-only NAME=VERSION` (apt's own source
client, so the archive and deb-src entries configured on this machine are
used) fetches the .orig tarball (the upstream source) into a scratch
directory, and apt checks it against the signed source index; then its
sha256 is checked against the pin in toolchain/pins.bzl and it is extracted,
top directory stripped, into the repository. Debian's patches are not applied; the project's own are
(`patches`, in order, each with `patch -p1`): fixes to the pinned source,
each named by what it fixes and tested on its own (net/lwip/patches/).
A patched file is turned to LF first (lwIP 2.1.3's files had CRLF line
ends; 2.2.1's have LF), so patches are plain text diffs.

The verified tarball is kept in the same cache as the pinned .debs
($STARLING_DEB_CACHE, default ~/.cache/starling/debs), so a fresh output base
does not fetch it again; a cached file is used only if its sha256 matches.
"""

def _sha256(rctx, path):
    result = rctx.execute(["sha256sum", str(path)])
    if result.return_code != 0:
        fail("starling: cannot hash %s: %s" % (path, result.stderr))
    return result.stdout.split(" ")[0]

def _orig_prefix(package, version):
    # "1:2.2.1+dfsg1-1+deb13u1" -> "lwip_2.2.1+dfsg1.orig.tar.": no epoch, no Debian revision.
    upstream = version.split(":", 1)[-1]
    if "-" in upstream:
        upstream = upstream.rsplit("-", 1)[0]
    return "%s_%s.orig.tar." % (package, upstream)

def _fix_hint(rctx):
    package = rctx.attr.package
    version = rctx.attr.version
    return "\n".join([
        "",
        "How to fix:",
        "  * apt needs a deb-src entry and fresh lists to fetch source packages:",
        "    run `sudo ./setup.sh` (it adds deb-src entries for the Debian archive,",
        "    Debian 12's and Debian 13's source index (starling-trixie-src.sources:",
        "    lwIP 2.2.1 is a Debian 13 source package), and runs apt-get update),",
        "    then check `apt-cache showsrc %s`." % package,
        "  * if Debian no longer serves %s=%s, pick the version it serves" % (package, version),
        "    (`apt-cache showsrc %s | grep ^Version`), then update version and" % package,
        "    sha256 in toolchain/pins.bzl (repository @%s) and rerun; the error" % rctx.name,
        "    will show the sha256 it found.",
    ])

def _find_orig(directory, prefix):
    return [f for f in directory.readdir() if f.basename.startswith(prefix)]

def _fetch(rctx, cache):
    package = rctx.attr.package
    version = rctx.attr.version
    sha256 = rctx.attr.sha256
    prefix = _orig_prefix(package, version)

    if cache.exists:
        for cached in _find_orig(cache, prefix):
            if _sha256(rctx, cached) == sha256:
                return cached

    # A private scratch directory: apt-get source writes three files, and a
    # failed or wrong download never replaces a good cached file.
    tmp = rctx.path("_download")
    rctx.execute(["rm", "-rf", str(tmp)])
    rctx.execute(["mkdir", "-p", str(tmp)])
    spec = "%s=%s" % (package, version)
    apt_env = {}
    if rctx.os.environ.get("APT_CONFIG"):
        apt_env["APT_CONFIG"] = rctx.os.environ["APT_CONFIG"]
    result = rctx.execute(
        # --tar-only: the .orig tarball alone (apt still checks it against
        # the signed source index); the .dsc and Debian's own diff are not
        # used, and Debian 13's mirror paths for them come and go.
        ["apt-get", "source", "--download-only", "--tar-only", "-q", spec],
        working_directory = str(tmp),
        environment = apt_env,
        timeout = 600,
    )
    if result.return_code != 0:
        output = (result.stderr + result.stdout).strip()
        if "deb-src" in output:
            why = "apt has no deb-src entry, so it cannot fetch source packages."
        elif "Unable to find a source package" in output or "Can not find version" in output:
            why = "apt's source lists do not offer %s (missing deb-src entry, stale lists, or a version Debian no longer serves)." % spec
        else:
            why = "apt could not fetch the source package."
        fail("starling: `apt-get source --download-only %s` failed: %s\n%s%s" % (
            spec,
            why,
            output,
            _fix_hint(rctx),
        ))
    matches = _find_orig(tmp, prefix)
    if len(matches) != 1:
        fail("starling: apt-get source %s produced %s, expected one %s*" % (
            spec,
            [f.basename for f in tmp.readdir()],
            prefix,
        ))
    got = matches[0]
    found_sha = _sha256(rctx, got)
    if found_sha != sha256:
        fail("\n".join([
            "starling: sha256 mismatch for %s (source package %s)" % (got.basename, spec),
            "  expected: %s" % sha256,
            "  found:    %s" % found_sha,
            "The archive served different bytes under the same version. If you changed",
            "the pin on purpose, set sha256 = \"%s\" for %s in toolchain/pins.bzl." % (found_sha, package),
            "Otherwise do not trust this download: check apt's sources.",
        ]))
    rctx.execute(["mkdir", "-p", str(cache)])
    cached = cache.get_child(got.basename)
    result = rctx.execute(["cp", "-f", str(got), str(cached) + ".part"])
    if result.return_code == 0:
        rctx.execute(["mv", "-f", str(cached) + ".part", str(cached)])
        got = cached
    return got

def _patched_files(text):
    files = []
    for line in text.split("\n"):
        if line.startswith("+++ b/"):
            files.append(line[len("+++ b/"):].split("\t")[0].strip())
    return files

def _apply_patch(rctx, patch):
    files = _patched_files(rctx.read(patch))
    if not files:
        fail("starling: %s names no file (want `+++ b/PATH` lines, -p1)" % patch.basename)
    for f in files:
        if not rctx.path(f).exists:
            fail("starling: %s patches %s, which %s=%s does not have" % (
                patch.basename,
                f,
                rctx.attr.package,
                rctx.attr.version,
            ))
        rctx.execute(["sed", "-i", "s/\r$//", f])
    result = rctx.execute(["patch", "-p1", "--forward", "--batch", "--no-backup-if-mismatch", "-i", str(patch)])
    if result.return_code != 0:
        fail("\n".join([
            "starling: patch %s does not apply to %s=%s:" % (patch.basename, rctx.attr.package, rctx.attr.version),
            (result.stdout + result.stderr).strip(),
            "Fix: regenerate the patch against the pinned source (see its header), or drop it",
            "from `patches` if the pinned version already has the change.",
        ]))

def _debian_source_impl(rctx):
    env = rctx.os.environ
    cache_dir = env.get("STARLING_DEB_CACHE") or (env.get("HOME", "/tmp") + "/.cache/starling/debs")
    tarball = _fetch(rctx, rctx.path(cache_dir))

    # Upstream tarballs hold one top directory (lwip-2.2.1/).
    result = rctx.execute(["tar", "-xf", str(tarball), "--no-same-owner", "--strip-components=1", "-C", "."])
    if result.return_code != 0:
        fail("starling: cannot extract %s: %s" % (tarball, result.stderr))
    rctx.execute(["rm", "-rf", "_download"])
    for member in rctx.attr.remove:
        rctx.execute(["rm", "-rf", member])
    for patch in rctx.attr.patches:
        _apply_patch(rctx, rctx.path(patch))

    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.template("BUILD.bazel", rctx.attr.build_file, executable = False)

debian_source = repository_rule(
    implementation = _debian_source_impl,
    attrs = {
        "package": attr.string(mandatory = True, doc = "source package name, e.g. lwip"),
        "version": attr.string(mandatory = True, doc = "Debian version, e.g. 2.2.1+dfsg1-1+deb13u1"),
        "sha256": attr.string(mandatory = True, doc = "sha256 of the .orig tarball"),
        "remove": attr.string_list(doc = "paths removed after extraction (documentation, ...)"),
        "patches": attr.label_list(allow_files = [".patch"], doc = "applied in order with patch -p1"),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
    # APT_CONFIG lets a test point apt at other sources (no deb-src entries).
    environ = ["STARLING_DEB_CACHE", "APT_CONFIG"],
)
