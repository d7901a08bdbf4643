"""Handing the memory a large trace freed back to the system (glibc's ``malloc_trim``).

Tracing a plan of 10^6 steps makes millions of small Python objects; compiling
frees them, but glibc keeps the freed pages in the process (the small objects
were scattered through its heap), so the process stays 280 MB larger than
before, 283 bytes for every step of the plan (``python benchmarks/jit_compile.py``).
``trim_heap`` asks glibc to return what it can: 17 bytes a step remain. jit calls
it after compiling a plan of more than ``TRIM_ABOVE`` steps, where the call (a
walk of the heap, a few milliseconds) is small beside the compile. Where the C
library has no ``malloc_trim`` (macOS, musl, Windows) it does nothing.
"""

import ctypes
import sys

__all__ = ["trim_heap", "TRIM_ABOVE"]

TRIM_ABOVE = 100_000
"""Plans of more steps than this give their trace's memory back once compiled."""

_trim = None
_looked = False


def _malloc_trim():
    global _trim, _looked
    if not _looked:
        _looked = True
        if sys.platform.startswith("linux"):
            try:
                _trim = getattr(ctypes.CDLL("libc.so.6"), "malloc_trim", None)
            except OSError:          # not glibc (musl names its libc otherwise)
                _trim = None
    return _trim


def trim_heap():
    """Return the C heap's free memory to the system, where the C library can; whether it
    did (glibc says whether any memory was released).

    >>> isinstance(trim_heap(), bool)
    True
    """
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
