"""Primitives: the operations funcgrad knows how to differentiate.

A primitive is a plain function on NumPy values (its *impl*) together with its
derivative rules. Calling a primitive *binds* it to its arguments: when no
argument is traced, the impl simply runs; otherwise the innermost trace among
the arguments records the call. A reverse trace builds a graph node, a forward
trace pushes a tangent. Either one computes the value by calling the primitive
again on the unwrapped arguments, so outer traces record their part of the same
call in turn. Nesting transforms is nothing more than this recursion.

Rules are kept on the primitive itself, set by :func:`defvjp` and
:func:`defjvp`; nothing is registered by importing a module.

A reverse rule for argument ``i`` has the shape ``rule(g, ans, *args, **params)``
and returns the cotangent of argument ``i`` given the output cotangent ``g``
(or ``None`` for an exact zero). A forward rule for argument ``i`` has the shape
``rule(t, ans, *args, **params)`` and returns the output tangent caused by the
tangent ``t`` of argument ``i``. Rules are written with funcgrad's own
primitives, so they are differentiable in turn.
"""

from functools import partial


__all__ = ["Box", "Primitive", "EveryArgument", "primitive", "defvjp", "defjvp", "defjvp_joint",
           "defbatch", "rule_at"]


class Box:
    """Base class of traced values. Every box has a ``_trace`` with a ``level``.

    ``_value`` is what the box stands for one level down. A batch box (vmap)
    holds a value with one extra leading axis, the batch, and says so with
    ``_is_batch``. An *opaque* box (batch boxes, and the staged values of a
    jit trace) must not be looked through to read a value as a constant:
    that value stands for many values, or for values not known yet.
    """

    __slots__ = ()
    _is_batch = False
    _is_opaque = False


class Primitive:
    """An operation with an implementation on plain values and derivative rules.

    >>> import numpy as np
    >>> cube = Primitive("cube", lambda x: x ** 3)
    >>> cube(2.0)
    8.0
    >>> cube
    <primitive cube>
    """

    __slots__ = ("name", "impl", "vjps", "jvps", "jvp_joint", "partials", "batch", "__weakref__")

    def __init__(self, name, impl, vjps=None, jvps=None, jvp_joint=None, partials=None,
                 batch=None):
        self.name = name
        self.impl = impl
        self.vjps = vjps            # per-argument reverse rules, or None
        self.jvps = jvps            # per-argument forward rules, or None
        self.jvp_joint = jvp_joint  # one forward rule for all tangents, or None
        self.partials = partials    # elementwise only: per-argument partial derivatives
        self.batch = batch          # batching rule (see funcgrad.batching), or None

    def __call__(self, *args, **params):
        if len(args) == 1:  # the commonest call, without the search below
            a = args[0]
            if isinstance(a, Box):
                return a._trace.process(self, args, params)
            return self.impl(a, **params)
        top = None
        level = -1
        for a in args:
            if isinstance(a, Box):
                t = a._trace
                if t.level > level:
                    top, level = t, t.level
        if top is None:
            return self.impl(*args, **params)
        return top.process(self, args, params)

    def __repr__(self):
        return f"<primitive {self.name}>"


def rule_at(rules, i):
    """The rule for argument ``i`` in a rule table (a tuple, an EveryArgument
    or None), or None when that argument has none."""
    if rules is None:
        return None
    try:
        return rules[i]
    except IndexError:
        return None


class EveryArgument:
    """Per-argument rules for a primitive with any number of arguments.

    ``EveryArgument(rule)[i]`` is ``rule`` with the argument index bound first,
    so ``rule(i, g, ans, *args, **params)`` serves every position. ``joint``,
    if given, gives every argument's result in one call,
    ``joint(g, ans, *args, **params)``: a node with n parents then costs O(n)
    instead of n calls that each see all n arguments.
    """

    __slots__ = ("rule", "joint")

    def __init__(self, rule, joint=None):
        self.rule = rule
        self.joint = joint

    def __getitem__(self, i):
        return partial(self.rule, i)

    def __len__(self):
        return 1 << 30


def primitive(fun):
    """Turn a function on plain NumPy values into a funcgrad primitive.

    The function body is never traced: give it derivative rules with
    :func:`defvjp` (and optionally :func:`defjvp`).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> @fg.primitive
    ... def logsumexp(x):
    ...     m = np.max(x)
    ...     return m + np.log(np.sum(np.exp(x - m)))
    >>> fg.defvjp(logsumexp, lambda ans, x: lambda g: g * fnp.exp(x - ans))
    >>> fg.grad(logsumexp)(np.zeros(4))
    array([0.25, 0.25, 0.25, 0.25])
    """
    if isinstance(fun, Primitive):
        return fun
    if not callable(fun):
        raise TypeError(f"fg.primitive needs a function; got {type(fun).__name__}")
    return Primitive(getattr(fun, "__name__", "primitive"), fun)


def _check_primitive(prim, who):
    if not isinstance(prim, Primitive):
        name = getattr(prim, "__name__", type(prim).__name__)
        raise TypeError(
            f"{who} expects a funcgrad primitive; got {name!r}. "
            f"Decorate the function with @fg.primitive first."
        )


def defvjp(prim, *makers):
    """Give ``prim`` reverse-mode rules, one maker per positional argument.

    Each maker is called as ``maker(ans, *args, **params)`` and returns a
    function of the output cotangent ``g`` giving that argument's cotangent.
    ``None`` means the argument has no gradient (differentiating through it is
    an error that names the primitive and the argument).

    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def scale(x, a):
    ...     return a * x
    >>> fg.defvjp(scale, lambda ans, x, a: lambda g: g * a, None)
    >>> fg.grad(scale)(1.0, 3.0)
    3.0
    """
    _check_primitive(prim, "defvjp")
    rules = []
    for i, maker in enumerate(makers):
        if maker is None:
            rules.append(None)
        elif not callable(maker):
            raise TypeError(
                f"defvjp({prim.name}, ...): rule {i} must be a function "
                f"`lambda ans, *args: lambda g: ...` or None; got {type(maker).__name__}"
            )
        else:
            rules.append(_from_maker(maker))
    prim.vjps = tuple(rules)


def _from_maker(maker):
    def rule(g, ans, *args, **params):
        return maker(ans, *args, **params)(g)
    return rule


def defjvp(prim, *rules):
    """Give ``prim`` forward-mode rules, one per positional argument.

    Each rule is called as ``rule(t, ans, *args, **params)`` with the tangent
    ``t`` of its argument and returns the tangent of the output. Without
    forward rules funcgrad derives them from the reverse rules (a reverse rule
    is linear in ``g``, and its transpose is the forward rule).

    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def double(x):
    ...     return 2.0 * x
    >>> fg.defjvp(double, lambda t, ans, x: 2.0 * t)
    >>> fg.jvp(double, (1.0,), (0.5,))
    (2.0, 1.0)
    """
    _check_primitive(prim, "defjvp")
    for i, r in enumerate(rules):
        if r is not None and not callable(r):
            raise TypeError(
                f"defjvp({prim.name}, ...): rule {i} must be a function "
                f"`lambda t, ans, *args: ...` or None; got {type(r).__name__}"
            )
    prim.jvps = tuple(rules)


def defbatch(prim, rule):
    """Give ``prim`` a batching rule, so ``vmap`` runs it on a whole batch at once.

    ``rule(size, prim, values, batched, params)`` gets the arguments one level
    down (a batched one carries ``size`` examples on its leading axis;
    ``batched`` says which) and returns the result with the batch on its
    leading axis, computed with funcgrad's primitives. Without a rule a
    primitive is applied example by example, which is always right.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def cumulative(x):
    ...     return np.cumsum(x, axis=-1)
    >>> fg.defbatch(cumulative, lambda size, prim, values, batched, params: cumulative(values[0]))
    >>> fg.vmap(cumulative)(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 3.],
           [3., 7.]])
    """
    _check_primitive(prim, "defbatch")
    if not callable(rule):
        raise TypeError(f"defbatch({prim.name}, ...): the rule must be a function "
                        f"`rule(size, prim, values, batched, params)`; got {type(rule).__name__}")
    prim.batch = rule


def defjvp_joint(prim, rule):
    """Give ``prim`` one forward rule over all argument tangents at once.

    ``rule(tangents, ans, *args, **params)`` gets a tuple with one tangent per
    argument (``None`` where the tangent is zero).
    """
    _check_primitive(prim, "defjvp_joint")
    prim.jvp_joint = rule

