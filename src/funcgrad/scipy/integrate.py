"""``funcgrad.scipy.integrate.odeint``: SciPy's ODE solver, differentiable by the adjoint method
(and ``trapezoid``, the trapezoidal rule on samples).

``odeint(func, y0, t, args=())`` solves ``dy/dt = func(y, t, *args)`` with
SciPy's LSODA and returns ``y`` at every time in ``t`` (shape ``(len(t),) +
y0.shape``), exactly ``scipy.integrate.odeint``'s values. ``func`` is written
with funcgrad.numpy; ``args`` may be any pytree of arrays.

Derivatives with respect to ``y0``, ``t`` and ``args`` never differentiate the
solver's steps. Reverse mode solves the adjoint system backwards from the last
time to the first (Pontryagin; Chen et al., 2018): with ``a(t)`` the cotangent
of ``y(t)``,

    da/dt = -a . df/dy,     d(a_args)/dt = -a . df/dargs,     d(a_t0)/dt = -a . df/dt,

one vector-Jacobian product of ``func`` per evaluation, each interval started
from the cotangent the loss puts on ``y(t_i)``. Forward mode solves the
sensitivity equations ``ds/dt = df/dy s + df/dargs dargs`` beside ``y``. Both
run at the solver's tolerances (``rtol``, ``atol``), so the derivatives are
accurate to about those. A second derivative through the solver raises
MissingRuleError (it would need the adjoint of the adjoint).

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> decay = lambda y, t, k: -k * y
>>> t = np.array([0.0, 1.0])
>>> y1 = lambda k: odeint(decay, np.array([1.0]), t, (k,))[-1, 0]      # exp(-k)
>>> round(float(fg.grad(y1)(0.5)), 6), round(float(-np.exp(-0.5)), 6)
(-0.606531, -0.606531)
"""

import numpy as np
import scipy.integrate

from .. import numpy as fnp
from ..core.errors import ArgumentError
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import shape_of
from ..jit.jitted import jit
from ..rules.arrays import getitem, reshape
from ..transforms.forward import jvp
from ..transforms.ravel import ravel_pytree
from ..transforms.reverse import vjp

__all__ = ["odeint", "trapezoid"]


def odeint(func, y0, t, args=(), rtol=None, atol=None, mxstep=None, hmax=None, hmin=None):
    """``scipy.integrate.odeint(func, y0, t, args)``, differentiable in ``y0``, ``t`` and ``args``.

    >>> import numpy as np
    >>> from funcgrad.scipy.integrate import odeint
    >>> ys = odeint(lambda y, t: np.array([y[1], -y[0]]), np.array([1.0, 0.0]), np.linspace(0, np.pi, 3))
    >>> ys.round(6)
    array([[ 1.,  0.],
           [ 0., -1.],
           [-1., -0.]])
    """
    if not isinstance(args, tuple):
        args = (args,)
    leaves, treedef = tree_flatten(args)
    y0 = y0 if isinstance(y0, Box) else np.asarray(y0, dtype=float)
    t = t if isinstance(t, Box) else np.asarray(t, dtype=float)
    if len(shape_of(t)) != 1 or shape_of(t)[0] < 1:
        raise ArgumentError(f"odeint: t must be a 1-D array of times; got shape {shape_of(t)}")
    given = (("rtol", rtol), ("atol", atol), ("mxstep", mxstep), ("hmax", hmax), ("hmin", hmin))
    options = tuple((k, v) for k, v in given if v is not None)  # SciPy's defaults otherwise
    return _odeint(y0, t, *leaves, func=func, treedef=treedef, options=options)


class _System:
    """``func`` on flat vectors: ``f(y, s, a)`` with ``y`` raveled and the args one vector."""

    def __init__(self, func, shape, treedef, leaves):
        self.func, self.shape, self.treedef = func, shape, treedef
        self.args, self.unravel = ravel_pytree(list(leaves))

    def __call__(self, y, s, a):
        args = tree_unflatten(self.treedef, self.unravel(a))
        return reshape(self.func(reshape(y, shape=self.shape), s, *args), shape=(-1,))

    def solve(self, rhs, start, times, options):
        return scipy.integrate.odeint(rhs, start, times, **dict(options))


def _solve(y0, t, *leaves, func, treedef, options):
    system = _System(func, np.shape(y0), treedef, leaves)
    out = system.solve(
        lambda y, s: np.asarray(system(y, s, system.args), dtype=float), np.ravel(y0), t, options
    )
    return out.reshape((len(t),) + np.shape(y0))


def _adjoint(g, ys, y0, t, *leaves, func, treedef, options):
    """Every cotangent at once, packed ``[y0 | t | args]``: the adjoint system solved
    backwards interval by interval."""
    system = _System(func, np.shape(y0), treedef, leaves)
    n, m, steps = np.size(y0), np.size(system.args), len(t)
    g, ys = np.reshape(g, (steps, n)), np.reshape(ys, (steps, n))

    def pulled(y, s, args, a):
        dy, pull = vjp(system, y, s, args)
        return (dy, *pull(-a))

    pulled = jit(pulled)  # traced once per solve, replayed at every step of it

    def backwards(state, s):
        dy, dy_bar, ds_bar, da_bar = pulled(state[:n], s, system.args, state[n : 2 * n])
        return np.concatenate([dy, dy_bar, np.ravel(ds_bar), np.ravel(da_bar)])

    a, a_t0, a_args = g[-1], 0.0, np.zeros(m)
    t_bar = np.zeros(steps)
    for i in range(steps - 1, 0, -1):
        t_bar[i] = np.dot(system(ys[i], t[i], system.args), g[i])  # moving t_i moves y(t_i)
        a_t0 = a_t0 - t_bar[i]
        start = np.concatenate([ys[i], a, [a_t0], a_args])
        end = system.solve(backwards, start, np.array([t[i], t[i - 1]]), options)[-1]
        a, a_t0, a_args = end[n : 2 * n] + g[i - 1], end[2 * n], end[2 * n + 1 :]
    t_bar[0] = a_t0
    return np.concatenate([a, t_bar, a_args])


def _sensitivity(dy0, dt, *dleaves_and_rest, func, treedef, options, count):
    """The output tangent: the sensitivity equations solved beside ``y``."""
    dleaves, (ys, y0, t, *leaves) = dleaves_and_rest[:count], dleaves_and_rest[count:]
    system = _System(func, np.shape(y0), treedef, leaves)
    n = np.size(y0)
    da = ravel_pytree(list(dleaves))[0]

    @jit
    def pushed(y, s, args, sens, da):
        return jvp(system, (y, s, args), (sens, 0.0 * s, da))

    def forwards(state, s):
        dy, dsens = pushed(state[:n], s, system.args, state[n:], da)
        return np.concatenate([dy, dsens])

    ys_flat = np.reshape(ys, (len(t), n))
    f0 = system(ys_flat[0], t[0], system.args)
    start = np.concatenate([ys_flat[0], np.ravel(dy0) - f0 * dt[0]])  # a later start shifts y
    sens = system.solve(forwards, start, t, options)[:, n:]
    moved = np.stack([system(ys_flat[i], t[i], system.args) * dt[i] for i in range(len(t))])
    return (sens + moved).reshape(np.shape(ys))


_adjoint_p = Primitive("odeint_adjoint", _adjoint)
_sensitivity_p = Primitive("odeint_sensitivity", _sensitivity)


def _odeint_vjp(argnums, g, ys, y0, t, *leaves, func, treedef, options):
    packed = _adjoint_p(g, ys, y0, t, *leaves, func=func, treedef=treedef, options=options)
    sizes = [int(np.size(y0)), len(t)] + [int(np.size(leaf)) for leaf in leaves]
    shapes = [np.shape(y0), np.shape(t)] + [np.shape(leaf) for leaf in leaves]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return [
        reshape(getitem(packed, index=slice(int(offsets[i]), int(offsets[i + 1]))), shape=shapes[i])
        for i in argnums
    ]


def _odeint_jvp(tangents, ys, y0, t, *leaves, func, treedef, options):
    dy0, dt, *dleaves = tangents
    dy0 = np.zeros(np.shape(y0)) if dy0 is None else dy0
    dt = np.zeros(np.shape(t)) if dt is None else dt
    dleaves = [np.zeros(np.shape(leaf)) if d is None else d for d, leaf in zip(dleaves, leaves)]
    return _sensitivity_p(
        dy0,
        dt,
        *dleaves,
        ys,
        y0,
        t,
        *leaves,
        func=func,
        treedef=treedef,
        options=options,
        count=len(dleaves),
    )


_odeint = Primitive("odeint", _solve, vjp=_odeint_vjp, jvp=_odeint_jvp)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """``scipy.integrate.trapezoid``: the integral of samples ``y`` along ``axis`` by the
    trapezoidal rule, at points ``x`` (or spaced by ``dx``); differentiable in all three.

    >>> import numpy as np
    >>> from funcgrad.scipy.integrate import trapezoid
    >>> trapezoid(np.array([1.0, 2.0, 3.0]), dx=0.5)
    np.float64(2.0)
    """
    if not any(isinstance(v, Box) for v in (y, x, dx)):
        return scipy.integrate.trapezoid(y, x, dx=dx, axis=axis)
    y = fnp.moveaxis(fnp.asarray(y), axis, -1)
    widths = dx
    if x is not None:
        x = fnp.asarray(x)
        widths = fnp.diff(fnp.moveaxis(x, axis, -1) if len(shape_of(x)) > 1 else x, axis=-1)
    return fnp.sum(widths * (y[..., 1:] + y[..., :-1]), axis=-1) / 2.0


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
