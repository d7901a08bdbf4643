"""``fg.pure_callback``: a Python function of plain values inside traced code (JAX's).

The callback is a step of the graph like any primitive: it runs with each
call's values (eagerly at once, under ``jit`` each time the plan runs, inside
a loop's body at every iteration), never while ``jit`` traces, and it must
return what ``result_shape_dtypes`` says (shapes exactly; dtypes cast where
NumPy casts them safely). Being pure, a result no output needs is dropped, as
in JAX. ``vmap`` calls it once per example (``vmap_method="sequential"``, the
default), or once on the whole batch with ``"expand_dims"`` (an argument
without the batch gets a leading axis of 1) or ``"broadcast_all"`` (every
argument gets the batch). It has no derivative: wrap it in ``fg.custom_jvp``
or ``fg.custom_vjp`` to give it one.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def host_sin(x):
...     return np.sin(x)
>>> f = fg.jit(lambda x: fg.pure_callback(host_sin, fg.ShapeDtypeStruct(x.shape, x.dtype), x) * 2)
>>> f(np.array([0.0, np.pi / 2]))
array([0., 2.])
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, MissingRuleError, ShapeError
from ..core.namespaces import dtype_in, is_foreign, namespace_of, numpy_dtype
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import shape_of
from ..jit import facts as jit_facts
from ..rules.arrays import broadcast_to, reshape
from .body import result
from .custom_rules import batch_each

__all__ = ["pure_callback"]

_METHODS = (None, "sequential", "expand_dims", "broadcast_all", "legacy_vectorized")


class _Call:
    """The user's function, called on the leaves put back in their structure, its result
    checked against the shapes and dtypes promised and returned as a tuple of leaves."""

    __slots__ = ("fun", "treedef", "out_def", "name")

    def __init__(self, fun, treedef, out_def):
        self.fun, self.treedef, self.out_def = fun, treedef, out_def
        self.name = getattr(fun, "__name__", type(fun).__name__)

    def __call__(self, spec, *leaves):
        args, kwargs = tree_unflatten(self.treedef, list(leaves))
        out_leaves, out_def = tree_flatten(self.fun(*args, **kwargs))
        if out_def != self.out_def:
            raise ShapeError(
                f"pure_callback: {self.name} returned a {out_def}, where "
                f"result_shape_dtypes promised a {self.out_def}"
            )
        like = next((v for v in leaves if is_foreign(v)), None)
        return tuple(
            _as_promised(v, shape, dtype, self.name, like)
            for v, (shape, dtype) in zip(out_leaves, spec)
        )


def _as_promised(value, shape, dtype, name, like=None):
    """The callback's ``value`` checked against its promise: NumPy's, or with ``like`` (an
    argument of another library) that library's on that argument's device."""
    xp = None if like is None else namespace_of((like,))
    if xp is not None and not is_foreign(value):  # a host result, back to the device
        value = xp.asarray(np.asarray(value), device=getattr(like, "device", None))
    out = value if xp is not None else np.asarray(value)
    got = numpy_dtype(out)
    if tuple(out.shape) != shape:
        raise ShapeError(
            f"pure_callback: {name} returned an array of shape {tuple(out.shape)} where "
            f"result_shape_dtypes promised {shape}; make the two agree"
        )
    if got != dtype:
        if not np.can_cast(got, dtype, "same_kind"):
            raise ShapeError(
                f"pure_callback: {name} returned {got} where "
                f"result_shape_dtypes promised {dtype}; make the two agree"
            )
        out = out.astype(dtype) if xp is None else xp.astype(out, dtype_in(xp, dtype))
    return out


def _impl(*leaves, call, spec, vmap_method):
    return call(spec, *leaves)


def _abstract(*leaves, call, spec, vmap_method):
    """What jit traces with: zeros of the promised shapes (the callback is not called), in
    the library of a foreign argument where there is one."""
    like = next((v for v in leaves if is_foreign(v)), None)
    return tuple(
        _as_promised(np.zeros(shape, dtype), shape, dtype, call.name, like) for shape, dtype in spec
    )


def _no_derivative(*args, call, **params):
    raise MissingRuleError(
        f"pure_callback: {call.name} has no derivative (funcgrad cannot see inside it); give "
        f"it one by wrapping the call in fg.custom_jvp or fg.custom_vjp, or wrap its "
        f"arguments in fg.stop_gradient"
    )


def _batch(size, prim, values, batched, params):
    spec = params["spec"]
    method = params["vmap_method"]
    if method in (None, "sequential"):
        return batch_each(size, prim, values, batched, params)
    # one call on the whole batch: the arguments without it get a leading axis
    whole = [
        v
        if b
        else reshape(v, shape=(1,) + shape_of(v))
        if method == "expand_dims"
        else broadcast_to(v, shape=(size,) + shape_of(v))
        for v, b in zip(values, batched)
    ]
    batched_spec = tuple(((size,) + shape, dtype) for shape, dtype in spec)
    return prim(*whole, **{**params, "spec": batched_spec})


pure_callback_p = Primitive(
    "pure_callback",
    _impl,
    vjp=_no_derivative,
    jvp=_no_derivative,
    batch=_batch,
    xp=lambda xp, *leaves, **params: _impl(*leaves, **params),
)
jit_facts.declare(pure_callback_p, abstract=_abstract)  # staged without calling back


def pure_callback(
    callback: Callable,
    result_shape_dtypes: Any,
    *args: Any,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """``callback(*args, **kwargs)`` on plain values, as a step of traced code; its result
    has the tree, shapes and dtypes of ``result_shape_dtypes`` (``fg.ShapeDtypeStruct``
    or arrays). See the module docstring for ``vmap_method``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> spec = fg.ShapeDtypeStruct((), np.float64)
    >>> fg.vmap(lambda x: fg.pure_callback(lambda v: float(v) ** 2, spec, x))(np.arange(3.0))
    array([0., 1., 4.])
    """
    if not callable(callback):
        raise ArgumentTypeError(
            f"pure_callback needs a function; got {type(callback).__name__} {callback!r:.40}"
        )
    if vmap_method not in _METHODS:
        raise ArgumentTypeError(
            f"pure_callback: vmap_method must be one of {_METHODS[1:]} "
            f"(or None); got {vmap_method!r}"
        )
    promised, out_def = tree_flatten(result_shape_dtypes)
    try:
        spec = tuple((tuple(p.shape), np.dtype(p.dtype)) for p in promised)
    except (AttributeError, TypeError):
        raise ArgumentTypeError(
            f"pure_callback: result_shape_dtypes must be a tree of fg.ShapeDtypeStruct or "
            f"arrays (each with .shape and .dtype); got {result_shape_dtypes!r:.60}"
        ) from None
    leaves, treedef = tree_flatten((args, kwargs))
    call = _Call(callback, treedef, out_def)
    if not any(isinstance(leaf, Box) for leaf in leaves):
        return tree_unflatten(out_def, list(call(spec, *leaves)))  # nothing traced: now
    out = pure_callback_p(*leaves, call=call, spec=spec, vmap_method=vmap_method)
    return tree_unflatten(out_def, [result(out, k) for k in range(len(spec))])
