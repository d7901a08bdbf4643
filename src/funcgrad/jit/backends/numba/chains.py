"""numba's side of fused chains (:mod:`funcgrad.jit.backends.numba.fusion`): a kernel's text compiled once.

A kernel is compiled once per process for each distinct text (plans, blocks and
layers with the same chain share it) and kept on disk by numba: its text is
written to a file named by its hash in funcgrad's cache folder (numba's cache
keys a function by its source file), and the next process loads the machine
code instead of compiling each kernel again. The text compiled is always
the one held in memory, never read back from the file. Where the folder cannot
be written, kernels are compiled in memory each process.

Where numba cannot compile a kernel, its chain runs as NumPy's calls, one per step
(the Python plan's values), from that call on.

This module imports numba; :mod:`funcgrad.jit.plans` loads it only for a numba plan
with a chain to fuse.
"""

import hashlib
import os
import sys
import tempfile
import types
import warnings

import numba
import numpy as np

__all__ = ["fused", "cache_folder", "module_of"]

_KERNELS: dict = {}


def cache_folder():
    """Where kernels' texts (and numba's code for them) are kept: ``$FUNCGRAD_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/funcgrad`` or ``~/.cache/funcgrad``, then ``kernels``."""
    root = os.environ.get("FUNCGRAD_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "funcgrad")
    return os.path.join(root, "kernels")


def fused(text, fallback):
    """The function running kernel ``text``: numba's code, compiled at its first call;
    ``fallback`` (the same values by NumPy's calls) from the first call numba fails on."""
    compiled = _KERNELS.get(text)
    if compiled is None:
        compiled = _KERNELS[text] = _compiled(text)
    chosen = [compiled]
    tries = [_compiled]  # what is left to try: compiling without the disk cache

    def run(*args):
        kernel = chosen[0]
        if kernel is fallback:
            return fallback(*args)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                return kernel(*args)
        except Exception:  # numba's typing and lowering errors are of many classes
            # once more without the disk cache (an entry another numba wrote may not
            # load), then NumPy's calls for good
            chosen[0] = tries.pop()(text, False) if tries else fallback
            if chosen[0] is not fallback:
                _KERNELS[text] = chosen[0]
            return run(*args)

    run.compiled = lambda: chosen[0] is not fallback and bool(chosen[0].signatures)
    return run


def _compiled(text, cached=True):
    module = module_of(text, "kernel", cached)
    cache = module.__file__ is not None
    return numba.njit(cache=cache, error_model="numpy", nogil=True)(module.kernel)


def module_of(text, kind, cached=True):
    """A module made by running ``text``, funcgrad's own generated code, from a file named
    by its hash in the cache folder (``__file__`` None where it cannot be written): numba's
    cache finds a function through its module's file, so a function compiled from it
    can be cached without ever being mistaken for one of another text."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:24]
    path = _written(text, f"{kind}_{digest}") if cached else None
    # A module of its own; its text is ours: names of arrays, numbers, loop variables and
    # NumPy's functions only.
    module = types.ModuleType(f"funcgrad_{kind}_{digest}")
    module.__file__, module.np = path, np
    sys.modules[module.__name__] = module
    exec(compile(text, path or f"<funcgrad {kind} {digest}>", "exec"), module.__dict__)
    return module


def _written(text, name):
    """The path of a file holding ``text`` (written now if it is not there), or None."""
    folder = cache_folder()
    path = os.path.join(folder, f"{name}.py")
    try:
        if not os.path.isfile(path):
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(text + "\n")
            os.replace(tmp, path)  # whole or not at all, as another process may read it
        with open(path) as f:
            if f.read() != text + "\n":
                return None  # not ours: compiled in memory
    except OSError:
        return None
    return path
