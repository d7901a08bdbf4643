"""A function's own batching rule: JAX's ``custom_batching.custom_vmap``.

``@custom_vmap`` makes a function one primitive whose vmap rule is yours:
``@f.def_vmap def rule(axis_size, in_batched, *args)`` gets the batch size, for
each argument a tree of bools saying which leaves are batched (along their first
axis), and the arguments; it returns ``(out, out_batched)``. Anywhere a ``vmap``
meets the function (inside ``grad``, ``jit``, loops, another ``vmap``), it calls
the rule instead of batching the function's operations. Derivatives are the
function's own (it is differentiated as written), so the rule need only be right,
not differentiable by hand; it is differentiated too where a ``grad`` is outside
the ``vmap``.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad.custom_batching import custom_vmap
>>> @custom_vmap
... def f(x):
...     return fnp.sin(x)
>>> @f.def_vmap
... def f_batched(axis_size, in_batched, x):
...     return fnp.cos(x), in_batched[0]       # visibly not sin: the rule ran
>>> f(0.0), fg.vmap(f)(np.zeros(2))
(np.float64(0.0), array([1., 1.]))
>>> fg.grad(lambda x: fnp.sum(fg.vmap(f)(x)))(np.zeros(2))   # the rule, differentiated
array([-0., -0.])
"""

import functools
import inspect

from ..core.errors import ArgumentTypeError, ShapeError
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import shape_of, zeros_like_value
from ..rules.arrays import broadcast_to, getitem, reshape
from ..transforms.forward import jvp
from .body import Parts, pick
from .custom_rules import _pulled_back, _Results, _stacked

__all__ = ["custom_vmap", "sequential_vmap"]


class custom_vmap:
    """A function whose batching rule is the one you give with :meth:`def_vmap`.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> from funcgrad.custom_batching import custom_vmap
    >>> @custom_vmap
    ... def norm(v):
    ...     return fnp.sqrt(fnp.sum(v * v))
    >>> @norm.def_vmap
    ... def norm_rule(axis_size, in_batched, v):          # one call for the whole batch
    ...     return fnp.sqrt(fnp.sum(v * v, axis=-1)), in_batched[0]
    >>> fg.vmap(norm)(np.array([[3.0, 4.0], [6.0, 8.0]]))
    array([ 5., 10.])
    >>> fg.jit(fg.vmap(fg.grad(norm)))(np.array([[3.0, 4.0]]))
    array([[0.6, 0.8]])
    """

    def __init__(self, fun):
        if not callable(fun):
            raise ArgumentTypeError(f"custom_vmap decorates a function; got {type(fun).__name__}")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.rule = None
        self.name = getattr(fun, "__name__", "custom_vmap")
        self.who = f"custom_vmap {self.name}"
        self.prim = Primitive(
            self.name, self._impl, vjp=self._vjp, jvp=self._jvp, batch=self._batch
        )

    def def_vmap(self, rule):
        """Give the rule ``rule(axis_size, in_batched, *args) -> (out, out_batched)``;
        returns it, so it works as a decorator."""
        if not callable(rule):
            raise ArgumentTypeError(
                f"{self.who}: def_vmap takes a function; got {type(rule).__name__}"
            )
        self.rule = rule
        return rule

    def __call__(self, *args, **kwargs):
        if kwargs:
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
            if bound.kwargs:
                raise ArgumentTypeError(
                    f"{self.who}: keyword-only arguments cannot be batched; pass "
                    f"{sorted(bound.kwargs)} positionally"
                )
            args = bound.args
        leaves, in_def = tree_flatten(tuple(args))
        if not any(isinstance(v, Box) for v in leaves):
            return self.fun(*args)
        results = _Results()
        out = self.prim(*leaves, in_def=in_def, results=results)
        if results.single:
            return out
        n = len(results.examples)
        return tree_unflatten(results.out_def, [pick(out, index=k) for k in range(n)])

    def _flat(self, in_def):
        return lambda *xs: tuple(tree_flatten(self.fun(*tree_unflatten(in_def, list(xs))))[0])

    def _impl(self, *leaves, in_def, results):
        out_leaves, results.out_def = tree_flatten(self.fun(*tree_unflatten(in_def, list(leaves))))
        results.examples = out_leaves
        results.single = len(out_leaves) == 1 and results.out_def.kind is None
        return out_leaves[0] if results.single else tuple(out_leaves)

    def _jvp(self, tangents, ans, *leaves, in_def, results):
        tangents = [zeros_like_value(x) if t is None else t for x, t in zip(leaves, tangents)]
        dots = jvp(self._flat(in_def), tuple(leaves), tuple(tangents))[1]
        return dots[0] if results.single else Parts(list(dots))

    def _vjp(self, argnums, g, ans, *leaves, in_def, results):
        flat = self._flat(in_def)
        return _pulled_back(
            lambda xs: list(flat(*xs)), list(leaves), argnums, [g] if results.single else list(g)
        )

    def _batch(self, size, prim, values, batched, params):
        if self.rule is None:
            raise ArgumentTypeError(
                f"{self.who} has no vmap rule: define one with @{self.name}.def_vmap"
            )
        in_def, results = params["in_def"], params["results"]
        args = tree_unflatten(in_def, list(values))
        in_batched = list(tree_unflatten(in_def, list(batched)))
        got = self.rule(size, in_batched, *args)
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            raise ArgumentTypeError(
                f"{self.who}: the vmap rule must return a pair (out, out_batched); got "
                f"{type(got).__name__}"
            )
        out_leaves, out_def = tree_flatten(got[0])
        flags = _flags(self.who, got[1], out_def, len(out_leaves))
        stacked = []
        for k, (leaf, b) in enumerate(zip(out_leaves, flags)):
            if b and shape_of(leaf)[:1] != (size,):
                raise ShapeError(
                    f"{self.who}: the vmap rule says output {k} is batched, but its shape "
                    f"{shape_of(leaf)} does not start with the batch size {size}"
                )
            stacked.append(
                leaf
                if b
                else broadcast_to(
                    reshape(leaf, shape=(1,) + shape_of(leaf)), shape=(size,) + shape_of(leaf)
                )
            )
        results.out_def = out_def
        results.examples = stacked
        results.single = len(stacked) == 1 and out_def.kind is None
        return stacked[0] if results.single else tuple(stacked)


def _flags(who, out_batched, out_def, n):
    """out_batched as one bool per output leaf (a single bool stands for all)."""
    if isinstance(out_batched, bool):
        return [out_batched] * n
    flags, flags_def = tree_flatten(out_batched)
    if flags_def != out_def or not all(isinstance(f, bool) for f in flags):
        raise ArgumentTypeError(
            f"{who}: out_batched must be bools in the structure of the output {out_def!r}; "
            f"got {flags_def!r}"
        )
    return flags


def sequential_vmap(fun):
    """``fun`` batched by calling it once per example and stacking the results (JAX's
    ``custom_batching.sequential_vmap``): for a function whose operations cannot be
    batched, or whose batched form is slower.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> from funcgrad.custom_batching import sequential_vmap
    >>> f = sequential_vmap(lambda x: fnp.sum(x) * 2.0)
    >>> fg.vmap(f)(np.ones((3, 2)))
    array([4., 4., 4.])
    """
    wrapped = custom_vmap(fun)

    @wrapped.def_vmap
    def rule(axis_size, in_batched, *args):
        leaves, in_def = tree_flatten(tuple(args))
        flags = tree_flatten(tuple(in_batched))[0]
        per_example = []
        for i in range(axis_size):
            example = [getitem(v, index=i) if b else v for v, b in zip(leaves, flags)]
            per_example.append(tree_flatten(fun(*tree_unflatten(in_def, example))))
        out_def = per_example[0][1]
        columns = zip(*[out for out, _ in per_example])
        return tree_unflatten(out_def, [_stacked(list(c)) for c in columns]), True

    return wrapped
