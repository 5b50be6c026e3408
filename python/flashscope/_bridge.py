"""What libflashscope_python.so calls: configure the embedded interpreter, load a module of kernels
and check what it declares. The calls themselves (supports, prepare, launch) are in _calls.py.

Not a public API: the C side (python/bridge/python_bridge.cc) is its only caller.
"""

import importlib.util
import json
import os
import re
import sys
import time
import traceback

import flashscope
from flashscope._calls import launch, prepare, supports  # noqa: F401  (called from C)

FAMILY_CODES = {flashscope.ATTENTION_FWD: 1, flashscope.GEMM: 2}  # fs_family
PEER, NOT_IDEMPOTENT, TEST_ONLY, ACCEPTS_FP8 = 1, 2, 4, 8  # FS_KERNEL_* flags
# How each family's kernel is called (what the module's function must accept).
CALL_SIGNATURES = {flashscope.ATTENTION_FWD: ("q", "k", "v", "out", "lse", "scale", "causal"),
                   flashscope.GEMM: ("a", "b", "c")}
ID_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,128}")

_interpreter = {}
_modules_loaded = 0


def configure(package_dir, sys_path_json, executable, version, library, query_s, init_s):
    """Called once per process: the interpreter's own sys.path, the cost of starting it."""
    paths = [p for p in json.loads(sys_path_json) if p != package_dir]
    sys.path[:] = [package_dir] + paths
    # flashscope-worker answers on its standard output (`flashscope list`): a print() in a
    # kernel module must not land there.
    sys.stdout = sys.stderr
    print("flashscope-python: Python %s (%s, %s): interpreter started in %.2f s (asking it "
          "%.2f s, loading and initialising %.2f s)"
          % (version, executable, library, query_s + init_s, query_s, init_s), file=sys.stderr)
    _interpreter.update(executable=executable)


class Loaded:
    """One module's kernels as the C side reads them, or `error` saying why there are none."""

    def __init__(self, name="", version="", kernels=(), error=""):
        self.name, self.version, self.kernels, self.error = name, version, list(kernels), error


class Kernel:
    """One declared kernel: the fields fs_kernel holds, and the callable with its state."""

    def __init__(self, spec, module):
        self.spec, self.module = spec, module
        self.id, self.title, self.changed = spec.id, spec.title, spec.changed
        self.family = spec.family
        self.family_code = FAMILY_CODES[spec.family]
        self.flags = ((PEER if spec.peer else 0) | (NOT_IDEMPOTENT if spec.not_idempotent else 0)
                      | (TEST_ONLY if spec.test_only else 0)
                      | (ACCEPTS_FP8 if spec.accepts_fp8 else 0))
        self.revision, self.min_sm, self.exact_sm = spec.revision, spec.min_sm, spec.exact_sm
        self.block_m, self.block_n, self.block_k, self.threads = spec.tile
        self.prepared = set()  # problem keys prepared in this process
        self.bound = {}  # (problem args, buffer args) -> a bound call (_calls.py)


def where(fn):
    code = getattr(fn, "__code__", None)
    return "%s:%d" % (code.co_filename, code.co_firstlineno) if code else repr(fn)


def _one_line(value, name, required):
    if not isinstance(value, str):
        return "%s must be a string, got %r" % (name, value)
    if required and not value.strip():
        return "%s must not be empty" % name
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        return "%s must be one line of printable text, got %r" % (name, value)
    return None


def _check_numbers(spec):
    for name in ("revision", "min_sm", "exact_sm"):
        value = getattr(spec, name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            return "%s must be an integer in 0..2^31-1, got %r" % (name, value)
    tile = spec.tile
    if (not isinstance(tile, tuple) or len(tile) != 4
            or not all(isinstance(t, int) and not isinstance(t, bool) and 1 <= t < 2**31
                       for t in tile)):
        return "tile must be 4 integers >= 1 (block_m, block_n, block_k, threads), got %r" % (tile,)
    return None


def _check_callables(spec):
    import inspect
    if not callable(spec.fn):
        return "the kernel is not callable"
    for name in ("supports", "prepare"):
        if getattr(spec, name) is not None and not callable(getattr(spec, name)):
            return "%s must be a function or None, got %r" % (name, getattr(spec, name))
    params = CALL_SIGNATURES[spec.family]
    try:
        inspect.signature(spec.fn).bind(*params)
    except TypeError as e:
        return "an %s kernel is called as fn(%s): %s" % (spec.family, ", ".join(params), e)
    except ValueError:
        pass  # no signature to read (a builtin): the first call will tell
    return None


def check(spec):
    """None when the declaration is valid, else what is wrong and how to fix it."""
    if not isinstance(spec.id, str) or not ID_PATTERN.fullmatch(spec.id):
        return "id %r must be 1..128 letters, digits or ._-" % (spec.id,)
    if spec.family not in FAMILY_CODES:
        return "family %r is not a family (%s)" % (spec.family, " or ".join(FAMILY_CODES))
    if spec.id.startswith("test.") != bool(spec.test_only):
        return ("the prefix \"test.\" is for test_only=True kernels, and they must use it (id %r)"
                % spec.id)
    return (_one_line(spec.title, "title", True) or _one_line(spec.changed, "changed", False)
            or _check_numbers(spec) or _check_callables(spec))


class DeclarationError(Exception):
    """A module's declarations are wrong: the message says what and where, no traceback needed."""


def _user_traceback(exc, path, hint=""):
    """The exception's own line (and `hint`) first, then its traceback from the module's own frames
    on (not the import machinery), or just file, line and caret when no frame is the module's (a
    SyntaxError). A terminal that shows the message on one line still reads what went wrong."""
    only = "".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n")
    summary = (only.splitlines() or [type(exc).__name__])[-1] + (" " + hint if hint else "")
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != path:
        tb = tb.tb_next
    detail = only if tb is None else "".join(traceback.format_exception(type(exc), exc, tb))
    return summary + "\n" + detail.rstrip("\n")


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(1, folder)  # the module's own helpers import beside it
    spec.loader.exec_module(module)
    return module


def _runtime_versions():
    """Versions of what the kernels run on, recorded in every case (torch, triton if imported)."""
    out = ["python %d.%d.%d" % sys.version_info[:3]]
    for lib in ("torch", "triton"):
        module = sys.modules.get(lib)
        if module is not None and getattr(module, "__version__", None):
            out.append("%s %s" % (lib, module.__version__))
    return ", ".join(out)


def _collect(path):
    """Imports `path` and returns (module, specs) or raises with a message for the user."""
    global _modules_loaded
    _modules_loaded += 1
    stem = os.path.splitext(os.path.basename(path))[0]
    name = "flashscope_module_%d_%s" % (_modules_loaded, re.sub(r"\W", "_", stem))
    del flashscope._declared[:]
    module = _import(path, name)
    specs = [s for s in flashscope._declared if s.declared_in == name]
    del flashscope._declared[:]
    if not specs:
        raise DeclarationError("%s declares no kernels: decorate a function with "
                          "@flashscope.kernel(id=..., family=..., title=...) (docs/python.md)"
                          % path)
    seen = set()
    for spec in specs:
        problem = check(spec)
        if problem is None and spec.id in seen:
            problem = "id %r is declared twice in this module" % spec.id
        if problem:
            raise DeclarationError("kernel %r (%s): %s" % (getattr(spec, "id", "?"), where(spec.fn),
                                                    problem))
        seen.add(spec.id)
    return module, specs


def load(path):
    """The kernels that the module at `path` declares, as a Loaded (its error set on failure)."""
    path = os.path.abspath(path)
    if not path.endswith(".py") or not os.path.isfile(path):
        return Loaded(error="%s: not a Python file (give the path of a module of kernels, "
                            "ending in .py)" % path)
    t0 = time.perf_counter()
    try:
        module, specs = _collect(path)
    except DeclarationError as e:
        return Loaded(error=str(e))
    except BaseException as e:  # the module's own code failed: its traceback is the message
        return Loaded(error=_user_traceback(e, path, _import_hint(e)))
    import_s = time.perf_counter() - t0
    declared = getattr(module, "__version__", "")
    version = ("%s (%s)" % (declared, _runtime_versions()) if isinstance(declared, str)
               and declared else _runtime_versions())
    _say_loaded(path, import_s, len(specs))
    name = os.path.splitext(os.path.basename(path))[0]
    return Loaded(name, version, [Kernel(s, module) for s in specs])


def _import_hint(e):
    if isinstance(e, ImportError):
        return ("(set FLASHSCOPE_PYTHON to the python3 that has this package: the embedded "
                "interpreter is %s, with sys.path %s)" % (_interpreter.get("executable", "?"),
                                                          sys.path))
    return ""


def _say_loaded(path, import_s, count):
    """What importing the module cost in this worker (stderr; configure() said the rest)."""
    print("flashscope-python: %s: %d kernel%s, imported in %.2f s (%s)"
          % (path, count, "" if count == 1 else "s", import_s, _runtime_versions()),
          file=sys.stderr, flush=True)
