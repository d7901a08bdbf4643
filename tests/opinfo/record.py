"""The one record of the registry: an :class:`OpInfo` per public callable (or form of one).

In the shape of PyTorch's OpInfo: what to call, on what, against which oracle, within
which tolerances, and where a transform does not apply and why. Every test of the
conformance matrix (tests/test_conformance.py) reads these fields and nothing else.
"""

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["OpInfo", "OPS", "register", "rng_for"]

FLOATS = (np.float64, np.float32)


@dataclass
class OpInfo:
    """``fun(*args)`` for each ``args`` in ``samples``.

    ``reference``: the same function by NumPy or SciPy (the values' oracle), where it has
    one; ``torch``: ``twin(torch, *tensors)``, the same function in PyTorch (the float64
    gradients' oracle); ``domains``: per argument, ``sampler(rng, n)`` drawing inside the
    domain, where the samples were drawn so (finite differences stay off poles and
    jumps); ``dtypes``: the float dtypes its samples are tried in; ``tolerances``: a
    transform's ``(rtol, atol)`` where the matrix's default does not hold, with why;
    ``skips``: a transform's reason it does not apply (``"refused..."``: funcgrad refuses
    it by name, which the matrix checks); ``group``: the table it was written in, under
    tests/opinfo/."""

    name: str
    fun: Callable
    samples: list
    skips: dict = field(default_factory=dict)
    torch: Callable | None = None
    reference: Callable | None = None
    domains: tuple = ()
    dtypes: tuple = FLOATS
    tolerances: dict = field(default_factory=dict)
    group: str = ""

    def tolerance(self, transform, default):
        """``(rtol, atol)`` for ``transform``: this record's where it gives one."""
        return self.tolerances.get(transform, default)[:2]

    def __repr__(self):
        return self.name


OPS: list[OpInfo] = []


def register(name, fun, *samples, torch=None, reference=None, domains=(), group="", **skips):
    """Add the record of ``fun`` on ``samples``; ``skips`` as keywords (``grad="why"``)."""
    OPS.append(
        OpInfo(
            name,
            fun,
            [tuple(s) for s in samples],
            skips,
            torch,
            reference,
            tuple(domains),
            group=group,
        )
    )


def rng_for(name, k=0):
    """The same random numbers for ``name``'s ``k``-th sample in every process."""
    return np.random.default_rng(zlib.crc32(f"{name}:{k}".encode()))
