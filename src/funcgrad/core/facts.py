"""What the analyses know about a primitive, declared where the primitive is defined.

Besides its value and its rules, a primitive carries *facts* that funcgrad's
other parts read: the sparsity fold the pattern of its Jacobian, ``explain``
which arguments have a zero derivative and how to stay off a boundary, jit
how to stage a primitive whose impl cannot run on examples. Each fact is an
attribute of the primitive object, given at its definition (or by
:func:`declare` just after it, in the same module), so adding a primitive
touches one file; no table elsewhere names primitives by string.

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
``abstract`` (None)
    ``abstract(*operands, **params)`` gives example outputs, for jit's
    staging of a primitive whose impl cannot run on examples (a loop).
``lowered`` (None)
    ``lowered(backend, params)`` gives the function of the operands a jit plan
    of that backend (other than Python's) calls instead of the impl: a loop
    compiled natively.
``effect`` (False)
    it is called for what it does, not for its value
    (``fg.debug.callback``): a staged plan or a loop's body runs it though no
    output needs it.
``keeps_slope`` (False)
    an elementwise primitive of one operand whose partial is the primitive
    ``together[0]`` at that operand: an eager gradient makes its value and slope in
    one call (``together``'s impl) and keeps the slope for the reverse fold
    (``gelu_tanh``).

>>> from funcgrad.rules import elementwise as ew
>>> ew.sign.flat is ALL, 0 in ew.where.flat, 1 in ew.where.flat, ew.maximum.selects
(True, True, False, True)
"""

from .errors import ArgumentTypeError

__all__ = ["ALL", "FACTS", "declare", "flat_everywhere"]


class _All:
    """Every argument (a ``flat`` that holds for all of them)."""

    def __contains__(self, k):
        return True

    def __repr__(self):
        return "ALL"


ALL = _All()

FACTS = {
    "flat": frozenset(),
    "selects": False,
    "linear": None,
    "structure": None,
    "spec": None,
    "commutative": False,
    "singular": False,
    "hint": None,
    "abstract": None,
    "lowered": None,
    "effect": False,
    "keeps_slope": False,
}


def declare(*prims, **facts):
    """Sets ``facts`` on each primitive; returns the last one (to write at a definition)."""
    unknown = sorted(set(facts) - set(FACTS))
    if unknown:
        raise ArgumentTypeError(f"declare: unknown facts {unknown}; the facts are {sorted(FACTS)}")
    for prim in prims:
        for name, value in facts.items():
            setattr(prim, name, value)
    return prims[-1] if prims else None


def flat_everywhere(prim, n_args):
    """Whether every one of ``n_args`` arguments of ``prim`` has a zero derivative."""
    return all(k in prim.flat for k in range(n_args))
