"""What a function returns, without running it: ``fg.eval_shape`` and ``ShapeDtypeStruct``;
and ``fg.block_until_ready``, which JAX code calls before it reads a clock.

JAX's ``eval_shape`` traces a function on abstract values and answers with the
shapes and dtypes of its results. Here the function is traced as ``jit``
traces it (:mod:`funcgrad.jit.staging`), on stand-ins: a
:class:`ShapeDtypeStruct` among the arguments becomes an array of zeros of its
shape and dtype, and an array stays itself. Only shapes are read from the
trace, and no plan is compiled; Python control flow on a traced value raises
``ConcretizationError`` as under ``jit``.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.eval_shape(lambda w, x: np.tanh(x @ w), fg.ShapeDtypeStruct((3, 2), np.float32),
...               np.ones((5, 3), np.float32))
ShapeDtypeStruct(shape=(5, 2), dtype=float32)
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError
from ..core.traces import Box, new_level
from ..core.tree import tree_flatten, tree_map, tree_unflatten
from ..core.values import dtype_of, shape_of
from ..dag.node import VAR
from .staging import Staged, StagingTrace

__all__ = ["ShapeDtypeStruct", "eval_shape", "typeof", "block_until_ready"]


class ShapeDtypeStruct:
    """A shape and a dtype standing for every array of them (JAX's).

    >>> import numpy as np
    >>> from funcgrad import ShapeDtypeStruct
    >>> ShapeDtypeStruct((2, 3), "float64").ndim, ShapeDtypeStruct([4], np.int32).size
    (2, 4)
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: Any, dtype: Any):
        try:
            self.shape = tuple(int(n) for n in shape)
            self.dtype = np.dtype(dtype)
        except TypeError:
            raise ArgumentTypeError(
                f"ShapeDtypeStruct takes a shape (a tuple of ints) and a "
                f"dtype; got {shape!r:.40} and {dtype!r:.40}"
            ) from None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other):
        return (
            type(other) is ShapeDtypeStruct
            and self.shape == other.shape
            and self.dtype == other.dtype
        )

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"


def typeof(x: Any) -> ShapeDtypeStruct:
    """The shape and dtype of ``x`` (a number, an array of any library, or a traced value),
    as JAX's ``jax.typeof`` answers with its abstract value.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.typeof(np.ones((2, 3), np.float32)), fg.typeof(1.5)
    (ShapeDtypeStruct(shape=(2, 3), dtype=float32), ShapeDtypeStruct(shape=(), dtype=float64))
    >>> fg.grad(lambda v: print(fg.typeof(v)) or v.sum())(np.ones(4))
    ShapeDtypeStruct(shape=(4,), dtype=float64)
    array([1., 1., 1., 1.])
    """
    if isinstance(x, ShapeDtypeStruct):
        return x
    return ShapeDtypeStruct(shape_of(x), dtype_of(x))


def eval_shape(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)``, as a pytree of
    :class:`ShapeDtypeStruct`, found by tracing ``fun`` once (see the module's docstring).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.eval_shape(lambda x: {"sum": fnp.sum(x), "pairs": fnp.outer(x, x)},
    ...               fg.ShapeDtypeStruct((4,), np.float64))
    {'pairs': ShapeDtypeStruct(shape=(4, 4), dtype=float64), 'sum': ShapeDtypeStruct(shape=(), dtype=float64)}
    """
    if not callable(fun):
        raise ArgumentTypeError(f"eval_shape needs a function; got {type(fun).__name__}")
    leaves, treedef = tree_flatten((args, kwargs))
    trace = _ShapeTrace(new_level())
    staged = [
        Staged(_stand_in(leaf), VAR, (), None, f"a{k}", trace)
        if isinstance(leaf, (ShapeDtypeStruct, np.ndarray, np.generic, float, int, complex))
        and not isinstance(leaf, Box)
        else leaf
        for k, leaf in enumerate(leaves)
    ]
    call_args, call_kwargs = tree_unflatten(treedef, staged)
    with np.errstate(all="ignore"):  # zeros stand for every value: log(0) says nothing
        out = fun(*call_args, **call_kwargs)
    return tree_map(lambda o: ShapeDtypeStruct(shape_of(o), dtype_of(o)), out)


class _ShapeTrace(StagingTrace):
    """jit's trace, saying that eval_shape is the one refusing a bool."""

    __slots__ = ()

    def refusal(self):
        return (
            "eval_shape cannot turn a traced value into a Python bool or number: it "
            "traces the function once for every input of these shapes, as jit does. Use "
            "funcgrad.numpy.where or fg.cond to branch"
        )


def _stand_in(leaf):
    if type(leaf) is ShapeDtypeStruct:
        return np.zeros(leaf.shape, leaf.dtype)
    return leaf


def block_until_ready(x: Any) -> Any:
    """``x`` itself: JAX's waits for asynchronously dispatched work, and a funcgrad value
    is computed when its call returns (NumPy's is; a Dask array stays lazy until its
    ``compute()``), so there is nothing to wait for. For code that times itself.

    >>> import numpy as np
    >>> from funcgrad import block_until_ready
    >>> block_until_ready({"w": np.ones(2)})
    {'w': array([1., 1.])}
    """
    return x
