"""The home of rule authors: the one primitive form funcgrad's own tables use.

A primitive is its impl with its rules side by side (see
:mod:`funcgrad.core.primitive` for the form): ``vjp`` and ``jvp`` per argument
or joint, ``batch`` for vmap, and, for elementwise functions, the one-line
shortcut of their partial derivatives. Everything funcgrad's rule tables use
to write rules is here too: the value and shape questions, the cotangent
arithmetic (the elementwise ``pullback``, ``unbroadcast``,
``restore_reduced_axes``, ``real_part_for``, ``add_cotangents``), and the
helpers of batching rules.

An elementwise primitive from its partial derivative; reverse mode, forward
mode and vmap follow from it:

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> from funcgrad import extend
>>> softplus = extend.elementwise("softplus", lambda x: np.logaddexp(0.0, x),
...                               lambda ans, x: fg.nn.sigmoid(x))
>>> fg.grad(lambda x: fnp.sum(softplus(x)))(np.array([0.0, 1000.0]))
array([0.5, 1. ])
>>> fg.jvp(softplus, (0.0,), (2.0,))[1], fg.vmap(softplus)(np.zeros((2, 1))).shape
(np.float64(1.0), (2, 1))

Any other primitive, in the same form as ``funcgrad.rules``; here a row
normalisation with its reverse rule, its forward rule and a batching rule
that moves its axis past vmap's batch axis:

>>> def _normalize(x, axis=-1):
...     return x / np.sum(x, axis=axis, keepdims=True)
>>> normalize = extend.Primitive(
...     "normalize", _normalize,
...     vjp=(lambda g, ans, x, axis=-1:
...          (g - fnp.sum(g * ans, axis=axis, keepdims=True)) / fnp.sum(x, axis=axis, keepdims=True),),
...     jvp=(lambda t, ans, x, axis=-1:
...          (t - ans * fnp.sum(t, axis=axis, keepdims=True)) / fnp.sum(x, axis=axis, keepdims=True),),
...     batch=extend.batch_along_axis)
>>> x = np.array([[1.0, 3.0], [2.0, 2.0]])
>>> fg.check_grads(normalize, (x,), order=2)
>>> np.allclose(fg.vmap(normalize)(x), normalize(x))
True
"""

from .core.primitive import Primitive, is_joint
from .core.traces import Box, Trace, new_level
from .core.user_primitives import defbatch, defjvp, defvjp, defxp, primitive
from .core.values import ndim_of, normalize_axes, plain, raw, shape_of, zeros_like_value
from .dag.arraylike import ArrayLike
from .rules.arrays import (
    all_batched,
    batch_along_axis,
    batch_elementwise,
    batch_example_by_example,
    batch_reduction,
    example_shape,
    lead_axes,
    positive_axes,
    restore_reduced_axes,
    shift_axes,
    unbroadcast,
)
from .rules.elementwise import elementwise, pullback, real_part_for
from .rules.selection import Selection


def add_cotangents(a, b):
    """The sum of two cotangents of one value (the real semiring's plus, what backprop
    adds where paths meet): numbers, arrays or traced values.

    >>> import numpy as np
    >>> from funcgrad import extend
    >>> extend.add_cotangents(np.ones(2), np.array([1.0, 2.0]))
    array([2., 3.])
    """
    return a + b


__all__ = [
    # the form of a primitive, and the makers of its rules
    "Primitive",
    "primitive",
    "elementwise",
    "Selection",
    "defvjp",
    "defjvp",
    "defbatch",
    "defxp",
    "is_joint",
    # writing rules
    "raw",
    "plain",
    "shape_of",
    "ndim_of",
    "zeros_like_value",
    "normalize_axes",
    # cotangent arithmetic (each helper lives with the primitives it is made of)
    "unbroadcast",
    "restore_reduced_axes",
    "pullback",
    "real_part_for",
    "add_cotangents",
    # writing batching rules
    "example_shape",
    "positive_axes",
    "shift_axes",
    "lead_axes",
    "all_batched",
    "batch_elementwise",
    "batch_reduction",
    "batch_along_axis",
    "batch_example_by_example",
    # writing a transform: the trace protocol, and the operators every traced value has
    "Box",
    "Trace",
    "new_level",
    "ArrayLike",
]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
