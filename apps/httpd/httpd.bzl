"""httpd_app: apps/httpd's server with a site of the caller's choosing.

apps/httpd/main.cc serves the site it includes as "apps/httpd/site_files.h"
(an http_site's header, net/http/site.bzl, which only declares site::site()).
apps/httpd builds it with its own site/; bench/http with the 612-byte page
the nginx comparison serves. One list of the server's libraries and QEMU
arguments for both.
"""

load("//platform:image.bzl", "starling_app")

def httpd_app(name, site, **kwargs):
    """The httpd image(s) (:name, :qemu, :star64, :host, boot media).

    Args:
      name: the starling_app's name.
      site: a cc_library providing "apps/httpd/site_files.h" (an http_site
        in apps/httpd, or one re-exported under that include path).
      **kwargs: passed to starling_app (visibility, tags).
    """
    starling_app(
        name = name,
        srcs = ["//apps/httpd:main.cc"],
        host = True,
        # STARLING_HTTPD_NETDEV replaces the whole netdev (it must keep
        # id=n0): the tests and the benchmark put the guest on a TAP in a
        # namespace of their own.
        qemu_args = [
            "-netdev",
            "${STARLING_HTTPD_NETDEV:-user,id=n0,hostfwd=tcp:127.0.0.1:${STARLING_HTTPD_PORT:-18080}-:80,hostfwd=tcp:127.0.0.1:${STARLING_HTTPS_PORT:-18443}-:443}",
            "-device",
            "virtio-net-device,netdev=n0",
        ],
        # HTTPS and /metrics on a first run: a throwaway certificate and
        # management token made for the run (run_qemu.sh --tls-throwaway
        # --token-throwaway; skipped under bazel test and when
        # --tls-cert/--management-*/--boot-files/-initrd or --no-tls is given).
        runner_args = [
            "--tls-throwaway",
            "--token-throwaway",
        ],
        deps = [
            site,
            "//kernel/async",
            "//kernel/boot:boot_files",
            "//kernel/boot:interface",
            "//kernel/console",
            "//kernel/lib:bootargs",
            "//kernel/text",
            "//kernel/metrics",
            "//kernel/metrics:page",
            "//net/http:protocol",
            "//net/http:server",
            "//net/http:site",
            "//net/tls",
            "//net/tls:tls_metrics",
            "//platform:network",
        ],
        **kwargs
    )
