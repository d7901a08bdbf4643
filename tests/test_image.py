"""fg.image.resize and scale_and_translate against what each method must give: linear
upsampling is NumPy's interpolation, antialiased halving the [1, 3, 3, 1] / 8 filter,
the cubic kernel reproduces quadratics, every method keeps constants; then under jit,
vmap and derivatives to second order."""

import numpy as np
import pytest

import funcgrad as fg

RNG = np.random.default_rng(0)
V = RNG.normal(size=10)


def test_linear_upsampling_is_interpolation_at_pixel_centres():
    out = fg.image.resize(V, (23,), "linear", antialias=False)
    centres = (np.arange(23) + 0.5) * 10 / 23 - 0.5
    np.testing.assert_allclose(out, np.interp(centres, np.arange(10), V), rtol=1e-12)


def test_antialiased_halving_is_the_binomial_filter():
    out = fg.image.resize(V, (5,), "linear")
    inner = np.convolve(V, np.array([1.0, 3.0, 3.0, 1.0]) / 8, mode="valid")[1::2]
    np.testing.assert_allclose(out[1:-1], inner[:3], rtol=1e-12)
    assert np.isclose(out[0], (0.75 * V[0] + 0.75 * V[1] + 0.25 * V[2]) / 1.75)


def test_cubic_reproduces_quadratics_inside():
    x = np.arange(12.0)
    q = 0.3 * x**2 - x + 2.0
    out = fg.image.resize(q, (29,), "cubic", antialias=False)
    s = (np.arange(29) + 0.5) * 12 / 29 - 0.5
    inside = (s > 1) & (s < 10)
    np.testing.assert_allclose(out[inside], (0.3 * s**2 - s + 2.0)[inside], rtol=1e-12)


@pytest.mark.parametrize("method", ["nearest", "linear", "cubic", "lanczos3", "lanczos5"])
def test_constants_stay_and_nearest_picks_the_centre(method):
    image = np.full((4, 6, 2), 2.5)
    for shape in [(9, 3, 2), (2, 11, 2)]:
        np.testing.assert_allclose(
            fg.image.resize(image, shape, method), np.full(shape, 2.5), rtol=1e-12
        )
    picked = fg.image.resize(V, (4,), "nearest")
    np.testing.assert_array_equal(picked, V[np.floor((np.arange(4) + 0.5) * 10 / 4).astype(int)])


def test_scale_and_translate():
    shifted = fg.image.scale_and_translate(V, (10,), (0,), [1.0], [2.0], "lanczos3")
    np.testing.assert_allclose(shifted[2:], V[:8], rtol=1e-12, atol=1e-15)  # whole pixels
    np.testing.assert_array_equal(shifted[:2], 0.0)  # outside the input
    with pytest.raises(fg.ArgumentError, match="'nearest' is not offered"):
        fg.image.scale_and_translate(V, (10,), (0,), [1.0], [0.0], "nearest")
    with pytest.raises(fg.ArgumentError, match="unknown method 'bilinearx'"):
        fg.image.resize(V, (4,), "bilinearx")


def test_under_transforms():
    images = RNG.normal(size=(3, 5, 7))
    f = lambda x: fg.image.resize(x, (8, 4), "cubic")
    np.testing.assert_allclose(
        fg.jit(fg.vmap(f))(images), np.stack([f(x) for x in images]), rtol=1e-12
    )
    fg.check_grads(
        lambda x: fg.image.resize(x, (9, 3), "lanczos3"),
        (images[0],),
        order=2,
        modes=("rev", "fwd"),
    )
    fg.check_grads(lambda x: fg.image.resize(x, (2, 10), "nearest"), (images[0],), order=1)
