"""funcgrad.dlpack: another library's buffer as a NumPy array that shares its memory, and
what it refuses; the shared array then works under every transform as any NumPy array."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def test_from_dlpack_shares_a_cpu_buffer_and_refuses_what_numpy_cannot_read():
    torch = pytest.importorskip("torch")
    t = torch.arange(4.0)
    shared = fg.dlpack.from_dlpack(t)
    t[0] = 7.0  # the same memory
    assert type(shared) is np.ndarray and shared[0] == 7.0
    assert fg.dlpack.from_dlpack(t, copy=True)[0] == 7.0
    with pytest.raises(fg.errors.ConversionError, match="has no __dlpack__"):
        fg.dlpack.from_dlpack([1.0, 2.0])
    with pytest.raises(fg.errors.ConversionError, match="cannot read this"):
        fg.dlpack.from_dlpack(torch.ones(2, requires_grad=True))


def test_a_shared_array_differentiates_under_jit_and_vmap_as_the_eager_call():
    torch = pytest.importorskip("torch")
    w = fg.dlpack.from_dlpack(torch.linspace(-1.0, 1.0, 5, dtype=torch.float64))
    loss = lambda s: fnp.sum(fnp.tanh(s * w) ** 2)
    eager = fg.grad(loss)(0.7)
    assert fg.jit(fg.grad(loss))(0.7) == pytest.approx(eager, rel=1e-14)
    looped = [fg.grad(loss)(s) for s in (0.1, 0.7)]
    np.testing.assert_allclose(fg.vmap(fg.grad(loss))(np.array([0.1, 0.7])), looped, rtol=1e-14)
    h = 1e-6
    assert eager == pytest.approx((loss(0.7 + h) - loss(0.7 - h)) / (2 * h), rel=1e-7)
