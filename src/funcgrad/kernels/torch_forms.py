"""PyTorch's own fused functions, registered in front of a few primitives' Array API forms.

On PyTorch's tensors a primitive computes through its Array API form: a softmax is a
maximum, a subtraction, an exponential, a sum and a division, five of PyTorch's calls,
each a pass over the tensor (on a GPU, five kernels); GELU's tanh form and its slope are
about ten each. PyTorch has one fused call for each. Registered here
(:func:`funcgrad.core.fast_paths.register_form`), it runs in their place on PyTorch's
tensors, in eager calls and in jit's plans of calls alike:

=====================================  ==================================================
primitive                              PyTorch's call, on floating tensors
=====================================  ==================================================
``softmax``, ``log_softmax``           ``torch.softmax``, ``torch.log_softmax`` (one axis)
``logsumexp``                          ``torch.logsumexp``
``gelu_tanh``                          ``torch.nn.functional.gelu(x, approximate="tanh")``
``gelu_tanh_slope``                    ``torch.ops.aten.gelu_backward`` of ones
``relu``                               ``torch.relu`` (the form's bits, ``-0.0`` kept)
=====================================  ==================================================

Each answers None where it does not apply (an integer or complex tensor, several axes at
once), and the Array API form runs. PyTorch rounds its fused kernels its own way: the
values agree with the forms' within a few units in the last place, not to the bit (as
PyTorch's eager and compiled calls do among themselves). Nothing here imports PyTorch: a
tensor's call finds it loaded already.

>>> import torch
>>> import funcgrad as fg
>>> x = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64)
>>> fg.nn.softmax(x, axis=-1)
tensor([[0.1753, 0.0391, 0.7856]], dtype=torch.float64)
"""

import sys

from ..core.fast_paths import register_form
from ..rules import elementwise, gelu, nn

__all__ = []  # registers, exports nothing


def _floating(x):
    return x.dtype.is_floating_point


def _softmax(x, axis=-1):
    if not (_floating(x) and type(axis) is int and x.ndim > 0):
        return None
    return sys.modules["torch"].softmax(x, axis)


def _log_softmax(x, axis=-1):
    if not (_floating(x) and type(axis) is int and x.ndim > 0):
        return None
    return sys.modules["torch"].log_softmax(x, axis)


def _logsumexp(x, axis=None, keepdims=False):
    if not _floating(x) or x.ndim == 0:
        return None
    dims = tuple(range(x.ndim)) if axis is None else axis
    return sys.modules["torch"].logsumexp(x, dims, keepdim=keepdims)


def _gelu_tanh(x):
    if not _floating(x):
        return None
    return sys.modules["torch"].nn.functional.gelu(x, approximate="tanh")


def _gelu_tanh_slope(x):
    if not _floating(x):
        return None
    torch = sys.modules["torch"]
    return torch.ops.aten.gelu_backward(torch.ones_like(x), x, approximate="tanh")


def _relu(x):
    if not _floating(x):
        return None
    return sys.modules["torch"].relu(x)


register_form(nn.softmax, "torch", _softmax)
register_form(nn.log_softmax, "torch", _log_softmax)
register_form(nn.logsumexp, "torch", _logsumexp)
register_form(gelu.gelu_tanh, "torch", _gelu_tanh)
register_form(gelu.gelu_tanh_slope, "torch", _gelu_tanh_slope)
register_form(elementwise.relu, "torch", _relu)
