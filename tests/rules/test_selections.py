"""Selections: relu, ``where`` (and hard_tanh, written with it) pass a cotangent on where they keep their argument and
send 0 elsewhere, as JAX's select and PyTorch's relu do, even where the cotangent is
infinite or NaN (``g * 0`` gave NaN there: ``log(relu(x))`` at a negative ``x``); and
NumPy's ``where`` computed by bits, to np.where's bits, without a branch per element."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain
from funcgrad.rules import elementwise as ew
from funcgrad.rules import elementwise_impls
from funcgrad.rules.elementwise_impls import _in_short_runs, _where_by_bits
from tests.helpers import device_makers, needs_torch, numeric_grad, to_numpy

X = np.array([-1.5, -0.0, 0.0, 0.7, 2.0, -3.0])


# Functions whose cotangent reaches relu or where infinite where they drop their argument
# (log and sqrt of the 0 they give), with the gradient JAX and PyTorch give.
def log_relu(x):
    return fnp.sum(fnp.log(fg.nn.relu(x)))


def log_where(x):
    return fnp.sum(fnp.log(fnp.where(x > 0, x, 0.0)))


def log_where_second_branch(x):
    return fnp.sum(fnp.log(fnp.where(x <= 0, 0.0, x)))


def sqrt_relu(x):
    return fnp.sum(fnp.sqrt(fg.nn.relu(x)))


def log_hard_tanh(x):
    return fnp.sum(fnp.log(fg.nn.hard_tanh(x) + 1.0))  # log(0) below -1


FUNCTIONS = {
    "log(hard_tanh + 1)": (
        log_hard_tanh,
        lambda x: np.where(np.abs(x) <= 1, 1.0 / (np.clip(x, -1, 1) + 1.0), 0.0),
    ),
    "log(relu)": (log_relu, lambda x: np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), 0.0)),
    "log(where)": (log_where, lambda x: np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), 0.0)),
    "log(where), the other branch": (
        log_where_second_branch,
        lambda x: np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), 0.0),
    ),
    "sqrt(relu)": (
        sqrt_relu,
        lambda x: np.where(x > 0, 0.5 / np.sqrt(np.where(x > 0, x, 1.0)), 0.0),
    ),
}


def _oracle(want):
    with np.errstate(all="ignore"):
        return want(X)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_an_infinite_cotangent_is_dropped_where_the_argument_is(name):
    f, want = FUNCTIONS[name]
    expected = _oracle(want)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(fg.grad(f)(X), expected)
        np.testing.assert_array_equal(fg.jit(fg.grad(f))(X), expected)
        # vmap against a Python loop over the rows
        rows = np.stack([X, X[::-1]])
        looped = np.stack([fg.grad(f)(r) for r in rows])
        np.testing.assert_array_equal(fg.vmap(fg.grad(f))(rows), looped)
        np.testing.assert_array_equal(fg.jit(fg.vmap(fg.grad(f)))(rows), looped)
        # a checkpointed loop's body and a scan carry it as the eager call does
        body = fg.checkpoint(f)
        np.testing.assert_array_equal(fg.grad(body)(X), expected)
        looped_twice = fg.grad(lambda x: fg.fori_loop(0, 2, lambda i, s: s + f(x), 0.0))(X)
        np.testing.assert_array_equal(looped_twice, 2.0 * expected)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_gradient_is_pytorchs(name):
    torch = needs_torch()
    f, _ = FUNCTIONS[name]
    torch_forms = {
        "log(hard_tanh + 1)": lambda t: torch.log(torch.nn.functional.hardtanh(t) + 1.0).sum(),
        "log(relu)": lambda t: torch.log(torch.relu(t)).sum(),
        "log(where)": lambda t: torch.log(torch.where(t > 0, t, 0.0)).sum(),
        "log(where), the other branch": lambda t: torch.log(torch.where(t <= 0, 0.0, t)).sum(),
        "sqrt(relu)": lambda t: torch.sqrt(torch.relu(t)).sum(),
    }
    t = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    torch_forms[name](t).backward()
    with np.errstate(all="ignore"):
        got = fg.grad(f)(X)
    # the zeros exactly (not NaN); the rest within PyTorch's rounding of 0.5 / sqrt(x)
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-15, atol=0.0, equal_nan=False)


def test_second_derivatives_select_too():
    # relu's cotangent differentiates again through its own selection
    f = lambda x: fnp.sum(fg.nn.relu(x) ** 3 + fnp.log(fg.nn.relu(x)))
    x = np.array([-1.0, 0.5, 2.0])
    with np.errstate(all="ignore"):
        h = fg.hessian(f)(x)
    np.testing.assert_allclose(h, np.diag(np.where(x > 0, 6 * x - 1 / x**2, 0.0)), rtol=1e-12)
    # where's cotangent, differentiated in its kept branch: central differences
    g = lambda x: fnp.sum(fnp.where(x > 0, x**3, -x) * x)
    x = np.array([-1.3, 0.4, 2.2])
    hv = fg.grad(lambda x: fnp.sum(fg.grad(g)(x) * np.array([1.0, 2.0, 3.0])))(x)
    want = numeric_grad(lambda x: np.sum(fg.grad(g)(x) * np.array([1.0, 2.0, 3.0])), [x], 0)
    np.testing.assert_allclose(hv, want, rtol=1e-6)


def test_forward_mode_selects_an_infinite_tangent():
    # JAX's relu and where push tangents by select: an infinite tangent where the argument
    # is dropped gives 0
    x, t = np.array([-1.0, 2.0]), np.array([np.inf, 1.0])
    np.testing.assert_array_equal(fg.jvp(fg.nn.relu, (x,), (t,))[1], [0.0, 1.0])
    np.testing.assert_array_equal(
        fg.jvp(lambda v: fnp.where(x > 0, v, 0.0), (x,), (t,))[1], [0.0, 1.0]
    )


def test_the_weights_the_folds_read_are_the_slopes():
    # a selection is still the edge's weight 1 or 0 for the semirings and the analyses
    x = np.array([-1.0, 0.0, 2.0])
    relu_partial = ew.relu.partials[0]
    np.testing.assert_array_equal(relu_partial(ew.relu(x), x), [0.0, 0.0, 1.0])
    c = x > 0
    np.testing.assert_array_equal(ew.where.partials[1](x, c, x, 0.0), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(ew.where.partials[2](x, c, x, 0.0), [1.0, 1.0, 0.0])


@pytest.mark.parametrize("make", sorted(device_makers()))
def test_on_other_libraries_arrays_the_cotangent_is_selected_there(make, torch_refuses_numpy):
    to = device_makers()[make]
    x = to(X)
    with np.errstate(all="ignore"):
        want = _oracle(FUNCTIONS["log(relu)"][1])
        for f in (log_relu, log_where):
            for grad in (fg.grad(f), fg.jit(fg.grad(f))):
                got = grad(x)
                assert type(got) is type(x)
                np.testing.assert_array_equal(to_numpy(got), want)


def test_where_positive_is_relus_cotangent_by_every_path():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 96))
    x[::7, ::5] = np.nan
    x[1::9, ::3] = 0.0
    g = rng.normal(size=(64, 96))
    g[::4, 1::2] = np.inf
    want = np.where(x > 0, g, 0.0)
    for dtype in (np.float32, np.float64):
        xd, gd, wd = x.astype(dtype), g.astype(dtype), want.astype(dtype)
        for impl in (ew.where_positive, plain(ew.where_positive)):  # a kernel where numba is
            got = impl(xd, gd)
            assert got.dtype == dtype
            np.testing.assert_array_equal(got.view(np.uint8), wd.view(np.uint8))
        # broadcast and on Python numbers: np.where's answer
        np.testing.assert_array_equal(ew.where_positive(xd[:1], gd), np.where(xd[:1] > 0, gd, 0))
    assert ew.where_positive(-1.0, np.inf) == 0.0 and ew.where_positive(2.0, 3.0) == 3.0
    jitted = fg.jit(lambda x, g: ew.where_positive(x, g), backend="numba")
    np.testing.assert_array_equal(jitted(x, g), want)
    np.testing.assert_array_equal(fg.jit(ew.where_positive, backend="numba")(-2.0, 5.0), 0.0)


# ---------------------------------------------------------------- np.where by bits

WHERE_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.uint16, np.int64]
WHERE_SHAPES = [  # condition, x, y: broadcast against each other
    ((64, 80), (64, 80), (64, 80)),
    ((64, 80), (80,), ()),
    ((80,), (64, 80), (64, 1)),
    ((64, 1), (64, 80), (80,)),
]
NUMBERS = [0.0, -0.0, 0, 3, 0.1, np.nan, -np.inf, 1e40, 300, -7]


@pytest.mark.parametrize("dtype", WHERE_DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shapes", WHERE_SHAPES, ids=str)
def test_where_by_bits_gives_numpys_bits(dtype, shapes):
    rng = np.random.default_rng(3)
    c = np.broadcast_to(rng.random(shapes[0]) > 0.5, (64, 80)).copy()
    x = (rng.normal(size=shapes[1]) * 100).astype(dtype)
    if dtype in (np.float32, np.float64):
        x[..., ::9] = np.nan  # NaNs keep their payloads: each element's bits are copied
    others = [(rng.normal(size=shapes[2]) * 100).astype(dtype), *NUMBERS]
    taken = 0
    for y in others:
        for a, b in ((x, y), (y, x), (x.T.T, y)):
            with np.errstate(all="ignore"):
                try:
                    want = np.where(c, a, b)
                except (OverflowError, ValueError):
                    continue
                got = _where_by_bits(c, a, b)
            if got is None:  # a number the dtype does not hold exactly, a NumPy scalar
                assert not (type(a) is np.ndarray and type(b) is np.ndarray)
                continue
            taken += 1
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    assert taken >= 9  # the arrays of the dtype, its zeros and small integers at least


def test_where_by_bits_takes_strided_operands():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(90, 120)).astype(np.float32)
    c = rng.random((120, 90)) > 0.5
    for a in (x.T, np.asfortranarray(x).T, x[::-1].T):
        np.testing.assert_array_equal(_where_by_bits(c, a, 0.0), np.where(c, a, 0.0))
        got = _where_by_bits(c[:, ::-1], a, -0.0)
        np.testing.assert_array_equal(
            got.view(np.int32), np.where(c[:, ::-1], a, -0.0).view(np.int32)
        )
    y = rng.normal(size=(200, 60))[:, ::2]
    c2 = rng.random((200, 30)) > 0.5
    np.testing.assert_array_equal(_where_by_bits(c2, y, 1.5), np.where(c2, y, 1.5))


def test_where_selects_by_bits_only_on_a_mask_of_short_runs(monkeypatch):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(256, 256)).astype(np.float32)
    random_mask = x > 0
    runs = np.sort(x, axis=None).reshape(x.shape) > 0  # one run of each value
    rare = np.zeros(x.shape, bool)
    rare[::97, ::89] = True  # a rare NaN's mask
    assert _in_short_runs(random_mask)
    assert not _in_short_runs(runs) and not _in_short_runs(rare)
    assert not _in_short_runs(random_mask.T)  # not C-ordered: np.where
    taken = []
    real = elementwise_impls._where_by_bits
    monkeypatch.setattr(elementwise_impls, "_where_by_bits", lambda *a: taken.append(1) or real(*a))
    for c in (random_mask, runs, rare):  # the plain impl (numba's select goes in front)
        np.testing.assert_array_equal(plain(ew.where)(c, x, 0.0), np.where(c, x, 0.0))
    assert len(taken) == 1
