"""Products, einsum, diagonals and triangles of funcgrad.numpy.

Each function has NumPy's name, signature and values (bit for bit on the same
inputs); the primitives and their rules are in :mod:`funcgrad.rules.products`,
:mod:`funcgrad.rules.matmul` and :mod:`funcgrad.rules.diagonals`.
Only real (float) inputs are differentiated; the ``out=`` arguments of NumPy
are refused, since results are never written in place. ``dot``, ``vdot``, ``inner``,
``matmul``, ``tensordot``, ``einsum`` and ``vecdot`` also take JAX's keywords ``precision`` (every
precision is NumPy's full one) and ``preferred_element_type`` (the type the products are
summed in and returned as): :mod:`funcgrad.numpy._precision`.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.grad(lambda a: fnp.einsum("ij,ij", a, a))(np.array([[1.0, 2.0]]))
array([[2., 4.]])
"""

import warnings as _warnings

import numpy as _np

from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.values import is_complex, ndim_of
from ..core.values import shape_of as _shape_of
from ..rules import arrays as _arrays
from ..rules import diagonals as _diagonals
from ..rules import products as _products
from ..rules.elementwise import multiply as _multiply
from ..rules.linalg import conj as _conj
from ..rules.matmul import matmul as _matmul
from ._helpers import is_traced, lists_as_arrays, refuse, strong_number
from ._precision import checked_precision, in_preferred_type

__all__ = [
    "dot",
    "vdot",
    "inner",
    "outer",
    "matmul",
    "matvec",
    "vecmat",
    "tensordot",
    "einsum",
    "kron",
    "trace",
    "diag",
    "diagonal",
    "triu",
    "tril",
    "cross",
    "vecdot",
    "diagflat",
]


def dot(a, b, out=None, *, precision=None, preferred_element_type=None):
    """``numpy.dot``: scalars multiply, otherwise the last axis of ``a`` meets the
    second-to-last axis of ``b`` (its only axis if 1-D), for operands of any rank.

    >>> import numpy as np
    >>> from funcgrad.numpy import dot
    >>> dot(np.ones((2, 3, 4)), np.ones((5, 4, 2))).shape
    (2, 3, 5, 2)
    >>> dot(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    np.float64(11.0)
    """
    refuse("dot", out=out)
    checked_precision(precision, "dot")
    a, b = lists_as_arrays(a), lists_as_arrays(b)
    return in_preferred_type(_dot, (a, b), preferred_element_type)


def _dot(a, b):
    if ndim_of(a) == 0 or ndim_of(b) == 0:
        return _multiply(strong_number(a, b), strong_number(b, a))
    return _products.dot(a, b)


def vdot(a, b, /, *, precision=None, preferred_element_type=None):
    """``numpy.vdot``: the sum of the products of the flattened operands, the first
    one conjugated.

    >>> import numpy as np
    >>> from funcgrad.numpy import vdot
    >>> vdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.arange(4.0))
    np.float64(20.0)
    >>> vdot(np.array([1j]), np.array([1j]))
    np.complex128(1+0j)
    """
    checked_precision(precision, "vdot")
    a, b = lists_as_arrays(a), lists_as_arrays(b)
    return in_preferred_type(_vdot, (_conj(a), b), preferred_element_type)


def _vdot(a, b):
    return _products.vdot(_arrays.reshape(a, shape=(-1,)), _arrays.reshape(b, shape=(-1,)))


def inner(a, b, /, *, precision=None, preferred_element_type=None):
    """``numpy.inner``: sums over the last axes of both operands (scalars multiply).

    >>> import numpy as np
    >>> from funcgrad.numpy import inner
    >>> inner(np.ones((2, 3)), np.arange(3.0))
    array([3., 3.])
    """
    checked_precision(precision, "inner")
    a, b = lists_as_arrays(a), lists_as_arrays(b)
    return in_preferred_type(_inner, (a, b), preferred_element_type)


def _inner(a, b):
    if ndim_of(a) == 0 or ndim_of(b) == 0:
        return _multiply(strong_number(a, b), strong_number(b, a))
    return _products.inner(a, b)


def outer(a, b, out=None):
    """``numpy.outer``: every product of an element of ``a`` with one of ``b`` (both flattened).

    >>> import numpy as np
    >>> from funcgrad.numpy import outer
    >>> outer(np.array([1.0, 2.0]), np.array([[1.0, 10.0]]))
    array([[ 1., 10.],
           [ 2., 20.]])
    """
    refuse("outer", out=out)
    a, b = lists_as_arrays(a), lists_as_arrays(b)
    return _products.outer(_arrays.reshape(a, shape=(-1,)), _arrays.reshape(b, shape=(-1,)))


def matvec(x1, x2, /):
    """``numpy.matvec``: matrix-vector products over stacks (the matrix's last two axes,
    the vector's last).

    >>> import numpy as np
    >>> from funcgrad.numpy import matvec
    >>> matvec(np.ones((4, 2, 3)), np.arange(3.0)).shape
    (4, 2)
    """
    if len(_shape_of(x1)) < 2 or len(_shape_of(x2)) < 1:
        raise ArgumentError(
            f"matvec: needs a matrix and a vector; got shapes {_shape_of(x1)} and {_shape_of(x2)}"
        )
    return matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    """``numpy.vecmat``: the conjugated vector times the matrix, over stacks.

    >>> import numpy as np
    >>> from funcgrad.numpy import vecmat
    >>> vecmat(np.array([1.0, 1j]), np.eye(2))
    array([1.+0.j, 0.-1.j])
    """
    if len(_shape_of(x1)) < 1 or len(_shape_of(x2)) < 2:
        raise ArgumentError(
            f"vecmat: needs a vector and a matrix; got shapes {_shape_of(x1)} and {_shape_of(x2)}"
        )
    x1 = _conj(x1) if is_complex(x1) else x1
    return matmul(x1[..., None, :], x2)[..., 0, :]


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``numpy.matmul`` (the ``@`` operator): stacks of matrices, 1-D operands promoted.

    >>> import numpy as np
    >>> from funcgrad.numpy import matmul
    >>> matmul(np.ones((4, 2, 3)), np.ones(3)).shape
    (4, 2)
    >>> matmul(np.ones((2, 3)), np.ones((4, 5)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.ShapeError: matmul of shapes (2, 3) and (4, 5): the last axis of the first operand must equal the second-to-last axis of the second (the only axis of a 1-D operand), and stack axes must broadcast (NumPy says: ...)
    """
    checked_precision(precision, "matmul")
    operands = (lists_as_arrays(x1), lists_as_arrays(x2))
    return in_preferred_type(_matmul, operands, preferred_element_type)


def _tensordot_axes(axes, na, nb):
    if isinstance(axes, (int, _np.integer)):
        n = int(axes)
        if n < 0 or n > min(na, nb):
            raise _products.ShapeError(
                f"tensordot: axes={n} needs both operands to have at least {n} "
                f"axes; they have {na} and {nb}"
            )
        return tuple(range(na - n, na)), tuple(range(n))
    try:
        xa, xb = axes
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"tensordot: axes must be an int or a pair of axis lists, "
            f"e.g. ([1, 0], [0, 1]); got {axes!r}"
        ) from None
    xa = (xa,) if isinstance(xa, (int, _np.integer)) else tuple(xa)
    xb = (xb,) if isinstance(xb, (int, _np.integer)) else tuple(xb)
    if len(xa) != len(xb):
        raise _products.ShapeError(
            f"tensordot: the two axis lists must have the same length; "
            f"got {list(xa)} and {list(xb)}"
        )
    return tuple(int(i) % na for i in xa), tuple(int(i) % nb for i in xb)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """``numpy.tensordot``: sums over the last/first ``axes`` axes, or the listed pairs.

    >>> import numpy as np
    >>> from funcgrad.numpy import tensordot
    >>> tensordot(np.ones((2, 3, 4)), np.ones((4, 3)), axes=([1, 2], [1, 0]))
    array([12., 12.])
    """
    checked_precision(precision, "tensordot")
    a, b = lists_as_arrays(a), lists_as_arrays(b)
    axes = _tensordot_axes(axes, ndim_of(a), ndim_of(b))
    return in_preferred_type(
        lambda a, b: _products.tensordot(a, b, axes=axes), (a, b), preferred_element_type
    )


def einsum(subscripts, *operands, optimize=False, precision=None, preferred_element_type=None):
    """``numpy.einsum`` with a subscripts string: explicit (``'ij,jk->ik'``) or implicit
    (``'ij,jk'``) output, repeated letters (``'ii->i'``, ``'ii'``) and ellipses.

    Its reverse rule is again an einsum, so it can be differentiated to any order.
    NumPy's interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (axes as
    integers, ``...`` as Ellipsis, the output list optional) is read as the
    string it stands for.

    >>> import numpy as np
    >>> from funcgrad.numpy import einsum
    >>> einsum("ii->i", np.arange(4.0).reshape(2, 2))
    array([0., 3.])
    >>> einsum("...ij,...jk", np.ones((5, 2, 3)), np.ones((3, 4))).shape
    (5, 2, 4)
    >>> einsum(np.ones((2, 3)), [0, 1], np.ones((3, 4)), [1, 2], [0, 2]).shape
    (2, 4)
    """
    checked_precision(precision, "einsum")
    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts,) + operands)
    return in_preferred_type(
        lambda *ops: _products.einsum(*ops, subscripts=subscripts, optimize=optimize),
        tuple(map(lists_as_arrays, operands)),
        preferred_element_type,
    )


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _from_sublists(args):
    """NumPy's interleaved einsum arguments ``op, sublist, op, sublist, ..., [out]`` as
    ``(subscripts, operands)``."""

    def letters(sublist):
        try:
            return "".join("..." if k is Ellipsis else _LETTERS[int(k)] for k in sublist)
        except (IndexError, TypeError, ValueError):
            raise ArgumentError(
                f"einsum: a sublist holds axis numbers 0 to 51 or Ellipsis; got {sublist!r}"
            ) from None

    pairs, out = args, None
    if len(args) % 2:
        pairs, out = args[:-1], args[-1]
    operands, terms = pairs[0::2], [letters(s) for s in pairs[1::2]]
    subscripts = ",".join(terms) + ("" if out is None else "->" + letters(out))
    return subscripts, operands


def kron(a, b):
    """``numpy.kron``: the Kronecker product, block ``(i, j)`` being ``a[i, j] * b``.

    >>> import numpy as np
    >>> from funcgrad.numpy import kron
    >>> kron(np.eye(2), np.array([[1.0, 2.0]]))
    array([[1., 2., 0., 0.],
           [0., 0., 1., 2.]])
    """
    return _products.kron(lists_as_arrays(a), lists_as_arrays(b))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``numpy.trace``: the sum along a diagonal (``offset`` above the main one).

    >>> import numpy as np
    >>> from funcgrad.numpy import trace
    >>> trace(np.arange(9.0).reshape(3, 3), offset=1)
    np.float64(6.0)
    """
    refuse("trace", out=out)
    if dtype is not None:
        raise ArgumentTypeError(
            "funcgrad.numpy.trace does not take dtype=; convert the input instead"
        )
    return _diagonals.trace(lists_as_arrays(a), offset=offset, axis1=axis1, axis2=axis2)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``numpy.diagonal``: the diagonal of the ``axis1``, ``axis2`` planes, as the last axis.

    >>> import numpy as np
    >>> from funcgrad.numpy import diagonal
    >>> diagonal(np.arange(6.0).reshape(2, 3), offset=1)
    array([1., 5.])
    """
    return _diagonals.diagonal(lists_as_arrays(a), offset=offset, axis1=axis1, axis2=axis2)


def diag(v, k=0):
    """``numpy.diag``: a 1-D ``v`` placed on diagonal ``k`` of a square matrix, or
    diagonal ``k`` of a 2-D ``v``.

    >>> import numpy as np
    >>> from funcgrad.numpy import diag
    >>> diag(np.array([1.0, 2.0]), k=1)
    array([[0., 1., 0.],
           [0., 0., 2.],
           [0., 0., 0.]])
    >>> diag(np.arange(4.0).reshape(2, 2))
    array([0., 3.])
    """
    v = lists_as_arrays(v)
    shape = _shape_of(v)
    if len(shape) == 1:
        n = shape[0] + abs(k)
        return _diagonals.undiagonal(v, offset=k, axis1=0, axis2=1, shape=(n, n))
    if len(shape) == 2:
        return _diagonals.diagonal(v, offset=k, axis1=0, axis2=1)
    raise _products.ShapeError(
        f"diag needs a 1-D array (to build a matrix) or a 2-D one (to take "
        f"its diagonal); got shape {shape}"
    )


def triu(m, k=0):
    """``numpy.triu``: zeros below diagonal ``k`` (of the last two axes).

    >>> import numpy as np
    >>> from funcgrad.numpy import triu
    >>> triu(np.ones((2, 2)))
    array([[1., 1.],
           [0., 1.]])
    """
    return _diagonals.triu(lists_as_arrays(m), k=k)


def tril(m, k=0):
    """``numpy.tril``: zeros above diagonal ``k`` (of the last two axes).

    >>> import numpy as np
    >>> from funcgrad.numpy import tril
    >>> tril(np.ones((2, 2)), k=-1)
    array([[0., 0.],
           [1., 0.]])
    """
    return _diagonals.tril(lists_as_arrays(m), k=k)


def _component(x, i):
    return _arrays.getitem(x, index=(Ellipsis, i))


def _numpy_takes_2_vectors():
    """Whether the installed NumPy's ``cross`` takes 2-vectors (as z = 0): deprecated in
    NumPy 2.0, refused from 2.5. funcgrad's traced ``cross`` does as the installed one."""
    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore", DeprecationWarning)
            _np.cross(_np.ones(2), _np.ones(2))
    except ValueError:
        return False
    return True


_CROSS_TAKES_2_VECTORS = _numpy_takes_2_vectors()


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``numpy.cross``: the cross product of 3-vectors, broadcast over the other axes; where
    the installed NumPy takes them (before 2.5), 2-vectors count as z = 0 and two 2-vectors
    give the z component.

    >>> import numpy as np
    >>> from funcgrad.numpy import cross
    >>> cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    array([0., 0., 1.])
    """
    if not is_traced(a, b):
        return _np.cross(a, b, axisa, axisb, axisc, axis)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _moveaxis(lists_as_arrays(a), axisa, -1)
    b = _moveaxis(lists_as_arrays(b), axisb, -1)
    na, nb = _shape_of(a)[-1], _shape_of(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ArgumentError(
            f"cross: incompatible dimensions for cross product (dimension must be 2 "
            f"or 3); got {na} and {nb}"
        )
    if 2 in (na, nb) and not _CROSS_TAKES_2_VECTORS:
        raise ArgumentError(
            f"cross: NumPy {_np.__version__} takes 3-vectors only (2-vectors were deprecated "
            f"in NumPy 2.0 and removed in 2.5); got {na}- and {nb}-vectors: append a zero "
            f"z component, or take a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0] for the z alone"
        )
    a0, a1, b0, b1 = _component(a, 0), _component(a, 1), _component(b, 0), _component(b, 1)
    z = a0 * b1 - a1 * b0
    if na == 2 and nb == 2:
        return z
    a2 = _component(a, 2) if na == 3 else 0.0
    b2 = _component(b, 2) if nb == 3 else 0.0
    parts = [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z]
    shape = _np.broadcast_shapes(*[_shape_of(p) for p in parts])
    out = _arrays.concatenate(
        *[
            _arrays.reshape(
                _arrays.broadcast_to(p, shape=shape) if _shape_of(p) != shape else p,
                shape=shape + (1,),
            )
            for p in parts
        ],
        axis=len(shape),
    )
    return _moveaxis(out, -1, axisc)


def _moveaxis(x, source, destination):
    nd = len(_shape_of(x))
    order = [i for i in range(nd) if i != source % nd]
    order.insert(destination % nd, source % nd)
    return x if order == list(range(nd)) else _arrays.transpose(x, axes=tuple(order))


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """``numpy.vecdot``: ``sum(conj(x1) * x2)`` along ``axis``, broadcast over the rest
    (JAX's ``precision`` and ``preferred_element_type``, as :func:`dot`'s).

    >>> import numpy as np
    >>> from funcgrad.numpy import vecdot
    >>> vecdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
    array([3., 7.])
    """
    checked_precision(precision, "vecdot")
    if preferred_element_type is not None:
        product = lambda a, b: vecdot(a, b, axis=axis)
        return in_preferred_type(product, (x1, x2), preferred_element_type)
    if not is_traced(x1, x2):
        return _np.vecdot(x1, x2, axis=axis)
    return _products.vecdot(lists_as_arrays(x1), lists_as_arrays(x2), axis=axis)


def diagflat(v, k=0):
    """``numpy.diagflat``: the flattened ``v`` on diagonal ``k`` of a square matrix.

    >>> import numpy as np
    >>> from funcgrad.numpy import diagflat
    >>> diagflat(np.array([[1.0, 2.0]]))
    array([[1., 0.],
           [0., 2.]])
    """
    return diag(_arrays.reshape(lists_as_arrays(v), shape=(-1,)), k)
