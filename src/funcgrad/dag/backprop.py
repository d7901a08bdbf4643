"""Backprop: the reverse fold over the real semiring, with local VJPs as edge weights.

For each node, from the output back to the inputs, each parent receives the
node's cotangent pulled back through the primitive's rule for that argument
(the closed-form vector-Jacobian products of the two-page note), and
contributions meeting at a parent are added. Constants are not differentiated.
"""

import operator
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, MissingRuleError, ShapeError
from ..core.fp_warnings import at_users_line
from ..core.namespaces import is_foreign, joined
from ..core.primitive import is_joint, per_argument_rule
from ..core.traces import Box, new_level
from ..core.values import (
    as_dtype_of,
    dtype_of,
    frozen_copy,
    ones_like_value,
    raw,
    shape_of,
    zeros_like_value,
)
from ..rules import pieces
from ..rules.arrays import untake
from ..rules.elementwise import pullback, real_part_for
from ..rules.selection import Selection
from .fold import fold_back, reverse_fold
from .node import CONST, VAR, Node, ReverseTrace
from .nodemap import node_map
from .order import check_outputs, dfs_order

__all__ = [
    "backprop",
    "vjp_step",
    "add_cotangents",
    "default_seed",
    "transpose",
    "integer_valued",
    "missing_rule",
    "vjp_by_rules",
]

_NO_PARAMS: dict = {}


_PLACING = frozenset((untake, pieces.pieces))  # the cotangents of slices


def add_cotangents(a, b):
    """The real semiring's sum, ``a + b``: numbers, arrays, traced values. Two traced
    cotangents of slices that do not overlap (a split's, under ``jit`` or a derivative of
    a derivative) become one ``pieces`` node, not two arrays of zeros and their sum
    (:func:`funcgrad.rules.pieces.merged`)."""
    if type(a) is not float and type(a) is not np.ndarray:
        if getattr(a, "_prim", None) in _PLACING and getattr(b, "_prim", None) in _PLACING:
            merged = pieces.merged(a, b)
            if merged is not None:
                return merged
        if isinstance(b, Box) and not isinstance(a, Box):  # another library's plain array:
            return b + a  # some refuse a traced operand (array-api-strict) where a box takes it
    return a + b


_value_of = operator.attrgetter("_value")


def integer_valued(*values):
    """Whether any of ``values`` holds integers or booleans: a primitive with such an
    argument or result has no derivative through it (it is piecewise constant), so a
    missing rule there means zero, not an error."""
    return any(type(raw(v)) is not tuple and dtype_of(v).kind in "biu" for v in values)


def missing_rule(prim, i):
    return MissingRuleError(
        f"primitive '{prim.name}' has no reverse-mode rule for argument {i}, "
        f"but that argument depends on a variable; define one with "
        f"fg.defvjp({prim.name}, ...) or wrap the argument in fg.stop_gradient"
    )


def vjp_step(node, g):
    """The cotangent ``node`` sends to each argument, given its own cotangent ``g``.

    This is the primitive's ``vjp`` rule, per argument or joint. Elementwise
    nodes of one or two arguments take a path written out by hand, the
    hottest code in funcgrad: each edge's weight is the partial derivative,
    and its pullback the one elementwise :func:`~funcgrad.rules.elementwise.pullback`
    (tests check both paths give the same bits). A primitive with a selecting or a zero
    partial (:class:`~funcgrad.rules.selection.RuledPartials`) takes its rules instead.
    """
    prim = node._prim
    partials = prim.partials
    if partials is not None:
        if type(partials) is not tuple:  # a selection or a zero partial among them
            return _ruled_step(node, g, partials)
        args = node._args
        ans = node._value
        try:
            if len(args) == 1:
                a = args[0]
                if a._prim is CONST:
                    return (None,)
                x = a._value
                if prim.together is not None:  # its slope, made with the value and kept
                    slopes = node._trace.slopes
                    if slopes is not None and node._id in slopes:
                        return (pullback(g, slopes[node._id], x),)
                partial = partials[0]
                if partial is None:
                    if integer_valued(x, ans):
                        return (None,)
                    raise missing_rule(prim, 0)
                return (pullback(g, partial(ans, x), x),)
            if len(args) == 2:
                a, b = args
                x, y = a._value, b._value
                if type(x) is not type(y) and (
                    is_foreign(y) if isinstance(x, Box) else isinstance(y, Box) and is_foreign(x)
                ):
                    x, y = joined((x, y))  # another library's plain array beside a traced value
                pa, pb = partials
                if a._prim is CONST:
                    ca = None
                elif pa is None:
                    if not integer_valued(x, ans):
                        raise missing_rule(prim, 0)
                    ca = None
                else:
                    ca = pullback(g, pa(ans, x, y), x)
                if b._prim is CONST:
                    return (ca, None)
                if pb is None:
                    if not integer_valued(y, ans):
                        raise missing_rule(prim, 1)
                    return (ca, None)
                return (ca, pullback(g, pb(ans, x, y), y))
        except ZeroDivisionError:
            pass  # a partial on Python floats (1.0 / 0.0): the rules give NumPy's inf or nan
    return general_vjp_step(node, g)


def _ruled_step(node, g, partials):
    """The edges of a primitive whose partials select or are zero: relu's one edge selected
    here (its cotangent where x > 0), every other through the rules (a zero partial's
    argument gets none)."""
    args = node._args
    if len(args) == 1 and type(partials[0]) is Selection:
        a = args[0]
        if a._prim is CONST:
            return (None,)
        return (pullback(partials[0].select(g, node._value, a._value), 1.0, a._value),)
    return general_vjp_step(node, g)


def general_vjp_step(node, g):
    """:func:`vjp_step` for every primitive, through its ``vjp`` rules only."""
    args = node._args
    constant = [a._prim is CONST for a in args]
    return vjp_by_rules(
        node._prim, g, node._value, tuple(map(_value_of, args)), node._params, constant
    )


def vjp_by_rules(prim, g, ans, values, params, constant):
    """The cotangents a call of ``prim`` sends to its arguments through its ``vjp`` rules,
    given its cotangent ``g``, its value ``ans``, its arguments' ``values`` and which of them
    are ``constant`` (None for those): :func:`general_vjp_step`'s work, for any record of the
    call (grad's node, or jit's staged node standing for its own value)."""
    if (type(g) is not np.ndarray and type(g) is not float) or isinstance(ans, Box):
        g, ans, *values = joined((g, ans, *values))  # traced, or another library's
    params = params or _NO_PARAMS
    rules = prim.vjp
    if is_joint(rules):  # one call for every argument that needs a cotangent
        argnums = [i for i, c in enumerate(constant) if not c]
        out = [None] * len(values)
        for i, c in zip(argnums, rules(argnums, g, ans, *values, **params)):
            out[i] = None if c is None else real_part_for(c, values[i])
        return out
    out = []
    for i, c in enumerate(constant):
        if c:
            out.append(None)
            continue
        rule = per_argument_rule(rules, i)
        if rule is not None:
            c = rule(g, ans, *values, **params)
        elif rules is None and per_argument_rule(prim.jvp, i) is not None:
            c = transposed_jvp(prim.jvp[i], g, ans, values, i, params)
        elif integer_valued(values[i], ans):
            c = None
        else:
            raise missing_rule(prim, i)
        out.append(None if c is None else real_part_for(c, values[i]))
    return out


def transposed_jvp(rule, g, ans, values, i, params):
    """The reverse rule of argument ``i`` derived from its forward rule ``t -> J_i t``."""
    return transpose(lambda t: rule(t, ans, *values, **params), values[i], g)


def transpose(linear, like, seed, at=None):
    """``linear``'s transpose applied to ``seed``, where ``linear`` is a linear map of
    one value shaped like ``like`` written with primitives; None where it ignores its input.

    Backprop through a linear map from ``seed`` gives its transpose: trace the map
    on a fresh variable, then fold back from its output. Reverse mode derives a
    missing reverse rule from the forward rule this way, forward mode the other way
    round, so a primitive needs only one of its two rules. The map is traced at zero
    unless ``at`` says where: a map linear in value but whose control flow reads its
    input (an iteration run until it stops moving) must be traced where it moves.
    """
    trace = ReverseTrace(new_level())
    x = Node(zeros_like_value(like) if at is None else at, VAR, (), None, "x", trace)
    out = linear(x)
    if not trace.owns(out):
        return None  # a zero map
    grads = reverse_fold(
        dfs_order((out,)), {out: seed}, vjp_step, add_cotangents, keep=lambda n: n is x
    )
    return grads.get(x)


def default_seed(output, who):
    """1 for a scalar output; anything else needs an explicit seed."""
    shape = shape_of(output._value)
    if shape:
        raise ShapeError(
            f"{who} of a non-scalar output (shape {shape}) needs a seed: pass "
            f"seed=<cotangent of shape {shape}>, e.g. seed=np.ones({shape})"
        )
    v = output._value
    return 1.0 if type(v) is float else ones_like_value(v)


def _check_seed(seed, output):
    if (
        isinstance(seed, bool)
        or not isinstance(seed, (float, int, np.ndarray, np.generic))
        or (np.result_type(seed).kind not in "fciu")
    ):
        raise ArgumentTypeError(
            f"backprop: seed must be a number or a float array shaped like the "
            f"output (the output's cotangent); got {type(seed).__name__} {seed!r:.40}"
        )
    if shape_of(seed) != shape_of(output._value):
        raise ShapeError(
            f"backprop: seed has shape {shape_of(seed)} but the output has shape "
            f"{shape_of(output._value)}; the seed is the output's cotangent and must match it"
        )
    return seed


def backprop(output: Any, seed: Any = None, method: str = "dfs", check: bool = False) -> Any:
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
    seed = (
        default_seed(output, "backprop") if seed is None else frozen_copy(_check_seed(seed, output))
    )
    with at_users_line():
        return fold_back(
            {output: seed},
            vjp_step,
            add_cotangents,
            method=method,
            check=check or None,
            finish=_gradient_map,
            owned=set(),
        )


def _gradient_map(grads, order):
    """The fold's gradients as a map, with a zero for every node reached only
    through rules that returned an exact zero; its arrays are read-only, as a
    persistent map's values must be, and in their node's float dtype."""
    get = grads.get
    for n in order:  # one pass over the nodes
        g = get(n)
        if g is None:
            if n._prim is not CONST:
                grads[n] = zeros_like_value(n._value)
        elif type(g) is np.ndarray:
            if g.dtype != np.float64:  # float32 in, float32 out (no cast for float64)
                g = grads[n] = as_dtype_of(g, n._value)
            if g.flags.writeable:
                # a view: a rule may hand back an array of the caller's (the weight w of
                # w * x), whose own flags must not change
                g = grads[n] = g.view()
                g.setflags(write=False)
    return node_map(grads)
