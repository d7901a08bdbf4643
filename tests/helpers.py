"""Finite differences and comparisons shared by the tests, and the optional PyTorch."""

import contextlib
import functools
import importlib
import importlib.util
import math
import pathlib

import numpy as np
import pytest

try:  # cross-checks only: the light test install has no PyTorch
    torch = importlib.import_module("torch")
except ImportError:
    torch = None

_NO_TORCH = (
    "a cross-check against PyTorch, which is not installed (pip install -e '.[test,torch]' runs it)"
)
requires_torch = pytest.mark.skipif(torch is None, reason=_NO_TORCH)


def needs_torch():
    """PyTorch, or skip the calling test saying why."""
    if torch is None:
        pytest.skip(_NO_TORCH)
    return torch


EPS = 1e-6


def _perturbed(x, index, delta):
    if type(x) is float:
        return x + delta
    y = np.array(x, dtype=np.float64, copy=True)
    y[index] += delta
    return y


def numeric_grad(f, args, argnum, eps=EPS):
    """Central differences of the scalar ``f(*args)`` with respect to ``args[argnum]``.

    ``args`` are plain values (Python floats or float64 arrays); the result has
    the shape of ``args[argnum]`` (a Python float for a Python float).
    """
    x = args[argnum]

    def at(x_new):
        new = list(args)
        new[argnum] = x_new
        return float(f(*new))

    if type(x) is float:
        return (at(x + eps) - at(x - eps)) / (2 * eps)
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        out[index] = (at(_perturbed(x, index, eps)) - at(_perturbed(x, index, -eps))) / (2 * eps)
    return out


def central(f, x, eps=EPS):
    """``d f / d x`` by central differences for the scalar ``f`` of one argument ``x``."""
    return numeric_grad(f, (x,), 0, eps)


def assert_close(got, want, rtol=1e-5, atol=1e-6, what=""):
    """``got`` equals ``want`` within tolerance, with the same shape."""
    assert np.shape(got) == np.shape(want), f"{what}: shape {np.shape(got)} != {np.shape(want)}"
    np.testing.assert_allclose(
        np.asarray(got),
        np.asarray(want),  # complex compared whole
        rtol=rtol,
        atol=atol,
        err_msg=what,
    )


def gelu_tanh_formula(x):
    """GELU's tanh form and its slope in float64, each as one NumPy expression of the
    formula: an oracle written apart from funcgrad's (rules/gelu.py)."""
    c, a = math.sqrt(2.0 / math.pi), 0.044715
    x = np.asarray(x, dtype=np.float64)
    t = np.tanh(c * (x + a * x**3))
    slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3 * a * x**2)
    return 0.5 * x * (1.0 + t), slope


def assert_a_block_under_transforms(f, looped, w, t, eps=EPS):
    """A model block's scalar loss ``f(w)`` and ``looped(w)``, the same loss with the blocks
    as a checkpointed ``fori_loop``, under grad, jvp, jit, vmap and hessian; oracles: central
    differences along ``t``, the eager call, the unrolled loop, a Python loop."""
    import funcgrad as fg

    fd = (f(w + eps * t) - f(w - eps * t)) / (2 * eps)
    g = fg.grad(f)(w)
    np.testing.assert_allclose(np.dot(g, t), fd, rtol=1e-6)
    np.testing.assert_allclose(fg.jvp(f, (w,), (t,))[1], fd, rtol=1e-6)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(w), g, rtol=1e-12)
    np.testing.assert_allclose(fg.grad(looped)(w), g, rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(looped))(w), g, rtol=1e-12)
    ws = np.stack([w, w[::-1]])
    np.testing.assert_allclose(
        fg.vmap(fg.grad(f))(ws), np.stack([fg.grad(f)(v) for v in ws]), rtol=1e-12
    )
    hvp = fg.hessian(f)(w) @ t
    np.testing.assert_allclose(
        hvp, (fg.grad(f)(w + eps * t) - fg.grad(f)(w - eps * t)) / (2 * eps), rtol=1e-5, atol=1e-7
    )
    return hvp


def benchmark_models():
    """benchmarks/models.py (the GPT and CNN steps)."""
    return benchmark_module("models")


@functools.cache
def benchmark_module(name):
    """benchmarks/<name>.py, loaded from its file: putting benchmarks/ on sys.path would
    let its modules (sparse.py) shadow real packages."""
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"funcgrad_benchmark_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_operators(call):
    """``(call(), the names of the PyTorch operators it ran)``, views included."""
    from torch.utils._python_dispatch import TorchDispatchMode

    names = []

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            names.append(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    with Count():
        out = call()
    return out, names


def to_numpy(x):
    """Any library's array as NumPy's, for comparing (the tests' conversion, not funcgrad's)."""
    root = type(x).__module__.partition(".")[0]
    if root == "cupy":
        return x.get()
    if root == "torch":
        return x.detach().cpu().numpy()
    if root == "array_api_strict":
        xs = importlib.import_module("array_api_strict")
        return np.from_dlpack(xs.asarray(x, device=xs.Device("CPU_DEVICE")))
    return np.asarray(x)


def device_makers():
    """The stand-ins for a GPU CI has, each a function NumPy data -> an array on a device:
    array-api-strict's second device, PyTorch CPU tensors (with the ``torch_refuses_numpy``
    fixture they refuse ``__array__``), and a CUDA device's tensors and CuPy arrays where
    the machine has one."""
    xs = importlib.import_module("array_api_strict")
    makers = {"device1": lambda a: xs.asarray(np.asarray(a), device=xs.Device("device1"))}
    if torch is not None:
        makers["torch"] = lambda a: torch.asarray(np.array(a))
    if torch is not None and torch.cuda.is_available():
        makers["torch-cuda"] = lambda a: torch.asarray(np.array(a), device="cuda")
        with contextlib.suppress(ImportError):
            makers["cupy"] = importlib.import_module("cupy").asarray
    return makers


def scan_loops(jitted, *args, reverse):
    """The loops compiled whole (funcgrad/jit/loops.py) of the scans in ``jitted``'s plan
    for ``args`` that run forward (``reverse=False``) or backward (``reverse=True``)."""
    scans = [
        part.keywords
        for name, part in jitted.plan(*args).run.__globals__.items()
        if name.startswith("scan") and getattr(part, "keywords", {}).get("reverse") is reverse
    ]
    return [
        kw["body"].scan_loop(kw["n_carry"], kw["n_xs"], reverse, kw["machine_code"]) for kw in scans
    ]
