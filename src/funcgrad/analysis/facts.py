"""What the analyses know about a primitive: its table, filled where the primitive is defined.

A primitive keeps its impl and its rules; what the analyses read about it
beyond them (the sparsity fold the pattern of its Jacobian, ``explain`` which
arguments have a zero derivative and how to stay off a boundary,
``linear_transpose`` and Taylor mode which operands it is linear in) is a row
of this table, written by :func:`declare` beside the primitive's definition,
as JAX's ``lax`` writes a primitive's rules into the tables of the interpreters
that read them. So this module imports only funcgrad's core, and every layer
may import it (tests/test_layering.py checks both).

The facts, each with its default:

``flat`` (none)
    the arguments whose derivative is zero wherever it exists; ``ALL``: every
    one, a piecewise-constant function. An elementwise primitive's zero
    partials say it by themselves.
``selects`` (False)
    each output element takes one operand's element, so the cotangent is
    routed, not scaled (``where``, ``maximum``, ``relu``, ``clip``).
``linear`` (None)
    ``"all"``: linear in every operand; ``"each"``: in each operand with the
    others fixed (a product); or the operands it is linear in.
``structure`` (elementwise if it has partials, else dense)
    how its Jacobian's sparsity pattern is found: ``"elementwise"``,
    ``"moves"`` (only moves elements), ``"scatter"``, ``"reduction"``,
    ``"along_axis"``, ``"cumulative"``, ``"contraction"``,
    ``"diagonal_sum"``, ``"banded"``, ``"convolution"``, ``"cast"``, ``"pick"``,
    ``"sort_gather"``, ``"sort_scatter"`` (a sort's gather and its transpose).
``spec`` (None)
    a contraction as an einsum: ``spec(shapes, params)`` gives each
    operand's index letters and the output's, or None for a scaling.
``commutative`` (False)
    its operands may be listed in any order.
``singular`` (False)
    its derivative is infinite on a boundary of its domain (``sqrt`` and
    ``log`` at 0, ``arcsin`` at 1, a division by 0), so a ``where`` that
    discards it there gives nan: what ``lint`` looks for.
``hint`` (None)
    what keeps the argument off the boundary where the derivative is
    infinite, for ``explain``.

>>> from funcgrad.rules import elementwise as ew
>>> of(ew.sign).flat is ALL, 0 in of(ew.where).flat, 1 in of(ew.where).flat
(True, True, False)
>>> of(ew.maximum).selects, of(ew.add).linear, of(ew.add).commutative
(True, 'all', True)

A primitive that declares nothing has every default:

>>> from funcgrad import Primitive
>>> of(Primitive("cube", lambda x: x ** 3))
Facts()
"""

import dataclasses

from ..core.errors import ArgumentTypeError

__all__ = ["ALL", "Facts", "declare", "of", "flat_everywhere"]


class _All:
    """Every argument (a ``flat`` that holds for all of them)."""

    def __contains__(self, k):
        return True

    def __repr__(self):
        return "ALL"


ALL = _All()


@dataclasses.dataclass(frozen=True, slots=True)
class Facts:
    """One primitive's row: the facts above, each with its default."""

    flat: object = frozenset()
    selects: bool = False
    linear: object = None
    structure: str | None = None
    spec: object = None
    commutative: bool = False
    singular: bool = False
    hint: str | None = None

    def __repr__(self):
        # only what was declared, so a row reads as its declaration
        given = (
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        )
        return f"Facts({', '.join(given)})"


DEFAULT = Facts()
NAMES = frozenset(f.name for f in dataclasses.fields(Facts))

# primitive -> its Facts. Primitives are defined once, at a module's top level, so the
# table keeps them no longer than their module does.
_TABLE: dict = {}


def of(prim):
    """``prim``'s facts (the defaults where it declared none)."""
    return _TABLE.get(prim, DEFAULT)


def declare(*prims, **facts):
    """Writes ``facts`` into each primitive's row; returns the last primitive (so that a
    definition may read ``p = declare(Primitive(...), linear="all")``).

    >>> from funcgrad import Primitive
    >>> double = declare(Primitive("double", lambda x: 2.0 * x), linear="all")
    >>> of(double).linear
    'all'
    >>> declare(double, smooth=True)
    Traceback (most recent call last):
    ...
    funcgrad.errors.ArgumentTypeError: declare: unknown facts ['smooth']; the analyses' facts are ['commutative', 'flat', 'hint', 'linear', 'selects', 'singular', 'spec', 'structure']
    """
    unknown = sorted(set(facts) - NAMES)
    if unknown:
        raise ArgumentTypeError(
            f"declare: unknown facts {unknown}; the analyses' facts are {sorted(NAMES)}"
        )
    for prim in prims:
        _TABLE[prim] = dataclasses.replace(of(prim), **facts)
    return prims[-1] if prims else None


def flat_everywhere(prim, n_args):
    """Whether every one of ``n_args`` arguments of ``prim`` has a zero derivative."""
    flat = of(prim).flat
    return all(k in flat for k in range(n_args))
