"""funcgrad.numpy.fft: one case per transform (its call, input shape, whether a complex
input is taken, PyTorch's twin). tests/numpy/test_fft.py tests every case in depth; the
registry (tests/opinfo/__init__.py) makes each an OpInfo for the conformance matrix.
"""

from collections import namedtuple

import numpy as np

import funcgrad.numpy as fnp
from tests.helpers import torch

Case = namedtuple("Case", "fun shape complex_ok torch", defaults=(True, None))

CASES = {
    "fft": Case(lambda m, x: m.fft.fft(x), (3, 4), torch=lambda x: torch.fft.fft(x)),
    "fft:n_axis": Case(
        lambda m, x: m.fft.fft(x, n=5, axis=0, norm="ortho"),
        (3, 2),
        torch=lambda x: torch.fft.fft(x, n=5, dim=0, norm="ortho"),
    ),
    "fft:cut": Case(lambda m, x: m.fft.fft(x, n=2), (2, 4), torch=lambda x: torch.fft.fft(x, n=2)),
    "ifft": Case(
        lambda m, x: m.fft.ifft(x, norm="forward"),
        (2, 5),
        torch=lambda x: torch.fft.ifft(x, norm="forward"),
    ),
    "rfft": Case(lambda m, x: m.fft.rfft(x), (2, 6), False, lambda x: torch.fft.rfft(x)),
    "rfft:odd_n": Case(
        lambda m, x: m.fft.rfft(x, n=7, axis=0),
        (4, 2),
        False,
        lambda x: torch.fft.rfft(x, n=7, dim=0),
    ),
    "irfft": Case(lambda m, x: m.fft.irfft(x), (2, 4), torch=lambda x: torch.fft.irfft(x)),
    "irfft:odd": Case(
        lambda m, x: m.fft.irfft(x, n=5, norm="ortho"),
        (3,),
        torch=lambda x: torch.fft.irfft(x, n=5, norm="ortho"),
    ),
    "irfft:long": Case(
        lambda m, x: m.fft.irfft(x, n=10, axis=0),
        (3, 2),
        torch=lambda x: torch.fft.irfft(x, n=10, dim=0),
    ),
    "hfft": Case(lambda m, x: m.fft.hfft(x), (4,), torch=lambda x: torch.fft.hfft(x)),
    "ihfft": Case(
        lambda m, x: m.fft.ihfft(x, n=5), (2, 4), False, lambda x: torch.fft.ihfft(x, n=5)
    ),
    "fft2": Case(lambda m, x: m.fft.fft2(x), (3, 4), torch=lambda x: torch.fft.fft2(x)),
    "ifft2": Case(
        lambda m, x: m.fft.ifft2(x, s=(2, 5)), (3, 4), torch=lambda x: torch.fft.ifft2(x, s=(2, 5))
    ),
    "fftn": Case(
        lambda m, x: m.fft.fftn(x, axes=(0, 2)),
        (2, 3, 2),
        torch=lambda x: torch.fft.fftn(x, dim=(0, 2)),
    ),
    "ifftn": Case(lambda m, x: m.fft.ifftn(x), (2, 3), torch=lambda x: torch.fft.ifftn(x)),
    "rfft2": Case(lambda m, x: m.fft.rfft2(x), (3, 4), False, lambda x: torch.fft.rfft2(x)),
    "rfftn": Case(
        lambda m, x: m.fft.rfftn(x, s=(4, 3), axes=(1, 0)),
        (3, 2),
        False,
        lambda x: torch.fft.rfftn(x, s=(4, 3), dim=(1, 0)),
    ),
    "irfft2": Case(lambda m, x: m.fft.irfft2(x), (2, 3), torch=lambda x: torch.fft.irfft2(x)),
    "irfftn": Case(
        lambda m, x: m.fft.irfftn(x, s=(3, 5), axes=(0, 1)),
        (2, 3),
        torch=lambda x: torch.fft.irfftn(x, s=(3, 5), dim=(0, 1)),
    ),
    "fftshift": Case(lambda m, x: m.fft.fftshift(x), (3, 4), torch=lambda x: torch.fft.fftshift(x)),
    "ifftshift": Case(
        lambda m, x: m.fft.ifftshift(x, axes=1),
        (3, 5),
        torch=lambda x: torch.fft.ifftshift(x, dim=1),
    ),
}


def _inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(case.shape)
    yield x
    if case.complex_ok:
        yield x + 1j * rng.standard_normal(case.shape)


def _loss(case):
    """A real loss of the (possibly complex) result, weighted so a misplaced term shows."""

    def loss(x):
        y = case.fun(fnp, x)
        w = np.arange(1.0, 1.0 + np.size(y)).reshape(np.shape(y)) / np.size(y)
        return fnp.sum(fnp.abs(y) ** 2 * w) + fnp.sum(fnp.real(y) * w)

    return loss
