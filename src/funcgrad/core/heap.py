"""The C heap: keeping a step's freed arrays for the next step, and handing a large
trace's memory back to the system (glibc's ``mallopt`` and ``malloc_trim``).

**Keeping freed memory.** An eager training step allocates its intermediates and
cotangents afresh; glibc serves arrays of a few hundred KiB from the top of its
heap and, once a step frees them, returns that memory to the system whenever more
than about twice the largest recent block lies free there, so the next step takes
a page fault on every 4 KiB it touches again: on the GPT step of
``benchmarks/models.py``, about twice as long a step in a fresh process.
At import funcgrad therefore sets glibc's two thresholds as a training framework's
own allocator would keep memory: arrays up to 32 MiB come from the heap, and up to
256 MiB of free heap stay in the process (the peak is unchanged: the memory is
reused, not added). It leaves them alone where the environment already sets any
``MALLOC_`` variable, or ``FUNCGRAD_KEEP_FREED_MEMORY=0``; ``fg.config.update(
"funcgrad_keep_freed_memory", False)`` puts glibc's default thresholds back (glibc
no longer moves them by itself once they were set). Elsewhere (macOS, musl,
Windows) nothing is done.

Tracing a plan of 10^6 steps makes millions of small Python objects; compiling
frees them, but glibc keeps the freed pages in the process (the small objects
were scattered through its heap), so the process stays 280 MB larger than
before, 283 bytes for every step of the plan (``python benchmarks/jit_compile.py``).
``trim_heap`` asks glibc to return what it can: 17 bytes a step remain. jit calls
it after compiling a plan of more than ``TRIM_ABOVE`` steps, where the call (a
walk of the heap, a few milliseconds) is small beside the compile. Where the C
library has no ``malloc_trim`` (macOS, musl, Windows) it does nothing.

**Huge pages while compiling.** NumPy asks Linux for huge pages for every array of
4 MiB or more (``madvise``). Where the kernel then compacts memory to find one (its
``transparent_hugepage/defrag`` setting), each first touch of such an array can
stall: a tenth of a 10^6-step plan's compile went there (benchmarks/RESULTS.md), on
its integer tables, which live for a few milliseconds each. jit compiles inside
:func:`small_pages`, which turns NumPy's request off meanwhile (arrays a plan's
later calls make are not affected).
"""

import contextlib
import ctypes
import functools
import sys
import threading

import numpy as np

__all__ = ["trim_heap", "TRIM_ABOVE", "keep_freed_memory", "KEPT", "small_pages"]

TRIM_ABOVE = 100_000
"""Plans of more steps than this give their trace's memory back once compiled."""


@functools.cache
def _glibc():
    """glibc, loaded once; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (musl names its libc otherwise)
        return None


# glibc's mallopt parameters, and its defaults for them
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEEP = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 256 << 20}
_DEFAULT = {_M_MMAP_THRESHOLD: 128 << 10, _M_TRIM_THRESHOLD: 128 << 10}

KEPT = {"on": False}
"""Whether funcgrad set glibc to keep freed memory (``keep_freed_memory``)."""


def keep_freed_memory(on=True):
    """Set glibc to keep a step's freed arrays for the next step (``on``) or back to its
    default thresholds; whether it could (only glibc can).

    >>> isinstance(keep_freed_memory(KEPT["on"]), bool)
    True
    """
    mallopt = getattr(_glibc(), "mallopt", None)
    if mallopt is None:
        return False
    done = all(mallopt(param, value) == 1 for param, value in (_KEEP if on else _DEFAULT).items())
    KEPT["on"] = bool(on) and done
    return done


def keep_freed_memory_unless_told_not_to(environ):
    """The import's call: :func:`keep_freed_memory` unless ``environ`` tunes glibc itself
    (any ``MALLOC_`` variable) or says ``FUNCGRAD_KEEP_FREED_MEMORY=0``."""
    if environ.get("FUNCGRAD_KEEP_FREED_MEMORY", "1") == "0":
        return False
    if any(k.startswith("MALLOC_") for k in environ):
        return False
    return keep_freed_memory(True)


def trim_heap():
    """Return the C heap's free memory to the system, where the C library can; whether it
    did (glibc says whether any memory was released).

    >>> isinstance(trim_heap(), bool)
    True
    """
    trim = getattr(_glibc(), "malloc_trim", None)
    return bool(trim(0)) if trim is not None else False


_MULTIARRAY = getattr(np, "_core", np).multiarray
_SMALL = {"depth": 0, "before": None}
_SMALL_LOCK = threading.Lock()


@contextlib.contextmanager
def small_pages():
    """A block in which NumPy does not ask for huge pages (see the module docstring); the
    setting it found is put back when the last such block, in any thread, ends.

    >>> with small_pages():
    ...     int(np.ones(3).sum())
    3
    """
    setting = getattr(_MULTIARRAY, "_set_madvise_hugepage", None)
    if setting is None:  # a NumPy without the switch
        yield
        return
    with _SMALL_LOCK:
        _SMALL["depth"] += 1
        if _SMALL["depth"] == 1:
            _SMALL["before"] = setting(False)  # it answers the setting it replaced
    try:
        yield
    finally:
        with _SMALL_LOCK:
            _SMALL["depth"] -= 1
            if _SMALL["depth"] == 0:
                setting(_SMALL["before"])
