"""Whether the fast paths hand their large NumPy arrays to numba's kernels.

Where numba is installed (the ``native`` extra), the fast paths :mod:`funcgrad.kernels`
registers in front of the impls of GELU's tanh form (its value, its slope, both), of a
softmax along the last axis, of a window extremum's cotangent (max pooling's reverse
rule), of ``where`` with a mask repeated over leading axes, of rows added at integer positions (an embedding's cotangent: ``untake``, a
row ``scatter_add``) and of a 3x3 stride-1 convolution and its cotangents call
:mod:`funcgrad.kernels.numba_kernels` (and :mod:`funcgrad.kernels.winograd`) for a NumPy
array of at least :data:`LARGE` numbers: eager steps, Python plans and numba plans alike.
Each kernel but the convolutions' and float32 GELU's gives its impl's results to the bit
(the convolutions' are within the plain impl's rounding, float32 GELU's within a unit of
its tanh's last place; tests/kernels/ compare them all), in fewer passes
or multiplications (their figures: benchmarks/RESULTS.md). What it costs is a process's first call of a
kernel: numba's import and its compiler's start, and on a machine that never compiled
them, a compilation of each kernel (once each: the kernels take read-only operands, so
one signature serves a trace's values and a plan's buffers), which numba then keeps on
disk (its own cache: beside the module, or its user
cache where that is read-only). Arrays below
:data:`LARGE` never load numba, so a REPL's or a doctest's small arrays run as without it.

A numba loop raises no floating-point warning, so each kernel leaves to NumPy's impl the
operands whose arithmetic would: a GELU's input large enough to overflow (or a NaN), a
shift by a row's maximum that makes a NaN of infinities or overflows, an infinite
cotangent that a pooling mask's 0 multiplies, rows whose sums could overflow. And while
NumPy is set not to ignore an underflow, every impl stays in NumPy. So an eager gradient
warns (or raises, under ``np.errstate(all="raise")``) where and as it did without numba.
The checks take one or two passes over the operand (a kernel with them stays faster
than NumPy's impl); a numba plan's calls skip them, as its fused chains raise no
floating-point warnings either.

``fg.config.update("funcgrad_numba_kernels", False)`` (or ``FUNCGRAD_NUMBA_KERNELS=0``
in the environment) keeps every impl in NumPy; a numba plan still calls the kernels.

>>> import numpy as np
>>> kernels_for(np.ones(4)) is None                 # a small array: NumPy's impl
True
"""

import importlib.util
import os

import numpy as np

from ..core import optional

__all__ = ["SWITCH", "LARGE", "kernels_for", "loaded", "turn"]

# At this many numbers a kernel's call (a few microseconds) is a small part of its pass.
LARGE = 1 << 15

SWITCH = {"on": False}


def turn(on):
    """The kernels on (where numba is installed) or off: ``fg.config.update(
    "funcgrad_numba_kernels", on)`` calls it."""
    SWITCH["on"] = bool(on) and importlib.util.find_spec("numba") is not None


turn(os.environ.get("FUNCGRAD_NUMBA_KERNELS", "1") != "0")


def loaded():
    """:mod:`funcgrad.kernels.numba_kernels` (which imports numba), or None where numba
    fails to load: then the kernels are turned off, once, and the impls stay in NumPy."""
    try:
        return optional.load("funcgrad.kernels.numba_kernels", "numba", "native")
    except ImportError:
        SWITCH["on"] = False
        return None


def kernels_for(x):
    """:mod:`funcgrad.kernels.numba_kernels` where ``x`` is a NumPy array of at least
    :data:`LARGE` numbers and the kernels are on, else None. Where NumPy is set to do
    anything but ignore an underflow (``np.errstate(under="warn")``), None too: a kernel
    leaves what would overflow or make a NaN to NumPy, but cannot foresee an underflow."""
    if type(x) is not np.ndarray or x.size < LARGE or not SWITCH["on"]:
        return None
    if np.geterr()["under"] != "ignore":
        return None
    return loaded()
