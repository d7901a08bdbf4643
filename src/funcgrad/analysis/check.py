"""Checking derivatives against finite differences.

For a random tangent ``t`` and cotangent ``v``, a correct implementation
satisfies ``<v, J t>`` computed three ways: by central differences of the
function along ``t``, by forward mode (``<v, jvp(t)>``) and by reverse mode
(``<vjp(v), t>``). Higher orders recurse: the maps ``(x, v) -> vjp(v)`` and
``(x, t) -> jvp(t)`` are functions too, and are checked the same way.
"""

from collections.abc import Callable, Sequence

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError, GradientCheckError
from ..core.tree import tree_flatten, tree_map
from ..core.values import is_complex, raw, shape_of
from ..transforms.arguments import fun_name
from ..transforms.forward import jvp
from ..transforms.reverse import vjp

__all__ = ["check_grads", "GradientCheckError"]


def _random_like(tree, rng):
    """A random direction shaped like ``tree``: complex where its leaf is complex."""

    def draw(x):
        shape = shape_of(x)
        d = rng.standard_normal(shape)
        if is_complex(x):
            d = d + 1j * rng.standard_normal(shape)
        return d.item() if not shape else d

    return tree_map(draw, tree)


def _inner(a, b):
    """The real pairing ``Re sum(a * b)`` (no conjugate: see docs/complex.md), by which a
    cotangent acts on a tangent."""
    la, lb = tree_flatten(a)[0], tree_flatten(b)[0]
    return float(sum(np.real(np.sum(_exact(x) * _exact(y))) for x, y in zip(la, lb)))


def _exact(x):
    x = np.asarray(raw(x))
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _shift(tree, direction, eps):
    return tree_map(lambda x, d: x + eps * d, tree, direction)


def _as_floats(tree):
    """Arguments in double precision: real ones as float64, complex ones as complex128."""

    def exact(x):
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return float(x)
        if isinstance(x, complex):
            return complex(x)
        return np.asarray(x, dtype=np.complex128 if np.iscomplexobj(x) else np.float64)

    return tree_map(exact, tree)


def _close(a, b, rtol, atol):
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def check_grads(
    fun: Callable,
    args: Sequence,
    order: int = 2,
    modes: Sequence[str] = ("fwd", "rev"),
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
) -> None:
    """Check ``fun``'s derivatives at ``args`` up to ``order``, in the given modes.

    Raises :class:`GradientCheckError` naming the function, the mode, the
    order and both numbers where a derivative disagrees with central finite
    differences; returns ``None`` when all agree.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.check_grads(lambda x: fnp.sin(x) * x, (np.array([0.5, 1.5]),), order=2)
    >>> @fg.primitive
    ... def bad_square(x):
    ...     return x * x
    >>> fg.defvjp(bad_square, lambda ans, x: lambda g: 3.0 * g * x)   # wrong: should be 2
    >>> fg.check_grads(bad_square, (1.5,), order=1, modes=("rev",))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.GradientCheckError: check_grads: reverse mode of bad_square (order 1, arguments 0..0): <vjp(v), t> = ... but finite differences give ...
    """
    if not isinstance(args, (tuple, list)):
        raise ArgumentTypeError("check_grads: args must be a tuple of arguments, e.g. (x,)")
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ArgumentError(f"check_grads: modes must be 'fwd' and/or 'rev'; got {sorted(unknown)}")
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= 6:
        raise ArgumentError(
            f"check_grads: order must be an int from 1 to 6 (each order "
            f"differentiates the last once more); got {order!r:.40}"
        )
    rng = np.random.default_rng(seed)
    _check(
        fun, _as_floats(tuple(args)), order, tuple(modes), eps, rtol, atol, rng, fun_name(fun), 1
    )


def _check(fun, args, order, modes, eps, rtol, atol, rng, name, level):
    where = f"{name} (order {level}, arguments 0..{len(args) - 1})"
    out = fun(*args)
    t = _random_like(args, rng)
    v = _random_like(out, rng)
    plus = fun(*_shift(args, t, eps))
    minus = fun(*_shift(args, t, -eps))
    numeric = (_inner(v, plus) - _inner(v, minus)) / (2 * eps)
    if "rev" in modes:
        _, pullback = vjp(fun, *args)
        analytic = _inner(pullback(v), t)
        if not _close(analytic, numeric, rtol, atol):
            raise GradientCheckError(
                f"check_grads: reverse mode of {where}: <vjp(v), t> = {analytic!r} "
                f"but finite differences give {numeric!r}"
            )
    if "fwd" in modes:
        _, tangent_out = jvp(fun, args, t)
        analytic = _inner(v, tangent_out)
        if not _close(analytic, numeric, rtol, atol):
            raise GradientCheckError(
                f"check_grads: forward mode of {where}: <v, jvp(t)> = {analytic!r} "
                f"but finite differences give {numeric!r}"
            )
    if order > 1:
        n = len(args)
        if "rev" in modes:

            def reverse(*xs_and_v):
                return vjp(fun, *xs_and_v[:n])[1](xs_and_v[n])

            _check(
                reverse,
                tuple(args) + (v,),
                order - 1,
                modes,
                eps,
                rtol,
                atol,
                rng,
                f"vjp of {name}",
                level + 1,
            )
        if "fwd" in modes:

            def forward(*xs_and_t):
                return jvp(fun, tuple(xs_and_t[:n]), tuple(xs_and_t[n:]))[1]

            _check(
                forward,
                tuple(args) + tuple(t),
                order - 1,
                modes,
                eps,
                rtol,
                atol,
                rng,
                f"jvp of {name}",
                level + 1,
            )
