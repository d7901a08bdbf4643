"""funcgrad.scipy.ndimage.map_coordinates against SciPy's (with the grid modes JAX's names
mean), its derivatives in the image and the coordinates against central differences,
jit against eager and vmap against a loop."""

import numpy as np
import pytest
import scipy.ndimage

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.scipy.ndimage import map_coordinates
from tests.helpers import numeric_grad

RNG = np.random.default_rng(0)
IMAGE = RNG.normal(size=(5, 6))
COORDS = [RNG.uniform(-2, 7, size=(4, 3)), RNG.uniform(-2, 8, size=(4, 3))]
SCIPY_MODE = {
    "constant": "grid-constant",
    "nearest": "nearest",
    "wrap": "grid-wrap",
    "mirror": "mirror",
    "reflect": "reflect",
}


@pytest.mark.parametrize("mode", sorted(SCIPY_MODE))
@pytest.mark.parametrize("order", [0, 1])
def test_values_are_scipys(mode, order):
    want = scipy.ndimage.map_coordinates(
        IMAGE, np.asarray(COORDS), order=order, mode=SCIPY_MODE[mode], cval=0.7
    )
    got = map_coordinates(IMAGE, COORDS, order=order, mode=mode, cval=0.7)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    jitted = fg.jit(
        lambda a, c0, c1: map_coordinates(a, [c0, c1], order=order, mode=mode, cval=0.7)
    )
    np.testing.assert_allclose(jitted(IMAGE, *COORDS), want, rtol=1e-12, atol=1e-12)


def test_derivatives_in_the_image_and_the_coordinates():
    def f(image, c0):
        return fnp.sum(map_coordinates(image, [c0, COORDS[1]], order=1, mode="reflect") ** 2)

    for i in (0, 1):
        np.testing.assert_allclose(
            fg.grad(f, argnums=i)(IMAGE, COORDS[0]),
            numeric_grad(f, (IMAGE, COORDS[0]), i),
            rtol=1e-6,
            atol=1e-8,
        )
    # forward mode in the coordinates of a plain image (the indices are traced integers)
    t = RNG.normal(size=COORDS[0].shape)
    _, tangent = fg.jvp(lambda c0: f(IMAGE, c0), (COORDS[0],), (t,))
    h = 1e-6
    assert np.isclose(
        tangent, (f(IMAGE, COORDS[0] + h * t) - f(IMAGE, COORDS[0] - h * t)) / (2 * h), rtol=1e-6
    )

    # inside a loop's body, where the coordinates are the body's traced values
    def looped(c0):
        return fg.fori_loop(
            0, 3, lambda i, acc: (acc[0] * 0.9, acc[1] + f(IMAGE, acc[0])), (c0, 0.0)
        )[1]

    np.testing.assert_allclose(
        looped(COORDS[0]), sum(f(IMAGE, COORDS[0] * 0.9**k) for k in range(3)), rtol=1e-12
    )
    batch = np.stack([IMAGE, 2 * IMAGE])
    np.testing.assert_allclose(
        fg.vmap(lambda a: map_coordinates(a, COORDS, order=1))(batch),
        np.stack([map_coordinates(a, COORDS, order=1) for a in batch]),
        rtol=1e-14,
    )


def test_integers_round_and_refusals():
    ints = np.arange(30).reshape(5, 6)
    want = scipy.ndimage.map_coordinates(ints, np.asarray(COORDS), order=1, mode="nearest")
    np.testing.assert_array_equal(map_coordinates(ints, COORDS, order=1, mode="nearest"), want)
    with pytest.raises(fg.ArgumentError, match="order must be 0 or 1"):
        map_coordinates(IMAGE, COORDS, order=3)
    with pytest.raises(fg.ArgumentError, match="mode must be one of"):
        map_coordinates(IMAGE, COORDS, order=1, mode="grid-wrap")
    with pytest.raises(fg.ArgumentError, match="one coordinate array per axis"):
        map_coordinates(IMAGE, COORDS[:1], order=1)
