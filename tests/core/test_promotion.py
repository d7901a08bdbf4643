"""One dtype rule under every transform: NumPy 2's promotion (NEP 50).

A Python number is *weak*: it takes the dtype of the array it meets (``0.5 *
float32`` is float32). NumPy's scalars and 0-d arrays are *strong*: they keep
their dtype (``np.float64(0.5) * float32`` is float64), and so is the answer a
NumPy function gives for a Python number (``np.sin(1.0)`` is an ``np.float64``).
The eager call is the oracle: every transform gives its dtypes, for every pairing
of Python's numbers, NumPy's scalars, 0-d arrays and arrays of every kind.
"""

import itertools

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

ml_dtypes = pytest.importorskip("ml_dtypes")  # bfloat16 (JAX's dtypes package)

DTYPES = [
    np.float16,
    ml_dtypes.bfloat16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
    np.int8,
    np.int32,
    np.int64,
    np.uint8,
    np.bool_,
]


def _kinds():
    yield "int", 3
    yield "float", 0.5
    yield "complex", 0.5 + 0.25j
    yield "bool", True
    for dtype in DTYPES:
        name = np.dtype(dtype).name
        yield f"np.{name}", np.dtype(dtype).type(1)
        yield f"0-d {name}", np.array(1, dtype)
        yield f"{name}[2]", np.array([1, 2], dtype)


KINDS = dict(_kinds())
PAIRS = list(itertools.product(KINDS, KINDS))


def _dtype(v):
    return np.asarray(v).dtype


def _inexact(v):
    """Whether ``v`` can be differentiated (a float or complex of any width)."""
    if isinstance(v, (bool, np.bool_, int)):
        return False
    dtype = np.result_type(v)
    return dtype.kind in "fc" or dtype == ml_dtypes.bfloat16


def _gradient_dtype(v):
    """The dtype of a derivative with respect to ``v``: ``v``'s own (float64 for a Python
    float, whose gradient is NumPy's float64)."""
    return np.dtype(np.float64) if type(v) is float else np.result_type(v)


# what each row computes from its pair: NumPy's rule on the operands themselves, and on a
# user's NumPy call of a Python number (a strong float64 answer)
FUNCTIONS = {
    "multiply": lambda a, b: fnp.multiply(a, b),
    "operator": lambda a, b: a + b,
    "sin(a) * b": lambda a, b: fnp.sin(a) * b,
}


def _oracle(f, a, b):
    with np.errstate(all="ignore"):
        return f(a, b)


def _pairs():
    """The pairs whose eager call has an answer (a bool plus a bool is NumPy's too)."""
    for name, f in FUNCTIONS.items():
        for ka, kb in PAIRS:
            a, b = KINDS[ka], KINDS[kb]
            try:
                _oracle(f, a, b)
            except TypeError:  # sin of a bool: NumPy refuses it too
                continue
            yield pytest.param(name, ka, kb, id=f"{name}-{ka}-{kb}")


@pytest.mark.parametrize("name, ka, kb", list(_pairs()))
def test_every_transform_gives_the_eager_dtype(name, ka, kb):
    f, a, b = FUNCTIONS[name], KINDS[ka], KINDS[kb]
    want = _dtype(_oracle(f, a, b))
    got = {"jit": fg.jit(f)(a, b)}
    got["checkpoint"] = fg.checkpoint(f)(a, b)
    got["fori_loop"] = fg.fori_loop(0, 2, lambda i, c: f(a, b), f(a, b))
    got["scan"] = fg.scan(lambda c, x: (c, f(a, b)), 0.0, np.zeros(2))[1][0]
    got["jit of fori_loop"] = fg.jit(
        lambda a, b: fg.fori_loop(0, 2, lambda i, c: f(a, b), f(a, b))
    )(a, b)
    if np.ndim(b):  # vmap over b's examples, against the loop over them
        stacked = np.stack([b, b])
        got["vmap"] = fg.vmap(f, in_axes=(None, 0))(a, stacked)
        want_vmap = _dtype(_oracle(f, a, stacked[0]))
        assert _dtype(got.pop("vmap")) == want_vmap
    if _inexact(a) and want.kind in "fc":
        real = lambda a: fnp.sum(fnp.real(f(a, b)))
        value, g = fg.value_and_grad(real)(a)
        assert _dtype(value) == _dtype(_oracle(lambda a, b: fnp.sum(fnp.real(f(a, b))), a, b))
        assert _dtype(g) == _gradient_dtype(a), "grad"
        assert _dtype(fg.jit(fg.grad(real))(a)) == _gradient_dtype(a), "jit of grad"
        got["vjp"], pull = fg.vjp(lambda a: f(a, b), a)
        assert _dtype(pull(np.ones_like(got["vjp"]))[0]) == _gradient_dtype(a), "vjp"
        t = 1.0 if type(a) in (float, complex) else np.ones_like(a)
        got["jvp"], tangent = fg.jvp(lambda a: f(a, b), (a,), (t,))
        assert _dtype(tangent) == want, "jvp's tangent"
        if np.result_type(a).kind == "f":
            assert _dtype(fg.hessian(real)(a)) == _gradient_dtype(a), "hessian"
    for transform, value in got.items():
        assert _dtype(value) == want, f"{transform}: {_dtype(value)}, eagerly {want}"


def test_grad_of_a_float64_number_has_float64_precision():
    b = np.float32([1, 2, 3])
    f = lambda s: fnp.sum(s**2 * b)
    s = np.float64(0.1)
    exact = 2 * 0.1 * 6.0  # d/ds sum(s^2 b) = 2 s sum(b), in float64
    for transform in (fg.grad, lambda f: fg.value_and_grad(f)):
        g = transform(f)(s)
        g = g[1] if isinstance(g, tuple) else g
        assert type(g) is np.float64 and abs(g - exact) < 1e-15
    assert abs(fg.jacfwd(f)(s) - exact) < 1e-15
    assert abs(fg.jit(fg.grad(f))(s) - exact) < 1e-15
    assert abs(fg.jvp(f, (s,), (1.0,))[1] - exact) < 1e-15
    h = 1e-6
    assert abs(fg.grad(f)(s) - (f(s + h) - f(s - h)) / (2 * h)) < 1e-8


def test_the_issues_examples():
    b = np.float32([1, 2, 3])
    half = fg.jit(fnp.add)(np.float64(1e-5), np.ones(2, np.float16))
    assert half.dtype == np.float64 and half[0] == 1.00001
    for x in (1.0, np.float64(1.0)):
        assert fg.jit(lambda x, y: fnp.sin(x) * y)(x, b).dtype == np.float64
    # a Python float's own arithmetic stays weak, under jit as eagerly
    assert fg.jit(lambda x, y: x * 2.0 * y)(1.0, b).dtype == np.float32


def test_a_float64_number_that_changes_nothing_runs_as_a_python_float():
    # a plan with no narrower float gives the same bits for both: one plan serves them
    f = fg.jit(lambda x: fnp.tanh(x) * 2.0 + x)
    assert f(0.5) == f(np.float64(0.5)) == np.tanh(0.5) * 2.0 + 0.5
    assert f.plan(np.float64(0.5)) is f.plan(0.5)
    g = fg.jit(lambda x, y: x * y)
    y = np.float32([1.0])
    assert g(0.5, y).dtype == np.float32 and g(np.float64(0.5), y).dtype == np.float64
    assert g.cache_size() == 2


def test_a_loop_carry_made_float64_by_its_step_is_one_from_the_start():
    b = np.float32([1, 2])
    step = lambda i, c: fnp.sin(c)
    eager = np.sin(np.sin(1.0)) * b
    for f in (
        lambda c: fg.fori_loop(0, 2, step, c) * b,
        lambda c: fg.while_loop(lambda c: c > 0.9, fnp.sin, c) * b,
        lambda c: fg.scan(lambda c, x: (fnp.sin(c), c), c, np.zeros(2))[0] * b,
    ):
        assert f(1.0).dtype == np.float64
        for backend in ("python", "numba"):
            if backend == "numba":
                pytest.importorskip("numba")
            assert fg.jit(f, backend=backend)(1.0).dtype == np.float64
    assert fg.jit(lambda c: fg.fori_loop(0, 2, step, c) * b)(1.0).tolist() == eager.tolist()


def test_a_tangent_lives_in_its_primals_dtype():
    x32 = np.ones(2, np.float32)
    assert fg.jvp(fnp.sin, (x32,), (np.ones(2),))[1].dtype == np.float32
    assert fg.jvp(fnp.sin, (np.ones(2),), (x32,))[1].dtype == np.float64
    assert type(fg.jvp(fnp.sin, (1.0,), (np.float32(1.0),))[1]) is np.float64


def test_hand_built_expressions_keep_python_floats():
    x = fg.var(0.5)
    y = fnp.sin(x) * 2.0
    assert type(y.value) is float and type(fg.backprop(y)[x]) is float


# ---------------------------------------------------------------- saying when precision changes


@pytest.fixture
def strict():
    fg.config.update("funcgrad_numpy_dtype_promotion", "strict")
    try:
        yield
    finally:
        fg.config.update("jax_numpy_dtype_promotion", "standard")


def _attention(x, scale):
    w = np.ones((4, 4), np.float32)
    s = (x @ w) * scale  # the line strict mode and lint name
    return fnp.sum(fg.nn.softmax(s, axis=-1) * s)


def test_strict_promotion_raises_at_the_users_line_under_every_transform(strict):
    x = np.ones((2, 4), np.float32)
    f = lambda x: _attention(x, np.float64(0.25))
    assert fg.config.funcgrad_numpy_dtype_promotion == "strict"
    for transform, arg in ((fg.jit, x), (fg.grad, x), (fg.vmap, np.stack([x, x]))):
        with pytest.raises(fg.PromotionError, match=r"multiply promotes float32 and float64") as e:
            transform(f)(arg)
        assert "test_promotion.py" in str(e.value) and "(x @ w) * scale" in str(e.value)
    with pytest.raises(fg.PromotionError):  # an eager call of the user's: funcgrad's add
        fnp.add(np.ones(2, np.float32), np.ones(2))
    # (NumPy's own operators on plain arrays are NumPy's: not watched, as in JAX's strict mode
    # only jax.numpy's operations are)
    # weak Python numbers, bool masks and funcgrad's own rules promote nothing the user wrote
    g = fg.grad(lambda x: _attention(x, 0.25))(x)
    assert g.dtype == np.float32
    assert fg.jit(lambda x: fnp.mean(fnp.where(x > 0, x, 0.0)))(x).dtype == np.float32


def test_standard_promotion_says_nothing():
    assert fg.config.jax_numpy_dtype_promotion == "standard"
    x = np.ones((2, 4), np.float32)
    assert fg.jit(lambda x: _attention(x, np.float64(0.25)))(x).dtype == np.float64
    with pytest.raises(fg.ArgumentError, match="'standard'"):
        fg.config.update("funcgrad_numpy_dtype_promotion", "loose")


def test_lint_names_the_line_that_made_a_float32_step_float64():
    x = np.ones((2, 4), np.float32)
    found = fg.lint(lambda x: _attention(x, 1.0 / np.sqrt(16)), x)
    precision = [f for f in found if f.kind == "precision"]
    assert len(precision) == 1, found
    said = str(precision[0])
    assert "turns float32 values into float64" in said and "(x @ w) * scale" in said
    assert "0.25" in said and "Python float" in said
    assert not [f for f in fg.lint(lambda x: _attention(x, 0.25), x) if f.kind == "precision"]


def test_on_pytorch_tensors_the_librarys_promotion_holds_under_every_transform(
    torch_refuses_numpy,
):
    # docs/backends.md: PyTorch's rule for its tensors (float32 times int64 is float32,
    # where NumPy's arrays give float64) and NumPy's scalars read as Python's numbers;
    # the eager call's dtype under each transform
    torch = pytest.importorskip("torch")
    f32 = torch.linspace(0.1, 0.9, 3, dtype=torch.float32)
    pairs = [  # (x, the other operand, PyTorch's dtype of their product)
        (f32, torch.arange(3), torch.float32),
        (f32, np.float64(0.5), torch.float32),
        (f32.to(torch.float16), 2.0, torch.float16),
        (f32, torch.ones(3, dtype=torch.float64), torch.float64),
    ]
    for x, b, want in pairs:
        f = lambda x: fnp.multiply(fnp.sin(x), b)
        assert f(x).dtype == want
        assert fg.jit(f)(x).dtype == want
        assert fg.vmap(f)(x[None]).dtype == want
        assert fg.jvp(f, (x,), (x,))[1].dtype == want
        assert fg.grad(lambda x: fnp.sum(f(x)))(x).dtype == x.dtype  # in its input's dtype
