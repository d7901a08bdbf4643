"""Backprop: the reverse fold over the real semiring, with local VJPs as edge weights.

For each node, from the output back to the inputs, each parent receives the
node's cotangent pulled back through the primitive's rule for that argument
(the closed-form vector-Jacobian products of the two-page note), and
contributions meeting at a parent are added. Constants are not differentiated.
"""

import operator

import numpy as np

from ._gc import gc_paused
from .errors import MissingRuleError, ShapeError
from .fold import reverse_fold
from .nodemap import node_map
from .node import CONST
from .primitive import EveryArgument, rule_at
from .order import check_outputs, toposort
from .rules.arrays import shape_of, unbroadcast, zeros_like_value

__all__ = ["backprop", "vjp_step", "add_cotangents", "default_seed"]

_NO_PARAMS = {}


add_cotangents = operator.add  # the real semiring's sum: numbers, arrays, traced values

_value_of = operator.attrgetter("_value")


def _missing_rule(prim, i):
    return MissingRuleError(
        f"primitive '{prim.name}' has no reverse-mode rule for argument {i}, "
        f"but that argument depends on a variable; define one with "
        f"fg.defvjp({prim.name}, ...) or wrap the argument in fg.stop_gradient"
    )


def _edge(g, d, x):
    """The pullback along one elementwise edge: ``g * d``, summed to the shape of ``x``.

    A weight of exactly 1 or -1 costs no multiplication; a scalar cotangent
    needs no summing.
    """
    if type(d) is float:
        c = g if d == 1.0 else -g if d == -1.0 else g * d
    else:
        c = g * d
    if type(c) is float or (type(c) is np.ndarray and type(x) is np.ndarray and c.shape == x.shape):
        return c
    return unbroadcast(c, x)


def vjp_step(node, g):
    """The cotangent ``node`` sends to each argument, given its own cotangent ``g``."""
    prim = node._prim
    args = node._args
    ans = node._value
    partials = prim.partials
    if partials is not None and len(args) <= 2:
        # An elementwise node: each edge's weight is the partial derivative (a
        # number for scalars, an array, or a traced value when differentiating
        # again), and its pullback is g * weight summed back to the operand's shape.
        # Unrolled for one and two arguments: this is the hottest code in funcgrad.
        if len(args) == 2:
            a, b = args
            x, y = a._value, b._value
            pa, pb = partials
            if a._prim is CONST:
                ca = None
            elif pa is None:
                raise _missing_rule(prim, 0)
            else:
                ca = _edge(g, pa(ans, x, y), x)
            if b._prim is CONST:
                return (ca, None)
            if pb is None:
                raise _missing_rule(prim, 1)
            return (ca, _edge(g, pb(ans, x, y), y))
        a = args[0]
        if a._prim is CONST:
            return (None,)
        if partials[0] is None:
            raise _missing_rule(prim, 0)
        x = a._value
        return (_edge(g, partials[0](ans, x), x),)
    values = tuple(map(_value_of, args))
    params = node._params or _NO_PARAMS
    rules = prim.vjps
    if type(rules) is EveryArgument and rules.joint is not None:   # many parents: one call
        return [None if a._prim is CONST else c
                for a, c in zip(args, rules.joint(g, ans, *values, **params))]
    out = []
    for i, a in enumerate(args):
        if a._prim is CONST:
            out.append(None)
            continue
        rule = rule_at(rules, i)
        if rule is None:
            raise _missing_rule(prim, i)
        out.append(rule(g, ans, *values, **params))
    return out


def default_seed(output, who):
    """1 for a scalar output; anything else needs an explicit seed."""
    shape = shape_of(output._value)
    if shape:
        raise ShapeError(
            f"{who} of a non-scalar output (shape {shape}) needs a seed: pass "
            f"seed=<cotangent of shape {shape}>, e.g. seed=np.ones({shape})"
        )
    v = output._value
    return 1.0 if type(v) is float else np.ones_like(v, dtype=np.result_type(v, np.float64))


def _check_seed(seed, output):
    if shape_of(seed) != shape_of(output._value):
        raise ShapeError(
            f"backprop: seed has shape {shape_of(seed)} but the output has shape "
            f"{shape_of(output._value)}; the seed is the output's cotangent and must match it"
        )
    return seed


def backprop(output, seed=None, method="dfs", check=False):
    """The gradient of ``output`` with respect to every node it depends on.

    Returns a persistent map ``{node: d output / d node}`` covering the output,
    every intermediate node and every variable. Constants (``fg.const`` and the
    plain numbers mixed into an expression) are not differentiated and are not
    in the map. Nothing is stored on the nodes: calling it twice gives the same
    map. ``check=True`` (or running inside ``fg.debug_nans()``) raises
    :class:`NonFiniteError` at the first node whose value or cotangent is a NaN
    or an infinity, naming the primitive, the node and its inputs.

    >>> import funcgrad as fg
    >>> x, y, z = fg.var(-2.0, name="x"), fg.var(5.0, name="y"), fg.var(-4.0, name="z")
    >>> q = x + y
    >>> f = q * z
    >>> g = fg.backprop(f)
    >>> g[x], g[y], g[z], g[q], g[f]
    (-4.0, -4.0, 3.0, -4.0, 1.0)
    """
    (output,) = check_outputs((output,), "backprop")
    seed = default_seed(output, "backprop") if seed is None else _check_seed(seed, output)
    from .finite import check_values, checked_vjp_step, checking
    check = check or checking()
    with gc_paused():
        order = toposort(output, method=method)
        if check:
            check_values(order)
        grads = reverse_fold(order, output, seed, checked_vjp_step if check else vjp_step,
                             add_cotangents)
        # A node reached only through rules that returned an exact zero still has a gradient.
        for n in order:
            if n not in grads and n._prim is not CONST:
                grads[n] = zeros_like_value(n._value)
        return node_map(grads)
