"""scenario_test: one scenario script, declared once, run on each board.

A scenario is a Python script that drives one app through a real network
(a TAP in a namespace of its own): `--app BINARY` runs the app as a Linux
process over the DWMAC model (the host board), `--qemu LAUNCHER` boots its
riscv64 image in QEMU over virtio-net. test/host_board/host_process.py
starts either. Declared here once, a scenario gets one test per board:

    scenario_test(
        name = "ipv6_echo",               # ipv6_echo_host_test, ipv6_echo_qemu_test
        script = "ipv6_echo_test.py",
        app = "//apps/echo",               # its :host and :qemu targets
    )

The script sits in the folder of what it tests (test/net, test/robustness,
test/http), next to the declaration. Its imports come from PYTHONPATH, set
here (no sys.path edits in the scripts): test/lib (packets, stats lines, the
NTP server, checks), test/host_board (host_process), and the two topic
folders whose helpers other scenarios share (test/http's http_checks,
test/net's ipv6_echo_test link helpers). The entries are relative to the
test's working directory, its runfiles' workspace root, where Bazel starts
every test.
"""

# Every folder a scenario may import from: the data below puts their files
# in the runfiles.
_PYTHONPATH = ":".join([
    "test/lib",
    "test/host_board",
    "test/net",
    "test/http",
])

# The helpers those imports reach (host_process and test/lib's modules come
# with //test/host_board:host_process).
_HELPERS = [
    "//test/host_board:host_process",
    "//test/http:http_checks.py",
    "//test/net:ipv6_echo_test.py",
    "//platform/boot_media:make_initrd.py",
]

# The flag host_process.py takes for each board, and the app's target for it.
_BOARDS = {
    "host": struct(flag = "--app", target = ":host"),
    "qemu": struct(flag = "--qemu", target = ":qemu"),
}

def scenario_test(
        name,
        script,
        app,
        boards = ["host", "qemu"],
        args = [],
        board_args = {"qemu": ["--timeout 60"]},
        data = [],
        env = {},
        size = "medium",
        **kwargs):
    """One test per board: NAME_host_test and NAME_qemu_test.

    Args:
      name: the scenario; the tests are NAME_<board>_test.
      script: the scenario's Python script, in this package.
      app: the app's package (its :host and :qemu targets are the boards').
      boards: which boards run it ("host", "qemu").
      args: arguments every board's run gets, after the app's.
      board_args: more arguments for one board's run ({"qemu": [...]}).
        QEMU's default, --timeout 60, gives the guest's boot its time.
      data: further runtime files.
      env: further environment (merged with PYTHONPATH).
      size: the tests' size.
      **kwargs: passed to each sh_test (tags are added to "local").
    """
    tags = ["local"] + kwargs.pop("tags", [])
    for board in boards:
        if board not in _BOARDS:
            fail("scenario_test %s: unknown board %r (boards: %s)" % (name, board, ", ".join(_BOARDS)))
        image = app + _BOARDS[board].target
        run_env = dict(env)
        run_env["PYTHONPATH"] = _PYTHONPATH
        native.sh_test(
            name = "%s_%s_test" % (name, board),
            size = size,
            srcs = [script],
            args = ["%s $(rootpath %s)" % (_BOARDS[board].flag, image)] + args +
                   board_args.get(board, []),
            data = [image] + _HELPERS + data,
            env = run_env,
            # Root and namespaces: "local" (no sandbox). Not exclusive: a
            # scenario mostly waits (on lwIP's timers, on the guest's boot);
            # --local_test_jobs (.bazelrc) runs it beside the build.
            tags = tags,
            **kwargs
        )
