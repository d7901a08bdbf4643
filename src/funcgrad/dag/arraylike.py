"""What every traced value can do: arithmetic, comparisons, and array manners.

Graph nodes (reverse mode) and duals (forward mode) both behave like the number
or array they stand for. Arithmetic builds new traced values through the
primitives; comparisons, ``bool`` and ``float`` read the plain value underneath,
so Python control flow inside a traced function works as it would on NumPy.

``==`` and ``!=`` compare values too, elementwise, as NumPy's do. Nodes hash
by identity, so dicts, sets and gradient maps (which look keys up by
identity, see :mod:`funcgrad.dag.nodemap`) keep two nodes of equal values apart.

Under ``vmap`` a comparison cannot be a plain bool (each example has its own
answer), so a batched value compares into a batched mask instead.
"""

import dis
import operator
import sys

import numpy as np

from ..core.errors import (
    ArgumentTypeError,
    ConversionError,
    ImmutableError,
    IndexingError,
    LeakError,
)
from ..core.namespaces import is_foreign
from ..core.primitive import Primitive
from ..core.traces import Box
from ..core.values import dtype_of, plain, raw, shape_of
from ..rules import arrays, elementwise, gather, ufuncs
from ..rules.matmul import matmul
from .numpy_calls import array_function, namesake

__all__ = [
    "RecordedComparisons",
    "refuse_conversion",
    "ArrayLike",
    "TracedIndex",
    "index_param",
    "traced_index",
    "bitwise",
]


def index_param(index):
    """An index with its derivative traces taken off (an index has no derivative) and lists
    made arrays. Parts still traced (by jit or vmap) come back as a ``(template,
    operands)`` pair for :mod:`funcgrad.rules.gather`."""
    parts = index if isinstance(index, tuple) else (index,)
    foreign = boxed = listed = False
    for p in parts:  # one pass (every index of a traced value is read here)
        kind = type(p)
        if kind is slice or kind is int or p is None or p is Ellipsis:
            continue
        if isinstance(p, Box):
            boxed = True
        elif is_foreign(p):
            foreign = True
        elif isinstance(p, list):
            listed = True
    if foreign:  # another library's index array (on its device)
        return traced_index(tuple(plain(p) for p in parts), "indexing")
    if boxed:
        for p in parts:
            if isinstance(p, Box) and dtype_of(p).kind not in "iub":
                raise IndexingError(
                    f"indexing: an index must hold integers or booleans; got a traced "
                    f"{dtype_of(p)} value. Compute the index from integers (fnp.argsort, "
                    f"fnp.argmax, x.astype(int)), or index with plain values"
                )
        parts = tuple(plain(p) for p in parts)
        if any(isinstance(p, Box) for p in parts):
            return traced_index(parts, "indexing")
        index = parts if isinstance(index, tuple) else parts[0]
    if isinstance(index, list):
        return np.asarray(index)
    if listed and isinstance(index, tuple):
        return tuple(np.asarray(p) if isinstance(p, list) else p for p in index)
    return index


class TracedIndex(tuple):
    """``(template, operands)``: an index some of whose parts jit or vmap trace."""

    __slots__ = ()


def traced_index(parts, who):
    """The template and operands of an index with traced parts, which must be integers."""
    template, operands = [], []
    for p in parts:
        if isinstance(p, Box) or is_foreign(p):
            if dtype_of(p).kind not in "iu":
                raise IndexingError(
                    f"{who}: a traced index part must hold integers; got {dtype_of(p)} (a "
                    f"boolean mask's result shape depends on its values, which jit and vmap do "
                    f"not know: use fnp.where(mask, x, 0.0) or fnp.nonzero outside the trace)"
                )
            template.append(gather.TRACED)
            operands.append(p)
        else:
            template.append(np.asarray(p) if isinstance(p, list) else p)
    return TracedIndex((tuple(template), tuple(operands)))


# The ufuncs the core's primitives are, so that ``ndarray * node`` and
# ``np.sin(node)`` work without the NumPy layer; it adds every other ufunc it
# defines, by name (see numpy_calls.numpy_layer).
_CORE_UFUNCS = {
    **{
        getattr(np, p.name): p
        for p in vars(elementwise).values()
        if isinstance(p, Primitive) and isinstance(getattr(np, p.name, None), np.ufunc)
    },
    np.absolute: elementwise.abs,
    np.matmul: matmul,
}
# Comparisons, predicates and logic give masks, which have no gradient: they read
# the values underneath (an opaque trace's value records the call instead).
_MASKS = {
    np.greater: elementwise.greater,
    np.greater_equal: elementwise.greater_equal,
    np.less: elementwise.less,
    np.less_equal: elementwise.less_equal,
    np.equal: elementwise.equal,
    np.not_equal: elementwise.not_equal,
    np.isnan: ufuncs.isnan,
    np.isinf: ufuncs.isinf,
    np.isfinite: ufuncs.isfinite,
    np.signbit: ufuncs.signbit,
    np.logical_and: ufuncs.logical_and,
    np.logical_or: ufuncs.logical_or,
    np.logical_not: ufuncs.logical_not,
    np.logical_xor: ufuncs.logical_xor,
}


def refuse_conversion(x, what):
    """Raise the ConversionError for turning traced ``x`` into a plain number (``what``)."""
    trace = getattr(x, "_trace", None)
    if _storing_into_an_array():
        raise ConversionError(
            "writing a traced value into a NumPy array (buffer[i] = x) would cut it out of the "
            "graph: its derivative would be lost without a word, and jit would freeze the first "
            "call's number into its plan. Build the array from traced values instead "
            "(fnp.stack([...]), fnp.array([...])), or update a traced array functionally: "
            "fg.at(buffer)[i].set(x). (NumPy reports this as 'setting an array element with a "
            "sequence'; this error is its cause.)"
        )
    if getattr(trace, "finished", False):
        raise LeakError(
            f"a value traced by jit leaked out of the function: it was stored outside (in a "
            f"list, a global, an attribute) and is now asked for {what}, which it does not "
            f"have (each call of the jitted function has its own). Return it from the jitted "
            f"function instead"
        )
    if getattr(trace, "live", True):
        raise ConversionError(
            f"{what} of a traced value (an argument of a function under grad, jit, vmap, "
            f"jvp, ..., or a value computed from one) would cut it out of the graph: its "
            f"derivative would be lost without a word, and jit would freeze the first "
            f"call's number into its plan. Compute with funcgrad.numpy's functions (fnp.exp, "
            f"not math.exp); for a constant on purpose use fg.stop_gradient(x); to look at "
            f'it, fg.debug.print("{{}}", x)'
        )
    raise ConversionError(
        f"{what} of a node would cut it out of the graph and lose its derivative without a "
        f"word (math.exp and the other math functions call float()). Use funcgrad.numpy's "
        f"functions (fnp.exp, not math.exp) to keep it differentiable; wrap it in "
        f"fg.stop_gradient(x) if the cut is meant; read a hand-built node's number as "
        f"node.value"
    )


_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]


def _storing_into_an_array():
    """Whether the conversion asked for is NumPy's ``array[i] = x`` in the user's code: the
    frame below the conversion's methods is at a subscript store (NumPy calls float() from
    C there)."""
    frame = sys._getframe(3)  # _storing_into_an_array, refuse_conversion, __float__, user
    try:
        return frame.f_code.co_code[frame.f_lasti] == _STORE_SUBSCR
    except (AttributeError, IndexError):
        return False


def bitwise(prim, *operands):
    """A bitwise operation on the values under derivative traces (jit's and vmap's record it)."""
    values = [plain(v) for v in operands]
    for v in values:
        if dtype_of(v).kind not in "biu":
            raise ArgumentTypeError(
                f"{prim.name}: operands must be integers or booleans, as for NumPy's "
                f"operator; got {dtype_of(v)}"
            )
    return prim(*values)


def _plain_pair(a, b):
    """The plain values a comparison reads, a NumPy scalar beside another library's array
    as Python's number (array-api-strict refuses NumPy's; every library takes Python's)."""
    x, y = plain(a), plain(b)
    if isinstance(y, np.generic) and is_foreign(x):
        y = y.item()
    return x, y


def _bool_array(x):
    """Whether the traced ``x`` stands for a NumPy array of bools (not a scalar: NumPy's
    ``**`` takes its square only for arrays)."""
    v = raw(x)
    return type(v) is np.ndarray and v.dtype == np.bool_


class ArrayLike(Box):
    """Operator overloads and array attributes shared by every traced value.

    The array methods have NumPy's signatures and delegate to funcgrad.numpy
    (which installs them); item assignment is refused in favour of ``fg.at``.

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
    funcgrad.errors.ArgumentTypeError: traced values are immutable, so item assignment x[idx] = v is not supported; build the updated array with fg.at(x)[idx].set(v) (or .add(v), .multiply(v))
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
            compare = _MASKS.get(ufunc)
            if compare is not None:
                values = [plain(i) for i in inputs]
                if any(isinstance(v, Box) for v in values):  # opaque: record the comparison
                    return compare(*values)
                return ufunc(*values)
            prim = _CORE_UFUNCS.get(ufunc) or namesake(ufunc.__name__)
            if prim is not None:
                return prim(*inputs)
        name = ufunc.__name__ + ("" if method == "__call__" else f".{method}")
        raise ArgumentTypeError(
            f"numpy.{name} cannot differentiate a traced value; use funcgrad.numpy's "
            f"{ufunc.__name__} (import funcgrad.numpy as fnp) inside differentiated code"
        )

    def __array_function__(self, func, types, args, kwargs):
        """NumPy's other functions on traced values run funcgrad.numpy's namesake
        (:mod:`funcgrad.dag.numpy_calls`)."""
        return array_function(func, args, kwargs)

    __array_priority__ = 1000

    # -- arithmetic: every operator is a primitive --------------------------
    def __add__(self, other):
        return elementwise.add(self, other)

    def __radd__(self, other):
        return elementwise.add(other, self)

    def __sub__(self, other):
        return elementwise.subtract(self, other)

    def __rsub__(self, other):
        return elementwise.subtract(other, self)

    def __mul__(self, other):
        return elementwise.multiply(self, other)

    def __rmul__(self, other):
        return elementwise.multiply(other, self)

    def __truediv__(self, other):
        return elementwise.divide(self, other)

    def __rtruediv__(self, other):
        return elementwise.divide(other, self)

    def __pow__(self, other):
        if type(other) is int and other == 2 and _bool_array(self):
            return ufuncs.square(self)  # NumPy's array ** 2 is its square: int8 for bools
        return elementwise.power(self, other)

    def __rpow__(self, other):
        return elementwise.power(other, self)

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def __neg__(self):
        return elementwise.negative(self)

    def __pos__(self):
        return self

    def __mod__(self, other):
        return ufuncs.mod(self, other)

    def __rmod__(self, other):
        return ufuncs.mod(other, self)

    def __floordiv__(self, other):
        return ufuncs.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return ufuncs.floor_divide(other, self)

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    # Bitwise operators take integers and booleans, which have no derivative: they read the
    # values underneath, as comparisons do (jit's and vmap's values record the operation).
    def __and__(self, other):
        return bitwise(ufuncs.bitwise_and, self, other)

    def __rand__(self, other):
        return bitwise(ufuncs.bitwise_and, other, self)

    def __or__(self, other):
        return bitwise(ufuncs.bitwise_or, self, other)

    def __ror__(self, other):
        return bitwise(ufuncs.bitwise_or, other, self)

    def __xor__(self, other):
        return bitwise(ufuncs.bitwise_xor, self, other)

    def __rxor__(self, other):
        return bitwise(ufuncs.bitwise_xor, other, self)

    def __lshift__(self, other):
        return bitwise(ufuncs.left_shift, self, other)

    def __rlshift__(self, other):
        return bitwise(ufuncs.left_shift, other, self)

    def __rshift__(self, other):
        return bitwise(ufuncs.right_shift, self, other)

    def __rrshift__(self, other):
        return bitwise(ufuncs.right_shift, other, self)

    def __invert__(self):
        return bitwise(ufuncs.invert, self)

    def __abs__(self):
        return elementwise.abs(self)

    def __round__(self, ndigits=None):
        # as NumPy's arrays: round(x) is x rounded to whole numbers, still an array
        return ufuncs.round(self, decimals=ndigits or 0)

    # -- comparisons read plain values --------------------------------------
    def __lt__(self, other):
        return operator.lt(*_plain_pair(self, other))

    def __le__(self, other):
        return operator.le(*_plain_pair(self, other))

    def __gt__(self, other):
        return operator.gt(*_plain_pair(self, other))

    def __ge__(self, other):
        return operator.ge(*_plain_pair(self, other))

    # == and != are NumPy's, elementwise, between traced values too. Nodes still hash by
    # identity (gradient maps, dicts and sets find them by identity).
    def __eq__(self, other):
        return operator.eq(*_plain_pair(self, other))

    def __ne__(self, other):
        return operator.ne(*_plain_pair(self, other))

    __hash__ = object.__hash__

    # Python control flow may branch on a traced value (piecewise functions):
    # bool() reads the value. Conversions to plain numbers would cut the value
    # out of the graph and lose its derivative without a word, so they raise.
    def __bool__(self):
        return bool(raw(self))

    # micrograd's and PyTorch's habits: state stored on the value. Nothing is stored here,
    # so each names funcgrad's way (an AttributeError, so hasattr() says False).
    def backward(self, *args, **kwargs):
        raise ImmutableError(
            "loss.backward() stores gradients on the values, and funcgrad stores nothing on "
            "them: g = fg.backprop(loss) returns every gradient at once (a map: g[w]), and "
            "fg.grad(f)(w) the gradient of a function"
        )

    @property
    def grad(self):
        raise ImmutableError(
            "w.grad: funcgrad keeps gradients in a map, not on the values: g = "
            "fg.backprop(loss), then g[w]"
        )

    @property
    def data(self):
        raise ImmutableError(
            "w.data is micrograd's (and PyTorch's) name for the number underneath: a node's "
            "is w.value"
        )

    def zero_grad(self):
        raise ImmutableError(
            "zero_grad(): nothing accumulates in funcgrad (each fg.backprop returns a fresh "
            "map), so there is nothing to zero"
        )

    def __format__(self, spec):
        if not spec:  # print(x), f"{x}": the value's text, as repr gives it
            return str(self)
        if not getattr(getattr(self, "_trace", None), "live", True):  # a hand-built node
            return format(self._value, spec)
        raise ConversionError(
            f'formatting a traced value with a format spec (f"{{x:{spec}}}") reads its '
            f"number, which is not known while the function is traced (under jit it differs "
            f'from call to call). To print it as it runs: fg.debug.print("{{x:{spec}}}", x=x); '
            f'to show the traced value itself: f"{{x}}"'
        )

    def __float__(self):
        refuse_conversion(self, "float()")

    def __int__(self):
        refuse_conversion(self, "int()")

    def __complex__(self):
        refuse_conversion(self, "complex()")

    def __index__(self):  # noqa: PLE0305 (it raises)
        refuse_conversion(self, "operator.index() (an index, a slice bound)")

    def item(self, *args):
        refuse_conversion(self, ".item()")

    def tolist(self):
        refuse_conversion(self, ".tolist()")

    def __array__(self, dtype=None, copy=None):
        refuse_conversion(
            self,
            "numpy.asarray() (or np.array, a NumPy function "
            "funcgrad.numpy does not have, or a NumPy array indexed by a "
            "traced index: xs[i] in a loop's body, where fnp.take(xs, i, "
            "axis=0) picks the row)",
        )

    @property
    def value(self):
        """Refused: a traced value's number, read inside the transform, would be a constant
        with no derivative (a graph node's ``value`` is readable once its function returned)."""
        refuse_conversion(self, ".value")

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
        return dtype_of(self)

    @property
    def T(self):
        return arrays.transpose(self)

    def __len__(self):
        shape = self.shape
        if not shape:
            raise ArgumentTypeError("len() of a 0-d traced value")
        return shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        index = index_param(index)
        if type(index) is TracedIndex:
            template, operands = index
            return gather.gather(self, *operands, template=template, mode="raise")
        return arrays.getitem(self, index=index)

    def __setitem__(self, index, value):
        raise ArgumentTypeError(
            "traced values are immutable, so item assignment x[idx] = v is not supported; "
            "build the updated array with fg.at(x)[idx].set(v) (or .add(v), .multiply(v))"
        )

    # The array methods with NumPy's signatures (sum, reshape, astype, ...) are
    # installed by funcgrad.numpy, and ``x.at[idx]`` by funcgrad.at.

    def copy(self):
        return self  # traced values never change, so a copy is the value itself


class RecordedComparisons:
    """Comparisons that are primitive calls, for a value standing for many (jit's staged
    values, vmap's batches): each input or example has its own answer, so ``<`` and ``==``
    give a traced mask rather than reading one value (ArrayLike's own compare the value
    beneath). Such values are keys of plain dicts and sets only, which compare by identity
    first, so a trace's own bookkeeping is unaffected."""

    __slots__ = ()

    def __lt__(self, other):
        return elementwise.less(self, other)

    def __le__(self, other):
        return elementwise.less_equal(self, other)

    def __gt__(self, other):
        return elementwise.greater(self, other)

    def __ge__(self, other):
        return elementwise.greater_equal(self, other)

    def __eq__(self, other):
        return elementwise.equal(self, other)

    def __ne__(self, other):
        return elementwise.not_equal(self, other)

    __hash__ = object.__hash__
