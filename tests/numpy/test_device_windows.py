"""Convolutions, pooling and the windows beneath them on other libraries' devices.

Stand-ins for a GPU (CI has none): array-api-strict's second device and PyTorch CPU
tensors whose ``__array__`` refuses. PyTorch's tensors go through its own convolutions
(``conv*d`` and ``torch.nn.grad``), array-api-strict's through the standard's functions
(slices, ``concat``, ``matmul``); both must give funcgrad's NumPy values and gradients,
on the arguments' device.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.namespaces import library_of
from funcgrad.rules import conv as layer
from funcgrad.rules import windows
from tests.helpers import benchmark_models, device_makers, to_numpy, torch

xs = pytest.importorskip("array_api_strict", reason="the backends extra: pip install -e '.[test]'")
DEVICE = xs.Device("device1")
RNG = np.random.default_rng(8)
MAKERS = device_makers()
pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")


def _check(got, want, like, rtol=1e-12):
    assert library_of(got) == library_of(like) and got.device == like.device
    np.testing.assert_allclose(to_numpy(got), want, rtol=rtol, atol=1e-13)


# (input shape, window, strides, padding, lhs_dilation, rhs_dilation)
CASES = [
    ((2, 6, 5, 3), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)),
    ((2, 7, 8, 3), (3, 3), (2, 2), ((1, 1), (2, 2)), (1, 1), (1, 1)),  # even, strided
    ((2, 7, 6, 3), (3, 2), (2, 1), ((1, 1), (0, 1)), (1, 1), (1, 2)),
    ((2, 6, 5, 3), (3, 3), (1, 1), ((-1, 1), (1, 0)), (1, 1), (1, 1)),  # a crop
    ((2, 4, 4, 2), (3, 3), (1, 2), ((2, 2), (1, 1)), (2, 1), (1, 1)),  # input dilation
    ((3, 9, 1), (4,), (2,), ((1, 2),), (1,), (2,)),
    ((1, 4, 3, 5, 2), (2, 2, 3), (1, 1, 1), ((1, 0), (0, 1), (1, 1)), (1, 1, 1), (1, 1, 1)),
]


def _options(case):
    _, _, strides, padding, ld, rd = case
    return {"strides": strides, "padding": padding, "lhs_dilation": ld, "rhs_dilation": rd}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_the_convolution_and_its_transposes_equal_numpys(case, backend):
    make, options = MAKERS[backend], _options(case)
    x = RNG.normal(size=case[0])
    w = RNG.normal(size=(*case[1], x.shape[-1], 2))
    y = layer.conv(x, w, **options)
    g = RNG.normal(size=y.shape)
    a, b, c = make(x), make(w), make(g)
    _check(layer.conv(a, b, **options), y, a)
    _check(
        layer.conv_transpose(c, b, shape=x.shape, **options),
        layer.conv_transpose(g, w, shape=x.shape, **options),
        a,
    )
    _check(
        layer.conv_kernel(a, c, window=case[1], **options),
        layer.conv_kernel(x, g, window=case[1], **options),
        a,
    )
    k = len(case[1])
    params = {"axes": tuple(range(1, 1 + k)), "window": case[1], **options}
    patches = windows.windows(x, **params)
    _check(windows.windows(a, **params), patches, a)
    h = RNG.normal(size=patches.shape)
    _check(
        windows.unwindows(make(h), shape=x.shape, **params),
        windows.unwindows(h, shape=x.shape, **params),
        a,
    )


@pytest.mark.parametrize("backend", sorted(MAKERS))
def test_a_cnn_step_on_the_device_equals_numpys(backend):
    models = benchmark_models()
    make = MAKERS[backend]
    params, data = models.cnn_inputs(RNG, batch=4)
    want_loss, want = fg.value_and_grad(models.cnn_loss)(params, **data)
    on_device = fg.tree_util.tree_map(make, params)
    step = fg.value_and_grad(models.cnn_loss)
    for run in (step, fg.jit(step)):  # eager, and a plan of the library's calls
        loss, grads = run(on_device, **{k: make(v) for k, v in data.items()})
        np.testing.assert_allclose(to_numpy(loss), want_loss, rtol=1e-13)
        for got, expected, like in zip(
            fg.tree_util.tree_leaves(grads),
            fg.tree_util.tree_leaves(want),
            fg.tree_util.tree_leaves(on_device),
        ):
            _check(got, expected, like, rtol=1e-11)


POOLS = {
    "max 2x2": lambda x: fg.nn.max_pool(x, (2, 2), strides=(2, 2)),
    "max 3x3 SAME": lambda x: fg.nn.max_pool(x, (3, 3), strides=(2, 1), padding="SAME"),
    "avg 3x2": lambda x: fg.nn.avg_pool(x, (3, 2), strides=(1, 2), padding="SAME"),
    "grouped conv": lambda x: fg.nn.conv_general_dilated(
        x,
        np.ones((3, 3, 1, 4)) * 0.5,
        (1, 1),
        "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2,
    ),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pooling_on_the_device_equals_numpys(name):
    f = POOLS[name]
    x = RNG.normal(size=(2, 6, 5, 2))
    loss = lambda v: fnp.sum(fnp.tanh(f(v)))
    a = MAKERS["device1"](x)
    if name == "grouped conv":  # a NumPy kernel meets the device's image: refused by name
        with pytest.raises(fg.NamespaceError):
            fg.grad(loss)(a)
        return
    _check(fg.grad(loss)(a), fg.grad(loss)(x), a)
    if torch is not None:
        t = MAKERS["torch"](x)
        _check(fg.grad(loss)(t), fg.grad(loss)(x), t)
