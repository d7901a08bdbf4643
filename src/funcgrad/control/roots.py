"""``custom_root`` and ``custom_linear_solve``: solvers differentiated implicitly (JAX's).

``custom_root(f, x0, solve, tangent_solve)`` is ``solve(f, x0)``, a root of
``f``, whatever the solver did to find it; its derivative in the values ``f``
closes over comes from the implicit function theorem, not from the solver's
steps: differentiating ``f(x*, theta) = 0`` gives ``dx* = -(df/dx)^-1 (df/dtheta)
dtheta``, so reverse mode solves ``(df/dx)^T u = g`` with ``tangent_solve`` and
returns ``-(df/dtheta)^T u``. ``custom_linear_solve(matvec, b, solve,
transpose_solve)`` is ``solve(matvec, b)``, differentiated as the solution of
the linear system ``matvec(x) = b``: in ``b`` through ``transpose_solve`` (or
``solve`` itself, ``symmetric=True``), in what ``matvec`` closes over as
``-(d matvec)^T`` of the solution.

The values ``f`` and ``matvec`` close over are found by tracing them once
(:func:`~funcgrad.control.body.trace_body`), so a closure over a traced value, the
usual way to write them, is differentiated rather than refused. The solver runs
on plain values; its own steps are never recorded.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad import lax
>>> def newton(f, x):
...     for _ in range(30):
...         x = x - f(x) / fg.grad(f)(x)
...     return x
>>> def sqrt(a):
...     return lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
>>> float(sqrt(2.0)), float(fg.grad(sqrt)(2.0)), 0.5 / np.sqrt(2.0)
(1.414213562373095, 0.3535533905932738, np.float64(0.35355339059327373))
"""

from collections.abc import Callable
from functools import partial
from typing import Any

from ..core.errors import ArgumentError, MissingRuleError
from ..core.tree import tree_map
from ..transforms.arguments import fun_name, stop_gradient
from ..transforms.reverse import vjp
from .closures import Closed, negated, pull_captured
from .custom_rules import custom_vjp

__all__ = ["custom_root", "custom_linear_solve"]


# -- custom_root ---------------------------------------------------------------------------


@partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3))
def _root(closed, solve, tangent_solve, has_aux, captured, guess):
    out = solve(closed.at(captured), guess)
    if has_aux:
        return out[0], tree_map(stop_gradient, out[1])
    return out


def _root_fwd(closed, solve, tangent_solve, has_aux, captured, guess):
    out = _root.fun(closed, solve, tangent_solve, has_aux, captured, guess)
    return out, (captured, out[0] if has_aux else out)


def _root_bwd(closed, solve, tangent_solve, has_aux, res, g):
    captured, x = res
    if has_aux:
        g = g[0]
    _, pull_x = vjp(closed.at(captured), x)
    u = tangent_solve(lambda v: pull_x(v)[0], g)  # (df/dx)^T u = g
    return negated(pull_captured(lambda c: closed.at(c)(x), captured, u)), None


_root.defvjp(_root_fwd, _root_bwd)


def custom_root(
    f: Callable, initial_guess: Any, solve: Callable, tangent_solve: Callable, has_aux: bool = False
) -> Any:
    """``solve(f, initial_guess)``, a root of ``f``, differentiated implicitly in what ``f``
    closes over (see the module docstring). ``tangent_solve(g, y)`` solves ``g(x) = y``
    for a linear ``g`` (``lambda g, y: y / g(1.0)`` for scalars, a dense solve of
    ``fg.jacobian(g)`` otherwise). With ``has_aux``, ``solve`` returns ``(root, aux)``
    and ``aux`` has no derivative.

    >>> from funcgrad.lax import custom_root
    >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
    >>> A = np.array([[3.0, 1.0], [1.0, 2.0]])
    >>> dense = lambda g, y: fnp.linalg.solve(fg.jacobian(g)(y), y)
    >>> newton = lambda f, x: x - dense(lambda v: fg.jvp(f, (x,), (v,))[1], f(x))
    >>> root = lambda b: custom_root(lambda x: A @ x - b, np.zeros(2), newton, dense)
    >>> bool(np.allclose(fg.jacobian(root)(np.ones(2)), np.linalg.inv(A)))
    True
    """
    who = f"custom_root of {fun_name(f)}"
    for name, fun in (("f", f), ("solve", solve), ("tangent_solve", tangent_solve)):
        if not callable(fun):
            raise ArgumentError(f"{who}: {name} must be a function; got {fun!r:.60}")
    closed = Closed(f, initial_guess, who)
    if closed.out_def != closed.in_def:
        raise ArgumentError(
            f"{who}: f returns a {closed.out_def} for a {closed.in_def}; a root "
            f"needs f(x) of x's structure"
        )
    return _root(closed, solve, tangent_solve, bool(has_aux), tuple(closed.captured), initial_guess)


# -- custom_linear_solve ---------------------------------------------------------------------


@partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _linear(closed, solve, transpose_solve, symmetric, has_aux, captured, b):
    out = solve(closed.at(captured), b)
    if has_aux:
        return out[0], tree_map(stop_gradient, out[1])
    return out


def _linear_fwd(closed, solve, transpose_solve, symmetric, has_aux, captured, b):
    out = _linear.fun(closed, solve, transpose_solve, symmetric, has_aux, captured, b)
    return out, (captured, out[0] if has_aux else out)


def _linear_bwd(closed, solve, transpose_solve, symmetric, has_aux, res, g):
    captured, x = res
    if has_aux:
        g = g[0]
    matvec = closed.at(captured)
    if symmetric:
        b_bar = solve(matvec, g)
    elif transpose_solve is None:
        raise MissingRuleError(
            f"{closed.who}: reverse mode needs the transposed system "
            f"solved; pass transpose_solve= (or symmetric=True if matvec "
            f"is symmetric)"
        )
    else:
        _, pull = vjp(matvec, x)
        b_bar = transpose_solve(lambda v: pull(v)[0], g)  # matvec^T b_bar = g
    return negated(pull_captured(lambda c: closed.at(c)(x), captured, b_bar)), b_bar


_linear.defvjp(_linear_fwd, _linear_bwd)


def custom_linear_solve(
    matvec: Callable,
    b: Any,
    solve: Callable,
    transpose_solve: Callable | None = None,
    symmetric: bool = False,
    has_aux: bool = False,
) -> Any:
    """``solve(matvec, b)``, the ``x`` with ``matvec(x) = b``, differentiated as the
    solution of that linear system (see the module docstring): ``transpose_solve(vecmat,
    g)`` solves the transposed system, or ``solve`` does where ``symmetric``.

    >>> from funcgrad.lax import custom_linear_solve
    >>> import numpy as np, funcgrad as fg, funcgrad.numpy as fnp
    >>> A = np.array([[3.0, 1.0], [1.0, 2.0]])
    >>> def dense(mv, b):
    ...     return fnp.linalg.solve(fg.jacobian(mv)(b), b)
    >>> f = lambda s: fnp.sum(custom_linear_solve(lambda x: s * (A @ x), np.ones(2), dense,
    ...                                           symmetric=True))
    >>> float(fg.grad(f)(2.0)), -np.linalg.solve(A, np.ones(2)).sum() / 4
    (-0.15, np.float64(-0.15))
    """
    who = f"custom_linear_solve of {fun_name(matvec)}"
    for name, fun in (("matvec", matvec), ("solve", solve)):
        if not callable(fun):
            raise ArgumentError(f"{who}: {name} must be a function; got {fun!r:.60}")
    closed = Closed(matvec, b, who)
    return _linear(
        closed, solve, transpose_solve, bool(symmetric), bool(has_aux), tuple(closed.captured), b
    )
