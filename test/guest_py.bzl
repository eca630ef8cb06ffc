"""guest_py_test and guest_py_binary: Python that boots a Starling image.

A Python target whose runfiles hold an image must not get the __init__.py
files Bazel makes by default (legacy_create_init): one in the runfiles'
platform/ (the image's make_initrd.py is there) would make `import
platform`, which scapy and others do, find this repository's platform/
instead of the standard library's (the runfiles root is on the path), and
one in test/http would stand in for `http`. These macros say so once, with
Python 3 and the first source as the main file unless `main` is given.
Libraries they use (//test/lib:checks, //test:qemu_guest, ...) put their
folder on the path through `imports`, so no script edits sys.path.
"""

def _guest_py(rule, name, srcs, main, **kwargs):
    rule(
        name = name,
        srcs = srcs,
        main = main or srcs[0],
        legacy_create_init = False,
        python_version = "PY3",
        **kwargs
    )

def guest_py_test(name, srcs, main = None, **kwargs):
    """A py_test that boots an image (or runs beside one); see above.

    Args:
      name: the test.
      srcs: its Python files, the main one first.
      main: the main file, when not srcs[0].
      **kwargs: as for py_test.
    """
    _guest_py(native.py_test, name, srcs, main, **kwargs)

def guest_py_binary(name, srcs, main = None, **kwargs):
    """A py_binary that boots an image; see above.

    Args:
      name: the binary.
      srcs: its Python files, the main one first.
      main: the main file, when not srcs[0].
      **kwargs: as for py_binary.
    """
    _guest_py(native.py_binary, name, srcs, main, **kwargs)
