"""jit's ``backend="torch.compile"``: a plan of PyTorch tensors handed to PyTorch's compiler.

The oracle is the same function on NumPy arrays (funcgrad's own rules, float64). The
tensors are CPU tensors whose ``__array__`` refuses, so a conversion to NumPy inside the
compiled plan fails here as it would on a GPU. What makes the compiler worth having is
that it sees a whole model step as one graph it can fuse: the GPT and CNN steps are
checked to compile without a graph break.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import ArgumentError
from tests.helpers import benchmark_models, to_numpy, torch

pytestmark = [
    pytest.mark.skipif(torch is None, reason="the torch extra: pip install -e '.[torch]'"),
    pytest.mark.usefixtures("torch_refuses_numpy"),
    # PyTorch's compiler imports a module of its own that warns of its own deprecation
    pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning"),
]
RNG = np.random.default_rng(11)


def _tensors(tree):
    return fg.tree_util.tree_map(lambda a: torch.asarray(np.array(a)), tree)


def _compiled_once_without_breaks(step, *args):
    """``step`` jitted for torch.compile, called twice on ``args``; its results, after
    checking that the compiler made its graphs without a break."""
    counters = torch._dynamo.utils.counters
    torch._dynamo.reset()
    counters.clear()
    run = fg.jit(step, backend="torch.compile")
    run(*args)
    assert not counters["graph_break"], dict(counters["graph_break"])
    assert "torch.compile" in run.plan(*args).source.splitlines()[0]
    return run(*args)


def _assert_equal_trees(got, want, like, rtol):
    for g, w in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
        assert isinstance(g, torch.Tensor) and g.device == like.device
        np.testing.assert_allclose(to_numpy(g), w, rtol=rtol, atol=1e-13)


def test_a_gpt_step_compiles_to_one_graph_and_equals_numpys():
    models = benchmark_models()
    shape = {"V": 11, "D": 8, "H": 2, "T": 5, "B": 3, "L": 2}
    params, data = models.gpt_inputs(shape, RNG)
    causal = np.tril(np.ones((5, 5), bool))
    loss = models.gpt_loss(shape)
    step = fg.value_and_grad(loss)
    want = step(params, data["tokens"], data["targets"], causal)
    args = _tensors((params, data["tokens"], data["targets"], causal))
    got = _compiled_once_without_breaks(step, *args)
    _assert_equal_trees(got, want, args[1], rtol=1e-10)


def test_a_cnn_step_compiles_to_one_graph_and_equals_numpys():
    models = benchmark_models()
    params, data = models.cnn_inputs(RNG, batch=4)
    step = fg.value_and_grad(models.cnn_loss)
    want = step(params, data["images"], data["labels"])
    args = _tensors((params, data["images"], data["labels"]))
    got = _compiled_once_without_breaks(step, *args)
    _assert_equal_trees(got, want, args[1], rtol=1e-10)


def test_loops_transforms_and_numbers_inside_a_compiled_plan():
    def f(x, scale):
        def body(carry, row):
            carry = fnp.tanh(carry * row) + scale
            return carry, fnp.sum(carry**2)

        carry, ys = fg.lax.scan(body, x[0], x)
        return fnp.sum(ys) + fnp.sum(fg.vmap(fnp.sin)(carry))

    x = RNG.normal(size=(4, 3))
    step = fg.value_and_grad(f)
    want = step(x, 0.5)
    run = fg.jit(step, backend="torch.compile")
    tx = torch.asarray(x)
    for scale in (0.5, 0.5):  # the second call runs the compiled graphs
        value, grad = run(tx, scale)
        np.testing.assert_allclose(to_numpy(value), want[0], rtol=1e-12)
        np.testing.assert_allclose(to_numpy(grad), want[1], rtol=1e-12)
    hvp = fg.jit(
        lambda x, v: fg.jvp(fg.grad(lambda y: f(y, 0.5)), (x,), (v,))[1], backend="torch.compile"
    )
    v = RNG.normal(size=x.shape)
    want = fg.jvp(fg.grad(lambda y: f(y, 0.5)), (x,), (v,))[1]
    np.testing.assert_allclose(to_numpy(hvp(tx, torch.asarray(v))), want, rtol=1e-11)


def test_torch_compile_is_refused_by_name_off_pytorch():
    f = fg.jit(lambda x: fnp.sin(x) * 2.0, backend="torch.compile")
    with pytest.raises(ArgumentError, match=r'backend="torch.compile" compiles plans of PyTorch'):
        f(np.ones(3))
    xs = pytest.importorskip("array_api_strict")
    with pytest.raises(ArgumentError, match=r"array_api_strict arrays: use the default backend"):
        f(xs.asarray([1.0, 2.0]))


def test_the_function_handed_to_the_compiler_binds_python_numbers(monkeypatch):
    """A transpose's cotangent permutes by the inverse permutation, which NumPy's argsort
    gives as np.int64s: PyTorch 2.11's compiler took such an axis for a tensor and broke
    the graph of every transformer step on a GPU. Each step's parameters reach the
    compiler as Python's numbers."""
    handed = []
    monkeypatch.setattr(torch, "compile", lambda fun, **options: handed.append(fun) or fun)

    def loss(x):
        return fnp.sum(fnp.sin(fnp.transpose(x, (1, 2, 0))) * fnp.moveaxis(x, 0, -1))

    x = RNG.normal(size=(2, 3, 4))
    got = fg.jit(fg.grad(loss), backend="torch.compile")(torch.asarray(x))
    np.testing.assert_allclose(to_numpy(got), fg.grad(loss)(x), rtol=1e-12)

    def numpy_scalars(value):
        if isinstance(value, np.generic):
            return [value]
        if isinstance(value, (tuple, list)):
            return [s for v in value for s in numpy_scalars(v)]
        return []

    (plan,) = handed
    # what each step was bound with: a partial's keywords, or the values a bound form
    # closed over (a transpose's permutation, rules/library_forms.with_argument)
    steps = [f for f in plan.__globals__.values() if callable(f)]
    bound = [v for f in steps for v in getattr(f, "keywords", {}).values()]
    bound += [c.cell_contents for f in steps for c in getattr(f, "__closure__", None) or ()]
    assert (2, 0, 1) in bound and (1, 2, 0) in bound  # the transposes and their cotangents
    assert not [s for v in bound for s in numpy_scalars(v)]
