"""Neural networks as pairs of functions, in the shape of JAX's ``example_libraries.stax``.

A layer is a pair ``(init_fun, apply_fun)``: ``init_fun(rng, input_shape)`` returns
``(output_shape, params)`` and ``apply_fun(params, inputs, **kwargs)`` the outputs.
Combinators (:func:`serial`, :func:`parallel`, :func:`FanOut`, ...) make layers of
layers. Nothing is stateful: params are pytrees, so ``fg.grad``, ``fg.jit`` and
``fg.vmap`` take them as they are. The initial numbers come from funcgrad's own
generator, so they are not JAX's numbers (``funcgrad.random`` says why); the layers'
arithmetic is JAX's.

>>> import numpy as np
>>> import funcgrad as fg
>>> from funcgrad.example_libraries import stax
>>> init, apply = stax.serial(stax.Dense(8), stax.Relu, stax.Dense(3), stax.LogSoftmax)
>>> out_shape, params = init(fg.random.key(0), (-1, 4))
>>> out_shape
(-1, 3)
>>> logp = apply(params, np.ones((2, 4)))
>>> logp.shape, bool(np.allclose(np.exp(logp).sum(axis=1), 1.0))
((2, 3), True)
>>> loss = lambda p: -fg.numpy.mean(apply(p, np.ones((2, 4)))[:, 0])
>>> grads = fg.grad(loss)(params)
>>> [tuple(np.shape(w) for w in layer) for layer in grads]
[((4, 8), (8,)), (), ((8, 3), (3,)), ()]
"""

import functools
import operator
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .. import lax, nn, random
from .. import numpy as fnp
from ..core.errors import ArgumentError
from ..nn.initializers import glorot_normal, normal, ones, zeros

__all__ = [
    "Layer",
    "Dense",
    "GeneralConv",
    "Conv",
    "Conv1DTranspose",
    "ConvTranspose",
    "GeneralConvTranspose",
    "BatchNorm",
    "elementwise",
    "Tanh",
    "Relu",
    "Exp",
    "LogSoftmax",
    "Softmax",
    "Softplus",
    "Sigmoid",
    "Elu",
    "LeakyRelu",
    "Selu",
    "Gelu",
    "MaxPool",
    "SumPool",
    "AvgPool",
    "Flatten",
    "Identity",
    "FanOut",
    "FanInSum",
    "FanInConcat",
    "Dropout",
    "serial",
    "parallel",
    "shape_dependent",
]


# The initializers JAX's layers default to (functions, the same for every layer).
_GLOROT_NORMAL, _NORMAL, _TINY_NORMAL = glorot_normal(), normal(), normal(1e-6)


class Layer(NamedTuple):
    """A layer: the pair ``(init_fun, apply_fun)`` (a tuple, unpacked as JAX's are).
    The layers without parameters (``Tanh``, ``Relu``, ``Flatten``, ``Identity``,
    ``FanInSum``, ...) are such pairs themselves, not functions that make one.

    >>> import numpy as np
    >>> from funcgrad.example_libraries import stax
    >>> init, apply = stax.Relu
    >>> init(None, (2, 3)), apply((), np.array([-1.0, 2.0]))
    (((2, 3), ()), array([0., 2.]))
    """

    init_fun: Callable
    apply_fun: Callable


def Dense(out_dim, W_init=_GLOROT_NORMAL, b_init=_NORMAL):
    """A fully connected layer: ``inputs @ W + b`` over the last axis.

    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries.stax import Dense
    >>> init, apply = Dense(5)
    >>> shape, (W, b) = init(fg.random.key(1), (3, 2))
    >>> shape, W.shape, b.shape
    ((3, 5), (2, 5), (5,))
    """

    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        W, b = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return tuple(input_shape[:-1]) + (out_dim,), (W, b)

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return fnp.dot(inputs, W) + b

    return Layer(init_fun, apply_fun)


def _kernel_shape(specs, input_shape, out_chan, filter_shape):
    lhs_spec, rhs_spec, _ = specs
    spatial = iter(filter_shape)
    return tuple(
        out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I" else next(spatial)
        for c in rhs_spec
    )


def _conv_layer(
    transpose, dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init
):
    _, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))
    shape_of_output = lax.conv_transpose_shape_tuple if transpose else lax.conv_general_shape_tuple

    def init_fun(rng, input_shape):
        kernel_shape = _kernel_shape(dimension_numbers, input_shape, out_chan, filter_shape)
        output_shape = shape_of_output(
            input_shape, kernel_shape, strides, padding, dimension_numbers
        )
        bias_shape = tuple(out_chan if c == "C" else 1 for c in out_spec)
        k1, k2 = random.split(rng)
        return tuple(output_shape), (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        if transpose:
            out = lax.conv_transpose(
                inputs, W, strides, padding, dimension_numbers=dimension_numbers
            )
        else:
            out = lax.conv_general_dilated(
                inputs, W, strides, padding, one, one, dimension_numbers=dimension_numbers
            )
        return out + b

    return Layer(init_fun, apply_fun)


def GeneralConv(
    dimension_numbers,
    out_chan,
    filter_shape,
    strides=None,
    padding="VALID",
    W_init=None,
    b_init=_TINY_NORMAL,
):
    """A convolution with the layouts ``dimension_numbers`` names, e.g.
    ``("NHWC", "HWIO", "NHWC")`` (:data:`Conv` is that one).

    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries.stax import GeneralConv
    >>> init, apply = GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3), padding="SAME")
    >>> shape, (W, b) = init(fg.random.key(0), (2, 1, 5, 5))
    >>> shape, W.shape, b.shape
    ((2, 4, 5, 5), (4, 1, 3, 3), (1, 4, 1, 1))
    """
    return _conv_layer(
        False, dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init
    )


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
Conv.__doc__ = """A 2-D convolution on NHWC images with an HWIO kernel: ``GeneralConv`` with those
layouts.

>>> import funcgrad as fg
>>> from funcgrad.example_libraries.stax import Conv
>>> init, apply = Conv(16, (3, 3))
>>> init(fg.random.key(0), (8, 28, 28, 1))[0]
(8, 26, 26, 16)
"""


def GeneralConvTranspose(
    dimension_numbers,
    out_chan,
    filter_shape,
    strides=None,
    padding="VALID",
    W_init=None,
    b_init=_TINY_NORMAL,
):
    """A transposed convolution (``lax.conv_transpose``) with these layouts.

    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries.stax import ConvTranspose
    >>> init, apply = ConvTranspose(3, (2, 2), strides=(2, 2))
    >>> init(fg.random.key(0), (1, 4, 4, 8))[0]
    (1, 8, 8, 3)
    """
    return _conv_layer(
        True, dimension_numbers, out_chan, filter_shape, strides, padding, W_init, b_init
    )


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
Conv1DTranspose.__doc__ = """A 1-D transposed convolution on NHC inputs.

>>> import funcgrad as fg
>>> from funcgrad.example_libraries.stax import Conv1DTranspose
>>> Conv1DTranspose(2, (3,))[0](fg.random.key(0), (1, 5, 4))[0]
(1, 7, 2)
"""
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))
ConvTranspose.__doc__ = """A 2-D transposed convolution on NHWC images.

>>> import funcgrad as fg
>>> from funcgrad.example_libraries.stax import ConvTranspose
>>> ConvTranspose(2, (3, 3))[0](fg.random.key(0), (1, 5, 5, 4))[0]
(1, 7, 7, 2)
"""


def BatchNorm(
    axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros, gamma_init=ones
):
    """Inputs standardized over ``axis`` (the batch's own mean and variance; no running
    averages, as in JAX's), then scaled by ``gamma`` and shifted by ``beta``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries.stax import BatchNorm
    >>> init, apply = BatchNorm(axis=(0,))
    >>> shape, params = init(fg.random.key(0), (4, 3))
    >>> y = apply(params, np.arange(12.0).reshape(4, 3))
    >>> bool(np.allclose(y.mean(axis=0), 0.0)), bool(np.allclose(y.std(axis=0), 1.0, atol=1e-4))
    (True, True)
    """
    axis = (axis,) if np.isscalar(axis) else tuple(axis)

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        spread = tuple(None if i in axis else slice(None) for i in range(fnp.ndim(x)))
        z = nn.standardize(x, axis, epsilon=epsilon)
        if scale:
            z = gamma[spread] * z
        return z + beta[spread] if center else z

    return Layer(init_fun, apply_fun)


def elementwise(fun, **fun_kwargs):
    """A layer without parameters applying ``fun`` to its inputs.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries.stax import elementwise
    >>> init, apply = elementwise(fg.nn.leaky_relu, negative_slope=0.5)
    >>> apply((), np.array([-2.0, 3.0]))
    array([-1.,  3.])
    """

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)

    return Layer(init_fun, apply_fun)


Tanh = elementwise(fnp.tanh)
Relu = elementwise(nn.relu)
Exp = elementwise(fnp.exp)
LogSoftmax = elementwise(nn.log_softmax, axis=-1)
Softmax = elementwise(nn.softmax, axis=-1)
Softplus = elementwise(nn.softplus)
Sigmoid = elementwise(nn.sigmoid)
Elu = elementwise(nn.elu)
LeakyRelu = elementwise(nn.leaky_relu)
Selu = elementwise(nn.selu)
Gelu = elementwise(nn.gelu, approximate=True)  # jax.nn.gelu's default, which stax uses


def _pooling(reducer, init_val, mean=False):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        strides = tuple(strides or (1,) * len(window_shape))
        window = tuple(window_shape)
        batch_axis, channel_axis = (
            (0, len(window) + 1) if spec is None else (spec.index("N"), spec.index("C"))
        )
        for i in sorted((batch_axis, channel_axis)):  # the window spans neither
            window, strides = window[:i] + (1,) + window[i:], strides[:i] + (1,) + strides[i:]

        def init_fun(rng, input_shape):
            pads = lax.padtype_to_pads(input_shape, window, strides, padding)
            shape = tuple(
                (d + lo + hi - w) // s + 1 if d >= 0 else d
                for d, w, s, (lo, hi) in zip(input_shape, window, strides, pads)
            )
            return shape, ()

        def apply_fun(params, inputs, **kwargs):
            out = lax.reduce_window(inputs, init_val, reducer, window, strides, padding)
            if not mean:
                return out
            # each output's own count: windows at a padded edge hold fewer inputs
            counts = lax.reduce_window(
                np.ones(np.shape(inputs)), 0.0, lax.add, window, strides, padding
            )
            return out / counts

        return Layer(init_fun, apply_fun)

    return PoolingLayer


MaxPool = _pooling(lax.max, -np.inf)
MaxPool.__name__ = MaxPool.__qualname__ = "MaxPool"
MaxPool.__doc__ = """The largest input in each window (``spec``, e.g. ``"NHWC"``, says where the
batch and channel axes are; by default first and last).

>>> import numpy as np
>>> from funcgrad.example_libraries.stax import MaxPool
>>> init, apply = MaxPool((2, 2), strides=(2, 2))
>>> apply((), np.arange(16.0).reshape(1, 4, 4, 1))[0, :, :, 0]
array([[ 5.,  7.],
       [13., 15.]])
"""
SumPool = _pooling(lax.add, 0.0)
SumPool.__name__ = SumPool.__qualname__ = "SumPool"
SumPool.__doc__ = """The sum of each window.

>>> import numpy as np
>>> from funcgrad.example_libraries.stax import SumPool
>>> SumPool((2, 2))[1]((), np.ones((1, 3, 3, 1)))[0, :, :, 0]
array([[4., 4.],
       [4., 4.]])
"""
AvgPool = _pooling(lax.add, 0.0, mean=True)
AvgPool.__name__ = AvgPool.__qualname__ = "AvgPool"
AvgPool.__doc__ = """The mean of each window, over the inputs it holds (at a padded edge,
fewer).

>>> import numpy as np
>>> from funcgrad.example_libraries.stax import AvgPool
>>> AvgPool((2, 2), padding="SAME")[1]((), np.arange(4.0).reshape(1, 2, 2, 1))[0, :, :, 0]
array([[1.5, 2. ],
       [2.5, 3. ]])
"""


def _flatten_init(rng, input_shape):
    return (input_shape[0], functools.reduce(operator.mul, input_shape[1:], 1)), ()


def _flatten_apply(params, inputs, **kwargs):
    return fnp.reshape(inputs, (np.shape(inputs)[0], -1))


def _identity_init(rng, input_shape):
    return input_shape, ()


def _identity_apply(params, inputs, **kwargs):
    return inputs


Flatten = Layer(_flatten_init, _flatten_apply)
Identity = Layer(_identity_init, _identity_apply)


def FanOut(num):
    """``num`` copies of the input, for :func:`parallel` branches.

    >>> from funcgrad.example_libraries.stax import FanOut
    >>> FanOut(2)[1]((), 1.0)
    [1.0, 1.0]
    """
    return Layer(
        lambda rng, input_shape: ([input_shape] * num, ()),
        lambda params, inputs, **kw: [inputs] * num,
    )


def _fan_in_sum_init(rng, input_shape):
    return input_shape[0], ()


def _fan_in_sum_apply(params, inputs, **kwargs):
    return functools.reduce(operator.add, inputs)


FanInSum = Layer(_fan_in_sum_init, _fan_in_sum_apply)


def FanInConcat(axis=-1):
    """The inputs of parallel branches joined along ``axis``.

    >>> import numpy as np
    >>> from funcgrad.example_libraries.stax import FanInConcat
    >>> init, apply = FanInConcat()
    >>> init(None, [(2, 3), (2, 1)])[0], apply((), [np.ones((2, 3)), np.zeros((2, 1))]).shape
    ((2, 4), (2, 4))
    """

    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        first = tuple(input_shape[0])
        return first[:ax] + (size,) + first[ax + 1 :], ()

    def apply_fun(params, inputs, **kwargs):
        return fnp.concatenate(inputs, axis)

    return Layer(init_fun, apply_fun)


def Dropout(rate, mode="train"):
    """Inputs kept with probability ``rate`` and scaled by ``1 / rate`` (``rate`` is the
    probability of *keeping*, as in JAX's stax), the others zero; ``apply_fun`` needs a key
    as ``rng=``. In ``mode="test"`` the inputs pass unchanged.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries.stax import Dropout
    >>> init, apply = Dropout(0.5)
    >>> y = apply((), np.ones(1000), rng=fg.random.key(0))
    >>> sorted(set(y.tolist())), bool(abs(y.mean() - 1.0) < 0.1)
    ([0.0, 2.0], True)
    """

    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        if mode != "train":
            return inputs
        rng = kwargs.get("rng")
        if rng is None:
            raise ArgumentError(
                "Dropout's apply_fun needs a key: call apply_fun(params, inputs, rng=key), "
                "e.g. rng=fg.random.key(0); serial passes one split from its own rng="
            )
        keep = random.bernoulli(rng, rate, np.shape(inputs))
        return fnp.where(keep, inputs / rate, 0.0)

    return Layer(init_fun, apply_fun)


def _keys(rng, n):
    return random.split(rng, n) if rng is not None else (None,) * n


def serial(*layers):
    """The layers applied one after another: each gets its own key, split from ``rng``.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries import stax
    >>> init, apply = stax.serial(stax.Dense(4), stax.Tanh, stax.Dense(1))
    >>> shape, params = init(fg.random.key(0), (3, 2))
    >>> shape, apply(params, np.ones((3, 2))).shape
    ((3, 1), (3, 1))
    """
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        keys = _keys(kwargs.pop("rng", None), len(apply_funs))
        for fun, param, key in zip(apply_funs, params, keys):
            inputs = fun(param, inputs, rng=key, **kwargs)
        return inputs

    return Layer(init_fun, apply_fun)


def parallel(*layers):
    """The layers side by side: the i-th applied to the i-th of a list of inputs (use
    :func:`FanOut` before and :data:`FanInSum` or :func:`FanInConcat` after).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries import stax
    >>> init, apply = stax.serial(
    ...     stax.FanOut(2), stax.parallel(stax.Dense(3), stax.Identity), stax.FanInConcat())
    >>> shape, params = init(fg.random.key(0), (5, 2))
    >>> shape, apply(params, np.ones((5, 2))).shape
    ((5, 5), (5, 5))
    """
    init_funs, apply_funs = zip(*layers) if layers else ((), ())

    def init_fun(rng, input_shape):
        keys = random.split(rng, len(init_funs))
        pairs = [init(key, shape) for init, key, shape in zip(init_funs, keys, input_shape)]
        return tuple(zip(*pairs)) if pairs else ((), ())

    def apply_fun(params, inputs, **kwargs):
        keys = _keys(kwargs.pop("rng", None), len(apply_funs))
        return [f(p, x, rng=k, **kwargs) for f, p, x, k in zip(apply_funs, params, inputs, keys)]

    return Layer(init_fun, apply_fun)


def shape_dependent(make_layer):
    """A layer made from the input's shape by ``make_layer(shape)``, at init and at apply.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad.example_libraries import stax
    >>> init, apply = stax.shape_dependent(lambda shape: stax.Dense(shape[-1]))
    >>> init(fg.random.key(0), (2, 7))[0]
    (2, 7)
    """

    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(np.shape(inputs))[1](params, inputs, **kwargs)

    return Layer(init_fun, apply_fun)


def __dir__():
    return list(__all__)
