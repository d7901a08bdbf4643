"""What every traced value can do: arithmetic, comparisons, and array manners.

Graph nodes (reverse mode) and duals (forward mode) both behave like the number
or array they stand for. Arithmetic builds new traced values through the
primitives; comparisons, ``bool`` and ``float`` read the plain value underneath,
so Python control flow inside a traced function works as it would on NumPy.

Equality is the one exception: between two traced values ``==`` is identity,
because nodes are keys of gradient maps and two nodes holding equal values must
stay two keys. Against a plain number or array, ``==`` compares values.

Under ``vmap`` a comparison cannot be a plain bool (each example has its own
answer), so a batched value compares into a batched mask instead.
"""

import numpy as np

from .traces import Box
from .rules import arrays, elementwise, linalg
from .values import plain, raw, shape_of

__all__ = ["ArrayLike"]


def _index_param(index):
    """An index with traced parts refused (indices are static) and lists made arrays."""
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if isinstance(part, Box):
            raise TypeError(
                "indexing with a traced value is not supported: an index must be a "
                "plain int, slice or integer array; use fg.stop_gradient on it"
            )
    if isinstance(index, list):
        return np.asarray(index)
    if isinstance(index, tuple) and any(isinstance(p, list) for p in index):
        return tuple(np.asarray(p) if isinstance(p, list) else p for p in index)
    return index


_numpy_layer = []


def _fnp():
    """funcgrad.numpy, imported on first use (it imports this module)."""
    if not _numpy_layer:
        from . import numpy as fnp
        _numpy_layer.append(fnp)
    return _numpy_layer[0]


_UFUNC_PRIMITIVES = {
    np.add: elementwise.add, np.subtract: elementwise.subtract,
    np.multiply: elementwise.multiply, np.true_divide: elementwise.divide,
    np.power: elementwise.power, np.negative: elementwise.negative,
    np.absolute: elementwise.abs, np.maximum: elementwise.maximum,
    np.minimum: elementwise.minimum, np.exp: elementwise.exp, np.log: elementwise.log,
    np.sqrt: elementwise.sqrt, np.sin: elementwise.sin, np.cos: elementwise.cos,
    np.tanh: elementwise.tanh, np.sign: elementwise.sign, np.matmul: linalg.matmul,
}
_COMPARISONS = {
    np.greater: elementwise.greater, np.greater_equal: elementwise.greater_equal,
    np.less: elementwise.less, np.less_equal: elementwise.less_equal,
    np.equal: elementwise.equal, np.not_equal: elementwise.not_equal,
}


# Questions about a traced value's shape have answers that need no derivative.
_QUERIES = {
    np.shape: lambda a: shape_of(a),
    np.ndim: lambda a: len(shape_of(a)),
    np.size: lambda a, axis=None: (int(np.prod(shape_of(a), dtype=np.int64)) if axis is None
                                   else shape_of(a)[axis]),
    np.iscomplexobj: lambda a: False,
    np.isrealobj: lambda a: True,
}


class ArrayLike(Box):
    """Operator overloads and array attributes shared by every traced value.

    The array methods have NumPy's signatures and delegate to funcgrad.numpy;
    item assignment is refused in favour of ``fg.at``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> x = fg.var(np.arange(6.0).reshape(2, 3))
    >>> x.shape, x.ndim, x.size, len(x), x.dtype
    ((2, 3), 2, 6, 2, dtype('float64'))
    >>> fg.stop_gradient(x.T.reshape(-1))
    array([0., 3., 1., 4., 2., 5.])
    >>> fg.grad(lambda v: v.reshape(2, 2).sum(axis=0).dot(np.array([1.0, 2.0])))(np.ones(4))
    array([1., 2., 1., 2.])
    >>> x[0] = 1.0
    Traceback (most recent call last):
    ...
    TypeError: traced values are immutable, so item assignment x[idx] = v is not supported; build the updated array with fg.at(x)[idx].set(v) (or .add(v), .multiply(v))
    """

    __slots__ = ()
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy's ufuncs on traced values (``ndarray * node``, ``np.sin(node)``).

        The ufuncs funcgrad's core has as primitives dispatch to them, and
        comparisons read plain values as the comparison operators do; any other
        ufunc is refused with a pointer to funcgrad.numpy, rather than letting
        NumPy make an object array or a constant out of a traced value.
        """
        if method == "__call__" and not kwargs:
            prim = _UFUNC_PRIMITIVES.get(ufunc)
            if prim is not None:
                return prim(*inputs)
            compare = _COMPARISONS.get(ufunc)
            if compare is not None:
                values = [plain(i) for i in inputs]
                if any(isinstance(v, Box) for v in values):   # opaque: record the comparison
                    return compare(*values)
                return ufunc(*values)
        name = ufunc.__name__ + ("" if method == "__call__" else f".{method}")
        raise TypeError(
            f"numpy.{name} cannot differentiate a traced value; use funcgrad.numpy's "
            f"{ufunc.__name__} (import funcgrad.numpy as fnp) inside differentiated code"
        )

    def __array_function__(self, func, types, args, kwargs):
        """NumPy's other functions on traced values run funcgrad.numpy's namesake.

        ``np.cumsum(node)`` is ``fnp.cumsum(node)``; a function funcgrad.numpy
        does not have raises, instead of NumPy quietly building an object array.
        """
        query = _QUERIES.get(func)
        if query is not None:
            return query(*args, **kwargs)
        from . import numpy as fnp   # imported on first use: the core does not need it
        namespace = fnp.linalg if func.__module__.endswith("linalg") else fnp
        target = getattr(namespace, func.__name__, None)
        if target is None or getattr(target, "__module__", "").startswith("numpy"):
            where = "numpy.linalg" if namespace is not fnp else "numpy"
            raise TypeError(
                f"{where}.{func.__name__} was called on a traced value, and funcgrad.numpy has no "
                f"derivative rule for it; compute it outside the differentiated function, or "
                f"define it with fg.primitive and fg.defvjp")
        return target(*args, **kwargs)
    __array_priority__ = 1000

    # -- arithmetic: every operator is a primitive --------------------------
    def __add__(self, other):      return elementwise.add(self, other)
    def __radd__(self, other):     return elementwise.add(other, self)
    def __sub__(self, other):      return elementwise.subtract(self, other)
    def __rsub__(self, other):     return elementwise.subtract(other, self)
    def __mul__(self, other):      return elementwise.multiply(self, other)
    def __rmul__(self, other):     return elementwise.multiply(other, self)
    def __truediv__(self, other):  return elementwise.divide(self, other)
    def __rtruediv__(self, other): return elementwise.divide(other, self)
    def __pow__(self, other):      return elementwise.power(self, other)
    def __rpow__(self, other):     return elementwise.power(other, self)
    def __matmul__(self, other):   return linalg.matmul(self, other)
    def __rmatmul__(self, other):  return linalg.matmul(other, self)
    def __neg__(self):             return elementwise.negative(self)
    def __pos__(self):             return self
    def __abs__(self):             return elementwise.abs(self)

    # -- comparisons read plain values --------------------------------------
    def __lt__(self, other): return plain(self) < plain(other)
    def __le__(self, other): return plain(self) <= plain(other)
    def __gt__(self, other): return plain(self) > plain(other)
    def __ge__(self, other): return plain(self) >= plain(other)

    def __eq__(self, other):
        if isinstance(other, Box):
            return self is other
        return plain(self) == other

    def __ne__(self, other):
        if isinstance(other, Box):
            return self is not other
        return plain(self) != other

    __hash__ = object.__hash__

    def __bool__(self):  return bool(raw(self))
    def __float__(self): return float(raw(self))
    def __int__(self):   return int(raw(self))

    # -- array manners -------------------------------------------------------
    @property
    def shape(self):
        return shape_of(self)

    @property
    def ndim(self):
        return len(shape_of(self))

    @property
    def size(self):
        return int(np.prod(shape_of(self), dtype=np.int64))

    @property
    def dtype(self):
        return np.result_type(raw(self))

    @property
    def T(self):
        return arrays.transpose(self)

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d traced value")
        return shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        return arrays.getitem(self, index=_index_param(index))

    def __setitem__(self, index, value):
        raise TypeError(
            "traced values are immutable, so item assignment x[idx] = v is not supported; "
            "build the updated array with fg.at(x)[idx].set(v) (or .add(v), .multiply(v))"
        )

    @property
    def at(self):
        """``x.at[idx].set(v)``: the same as ``fg.at(x)[idx].set(v)``."""
        from .at import at
        return at(self)

    # Methods with NumPy's signatures, delegating to funcgrad.numpy.
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _fnp().sum(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _fnp().mean(self, axis=axis, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _fnp().prod(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return _fnp().max(self, axis=axis, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return _fnp().min(self, axis=axis, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _fnp().std(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _fnp().var(self, axis=axis, ddof=ddof, keepdims=keepdims)

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _fnp().reshape(self, shape, order=order)

    def ravel(self, order="C"):
        return _fnp().ravel(self, order=order)

    def flatten(self, order="C"):
        return _fnp().ravel(self, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return _fnp().transpose(self, axes if axes else None)

    def swapaxes(self, axis1, axis2):
        return _fnp().swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        return _fnp().squeeze(self, axis=axis)

    def dot(self, other):
        return _fnp().dot(self, other)

    def clip(self, min=None, max=None):  # noqa: A002 - NumPy's names
        return _fnp().clip(self, min, max)

    def round(self, decimals=0):
        return _fnp().round(self, decimals=decimals)

    def astype(self, dtype, copy=True):
        dtype = np.dtype(dtype)
        if not np.issubdtype(dtype, np.floating):
            raise TypeError(
                f"astype({dtype}) of a traced value would cut its gradient; only float dtypes "
                f"keep one. Cast the plain value instead: fg.stop_gradient(x).astype({dtype.name})")
        from .rules.shape import astype
        return self if np.result_type(raw(self)) == dtype else astype(self, dtype=dtype)

    def copy(self):
        return self  # traced values never change, so a copy is the value itself
