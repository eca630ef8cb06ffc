"""starling_fuzzer: a libFuzzer target, runnable with `bazel run`, and its test.

    starling_fuzzer(name = "x", srcs = ["x.cc"], deps = [...])

declares
  :x       the fuzzer (LLVMFuzzerTestOneInput in srcs), built for the host with
           ASan+UBSan and with the toolchain's `fuzzer` feature on for it and
           every library it links (a transition: coverage must reach the
           code under test, not only the harness). `bazel run :x -- ARGS`
           fuzzes from the checked-in seeds (corpus/ next to the BUILD file)
           into a work corpus outside the source tree; ARGS go to libFuzzer
           (-max_total_time=60, -jobs=2, a crash file to reproduce it).
  :x_test  a bounded run (`runs` executions, fixed seed) on a copy of the
           seeds in TEST_TMPDIR; any crash, leak, timeout or sanitizer report
           fails it, and the crashing input lands in the test's outputs.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def _fuzz_transition_impl(settings, attr):  # buildifier: disable=unused-variable
    features = settings["//command_line_option:features"]
    if "fuzzer" in features:
        return {"//command_line_option:features": features}
    return {"//command_line_option:features": features + ["fuzzer"]}

# Turns the host toolchain's `fuzzer` feature (toolchain/cc_toolchain_config.bzl)
# on for the whole dependency graph below the fuzzer.
_fuzz_transition = transition(
    implementation = _fuzz_transition_impl,
    inputs = ["//command_line_option:features"],
    outputs = ["//command_line_option:features"],
)

def _fuzz_launcher_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo].files_to_run.executable
    corpus_dirs = {f.dirname: None for f in ctx.files.corpus}
    if len(corpus_dirs) != 1:
        fail("the corpus of %s must be the files of one directory" % ctx.label)
    corpus = ctx.files.corpus[0]
    launcher = ctx.actions.declare_file(ctx.label.name + ".fuzz.sh")
    ctx.actions.expand_template(
        template = ctx.file._template,
        output = launcher,
        substitutions = {
            "%BINARY%": binary.short_path,
            "%SEEDS%": corpus.short_path[:-len(corpus.basename) - 1],
            "%NAME%": ctx.label.package.replace("/", "_") + "_" + ctx.label.name,
            "%RUNS%": str(ctx.attr.runs),
            "%OPTIONS%": " ".join(["'%s'" % o for o in ctx.attr.options]),
        },
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [binary] + ctx.files.corpus)
    runfiles = runfiles.merge(ctx.attr.binary[0][DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, files = depset([launcher, binary]), runfiles = runfiles)]

_fuzz_launcher = rule(
    implementation = _fuzz_launcher_impl,
    attrs = {
        "binary": attr.label(mandatory = True, executable = True, cfg = _fuzz_transition),
        "corpus": attr.label_list(allow_files = True, mandatory = True),
        "runs": attr.int(mandatory = True),
        "options": attr.string_list(),
        "_template": attr.label(default = "//fuzz:launcher.sh.tpl", allow_single_file = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    executable = True,
    doc = "Runs a fuzzer built with the `fuzzer` feature on its seed corpus.",
)

def starling_fuzzer(name, srcs, deps = [], corpus = None, copts = [], options = [], runs = 20000, test_size = "small", **kwargs):
    """A libFuzzer fuzzer `name` and its bounded regression run `name_test`.

    Args:
      name: the fuzzer's name; also the runnable target.
      srcs: sources, one of them defining LLVMFuzzerTestOneInput.
      deps: libraries under test (instrumented for coverage with the fuzzer).
      corpus: seed inputs, the files of one directory; default corpus/*.
      copts: extra compile options for srcs.
      options: libFuzzer options every run gets (e.g. -max_len=1500).
      runs: executions of the test after the seeds (-runs).
      test_size: the test's size (its timeout): "small" (60 s) unless runs
        are slow enough that a loaded machine needs more.
      **kwargs: passed to the cc_binary (features, linkopts, ...).
    """
    if corpus == None:
        corpus = native.glob(["corpus/*"])
    cc_binary(
        name = name + "_binary",
        testonly = True,
        srcs = srcs,
        copts = copts,
        tags = ["manual"],
        target_compatible_with = ["//platform:board_host"],
        deps = deps,
        **kwargs
    )
    _fuzz_launcher(
        name = name,
        testonly = True,
        binary = ":" + name + "_binary",
        corpus = corpus,
        options = options,
        runs = runs,
        target_compatible_with = ["//platform:board_host"],
    )
    native.sh_test(
        name = name + "_test",
        size = test_size,
        srcs = ["//fuzz:run_test.sh"],
        args = ["$(rootpath :%s)" % name],
        data = [":" + name],
        target_compatible_with = ["//platform:board_host"],
    )
