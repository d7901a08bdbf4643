"""Implicit differentiation: the derivative of a fixed point, not of the iterations.

``fg.fixed_point(f, a, x0)`` iterates ``x = f(a, x)`` from ``x0`` until it
stops moving, and returns ``x*`` with ``x* = f(a, x*)``. Its derivative comes
from the implicit function theorem: differentiating ``x* = f(a, x*)`` gives
``dx* = (I - df/dx)^-1 df/da da``, so reverse mode solves ``w = g + (df/dx)^T
w`` (another fixed point, reached by the same iteration) and returns ``(df/da)^T
w``. The forward iterations are never recorded: the memory is that of one
``f``, however many iterations it took, and the derivative is exact at the
fixed point whatever ``x0`` was.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> sqrt = lambda a: fg.fixed_point(lambda a, x: 0.5 * (x + a / x), a, 1.0)   # Heron's
>>> float(sqrt(2.0)), float(fg.grad(sqrt)(2.0)), 0.5 / np.sqrt(2.0)
(1.414213562373095, 0.35355339059327373, np.float64(0.35355339059327373))
"""

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..core.errors import ArgumentError, NoConvergenceError
from ..core.traces import Box
from ..core.tree import tree_leaves, tree_map
from ..core.values import dtype_of, raw
from ..rules.elementwise import abs as aabs
from ..rules.elementwise import maximum, subtract
from ..rules.reductions import max as amax
from ..rules.ufuncs import logical_and
from ..transforms.arguments import fun_name
from ..transforms.reverse import vjp
from .custom_rules import custom_vjp
from .loops import while_loop

__all__ = ["fixed_point"]


def _change(new, old):
    """The largest change of any entry between two pytrees of one structure."""
    out = None
    for n, o in zip(tree_leaves(new), tree_leaves(old)):
        c = amax(aabs(subtract(n, o)))
        out = c if out is None else maximum(out, c)
    return out


def _iterate(step, x0, tol, max_iter, who, what):
    """``x = step(x)`` from ``x0`` until no entry changes by more than ``tol``."""

    def cond(c):
        i, _, change = c
        return logical_and(i < max_iter, change > tol)

    def body(c):
        i, x, _ = c
        new = step(x)
        return i + 1, new, _change(new, x)

    first = step(x0)
    _, x, change = while_loop(cond, body, (1, first, _change(first, x0)))
    if not isinstance(change, Box) and raw(change) > tol:
        raise NoConvergenceError(
            f"{who}: the {what} iteration still moves by {float(raw(change)):.3g} after "
            f"{max_iter} steps (tol={tol:g}); f must be a contraction in x near the fixed "
            f"point: start closer, or raise max_iter or tol"
        )
    return x


@partial(custom_vjp, nondiff_argnums=(0, 3, 4, 5))
def _fixed_point(f, a, x0, tol, max_iter, who):
    return _iterate(lambda x: f(a, x), x0, tol, max_iter, who, "forward")


def _fixed_point_fwd(f, a, x0, tol, max_iter, who):
    x = _fixed_point.fun(f, a, x0, tol, max_iter, who)
    return x, (a, x)


def _fixed_point_bwd(f, tol, max_iter, who, res, g):
    a, x = res
    _, pull_x = vjp(lambda x: f(a, x), x)  # f runs once here, not once per iteration

    def adjoint(w):  # w = g + (df/dx)^T w at the fixed point
        return tree_map(lambda gi, pi: gi + pi, g, pull_x(w)[0])

    w = _iterate(adjoint, g, tol, max_iter, who, "adjoint")
    _, pull_a = vjp(lambda a: f(a, x), a)
    return pull_a(w)[0], None


_fixed_point.defvjp(_fixed_point_fwd, _fixed_point_bwd)


def fixed_point(
    f: Callable, a: Any, x0: Any, *, tol: float | None = None, max_iter: int = 1000
) -> Any:
    """``x*`` with ``x* = f(a, x*)``, iterated from ``x0``; differentiable in ``a``
    (any pytree) by the implicit function theorem.

    The iteration stops when no entry of ``x`` changes by more than ``tol``
    (by default 1e-10, or 1e-5 where ``x0`` or ``a`` is float32, whose steps
    move by rounding errors well above 1e-10);
    one that has not stopped after ``max_iter`` steps raises
    :class:`NoConvergenceError`. ``x0`` has no derivative: the fixed point does
    not depend on where the iteration started.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> A = np.array([[0.5, 0.1], [0.2, 0.3]])
    >>> solve = lambda b: fg.fixed_point(lambda b, x: A @ x + b, b, np.zeros(2))  # (I - A) x = b
    >>> bool(np.allclose(fg.jacrev(solve)(np.ones(2)), np.linalg.inv(np.eye(2) - A)))
    True
    """
    who = f"fixed_point of {fun_name(f)}"
    if tol is not None and (
        isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not tol >= 0
    ):
        raise ArgumentError(
            f"{who}: tol must be a number >= 0 (the largest change that stops "
            f"the iteration); got {tol!r:.40}"
        )
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ArgumentError(f"{who}: max_iter must be a positive int; got {max_iter!r:.40}")
    if tol is None:
        single = any(dtype_of(v) == np.float32 for v in tree_leaves((a, x0)))
        tol = 1e-5 if single else 1e-10
    return _fixed_point(f, a, x0, tol, max_iter, who)
