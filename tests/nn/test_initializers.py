"""fg.nn.initializers: JAX's makers, checked by what they promise (shape, dtype, the
variance asked for with JAX's fan counts, bounds, orthogonality, one answer per key),
under jit and vmap of keys too."""

import math

import numpy as np
import pytest

import funcgrad as fg

init = fg.nn.initializers
KEY = fg.random.key(7)


@pytest.mark.parametrize(
    "name, scale, mode",
    [
        ("glorot_uniform", 1.0, "fan_avg"),
        ("glorot_normal", 1.0, "fan_avg"),
        ("xavier_uniform", 1.0, "fan_avg"),
        ("xavier_normal", 1.0, "fan_avg"),
        ("lecun_uniform", 1.0, "fan_in"),
        ("lecun_normal", 1.0, "fan_in"),
        ("he_uniform", 2.0, "fan_in"),
        ("he_normal", 2.0, "fan_in"),
        ("kaiming_uniform", 2.0, "fan_in"),
        ("kaiming_normal", 2.0, "fan_in"),
    ],
)
@pytest.mark.parametrize("shape", [(300, 200), (3, 3, 40, 60)])
def test_variance_scaling_gives_the_variance_it_names(name, scale, mode, shape):
    w = getattr(init, name)()(KEY, shape)
    assert w.shape == shape and w.dtype == np.float64
    window = math.prod(shape[:-2])
    fan_in, fan_out = shape[-2] * window, shape[-1] * window
    n = {"fan_in": fan_in, "fan_avg": (fan_in + fan_out) / 2}[mode]
    assert w.var() == pytest.approx(scale / n, rel=0.05)
    assert abs(w.mean()) < 3 * math.sqrt(scale / n / w.size)
    if name.endswith("uniform"):
        assert abs(w).max() <= math.sqrt(3 * scale / n)
    else:  # truncated at two standard deviations of the untruncated normal
        assert abs(w).max() <= 2 * math.sqrt(scale / n) / 0.87962566103423978


def test_the_same_key_gives_the_same_weights_and_dtypes_follow():
    a = init.he_normal()(KEY, (4, 5))
    np.testing.assert_array_equal(a, init.he_normal()(KEY, (4, 5)))
    assert not np.array_equal(a, init.he_normal()(fg.random.key(8), (4, 5)))
    assert init.glorot_uniform()(KEY, (4, 5), np.float32).dtype == np.float32
    assert init.glorot_uniform(dtype=np.float32)(KEY, (4, 5)).dtype == np.float32
    np.testing.assert_array_equal(init.zeros(KEY, (2,)), [0.0, 0.0])
    np.testing.assert_array_equal(init.ones(KEY, (2,), np.int32), [1, 1])
    np.testing.assert_array_equal(init.constant(-0.5)(KEY, (2,)), [-0.5, -0.5])
    u = init.uniform(0.5)(KEY, (1000,))
    assert u.min() >= 0.0 and u.max() < 0.5
    assert init.normal(2.0)(KEY, (4000,)).std() == pytest.approx(2.0, rel=0.05)
    assert abs(init.truncated_normal(1.0, lower=-1.0, upper=0.5)(KEY, (1000,)) - 0.0).max() <= 1.0


@pytest.mark.parametrize("shape, axis", [((5, 3), -1), ((3, 5), -1), ((2, 3, 8), -1), ((6, 4), 0)])
def test_orthogonal_is_orthogonal_along_its_columns(shape, axis):
    w = init.orthogonal(scale=2.0, column_axis=axis)(KEY, shape)
    assert w.shape == shape
    cols = shape[axis]
    m = np.moveaxis(w, axis, -1).reshape(-1, cols)
    small = min(m.shape)
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-12)


def test_initializers_run_under_jit_and_vmap_of_keys():
    make = init.lecun_normal()
    np.testing.assert_array_equal(fg.jit(lambda k: make(k, (3, 4)))(KEY), make(KEY, (3, 4)))
    keys = fg.random.split(KEY, 3)
    np.testing.assert_array_equal(
        fg.vmap(lambda k: make(k, (3, 4)))(keys), np.stack([make(k, (3, 4)) for k in keys])
    )
    np.testing.assert_allclose(
        fg.jit(lambda k: init.orthogonal()(k, (4, 3)))(KEY),
        init.orthogonal()(KEY, (4, 3)),
        atol=1e-14,
    )


def test_initializers_refuse_by_name():
    with pytest.raises(fg.ArgumentError, match="mode"):
        init.variance_scaling(1.0, "fan_sideways", "normal")
    with pytest.raises(fg.ArgumentError, match="distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")
    with pytest.raises(fg.ShapeError, match="fan in"):
        init.he_normal()(KEY, (5,))
    with pytest.raises(fg.ShapeError, match="orthogonal"):
        init.orthogonal()(KEY, (5,))
