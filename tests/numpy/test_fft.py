"""funcgrad.numpy.fft, table-driven (the cases: tests/opinfo/numpy_fft.py): every
transform of numpy.fft on real and complex inputs. Each case: values bit-identical to NumPy (plain, traced, and NumPy's own
function called on a traced value), check_grads to second order in both modes,
vmap against a loop, jit against eager, and the gradient of a real loss against
torch.fft in float64 (PyTorch's gradient of a complex input is the conjugate of
funcgrad's, see docs/complex.md)."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.numpy import fft as ffft
from tests.helpers import device_makers, requires_torch, to_numpy, torch
from tests.opinfo.numpy_fft import (  # the rows: tests/opinfo
    CASES,
    _inputs,
    _loss,
)


def test_every_function_has_a_case_and_an_example():
    covered = {name.split(":")[0] for name in CASES} | {"fftfreq", "rfftfreq"}
    assert set(ffft.__all__) == covered
    for name in ffft.__all__:
        assert ">>>" in (getattr(ffft, name).__doc__ or ""), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_are_numpys_bit_for_bit(name):
    case = CASES[name]
    for x in _inputs(case):
        want = case.fun(np, x)
        np.testing.assert_array_equal(case.fun(fnp, x), want)
        out, _ = fg.vjp(lambda v: case.fun(fnp, v), x)
        assert out.dtype == want.dtype and out.shape == want.shape
        np.testing.assert_array_equal(out, want)
        box = []
        fg.vjp(
            lambda v: box.append(case.fun(np, v)) or box[0], x
        )  # NumPy's own function on a traced value
        np.testing.assert_array_equal(fg.stop_gradient(box[0]), want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order_both_modes(name):
    case = CASES[name]
    for x in _inputs(case, seed=1):
        fg.check_grads(_loss(case), (x,), order=2, modes=("fwd", "rev"))
        fg.check_grads(lambda v: case.fun(fnp, v), (x,), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_and_jit_agree(name):
    case = CASES[name]
    for x in _inputs(case, seed=2):
        batch = np.stack([x, 2.0 * x, x[::-1]])
        np.testing.assert_allclose(
            fg.vmap(lambda v: case.fun(fnp, v))(batch),
            np.stack([case.fun(np, b) for b in batch]),
            rtol=1e-12,
            atol=1e-12,
        )
        loss = _loss(case)
        np.testing.assert_allclose(
            fg.jit(fg.grad(loss))(x), fg.grad(loss)(x), rtol=1e-12, atol=1e-12
        )


@pytest.mark.parametrize("name", sorted(CASES))
@requires_torch
def test_gradients_match_torch(name):
    case = CASES[name]
    for x in _inputs(case, seed=3):
        got = fg.grad(_loss(case))(x)
        t = torch.tensor(x, requires_grad=True)
        y = case.torch(t)
        w = torch.arange(1.0, 1.0 + y.numel(), dtype=torch.float64).reshape(y.shape) / y.numel()
        ((y.abs() ** 2 * w).sum() + (y.real * w).sum()).backward()
        np.testing.assert_allclose(
            got, np.conj(t.grad.resolve_conj().numpy()), rtol=1e-10, atol=1e-12
        )


def test_parseval_gradient():
    x = np.random.default_rng(4).standard_normal(8)
    g = fg.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.fft(x)) ** 2))(x)
    np.testing.assert_allclose(g, 2 * 8 * x, rtol=1e-12)


def test_errors_name_the_transform():
    x = fg.var(np.ones(4))
    with pytest.raises(ValueError, match=r"fft.fft: norm must be one of"):
        fnp.fft.fft(x, norm="both")
    with pytest.raises(TypeError, match="rfft: the input must be real"):
        fnp.fft.rfft(fg.var(np.ones(4) * 1j))
    with pytest.raises(ValueError, match="irfft: invalid number of FFT data points"):
        fnp.fft.irfft(x, n=0)
    with pytest.raises(TypeError, match="out= is not supported"):
        fnp.fft.fft(x, out=np.empty(4, complex))


@pytest.mark.parametrize("backend", ["device1", "torch"])
def test_a_padded_transform_pads_on_the_arrays_device(backend, torch_refuses_numpy):
    # n past the axis's length: the zeros are made in the arrays' library (they were
    # NumPy's, which a device array refuses to meet)
    make = device_makers().get(backend)
    if make is None:
        pytest.skip(f"{backend} is not installed")
    x = np.random.default_rng(8).normal(size=(4, 3))
    for f in (
        lambda a: fnp.imag(fnp.fft.ifft(a, n=6, axis=0)),
        lambda a: fnp.abs(fnp.fft.rfft(a, n=5, axis=1)),
    ):
        loss = lambda a: fnp.sum(fnp.sin(f(a)))
        np.testing.assert_allclose(to_numpy(fg.jit(f)(make(x))), f(x), rtol=1e-12, atol=1e-14)
        got = fg.grad(loss)(make(x))
        np.testing.assert_allclose(to_numpy(got), fg.grad(loss)(x), rtol=1e-11, atol=1e-14)
