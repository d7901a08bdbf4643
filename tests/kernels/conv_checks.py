"""What the convolution kernels' tests share (test_winograd.py, test_direct_conv.py): a
count of a module's maps that answered, the primitives' stride-1 options, and the plain
impl's tolerance (the ``switch`` fixture is conftest.py's)."""

import numpy as np

MAPS = ("convolve", "input_cotangent", "kernel_cotangent")


def count_maps(monkeypatch, module):
    """How often each of ``module``'s three maps ran to the end (answered an array, not
    None), counted from now on."""
    counts = {}
    for name in MAPS:
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name):
            out = _real(*args)
            counts[_name] = counts.get(_name, 0) + (out is not None)
            return out

        monkeypatch.setattr(module, name, spy)
    return counts


def options(padding):
    """A stride-1 convolution's options with ``padding``."""
    return {"strides": (1, 1), "padding": padding, "lhs_dilation": (1, 1), "rhs_dilation": (1, 1)}


def close(got, want):
    """Within the plain impl's own rounding: a few units in the last place of the scale."""
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = float(np.max(np.abs(want), initial=1.0))
    tol = 64 * np.finfo(want.dtype).eps * scale
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)
