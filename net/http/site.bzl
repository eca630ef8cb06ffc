"""http_site: a static site embedded in an image (net/http/site.h).

    load("//net/http:site.bzl", "http_site")
    http_site(name = "site", srcs = glob(["site/**"]), strip_prefix = "site")

gives a cc_library `site` whose header `<package>/site.h` declares
`const net::http::Site& starling::site::site()`; each file is served at its
path under strip_prefix ("site/css/a.css" -> "/css/a.css"). Content-Type by
extension and a strong ETag (sha256) are fixed at build time.
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

def http_site(name, srcs, strip_prefix = "", **kwargs):
    """A cc_library `name` embedding `srcs` as a site (net/http/site.h).

    Args:
      name: the library, and the function site::<name>() its header declares.
      srcs: the files, served at their paths under strip_prefix.
      strip_prefix: the folder (in this package) that is the site's root.
      **kwargs: passed to the cc_library (testonly, visibility).
    """
    package = native.package_name()
    strip = (package + "/" if package else "") + (strip_prefix.rstrip("/") + "/" if strip_prefix else "")
    header = name + "_files.h"
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = [name + "_files.cc", header],
        cmd = ("python3 $(location //net/http:embed_site.py) --name {name} --strip {strip} " +
               "--cc $(location {name}_files.cc) --h $(location {header}) " +
               "--include {include} $(SRCS)").format(
            name = name,
            strip = strip,
            header = header,
            include = (package + "/" if package else "") + header,
        ),
        tools = ["//net/http:embed_site.py"],
    )
    cc_library(
        name = name,
        srcs = [name + "_files.cc"],
        hdrs = [header],
        deps = ["//net/http:site"],
        **kwargs
    )
