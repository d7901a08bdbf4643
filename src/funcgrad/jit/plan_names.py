"""The names a plan's text calls and reads: each function, kernel and constant named once
after what it is (``tanh``, ``np_add``, ``fused``, ``c0``), and the literals that name a
number exactly.

A name is made from the primitive's or ufunc's own name, suffixed where it is taken or
would read as a register (``r0``) or a Python keyword. On the numba backend a primitive
with a numba kernel (:mod:`funcgrad.kernels`) and a fused chain
(:mod:`funcgrad.jit.backends.numba.chains`) are named to their kernels; those modules import
numba, so they are loaded only when a numba plan asks for one.

>>> import numpy as np
>>> names = Namespace()
>>> names.ufunc(np.add), names.ufunc(np.add), names.constant(np.ones(2)), literal(0.1)
('np_add', 'np_add', 'c0', '0.1')
"""

import functools
import keyword
import math
import re

import numpy as np

from ..core.values import frozen_copy
from ..kernels import kernel_for
from . import row_steps
from .facts import LOWERED
from .steptable import call_key

__all__ = ["Namespace", "kept", "literal"]


def kept(value):
    """What a plan keeps of a constant: a read-only copy of a writable array (its caller
    may change it after tracing); a read-only one (a broadcast, or a value funcgrad made)
    as it is, since copying would change its layout and so, at times, the last bit."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        return frozen_copy(value)
    return value


def literal(v):
    """Source text for a Python number that round-trips exactly, or None."""
    if type(v) is float and math.isfinite(v):
        return repr(v)
    if type(v) is int:
        return repr(v)
    return None


_RESERVED = re.compile(r"^([arcbtxykqh]\d+|float|plan|loop|[nmik])$")  # names plans and loops use


class Namespace:
    """The functions and constants a plan's code refers to, each named once."""

    def __init__(self, machine_code=None):
        self.machine_code = machine_code  # a backend's compiler to machine code (numba's)
        self.env = {}
        self._by_key = {}
        self._constants = 0
        self._suffix = {}  # base -> last suffix tried: finding a free name stays O(1)

    def _name(self, key, value, base):
        name = self._by_key.get(key) if key is not None else None
        if name is None:
            base = re.sub(r"\W", "_", base)
            if not base.isidentifier() or keyword.iskeyword(base) or _RESERVED.match(base):
                base += "_"
            name, k = base, self._suffix.get(base, 0)
            if k:
                name = f"{base}_{k}"
            while name in self.env:
                k += 1
                name = f"{base}_{k}"
            self._suffix[base] = k
            self.env[name] = value
            if key is not None:
                self._by_key[key] = name
        return name

    def impl(self, prim, params):
        if self.machine_code is not None:
            lowered = LOWERED.get(prim)
            if lowered is not None:  # a loop compiled natively
                return self._name(None, lowered(self.machine_code, params), prim.name)
            kernel = kernel_for(prim, params)  # numba's kernel for this call, where it has one
            if kernel is not None:
                return self._name(("native", call_key(prim, params)), kernel, prim.name)
        if not params:
            return self._name(prim, prim.impl, prim.name)
        return self._name(call_key(prim, params), functools.partial(prim.impl, **params), prim.name)

    def together(self, prim, params):
        """The name of ``prim.together``'s impl, called with ``params``."""
        impl = prim.together[1]
        key = ("together", call_key(prim, params))
        name = f"{prim.name}_with_{prim.together[0].name}"
        if self.machine_code is not None:
            kernel = kernel_for(prim, params, together=True)
            if kernel is not None:
                return self._name(("native",) + key, kernel, name)
        return self._name(key, functools.partial(impl, **params) if params else impl, name)

    def ufunc(self, u, scalar=False):
        """The name of NumPy's ufunc ``u`` (``scalar``: the call is on numbers alone)."""
        return self._name(u, u, f"np_{u.__name__}")

    def over_rows(self, u):
        """The name of ``u`` run over long rows beside a short one (:mod:`funcgrad.jit.row_steps`)."""
        return self._name(("rows", u), row_steps.over_rows(u), f"{u.__name__}_over_rows")

    def type(self, kind):
        """The name of NumPy's scalar type ``kind`` (``np_float64``)."""
        return self._name(kind, kind, f"np_{kind.__name__}")

    def fused(self, chain):
        """The name of the kernel running ``chain`` (a :class:`funcgrad.jit.backends.numba.fusion.Group`)."""
        key = ("fused", chain.text)
        name = self._by_key.get(key)
        if name is None:
            kernel = self.machine_code.fused(chain.text, chain.numpy_calls())
            name = self._name(key, kernel, "fused")
        return name

    def constant(self, value):
        # Numbered by first use; the same object is one constant however often it appears.
        key = ("constant", id(value))
        name = self._by_key.get(key)
        if name is None:
            name = f"c{self._constants}"
            self._constants += 1
            self.env[name] = kept(value)
            self._by_key[key] = name
        return name
