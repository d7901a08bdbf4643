"""The makers rule authors call (through :mod:`funcgrad.extend` and ``fg``): a primitive
from a plain function (:func:`primitive`) and its rules given one kind at a time
(:func:`defvjp`, :func:`defjvp`, :func:`defbatch`, :func:`defxp`), each rule checked, at
its first use, against what its primitive takes and gives, so that a wrong rule raises
where it is wrong, not as a wrong number later.

>>> import numpy as np
>>> import funcgrad as fg
>>> cube = primitive(lambda x: x**3)
>>> defvjp(cube, lambda ans, x: lambda g: 3.0 * x * x * g)
>>> float(fg.grad(cube)(2.0))
12.0
"""

from collections.abc import Callable

import numpy as np

from .errors import ArgumentTypeError, ShapeError
from .namespaces import is_foreign
from .primitive import Primitive, describe
from .traces import Box
from .values import dtype_of, shape_of

__all__ = ["primitive", "defvjp", "defjvp", "defbatch", "defxp"]


def primitive(fun: Callable) -> "Primitive":
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
        raise ArgumentTypeError(f"fg.primitive needs a function; got {type(fun).__name__}")
    prim = Primitive(getattr(fun, "__name__", "primitive"), fun)  # reads fun's signature
    describe(
        prim, prim.__signature__, fun.__doc__ or prim.__doc__, getattr(fun, "__module__", None)
    )
    return prim


def _check_primitive(prim, who):
    if not isinstance(prim, Primitive):
        name = getattr(prim, "__name__", type(prim).__name__)
        raise ArgumentTypeError(
            f"{who} expects a funcgrad primitive; got {name!r}. "
            f"Decorate the function with @fg.primitive first."
        )


def defvjp(prim: "Primitive", *makers: Callable | None) -> None:
    """Give ``prim`` reverse-mode rules, one maker per positional argument.

    Each maker is called as ``maker(ans, *args, **params)`` and returns a
    function of the output cotangent ``g`` giving that argument's cotangent
    (autograd's form). ``None`` means the argument has no gradient
    (differentiating through it is an error that names the primitive and the
    argument). The makers become ``prim.vjp``, the per-argument rules every
    built-in primitive has.

    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def scale(x, a):
    ...     return a * x
    >>> fg.defvjp(scale, lambda ans, x, a: lambda g: g * a, None)
    >>> fg.grad(scale)(1.0, 3.0)
    np.float64(3.0)
    """
    _check_primitive(prim, "defvjp")
    rules: list = []
    for i, maker in enumerate(makers):
        if maker is None:
            rules.append(None)
        elif not callable(maker):
            raise ArgumentTypeError(
                f"defvjp({prim.name}, ...): rule {i} must be a function "
                f"`lambda ans, *args: lambda g: ...` or None; got {type(maker).__name__}"
            )
        else:
            rules.append(_from_maker(prim, i, maker))
    prim.vjp = tuple(rules)


def _from_maker(prim, i, maker):
    def rule(g, ans, *args, **params):
        return _checked(prim, i, "reverse", maker(ans, *args, **params)(g), args[i], exact=True)

    return rule


def _checked(prim, i, mode, out, like, exact):
    """A user rule's result, checked: a number or an array (or a traced one), of a float
    dtype, shaped like ``like`` (``exact``) or broadcasting to its shape."""
    if out is None:
        return None
    if (not isinstance(out, (float, int, np.ndarray, np.generic, Box)) and not is_foreign(out)) or (
        isinstance(out, bool)
    ):
        raise ArgumentTypeError(
            f"{prim.name}: the {mode} rule for argument {i} returned a {type(out).__name__} "
            f"({out!r:.40}); a rule returns a number or an array (None for zero)"
        )
    kind = dtype_of(out).kind
    if kind not in "fc" and not (kind in "iu" and isinstance(out, int)):
        raise ArgumentTypeError(
            f"{prim.name}: the {mode} rule for argument {i} returned dtype "
            f"{dtype_of(out)}; derivatives are floats"
        )
    got, want = shape_of(out), shape_of(like)
    fits = (
        got == want
        if exact
        else np.broadcast_shapes(got, want) == want
        if _broadcasts(got, want)
        else False
    )
    if not fits:
        what = "cotangent" if mode == "reverse" else "tangent"
        of = f"argument {i}" if mode == "reverse" else "the output"
        raise ShapeError(
            f"{prim.name}: the {mode} rule for argument {i} returned shape {got}, but {of} has "
            f"shape {want}; a {what} has the shape of {of} (sum over broadcast axes, e.g. with "
            f"funcgrad.extend.unbroadcast)"
        )
    return out


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def defjvp(prim: "Primitive", *rules: Callable | None) -> None:
    """Give ``prim`` forward-mode rules, one per positional argument.

    Each rule is called as ``rule(t, ans, *args, **params)`` with the tangent
    ``t`` of its argument and returns the tangent of the output: the same
    per-argument form as the built-in primitives' ``jvp``. Without forward
    rules funcgrad derives them from the reverse rules.

    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def double(x):
    ...     return 2.0 * x
    >>> fg.defjvp(double, lambda t, ans, x: 2.0 * t)
    >>> fg.jvp(double, (1.0,), (0.5,))
    (np.float64(2.0), np.float64(1.0))
    """
    _check_primitive(prim, "defjvp")
    for i, r in enumerate(rules):
        if r is not None and not callable(r):
            raise ArgumentTypeError(
                f"defjvp({prim.name}, ...): rule {i} must be a function "
                f"`lambda t, ans, *args: ...` or None; got {type(r).__name__}"
            )
    prim.jvp = tuple(None if r is None else _checked_jvp(prim, i, r) for i, r in enumerate(rules))


def _checked_jvp(prim, i, user_rule):
    def rule(t, ans, *args, **params):
        return _checked(prim, i, "forward", user_rule(t, ans, *args, **params), ans, exact=False)

    return rule


def defbatch(prim: "Primitive", rule: Callable) -> None:
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
        raise ArgumentTypeError(
            f"defbatch({prim.name}, ...): the rule must be a function "
            f"`rule(size, prim, values, batched, params)`; got {type(rule).__name__}"
        )
    prim.batch = rule


def defxp(prim: "Primitive", rule: Callable) -> None:
    """Give ``prim`` its form on other libraries' arrays (PyTorch, CuPy, Dask, ...).

    ``rule(xp, *args, **params)`` computes the primitive with the functions of
    the Array API namespace ``xp`` of its arguments (see
    :mod:`funcgrad.core.namespaces`). Without one, calling the primitive on another
    library's array raises a NamespaceError instead of converting it to NumPy.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> @fg.primitive
    ... def softplus(x):
    ...     return np.logaddexp(0.0, x)
    >>> fg.extend.defxp(softplus, lambda xp, x: xp.logaddexp(xp.zeros_like(x), x))
    >>> softplus.xp is not None
    True
    """
    _check_primitive(prim, "defxp")
    if not callable(rule):
        raise ArgumentTypeError(
            f"defxp({prim.name}, ...): the rule must be a function "
            f"`rule(xp, *args, **params)`; got {type(rule).__name__}"
        )
    prim.xp = rule
