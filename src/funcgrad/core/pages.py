"""help() pages for primitives, written from one table row each.

Most of funcgrad.numpy's elementwise functions are primitives (objects, not
Python functions), so their docstrings and signatures are given here: a row
says what the function computes, its derivative, and an example whose printed
result doctest checks (pytest collects these pages with the module that
exports them).

>>> import inspect
>>> import funcgrad.numpy as fnp
>>> inspect.signature(fnp.arctan2)
<Signature (x1, x2, /)>
>>> print(fnp.tanh.__doc__.splitlines()[0])
Hyperbolic tangent, elementwise.
"""

from typing import NamedTuple

from .primitive import describe

__all__ = ["Page", "write_pages"]


class Page(NamedTuple):
    """One primitive's page: its parameters, what it computes, its derivative and examples."""

    params: str  # as written in Python: "x1, x2, /"
    summary: str  # one line
    derivative: str  # in words and formulas
    examples: tuple  # (expression, printed result) pairs, run as a doctest


def write_pages(namespace, module_name, rows, setup, source):
    """Give each primitive named in ``rows`` its page; ``setup`` is the examples' import line
    and ``source`` (or None) says whose values the function reproduces."""
    for name, page in rows.items():
        describe(getattr(namespace, name), page.params, _render(page, setup, source), module_name)


def _render(page, setup, source):
    said = f"{source}. " if source else ""
    lines = [page.summary, "", f"{said}Derivative: {page.derivative}.", "", f">>> {setup}"]
    for expr, printed in page.examples:
        lines += [f">>> {expr}", printed]
    return "\n".join(lines) + "\n"
