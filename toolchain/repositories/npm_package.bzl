"""A repository made of one pinned npm package, fetched with npm and verified.

`npm pack NAME@VERSION` (npm's own client, so the registry configured on this
machine is used) downloads the package tarball; its sha256 must match the
pin, then it is extracted into the repository. Tarballs are cached next to
the Debian packages ($STARLING_DEB_CACHE, default ~/.cache/starling/debs).
"""

def _sha256(rctx, path):
    return rctx.execute(["sha256sum", str(path)]).stdout.split(" ")[0]

def _npm_package_impl(rctx):
    name, version, sha256 = rctx.attr.package, rctx.attr.version, rctx.attr.sha256
    if not rctx.which("npm"):
        fail("starling: npm is missing; @%s needs it to fetch %s@%s. Fix: sudo ./setup.sh" % (rctx.name, name, version))
    env = rctx.os.environ
    cache = rctx.path(env.get("STARLING_DEB_CACHE") or (env.get("HOME", "/tmp") + "/.cache/starling/debs"))
    tarball_name = "%s-%s.tgz" % (name.lstrip("@").replace("/", "-"), version)
    cached = cache.get_child(tarball_name)
    if cached.exists and _sha256(rctx, cached) == sha256:
        tarball = cached
    else:
        result = rctx.execute(["npm", "pack", "--silent", "%s@%s" % (name, version)], timeout = 300)
        if result.return_code != 0:
            fail("starling: `npm pack %s@%s` failed:\n%s\nFix: check that the npm registry is reachable and serves that version (`npm view %s versions`); update the pin in toolchain/pins.bzl." % (name, version, result.stderr.strip(), name))
        tarball = rctx.path(tarball_name)
        found = _sha256(rctx, tarball)
        if found != sha256:
            fail("\n".join([
                "starling: sha256 mismatch for %s@%s" % (name, version),
                "  expected: %s" % sha256,
                "  found:    %s" % found,
                "If you changed the pin on purpose, set the sha256 in toolchain/pins.bzl to the found value.",
            ]))
        rctx.execute(["mkdir", "-p", str(cache)])
        rctx.execute(["cp", "-f", str(tarball), str(cached)])
    result = rctx.execute(["tar", "-xzf", str(tarball), "--strip-components=1", "--no-same-owner"])
    if result.return_code != 0:
        fail("starling: cannot extract %s: %s" % (tarball, result.stderr))
    rctx.execute(["rm", "-f", tarball_name])
    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    rctx.file("BUILD.bazel", rctx.attr.build_file_content)

npm_package = repository_rule(
    implementation = _npm_package_impl,
    attrs = {
        "package": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "sha256": attr.string(mandatory = True),
        "build_file_content": attr.string(mandatory = True),
    },
    environ = ["STARLING_DEB_CACHE"],
)
