"""``funcgrad.scipy.optimize.minimize``: JAX's BFGS front end, on SciPy's BFGS.

``minimize(fun, x0, args=(), method="BFGS")`` minimizes ``fun(x, *args)`` over a
1-D ``x`` with SciPy's BFGS, given funcgrad's gradient, and returns JAX's
``OptimizeResults`` (``x``, ``success``, ``status``, ``fun``, ``jac``,
``hess_inv``, ``nfev``, ``njev``, ``nit``). It runs under ``jit`` and ``vmap``
(the optimizer is a host call, :func:`funcgrad.pure_callback`, on the values
of each call) and, unlike JAX's, has a derivative: the minimum ``x*`` moves
with ``args`` and whatever ``fun`` closes over as the implicit function theorem
says of ``grad fun(x*) = 0``, so ``dx* = -H^-1 d(grad fun)``, with ``H`` the
Hessian at ``x*`` (no step of the optimizer is recorded).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def fit(c):
...     return minimize(lambda x: fnp.sum((x - c) ** 2) + fnp.sum(x ** 4), np.zeros(2)).x
>>> bool(np.allclose(fit(np.array([1.0, -0.5])), [0.5898, -0.3855], atol=1e-4))
True
>>> h = lambda x: 2 + 12 * x ** 2                         # d fit / d c = 2 / (2 + 12 x^2)
>>> x = fit(np.array([1.0, -0.5]))
>>> bool(np.allclose(np.diag(fg.jacobian(fit)(np.array([1.0, -0.5]))), 2 / h(x), atol=1e-5))
True
"""

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import scipy.optimize

from .. import numpy as fnp
from ..control.callbacks import pure_callback
from ..control.closures import Closed, negated, pull_captured
from ..control.custom_rules import custom_vjp
from ..core.errors import ArgumentError
from ..core.traces import Box
from ..core.values import dtype_of, shape_of
from ..jit.abstract import ShapeDtypeStruct
from ..transforms.jacobians import hessian
from ..transforms.reverse import grad, value_and_grad

__all__ = ["minimize", "OptimizeResults"]


class OptimizeResults(NamedTuple):
    """What :func:`minimize` returns (JAX's fields).

    >>> import numpy as np
    >>> from funcgrad.scipy.optimize import minimize
    >>> res = minimize(lambda x: ((x - 3.0) ** 2).sum(), np.zeros(2), method="BFGS")
    >>> bool(res.success), np.round(res.x, 4)
    (True, array([3., 3.]))
    """

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def _host_bfgs(closed, tol, options, x0, *captured):
    """SciPy's BFGS on plain values, with funcgrad's gradient of the traced objective."""
    objective = closed.at(list(captured))
    found = scipy.optimize.minimize(
        value_and_grad(objective),
        np.asarray(x0, np.float64),
        jac=True,
        method="BFGS",
        tol=tol,
        options=dict(options),
    )
    n = np.shape(x0)[0]
    hess_inv = np.asarray(getattr(found, "hess_inv", np.eye(n)), np.float64)
    return (
        np.asarray(found.x, np.float64),
        np.bool_(found.success),
        np.int32(found.status),
        np.int32(found.nfev),
        np.int32(found.njev),
        np.int32(found.nit),
        hess_inv,
    )


def _run(closed, tol, options, captured, x0):
    """The host run: at once on plain values, else a pure_callback (under jit or vmap)."""
    if not any(isinstance(v, Box) for v in (x0, *captured)):
        return _host_bfgs(closed, tol, options, x0, *captured)
    n = shape_of(x0)[0]
    spec = (
        ShapeDtypeStruct((n,), np.float64),
        ShapeDtypeStruct((), np.bool_),
        *(ShapeDtypeStruct((), np.int32) for _ in range(4)),
        ShapeDtypeStruct((n, n), np.float64),
    )
    host = partial(_host_bfgs, closed, tol, options)
    host.__name__ = "minimize"  # how pure_callback's messages name it
    return pure_callback(host, spec, x0, *captured, vmap_method="sequential")


@partial(custom_vjp, nondiff_argnums=(0, 1, 2))
def _minimum(closed, tol, options, captured, x0):
    return _run(closed, tol, options, captured, x0)


def _minimum_fwd(closed, tol, options, captured, x0):
    out = _run(closed, tol, options, captured, x0)
    return out, (captured, out[0])


def _minimum_bwd(closed, tol, options, res, g):
    captured, x = res
    u = fnp.linalg.solve(hessian(closed.at(captured))(x), g[0])  # H u = g
    slope = negated(pull_captured(lambda c: grad(closed.at(c))(x), captured, u))
    return slope, None


_minimum.defvjp(_minimum_fwd, _minimum_bwd)


def minimize(
    fun: Callable,
    x0: Any,
    args: tuple = (),
    *,
    method: str = "BFGS",
    tol: float | None = None,
    options: dict | None = None,
) -> OptimizeResults:
    """The minimum of ``fun(x, *args)`` from ``x0`` (1-D) by BFGS; see the module docstring.

    >>> import numpy as np
    >>> import funcgrad.numpy as fnp
    >>> from funcgrad.scipy.optimize import minimize
    >>> r = minimize(lambda x, a: fnp.sum((x - a) ** 2), np.zeros(3), (np.arange(3.0),))
    >>> bool(r.success), np.round(r.x, 6), int(r.nit) > 0
    (True, array([0., 1., 2.]), True)
    """
    who = "scipy.optimize.minimize"
    if str(method).upper() != "BFGS":
        raise ArgumentError(
            f"{who}: method {method!r} is not offered; JAX's is 'BFGS', and so is funcgrad's"
        )
    if len(shape_of(x0)) != 1:
        raise ArgumentError(
            f"{who}: x0 must be 1-D (JAX's rule); got shape {shape_of(x0)}: "
            f"flatten it (fg.ravel_pytree) and unflatten in fun"
        )
    if dtype_of(x0).kind not in "fc":
        x0 = fnp.asarray(x0, dtype=np.float64)
    closed = Closed(lambda x: fun(x, *args), x0, who)
    settings = tuple(sorted((options or {}).items()))  # hashable: a static argument
    x, success, status, nfev, njev, nit, hess_inv = _minimum(
        closed, tol, settings, tuple(closed.captured), x0
    )
    value, slope = value_and_grad(closed.at(closed.captured))(x)
    return OptimizeResults(x, success, status, value, slope, hess_inv, nfev, njev, nit)


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
