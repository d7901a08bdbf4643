"""jit's plans on other libraries' arrays bind each step once (jit/foreign_plans.py): a
form that says how (``form.bind``) becomes the namespace's function with its parameters
filled in, PyTorch's own beneath array-api-compat's wrapper where the traced operands have
one dtype. Oracle: the eager call on the same arrays, which runs every form unbound, and
NumPy's values."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.namespaces import own_function
from funcgrad.jit.foreign_plans import compile_foreign_plan  # noqa: F401 - the module tested
from tests.helpers import device_makers, to_numpy, torch

pytestmark = pytest.mark.usefixtures("torch_refuses_numpy")
pytest.importorskip("array_api_strict", reason="array-api-strict is the device stand-in")
MAKERS = {k: v for k, v in device_makers().items() if k in ("device1", "torch")}
RNG = np.random.default_rng(11)


def _loss(w, x):
    """Every bound kind of step: operators, a standard function, a product, reshapes, a
    broadcast, transposes and swapped axes (and their cotangents)."""
    h = fnp.tanh(fnp.reshape(x, (4, 6)) @ w)  # (4, 6) @ (6, 3)
    h = fnp.swapaxes(fnp.reshape(h, (2, 2, 3)), 0, 2) * 0.5 - 1.0
    h = fnp.transpose(h, (1, 2, 0)) + fnp.broadcast_to(fnp.exp(w[0]), (2, 2, 3))
    return fnp.sum(h * h / 3.0)


@pytest.mark.parametrize("library", sorted(MAKERS))
def test_a_bound_plan_gives_the_eager_calls_values(library):
    make = MAKERS[library]
    w, x = RNG.normal(size=(6, 3)), RNG.normal(size=(2, 12))
    vg = fg.value_and_grad(_loss, argnums=(0, 1))
    jitted = fg.jit(vg)
    for _ in range(2):  # the first call traces, the second replays the plan
        value, grads = jitted(make(w), make(x))
        eager_value, eager_grads = vg(make(w), make(x))
        numpy_value, numpy_grads = vg(w, x)
        assert float(to_numpy(value)) == pytest.approx(float(to_numpy(eager_value)), rel=1e-15)
        assert float(to_numpy(value)) == pytest.approx(float(numpy_value), rel=1e-12)
        for got, want, plain in zip(grads, eager_grads, numpy_grads):
            np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-15)
            np.testing.assert_allclose(to_numpy(got), plain, rtol=1e-12)


@pytest.mark.skipif(torch is None, reason="PyTorch is the library with compat wrappers")
def test_operands_of_two_dtypes_keep_the_wrappers_promotion():
    # float32 @ float64: PyTorch's own matmul refuses it, the standard promotes to float64
    # (as the eager call does): the plan keeps the wrapper for such a step
    w = torch.asarray(RNG.normal(size=(3, 3)).astype(np.float32))
    x = torch.asarray(RNG.normal(size=(3,)))
    loss = lambda w, x: fnp.sum(fnp.tanh(fnp.matmul(w, x)))
    got, want = fg.jit(loss)(w, x), loss(w, x)
    assert got.dtype == want.dtype == torch.float64
    assert float(got) == pytest.approx(float(want), rel=1e-15)


@pytest.mark.skipif(torch is None, reason="PyTorch is the library with compat wrappers")
def test_own_function_is_pytorchs_only_for_operands_of_one_dtype():
    import array_api_compat.torch as ct

    one = [torch.zeros(2, 2), torch.zeros(2, 2)]
    two = [torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.float64)]
    assert own_function(ct, "matmul", one) is torch.matmul
    assert own_function(ct, "permute_dims", one[:1]) is torch.permute
    assert own_function(ct, "matmul", two) is ct.matmul
    assert own_function(ct, "matmul", [torch.zeros(2), 2.0]) is ct.matmul  # a number
    assert own_function(ct, "tanh", one[:1]) is ct.tanh  # not a wrapper: the namespace's


def _layer_norm_loss(x):
    """``x - m`` written twice, as a layer norm is usually written."""
    m = fnp.mean(x, -1, keepdims=True)
    v = fnp.mean((x - m) ** 2, -1, keepdims=True)
    return fnp.sum((x - m) / fnp.sqrt(v + 1e-5) * fnp.sin(x))


@pytest.mark.parametrize("library", sorted(MAKERS))
def test_a_repeated_step_is_called_once(library):
    make = MAKERS[library]
    x = RNG.normal(size=(3, 4))
    jitted = fg.jit(fg.value_and_grad(_layer_norm_loss))
    lines = jitted.plan(make(x)).source.splitlines()[1:-1]
    calls = [line.split(" = ")[1] for line in lines if "subtract(" in line]
    assert len(calls) == len(set(calls))  # each subtraction of the same operands once
    eager_value, eager_grad = fg.value_and_grad(_layer_norm_loss)(x)
    for _ in range(2):
        value, grad = jitted(make(x))
        assert float(to_numpy(value)) == pytest.approx(float(eager_value), rel=1e-14)
        np.testing.assert_allclose(to_numpy(grad), eager_grad, rtol=1e-13)


@pytest.mark.parametrize("library", sorted(MAKERS))
def test_a_repeated_effect_runs_each_time(library):
    make = MAKERS[library]
    seen = []
    note = lambda v: seen.append(1)

    def f(x):  # the same call twice: both run
        fg.debug.callback(note, x)
        fg.debug.callback(note, x)
        return x * 2.0

    jitted = fg.jit(f)
    x = make(np.ones(3))
    jitted(x)
    seen.clear()
    jitted(x)
    assert len(seen) == 2


@pytest.mark.parametrize("library", sorted(MAKERS))
@pytest.mark.parametrize("sizes", [(2, 3, 1), (4, 4, 4)])
def test_a_splits_cotangent_is_one_join(library, sizes):
    # split's pieces tile the axis: one concat, equal to NumPy's zeros written piecewise
    make = MAKERS[library]
    x = RNG.normal(size=(2, sum(sizes)))
    cuts = list(np.cumsum(sizes)[:-1])

    def loss(x):
        a, b, c = fnp.split(x, cuts, axis=-1)
        return fnp.sum(fnp.sin(a)) + fnp.sum(b * b) + fnp.sum(fnp.exp(c))

    want = fg.grad(loss)(x)
    jitted = fg.jit(fg.grad(loss))
    assert "pieces(" in jitted.plan(make(x)).source
    for got in (fg.grad(loss)(make(x)), jitted(make(x))):
        # the pieces are placed exactly; PyTorch's sin and exp round their own way (an ulp)
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("library", sorted(MAKERS))
def test_pieces_with_a_gap_are_written_into_zeros(library):
    make = MAKERS[library]
    x = RNG.normal(size=(3, 6))
    loss = lambda x: fnp.sum(x[:, :2] ** 2) + fnp.sum(fnp.sin(x[:, 4:]))  # columns 2, 3 unread
    want = fg.grad(loss)(x)
    for got in (fg.grad(loss)(make(x)), fg.jit(fg.grad(loss))(make(x))):
        got = to_numpy(got)
        assert np.all(got[:, 2:4] == 0.0)  # the unread columns: zeros, exactly
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


@pytest.mark.skipif(torch is None, reason="PyTorch's dtypes are hashable objects")
def test_a_plan_per_dtype_and_shape():
    jitted = fg.jit(lambda x: fnp.sum(x * x))
    a = RNG.normal(size=(3,))
    for make in (
        lambda: torch.asarray(a),
        lambda: torch.asarray(a.astype(np.float32)),
        lambda: torch.asarray(a[:2]),
    ):
        jitted(make())
        jitted(make())
    assert jitted.cache_size() == 3


def _constants_loss(x):
    """Each arithmetic operator with a constant number on either side (``1.0 / v`` too)."""
    v = x * x + 0.1
    return fnp.sum(1.0 / v * 0.7 - 3.0 / 7.0 + x / 3.0 - (2.5 - x) + v * x)


def _held_constants(plan):
    """The constants the plan's steps read (its function's globals ``c<register>``)."""
    names = plan.run.__code__.co_names
    return [plan.run.__globals__[k] for k in names if k[0] == "c" and k[1:].isdigit()]


@pytest.mark.skipif(torch is None, reason="the constants held as tensors are PyTorch's")
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_a_plans_constant_numbers_are_the_librarys_own_with_eager_bits(dtype):
    kind = getattr(torch, dtype)
    x = torch.asarray(RNG.normal(size=(5, 7))).to(kind)
    vg = fg.value_and_grad(_constants_loss)
    jitted = fg.jit(vg)
    for _ in range(2):
        (value, grad), (eager_value, eager_grad) = jitted(x), vg(x)
        assert torch.equal(grad, eager_grad) and torch.equal(value, eager_value)
    held = _held_constants(jitted.plan(x))
    numbers = [c for c in held if type(c) is float]
    tensors = [float(c) for c in held if isinstance(c, torch.Tensor) and c.dtype == kind]
    if dtype == "float16":  # computed in float32 from the unrounded number: kept a number
        assert 0.7 in numbers and 2.5 in numbers
    else:
        assert 0.7 not in numbers and 2.5 not in numbers
        assert float(torch.tensor(0.7, dtype=kind)) in tensors and 2.5 in tensors


@pytest.mark.skipif(torch is None, reason="the constants held as tensors are PyTorch's")
def test_a_number_given_as_an_argument_is_read_at_each_call():
    x = torch.asarray(RNG.normal(size=(4,)))
    scaled = fg.jit(lambda x, s: fnp.sum(x * s + 1.0 / s))
    for s in (0.5, 2.0, -3.0):  # one plan (a float's key is its type), read anew each call
        want = float(fnp.sum(x * s + 1.0 / s))
        assert float(scaled(x, s)) == pytest.approx(want, rel=1e-15)


def _on_a_closed_over_array(c):
    """Functions of a number that read another library's array ``c`` they closed over."""
    return {
        "operators": lambda a: a * c + 1.0,
        "concatenate": lambda a: fnp.concatenate([c, fnp.reshape(a * c[0], (1,))]),
        "sum": lambda a: fnp.sum(fnp.sin(a * c)),
        "polyadd": lambda a: fnp.polyadd(a, c),
        "dot": lambda a: fnp.dot(a, c),
        "grad": fg.grad(lambda a: fnp.sum(fnp.sin(a * c) * c)),
    }


@pytest.mark.parametrize("library", sorted(MAKERS))
@pytest.mark.parametrize("case", sorted(_on_a_closed_over_array(0.0)))
def test_a_plan_of_number_arguments_runs_on_the_library_of_its_constants(library, case):
    # no argument is the library's: the plan's steps are that library's all the same (a NumPy
    # plan called NumPy's concatenate on the tensors, and PyTorch's sum refused axis=)
    c = MAKERS[library](np.array([0.5, -1.25, 2.0], np.float32))
    f = _on_a_closed_over_array(c)[case]
    for a in (0.75, -2.0):  # the first call traces, the second replays the plan
        got, want = fg.jit(f)(a), f(a)
        assert type(got) is type(want) and got.dtype == want.dtype
        np.testing.assert_allclose(to_numpy(got), to_numpy(want), rtol=1e-6)


@pytest.mark.parametrize("library", sorted(MAKERS))
@pytest.mark.parametrize("number", [np.float64(2.5), np.float32(-1.5), np.int64(3), 0.5])
def test_a_numpy_scalar_argument_is_read_as_the_number_it_holds(library, number):
    # as eagerly (docs/backends.md): array-api-strict refuses NumPy's scalars themselves
    x = MAKERS[library](np.array([0.5, -1.25], np.float32))
    f = lambda x, s: fnp.sum(fnp.multiply(x, s)) + fnp.dot(x, s)[0]
    for _ in range(2):
        got, want = fg.jit(f)(x, number), f(x, number)
        assert got.dtype == want.dtype
        assert float(to_numpy(got)) == pytest.approx(float(to_numpy(want)), rel=1e-6)
