"""Whether a few impls hand their large NumPy arrays to numba's kernels.

Where numba is installed (the ``native`` extra), the impls of GELU's tanh form (its
value, its slope, both), of a softmax along the last axis and of a window extremum's
cotangent (max pooling's reverse rule) call :mod:`funcgrad.rules.native_kernels` for a
NumPy array of at least :data:`LARGE` numbers: eager steps, Python plans and numba
plans alike. Each kernel gives its impl's results to the bit (tests/rules/
test_native_kernels.py compares them), two to three times faster (a GPT's GELU value
and slope 3.0 -> 1.2 ms, a CNN's pooling cotangents 6.8 -> 2.5 ms). What changes is
when: a kernel is compiled the first time a process needs it, about half a second each,
and numba keeps it on disk after that (numba's own cache: beside the module, or its
user cache where that is read-only). Arrays below :data:`LARGE` never load numba, so a
REPL's or a doctest's small arrays run as without it.

``fg.config.update("funcgrad_numba_kernels", False)`` (or ``FUNCGRAD_NUMBA_KERNELS=0``
in the environment) keeps every impl in NumPy; a numba plan still calls the kernels.

>>> import numpy as np
>>> kernels_for(np.ones(4)) is None                 # a small array: NumPy's impl
True
"""

import importlib
import importlib.util
import os

import numpy as np

__all__ = ["SWITCH", "LARGE", "kernels_for", "turn"]

# At this many numbers a kernel's call (a few microseconds) is a small part of its pass.
LARGE = 1 << 15

SWITCH = {"on": False}


def turn(on):
    """The kernels on (where numba is installed) or off: ``fg.config.update(
    "funcgrad_numba_kernels", on)`` calls it."""
    SWITCH["on"] = bool(on) and importlib.util.find_spec("numba") is not None


turn(os.environ.get("FUNCGRAD_NUMBA_KERNELS", "1") != "0")


def kernels_for(x):
    """:mod:`funcgrad.rules.native_kernels` where ``x`` is a NumPy array of at least
    :data:`LARGE` numbers and the kernels are on, else None. A numba that fails to load
    turns them off, once (the impls then stay in NumPy)."""
    if type(x) is not np.ndarray or x.size < LARGE or not SWITCH["on"]:
        return None
    try:
        return importlib.import_module("funcgrad.rules.native_kernels")
    except ImportError:
        SWITCH["on"] = False
        return None
