"""``backend="torch.cuda.graph"`` (funcgrad/jit/backends/torch_cuda_graph.py): a plan of
PyTorch calls captured once and replayed. On the CPU a stand-in capture plays the graph:
the plan run once more at each replay, writing into the same output tensors and reading
the same input tensors, as a CUDA graph's replay does. The oracle for every result is the
default backend's plan and the eager call: values, gradients, vmap, a Hessian-vector
product, a loop with checkpoint, numbers that change, inputs written after a call, threads.
Where a CUDA device is present (the GPU machine), the real capture runs the same checks."""

import contextlib
import threading

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.errors import ArgumentError
from funcgrad.jit.backends import torch_cuda_graph
from tests.helpers import to_numpy, torch

pytestmark = [
    pytest.mark.usefixtures("torch_refuses_numpy"),
    pytest.mark.skipif(torch is None, reason="PyTorch's graphs need PyTorch"),
]
RNG = np.random.default_rng(5)
CUDA = torch is not None and torch.cuda.is_available()
BACKEND = "torch.cuda.graph"


class StandIn:
    """A capture on the CPU: fixed output tensors, refilled by running the plan again on
    the fixed input tensors at each replay; counts its captures. While it captures, a
    tensor made from the host's data (a number or a NumPy array copied over) is refused, as
    CUDA's capture refuses the copy."""

    def __init__(self):
        self.captures = 0

    def __call__(self, run, args):
        self.captures += 1
        with _no_host_copies():
            outputs = [o.clone() if isinstance(o, torch.Tensor) else o for o in run(*args)]

        def replay():
            for held, o in zip(outputs, run(*args)):
                if isinstance(held, torch.Tensor):
                    held.copy_(o)

        return replay, outputs


@contextlib.contextmanager
def _no_host_copies():
    made = {name: getattr(torch, name) for name in ("asarray", "as_tensor", "tensor")}

    def refuse(name):
        def make(data, *args, **kwargs):
            if not isinstance(data, torch.Tensor):
                raise AssertionError(f"torch.{name} of host data {data!r:.40} while capturing")
            return made[name](data, *args, **kwargs)

        return make

    try:
        for name in made:
            setattr(torch, name, refuse(name))
        yield
    finally:
        for name, fun in made.items():
            setattr(torch, name, fun)


@pytest.fixture(params=["stand-in", "cuda"] if CUDA else ["stand-in"])
def device(request, monkeypatch):
    """Where the graph runs: "cpu" with the stand-in capture, or "cuda" with PyTorch's."""
    if request.param == "stand-in":
        stand_in = StandIn()
        monkeypatch.setattr(torch_cuda_graph, "cuda_capture", stand_in)
        return "cpu"
    return "cuda"


def _loss(p, x, y):
    """A small network of the steps the model benchmarks make: a convolution, ReLU, max
    pooling, a layer norm, a masked ``where`` with a number, a softmax cross-entropy."""
    h = fg.nn.conv_general_dilated(x, p["k"], (1, 1), "SAME", dimension_numbers=NHWC)
    h = fg.nn.max_pool(fg.nn.relu(h + p["b"]), (2, 2), strides=(2, 2))
    h = fnp.reshape(h, (h.shape[0], -1))
    h = (h - fnp.mean(h, axis=-1, keepdims=True)) / fnp.sqrt(
        fnp.var(h, axis=-1, keepdims=True) + 1e-5
    )
    h = fnp.where(h > -1.0, fnp.tanh(h), 0.0)
    logits = h @ p["v"]
    picked = fnp.take_along_axis(fg.nn.log_softmax(logits, axis=-1), y[:, None], axis=-1)
    return -fnp.mean(picked)


NHWC = ("NHWC", "HWIO", "NHWC")


def _data(seed):
    rng = np.random.default_rng(seed)
    p = {"k": rng.normal(size=(3, 3, 2, 4)), "b": rng.normal(size=4), "v": rng.normal(size=(16, 3))}
    return p, rng.normal(size=(6, 4, 4, 2)), rng.integers(0, 3, 6)


def _on(tree, device):
    return fg.tree_util.tree_map(lambda a: torch.asarray(np.asarray(a), device=device), tree)


def _close(got, want, rtol=1e-13):
    for g, w in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(to_numpy(g), to_numpy(w), rtol=rtol, atol=1e-14)


def test_value_and_grad_equal_the_default_plans(device):
    step = fg.value_and_grad(_loss)
    graphed, plain = fg.jit(step, backend=BACKEND), fg.jit(step)
    for seed in (0, 1, 2):  # new values each call: copied into the graph's inputs
        args = _on(_data(seed), device)
        got = graphed(*args)
        _close(got, plain(*args), rtol=1e-15)
        _close(got, step(*(_data(seed))))
    assert graphed.plan(*args).backend == BACKEND
    assert "replayed as a CUDA graph" in graphed.plan(*args).source


def test_a_tensor_that_requires_its_gradient_is_read_as_a_value(device):
    f = fg.jit(lambda x: fnp.sum(fnp.sin(x)), backend=BACKEND)
    x = torch.asarray(RNG.normal(size=(3,)), device=device).requires_grad_(True)
    got = f(x)
    assert not got.requires_grad
    assert float(to_numpy(got)) == pytest.approx(float(torch.sin(x.detach()).sum()), rel=1e-15)
    held = [h for h in f.plan(x).run.graphs[next(iter(f.plan(x).run.graphs))][0] if h is not None]
    assert not any(h.requires_grad for h in held)


def test_results_are_not_overwritten_by_the_next_call(device):
    f = fg.jit(fg.grad(_loss), backend=BACKEND)
    a, b = _on(_data(0), device), _on(_data(1), device)
    first = f(*a)
    kept = fg.tree_util.tree_map(lambda t: t.clone(), first)
    f(*b)
    _close(first, kept, rtol=0)


def test_an_input_written_after_a_call_is_read_at_the_next(device):
    f = fg.jit(lambda x: fnp.sum(fnp.sin(x) * 2.0), backend=BACKEND)
    x = torch.asarray(RNG.normal(size=(4,)), device=device)
    before = float(to_numpy(f(x)))
    x.mul_(3.0)
    after = float(to_numpy(f(x)))
    assert after == pytest.approx(float(np.sum(np.sin(to_numpy(x)) * 2.0)), rel=1e-14)
    assert before != after


def test_each_python_number_has_a_graph_of_its_own(monkeypatch):
    stand_in = StandIn()
    monkeypatch.setattr(torch_cuda_graph, "cuda_capture", stand_in)
    f = fg.jit(lambda x, lr: x - lr * fnp.cos(x), backend=BACKEND)
    x = torch.asarray(RNG.normal(size=(3,)))
    for lr in (0.1, 0.2, 0.1, -0.0, 0.0, 0.2):
        np.testing.assert_allclose(to_numpy(f(x, lr)), to_numpy(x) - lr * np.cos(to_numpy(x)))
    assert stand_in.captures == 4  # 0.1, 0.2, -0.0 and 0.0: a number's bits name its graph
    for k in range(torch_cuda_graph.GRAPHS_KEPT + 1):
        f(x, 1.0 + k)
    f(x, 1.0)  # dropped by then, least recently used: captured again
    assert stand_in.captures == 4 + torch_cuda_graph.GRAPHS_KEPT + 2


def test_vmap_hessian_vector_product_and_a_checkpointed_loop(device):
    w = torch.asarray(RNG.normal(size=(3, 3)), device=device)
    xs = torch.asarray(RNG.normal(size=(4, 3)), device=device)
    v = torch.asarray(RNG.normal(size=(3, 3)), device=device)

    def looped(w, x):
        body = fg.checkpoint(lambda i, h: fnp.tanh(h @ w))
        return fnp.sum(fg.lax.fori_loop(0, 3, body, x) ** 2)

    batched = fg.vmap(fg.grad(looped), in_axes=(None, 0))
    hvp = lambda w, x, v: fg.jvp(fg.grad(lambda w: looped(w, x)), (w,), (v,))[1]
    for f, args in ((batched, (w, xs)), (hvp, (w, xs[0], v))):
        got = fg.jit(f, backend=BACKEND)(*args)
        _close(got, f(*args), rtol=1e-12)
    loop = np.stack([to_numpy(fg.grad(looped)(w, x)) for x in xs])
    _close(fg.jit(batched, backend=BACKEND)(w, xs), loop, rtol=1e-12)


def test_calls_from_threads_each_get_their_own_results(device):
    f = fg.jit(fg.grad(_loss), backend=BACKEND)
    args = [_on(_data(seed), device) for seed in range(4)]
    f(*args[0])
    want = [fg.jit(fg.grad(_loss))(*a) for a in args]
    got = [None] * 4

    def call(k):
        for _ in range(5):
            got[k] = f(*args[k])

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        _close(g, w, rtol=1e-15)


def test_what_a_graph_cannot_replay_is_refused():
    x = torch.asarray(RNG.normal(size=(3,)))
    f = lambda x: fnp.sum(x * x)
    with pytest.raises(ArgumentError, match="NumPy arrays or numbers"):
        fg.jit(f, backend=BACKEND)(np.ones(3))
    with pytest.raises(ArgumentError, match="on cpu"):  # PyTorch's own capture, on the CPU
        fg.jit(f, backend=BACKEND)(x)
    with pytest.raises(ArgumentError, match="ndarray of shape"):
        # a NumPy array read on the host (its sum, a number): a graph would keep the sum of
        # the array it was captured with
        fg.jit(lambda x, y: fnp.sum(x) * fnp.sum(y), backend=BACKEND)(x, np.ones(3))

    def printed(x):
        fg.debug.print("x = {}", x)
        return fnp.sum(x)

    with pytest.raises(ArgumentError, match="effect"):
        fg.jit(printed, backend=BACKEND)(x)
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(ArgumentError, match="array_api_strict"):
        fg.jit(f, backend=BACKEND)(xs.asarray([1.0, 2.0]))


@pytest.mark.skipif(not CUDA, reason="a step that reads a value on the host: CUDA only")
def test_a_step_the_cuda_capture_refuses_says_so():
    # a while loop's test reads a bool of the device's array at each step
    x = torch.asarray(RNG.uniform(1.0, 2.0, size=(5,)), device="cuda")
    doubled = lambda x: fg.while_loop(lambda c: fnp.sum(c) < 100.0, lambda c: c * 2.0, x)
    with pytest.raises(ArgumentError, match="could not capture"):
        fg.jit(doubled, backend=BACKEND)(x)
    np.testing.assert_allclose(to_numpy(fg.jit(doubled)(x)), to_numpy(doubled(x)))  # still usable
