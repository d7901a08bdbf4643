"""lax.conv_transpose and the convolution shape helpers (lax/_convolutions.py).

Oracles: the shape of the array the convolution actually returns, JAX's own functions
in float64 (a comparison extra, skipped with a message where not installed), central
differences, a Python loop for vmap and the eager call for jit.
"""

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad import lax

RNG = np.random.default_rng(21)
LAYOUTS = [None, ("NHWC", "HWIO", "NHWC"), ("NCHW", "OIHW", "NHWC"), ("NHWC", "OIHW", "NCHW")]


def _shapes(layout, n=2, c=3, o=4, size=(7, 6), window=(3, 2)):
    lhs = {"N": n, "C": c, "H": size[0], "W": size[1]}
    rhs = {"O": o, "I": c, "H": window[0], "W": window[1]}
    spec = layout or ("NCHW", "OIHW", "NCHW")
    return tuple(lhs[a] for a in spec[0]), tuple(rhs[a] for a in spec[1])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("padding", ["SAME", "VALID", "SAME_LOWER", [(1, 0), (2, 1)]])
@pytest.mark.parametrize("strides", [(1, 1), (2, 3)])
def test_the_shape_tuple_is_the_convolutions_shape(layout, padding, strides):
    lhs_shape, rhs_shape = _shapes(layout)
    want = fg.nn.conv_general_dilated(
        np.ones(lhs_shape), np.ones(rhs_shape), strides, padding, dimension_numbers=layout
    ).shape
    assert lax.conv_general_shape_tuple(lhs_shape, rhs_shape, strides, padding, layout) == want
    if padding != "SAME_LOWER" and layout is not None:  # JAX's helper: SAME, VALID, layouts
        jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
        theirs = jax.lax.conv_general_shape_tuple(lhs_shape, rhs_shape, strides, padding, layout)
        assert tuple(theirs) == want


@pytest.mark.parametrize("padding", ["SAME", "VALID", "SAME_LOWER"])
def test_pads_and_permutations_are_jaxs(padding):
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    for size, window, stride in itertools.product((5, 6, 28), (1, 2, 3, 4), (1, 2, 3)):
        mine = lax.padtype_to_pads((size,), (window,), (stride,), padding)
        theirs = jax.lax.padtype_to_pads((size,), (window,), (stride,), padding)
        assert [tuple(p) for p in theirs] == mine, (size, window, stride)
    for layout in LAYOUTS[1:]:
        assert lax.conv_general_permutations(layout) == tuple(
            tuple(p) for p in jax.lax.conv_general_permutations(layout)
        )


TRANSPOSES = [
    ((2,), "SAME", None, False),
    ((2,), "VALID", None, True),
    ((3,), [(1, 2)], (2,), False),
    ((1,), "SAME", (2,), True),
]


@pytest.mark.parametrize("strides, padding, dilation, flip", TRANSPOSES)
def test_conv_transpose_against_jax_and_under_transforms(strides, padding, dilation, flip):
    layout = ("NWC", "WIO", "NWC")
    x, k = RNG.normal(size=(2, 5, 3)), RNG.normal(size=(3, 3, 4))
    if flip:  # transpose_kernel swaps the kernel's two feature axes
        k = RNG.normal(size=(3, 4, 3))

    def f(x, k):
        return lax.conv_transpose(x, k, strides, padding, dilation, layout, transpose_kernel=flip)

    y = f(x, k)
    if dilation is None and not flip:  # the shape helper knows no dilation
        assert y.shape == lax.conv_transpose_shape_tuple(x.shape, k.shape, strides, padding, layout)
    loss = lambda x, k: fnp.sum(fnp.tanh(f(x, k)) ** 2)
    fg.check_grads(loss, (x, k), order=2)
    np.testing.assert_allclose(fg.jit(f)(x, k), y, rtol=1e-13)
    xs = np.stack([x, x * 0.5])
    np.testing.assert_allclose(
        fg.vmap(f, in_axes=(0, None))(xs, k), np.stack([f(v, k) for v in xs]), rtol=1e-13
    )
    jax = pytest.importorskip("jax", reason="JAX is a comparison extra (pip install jax)")
    jax.config.update("jax_enable_x64", True)
    theirs = jax.lax.conv_transpose(x, k, strides, padding, dilation, layout, transpose_kernel=flip)
    np.testing.assert_allclose(y, np.asarray(theirs), rtol=1e-12, atol=1e-12)
    their_grads = jax.grad(
        lambda a, b: (
            jax.numpy.tanh(
                jax.lax.conv_transpose(
                    a, b, strides, padding, dilation, layout, transpose_kernel=flip
                )
            )
            ** 2
        ).sum(),
        (0, 1),
    )(x, k)
    for mine, theirs in zip(fg.grad(loss, argnums=(0, 1))(x, k), their_grads):
        np.testing.assert_allclose(mine, np.asarray(theirs), rtol=1e-11, atol=1e-12)
