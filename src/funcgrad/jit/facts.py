"""What jit knows about a primitive beyond its impl: its tables, filled where it is defined.

Staging a call runs the primitive's impl on example values, and a plan calls
it again at run time; that is all jit needs of most primitives. A few need
more, written by :func:`declare` beside their definition (as JAX's ``lax``
registers a lowering beside a primitive), into the tables below. This module
imports only funcgrad's core, so every layer may import it
(tests/test_layering.py checks both).

``fresh``
    the impl always returns a new array, never a view of an operand, so a plan
    may write into it once it is dead (a NumPy ufunc's impl is known to be
    fresh without saying so).
``abstract``
    ``abstract(*operands, **params)`` gives example outputs, for staging a
    primitive whose impl is too costly to run while tracing (a loop).
``lowered``
    ``lowered(machine_code, params)`` gives the function of the operands that
    a plan compiled to machine code calls instead of the impl (a loop compiled
    natively), or None where it keeps the impl.
``effect``
    it is called for what it does, not for its value (``fg.debug.callback``):
    a staged plan or a loop's body runs it though no output needs it.
``alias``
    it hands its operand back unchanged (a gradient's fresh input on jit's trace): a
    plan reads the operand instead of running it.
``reads_values``
    its reverse rule reads the values of these arguments (True: of all) where they
    are known: it raises where known values show no derivative (an eigenvector's, at
    repeated eigenvalues) or takes an exact path (``x ** 0``), where a plan, not
    knowing them, gives NaN or the general formula. An eager gradient through it is
    folded every call, never replayed from a plan (:mod:`funcgrad.jit.eager_replay`),
    unless each argument read is a number written into the graph.

>>> from funcgrad.rules.matmul import matmul
>>> from funcgrad.control.scan_primitive import scan_p
>>> matmul in FRESH, scan_p in ABSTRACT, scan_p in LOWERED, scan_p in EFFECTS
(True, True, True, False)
>>> from funcgrad.rules.linalg import eigh_packed
>>> eigh_packed in READS_VALUES, matmul in READS_VALUES
(True, False)
"""

from ..core.errors import ArgumentTypeError

__all__ = ["FRESH", "ABSTRACT", "LOWERED", "EFFECTS", "READS_VALUES", "ALIASES", "declare"]

# Read on every staged call, so plain sets and dicts. Primitives are defined once, at a
# module's top level, so the tables keep them no longer than their module does.
FRESH: set = set()
ABSTRACT: dict = {}
LOWERED: dict = {}
EFFECTS: set = set()
READS_VALUES: dict = {}  # primitive -> the positions of the arguments read, or None: all
ALIASES: set = set()


def declare(
    *prims,
    fresh=False,
    abstract=None,
    lowered=None,
    effect=False,
    reads_values=False,
    alias=False,
    **unknown,
):
    """Writes what jit needs to know into its tables for each primitive; returns the last.

    >>> from funcgrad import Primitive
    >>> copy = declare(Primitive("copy", lambda x: x.copy()), fresh=True)
    >>> copy in FRESH
    True
    >>> declare(copy, pure=True)
    Traceback (most recent call last):
    ...
    funcgrad.errors.ArgumentTypeError: declare: unknown jit facts ['pure']; they are abstract, alias, effect, fresh, lowered, reads_values
    """
    if unknown:
        raise ArgumentTypeError(
            f"declare: unknown jit facts {sorted(unknown)}; they are abstract, alias, effect, "
            "fresh, lowered, reads_values"
        )
    for prim in prims:
        if fresh:
            FRESH.add(prim)
        if abstract is not None:
            ABSTRACT[prim] = abstract
        if lowered is not None:
            LOWERED[prim] = lowered
        if effect:
            EFFECTS.add(prim)
        if alias:
            ALIASES.add(prim)
        if reads_values:
            READS_VALUES[prim] = None if reads_values is True else frozenset(reads_values)
    return prims[-1] if prims else None
