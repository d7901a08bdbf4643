"""Taylor mode: ``jet``, the derivatives of a function along a path, to any order in one pass.

``jet(f, primals, series)`` takes a path ``x(t) = x0 + x1 t + x2 t^2/2! + ...``
(``primals`` the ``x0``, ``series`` the ``x1, x2, ...``, JAX's convention) and
returns ``f(x0)`` and ``y1, y2, ...``, the derivatives ``d^k f(x(t)) / dt^k`` at
``t = 0``. Each value of a :class:`JetTrace` carries its truncated Taylor
polynomial, and each primitive propagates it:

- a primitive linear in its traced operands (``add``, ``reshape``, ``sum``,
  indexing, ``fft``, ...) maps each coefficient;
- a product (``multiply``, ``matmul``, ``einsum``, convolutions) convolves the
  coefficients (Leibniz's rule);
- ``divide``, ``exp``, ``log``, ``sqrt``, ``sin``/``cos``, ``tanh``, ``sinh``/``cosh``,
  ``expm1`` and ``log1p`` by their recurrences (each coefficient a sum over the lower
  ones: quadratic in the order);
- a piecewise-constant one (``sign``, ``floor``, comparisons) has none;
- every other primitive (the rest of the elementwise ones, the loops and
  branches, sorting, the linear algebra) by its own derivatives: forward mode
  nested to the order asked, of that primitive alone on its operands' polynomials.
  Exact, with a cost of ``2^order`` calls of the primitive.

Coefficients are kept divided by ``k!`` inside (the recurrences are simpler) and
multiplied back at the boundary.

>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> y0, (y1, y2, y3) = fg.jet(fnp.exp, (0.0,), ((1.0, 0.0, 0.0),))
>>> y0, y1, y2, y3                      # exp's derivatives at 0 along t
(np.float64(1.0), np.float64(1.0), np.float64(1.0), np.float64(1.0))
>>> fg.jet(lambda x: x ** 3, (2.0,), ((1.0, 0.0, 0.0),))[1]
[np.float64(12.0), np.float64(12.0), np.float64(6.0)]
"""

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..analysis import facts
from ..core.errors import ArgumentTypeError, ShapeError
from ..core.primitive import numpy_answer
from ..core.traces import Trace, new_level
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import format_value, shape_of, zeros_like_value
from ..dag.arraylike import ArrayLike
from ..rules import elementwise as ew
from ..rules import ufuncs
from ..rules.ufuncs import in_dtype_of
from .arguments import call_user, check_callable, diff_leaf, fun_name, result_of
from .forward import Dual, ForwardTrace

__all__ = ["Jet", "JetTrace", "jet"]


class Jet(ArrayLike):
    """A value with its Taylor coefficients (divided by ``k!``; None for zeros), of one
    jet trace."""

    __slots__ = ("_value", "_terms", "_trace")

    def __init__(self, value, terms, trace):
        self._value = value
        self._terms = terms
        self._trace = trace

    def __repr__(self):
        return f"<Jet {format_value(self._value)} order {len(self._terms)}>"


class JetTrace(Trace):
    """Taylor mode to ``order``: every primitive call propagates the coefficients."""

    __slots__ = ("order",)
    box_type = Jet
    differentiates = True

    def __init__(self, level, order):
        super().__init__(level)
        self.order = order

    def process(self, prim, args, params):
        primals, series = [], []
        for a in args:
            if type(a) is Jet and a._trace is self:
                primals.append(a._value)
                series.append(a._terms)
            else:
                primals.append(a)
                series.append(None)
        ans = prim(*primals, **params)
        return Jet(ans, _propagate(prim, primals, series, ans, params, self.order), self)

    def __repr__(self):
        return f"<jet trace {self.level}>"


def _propagate(prim, primals, series, ans, params, order):
    """The output's coefficients 1..order (a list; None where zero)."""
    moving = [i for i, s in enumerate(series) if s is not None and any(t is not None for t in s)]
    if not moving:
        return [None] * order
    if all(i in facts.of(prim).flat for i in moving):
        return [None] * order
    rule = _RULES.get(prim)
    if rule is not None and moving == [0]:
        x = [primals[0]] + _filled(series[0], primals[0])
        return rule(x, ans, order)
    linear = facts.of(prim).linear
    if linear == "all" or (isinstance(linear, frozenset) and all(i in linear for i in moving)):
        return [_linear_term(prim, primals, series, moving, params, k) for k in range(order)]
    if linear == "each":
        return _leibniz(prim, primals, series, moving, params, order)
    if prim is ew.divide:  # the denominator moves
        return _divide(primals, series, ans, order)
    return _nested_forward(prim, primals, series, params, order, ans)


def _filled(terms, like):
    return [zeros_like_value(like) if t is None else t for t in terms]


def _linear_term(prim, primals, series, moving, params, k):
    """Coefficient ``k + 1`` of a primitive linear in its moving operands: the primitive
    of their coefficients, the other operands as they are (zeros for a moving one's
    missing coefficient)."""
    args = list(primals)
    for i in moving:
        t = series[i][k]
        args[i] = zeros_like_value(primals[i]) if t is None else t
    if facts.of(prim).linear == "all":  # jointly linear: the fixed operands contribute nothing
        for i in range(len(args)):
            if i not in moving and _inexact(args[i]):
                args[i] = zeros_like_value(args[i])
    return prim(*args, **params)


def _inexact(v):
    """A float or complex operand (an index or a mask stays as it is)."""
    if isinstance(v, (float, complex)):
        return True
    dtype = getattr(v, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", "") in "fc"


def _leibniz(prim, primals, series, moving, params, order):
    """A product's coefficients: ``c_k = sum_j f(a_j, b_{k-j})``, over its moving
    operands (one moving operand: the primitive of its coefficients)."""
    if len(moving) == 1:
        return [_linear_term(prim, primals, series, moving, params, k) for k in range(order)]
    if len(moving) != 2:
        return _nested_forward(prim, primals, series, params, order, None)
    i, j = moving
    a = [primals[i]] + series[i]
    b = [primals[j]] + series[j]
    out = []
    for k in range(1, order + 1):
        total = None
        for m in range(k + 1):
            if a[m] is None or b[k - m] is None:
                continue
            args = list(primals)
            args[i], args[j] = a[m], b[k - m]
            term = prim(*args, **params)
            total = term if total is None else total + term
        out.append(total)
    return out


def _divide(primals, series, ans, order):
    """``q = a / b``: ``q_k = (a_k - sum_{j=1..k} b_j q_{k-j}) / b_0``."""
    a = [primals[0]] + (_filled(series[0], primals[0]) if series[0] else [None] * order)
    b = [primals[1]] + (_filled(series[1], primals[1]) if series[1] else [None] * order)
    q = [ans]
    for k in range(1, order + 1):
        total = a[k] if a[k] is not None else 0.0
        for j in range(1, k + 1):
            if b[j] is not None:
                total = total - b[j] * q[k - j]
        q.append(total / b[0])
    return q[1:]


def _nested_forward(prim, primals, series, params, order, ans):
    """Any primitive by its own derivatives: ``h(t) = prim(polynomials of t)``, whose
    ``k``-th derivative at 0 over ``k!`` is coefficient ``k``; forward mode nested ``k``
    deep, on this primitive alone."""

    def h(t):
        args = list(primals)
        for i, s in enumerate(series):
            if s is not None:
                path = primals[i]
                for k, term in enumerate(s, start=1):
                    if term is not None:
                        path = path + term * t**k
                args[i] = path
        return prim(*args, **params)

    out = []
    derivative = h
    for k in range(1, order + 1):
        derivative = _derivative_of(derivative)
        out.append(_over(derivative(0.0), math.factorial(k), ans))
    return out


def _over(value, n, like):
    """``value / n`` in ``like``'s dtype; entry by entry for a primitive of several
    results (a loop's), whose derivatives come as a tuple."""
    if isinstance(value, tuple):
        parts = (
            [_over(v, n, w) for v, w in zip(value, like)]
            if like is not None
            else [_over(v, n, None) for v in value]
        )
        return type(value)(parts)
    if value is None:
        return None
    return value / n if like is None else in_dtype_of(value / n, like)


def _derivative_of(g):
    """``t -> g'(t)`` by forward mode (``g`` of a scalar; its result may be a primitive's
    tuple of results, whose derivative is a tuple too, None for a zero entry)."""

    def derivative(t):
        trace = ForwardTrace(new_level())
        return _tangent(g(Dual(t, 1.0, trace)), trace)

    return derivative


def _tangent(out, trace):
    if type(out) is Dual:
        return out._tangent if out._trace is trace else None
    if isinstance(out, tuple):
        return type(out)(_tangent(o, trace) for o in out)
    return None  # a value that does not depend on t


# -- recurrences of elementwise functions, on x = [x_0, x_1, ..., x_K] (divided by k!) --


def _exp(x, y0, order):
    y = [y0]
    for k in range(1, order + 1):
        y.append(sum(j * x[j] * y[k - j] for j in range(1, k + 1)) / k)
    return y[1:]


def _expm1(x, y0, order):
    return _exp(x, y0 + 1.0, order)


def _log(x, y0, order, base=None):
    base = x[0] if base is None else base
    y = [y0]
    for k in range(1, order + 1):
        acc = x[k]
        for j in range(1, k):
            acc = acc - j * y[j] * x[k - j] / k
        y.append(acc / base)
    return y[1:]


def _log1p(x, y0, order):
    return _log(x, y0, order, base=1.0 + x[0])


def _sin_cos(x, s0, c0, order):
    s, c = [s0], [c0]
    for k in range(1, order + 1):
        s.append(sum(j * x[j] * c[k - j] for j in range(1, k + 1)) / k)
        c.append(-sum(j * x[j] * s[k - j] for j in range(1, k + 1)) / k)
    return s[1:], c[1:]


def _sinh_cosh(x, s0, c0, order):
    s, c = [s0], [c0]
    for k in range(1, order + 1):
        s.append(sum(j * x[j] * c[k - j] for j in range(1, k + 1)) / k)
        c.append(sum(j * x[j] * s[k - j] for j in range(1, k + 1)) / k)
    return s[1:], c[1:]


def _product(a, b, k):
    return sum(a[j] * b[k - j] for j in range(k + 1))


def _tanh(x, y0, order):
    # y' = (1 - y^2) x': with z = 1 - y^2, y_k = (1/k) sum_j j x_j z_{k-j}
    y, z = [y0], [1.0 - y0 * y0]
    for k in range(1, order + 1):
        y.append(sum(j * x[j] * z[k - j] for j in range(1, k + 1)) / k)
        z.append(-_product(y, y, k))
    return y[1:]


def _sqrt(x, y0, order):
    y = [y0]
    for k in range(1, order + 1):
        acc = x[k]
        for j in range(1, k):
            acc = acc - y[j] * y[k - j]
        y.append(acc / (2.0 * y0))
    return y[1:]


_RULES = {
    ew.exp: lambda x, ans, order: _exp(x, ans, order),
    ew.log: lambda x, ans, order: _log(x, ans, order),
    ew.sqrt: lambda x, ans, order: _sqrt(x, ans, order),
    ew.sin: lambda x, ans, order: _sin_cos(x, ans, ew.cos(x[0]), order)[0],
    ew.cos: lambda x, ans, order: _sin_cos(x, ew.sin(x[0]), ans, order)[1],
    ew.tanh: lambda x, ans, order: _tanh(x, ans, order),
    ufuncs.sinh: lambda x, ans, order: _sinh_cosh(x, ans, ufuncs.cosh(x[0]), order)[0],
    ufuncs.cosh: lambda x, ans, order: _sinh_cosh(x, ufuncs.sinh(x[0]), ans, order)[1],
    ufuncs.expm1: lambda x, ans, order: _expm1(x, ans, order),
    ufuncs.log1p: lambda x, ans, order: _log1p(x, ans, order),
}


# -- the transform ----------------------------------------------------------------------


def jet(fun: Callable, primals: Sequence, series: Sequence) -> tuple[Any, Any]:
    """``(f(primals), series_out)``: ``f`` along the path whose derivatives at ``t = 0``
    are ``primals`` and ``series``, and the path's image's derivatives (JAX's
    ``jax.experimental.jet.jet``: ``series`` holds, for each primal, the list of its
    coefficients ``x1, x2, ...``; ``series_out`` has the output's structure with a list
    of ``y1, y2, ...`` at each leaf).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> x0, x1, x2 = 0.5, 1.0, 0.0
    >>> y0, (y1, y2) = fg.jet(fnp.sin, (x0,), ((x1, x2),))
    >>> bool(np.isclose(y1, np.cos(x0))), bool(np.isclose(y2, -np.sin(x0)))
    (True, True)
    """
    who = f"jet of {fun_name(check_callable(fun, 'jet'))}"
    if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
        raise ArgumentTypeError(
            f"{who}: primals and series must be tuples, one entry per argument, e.g. "
            f"jet(f, (x,), ((x1, x2),))"
        )
    if len(primals) != len(series):
        raise ArgumentTypeError(
            f"{who}: {len(primals)} primals but {len(series)} series; give one list of "
            f"coefficients per argument"
        )
    p_leaves, p_def = tree_flatten(tuple(primals))
    s_leaves, s_def = tree_flatten(
        tuple(series),
        is_leaf=lambda s: (
            isinstance(s, (list, tuple)) and not any(isinstance(v, (list, tuple, dict)) for v in s)
        ),
    )
    if len(s_leaves) != len(p_leaves):
        raise ShapeError(
            f"{who}: series must have the structure of the primals with a list of "
            f"coefficients at each leaf; got {s_def!r} for primals {p_def!r}"
        )
    orders = {len(s) for s in s_leaves}
    if len(orders) != 1:
        raise ShapeError(
            f"{who}: every list of coefficients must have one length; got {sorted(orders)}"
        )
    (order,) = orders
    trace = JetTrace(new_level(), order)
    jets = []
    for k, (p, s) in enumerate(zip(p_leaves, s_leaves)):
        p = diff_leaf(p, who, f"primal {k}")
        terms = []
        for m, term in enumerate(s, start=1):
            term = diff_leaf(term, who, f"coefficient {m} of argument {k}")
            if shape_of(term) != shape_of(p):
                raise ShapeError(
                    f"{who}: coefficient {m} of argument {k} has shape {shape_of(term)}, but "
                    f"its primal has {shape_of(p)}"
                )
            terms.append(term / math.factorial(m))
        jets.append(Jet(p, terms, trace))
    out = call_user(fun, tree_unflatten(p_def, jets), None, who)
    o_leaves, o_def = tree_flatten(out)
    primal_out = [result_of(trace, o) for o in o_leaves]
    series_out = []
    for o, p in zip(o_leaves, primal_out):
        terms = o._terms if trace.owns(o) else [None] * order
        series_out.append(
            [
                numpy_answer(
                    in_dtype_of(zeros_like_value(p) if t is None else t * math.factorial(m), p)
                )
                for m, t in enumerate(terms, start=1)
            ]
        )
    return tree_unflatten(o_def, primal_out), tree_unflatten(o_def, series_out)
