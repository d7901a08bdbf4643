"""PyTorch's fused functions in front of the Array API forms (funcgrad/kernels/torch_forms.py):
on PyTorch tensors each primitive gives what its plain form gives (within PyTorch's own
rounding) and what NumPy gives, in float32 and float64, eagerly and under grad, jvp,
vmap (oracle: a Python loop), jit (oracle: the eager call), a Hessian-vector product and
a loop; a jitted plan binds a step to PyTorch's call; where the fused call does not
apply (integers, several axes) the plain form runs."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.fast_paths import plain_form, registered
from funcgrad.core.namespaces import namespace_of
from funcgrad.rules import elementwise, gelu, nn
from tests.helpers import to_numpy, torch, torch_operators

pytestmark = [
    pytest.mark.usefixtures("torch_refuses_numpy"),
    pytest.mark.skipif(torch is None, reason="PyTorch's functions need PyTorch"),
]
RNG = np.random.default_rng(7)
TOL = {"float32": {"rtol": 2e-6, "atol": 2e-6}, "float64": {"rtol": 1e-13, "atol": 1e-14}}

CASES = {  # name -> (primitive, params)
    "softmax": (nn.softmax, {"axis": -1}),
    "softmax:0": (nn.softmax, {"axis": 0}),
    "log_softmax": (nn.log_softmax, {"axis": -1}),
    "log_softmax:1": (nn.log_softmax, {"axis": 1}),
    "logsumexp": (nn.logsumexp, {}),
    "logsumexp:-1,keep": (nn.logsumexp, {"axis": -1, "keepdims": True}),
    "logsumexp:(0,2)": (nn.logsumexp, {"axis": (0, 2)}),
    "logsumexp:()": (nn.logsumexp, {"axis": ()}),
    "gelu_tanh": (gelu.gelu_tanh, {}),
    "gelu_tanh_slope": (gelu.gelu_tanh_slope, {}),
    "relu": (elementwise.relu, {}),
    "step": (elementwise.step, {}),
}


def _tensor(a, dtype="float64"):
    return torch.asarray(np.array(a, dtype=dtype))


@pytest.mark.parametrize("dtype", sorted(TOL))
@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorchs_call_gives_the_forms_values(name, dtype):
    prim, params = CASES[name]
    a = RNG.normal(size=(3, 4, 5)) * 3.0
    x = _tensor(a, dtype)
    got = prim(x, **params)
    want = plain_form(prim)(namespace_of((x,)), x, **params)
    assert isinstance(got, torch.Tensor) and got.dtype == x.dtype
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), **TOL[dtype])
    np.testing.assert_allclose(to_numpy(got), prim(a.astype(dtype), **params), **TOL[dtype])


def test_every_case_is_registered():
    assert {prim for prim, _ in CASES.values()} <= set(registered())
    assert {nn.softmax_product, nn.log_softmax_cotangent} <= set(registered())


PRODUCTS = {  # a product primitive -> (the function whose value it takes, PyTorch's call)
    "softmax_product": (nn.softmax_product, nn.softmax, "_softmax_backward_data"),
    "log_softmax_cotangent": (
        nn.log_softmax_cotangent,
        nn.log_softmax,
        "_log_softmax_backward_data",
    ),
}


@pytest.mark.parametrize("dtype", sorted(TOL))
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_a_product_is_the_forms_and_numpys(name, dtype, axis):
    prim, value_of, _ = PRODUCTS[name]
    a, v = value_of(RNG.normal(size=(3, 4, 5)), axis=axis), RNG.normal(size=(3, 4, 5))
    s, t = _tensor(a, dtype), _tensor(v, dtype)
    got = prim(s, t, axis=axis)
    want = plain_form(prim)(namespace_of((s, t)), s, t, axis=axis)
    assert isinstance(got, torch.Tensor) and got.dtype == s.dtype
    np.testing.assert_allclose(to_numpy(got), to_numpy(want), **TOL[dtype])
    np.testing.assert_allclose(
        to_numpy(got), prim(a.astype(dtype), v.astype(dtype), axis=axis), **TOL[dtype]
    )


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_a_product_of_unlike_operands_takes_the_plain_form(name, monkeypatch):
    # PyTorch's call takes one shape and one dtype: a broadcast or a mixed pair is the form's
    prim, value_of, call = PRODUCTS[name]
    calls = []
    real = getattr(torch, call)
    monkeypatch.setattr(torch, call, lambda *a: calls.append(a) or real(*a))
    a = value_of(RNG.normal(size=(2, 5)))
    v = RNG.normal(size=(2, 5))
    pairs = [(_tensor(a), _tensor(v[:1])), (_tensor(a, "float32"), _tensor(v))]
    for s, t in pairs:
        got = prim(s, t)
        want = prim(to_numpy(s).astype(np.float64), to_numpy(t).astype(np.float64))
        np.testing.assert_allclose(to_numpy(got).astype(np.float64), want, rtol=1e-6, atol=1e-7)
    assert calls == []
    prim(_tensor(a), _tensor(v))
    assert len(calls) == 1


def test_a_softmax_gradients_plan_calls_pytorchs_backward_once(monkeypatch):
    calls = []
    real = torch._softmax_backward_data
    monkeypatch.setattr(torch, "_softmax_backward_data", lambda *a: calls.append(a) or real(*a))
    w, x = RNG.normal(size=(4, 6)), RNG.normal(size=(4, 6))
    loss = lambda x, w: fnp.sum(fg.nn.softmax(x, axis=-1) * w)
    jitted = fg.jit(fg.grad(loss))
    jitted(_tensor(x), _tensor(w))
    calls.clear()
    got = jitted(_tensor(x), _tensor(w))
    assert len(calls) == 1  # the product's four calls are PyTorch's one
    np.testing.assert_allclose(to_numpy(got), fg.grad(loss)(x, w), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "gelu_tanh", "relu", "step"])
def test_an_integer_tensor_takes_the_plain_form(name):
    prim, params = CASES[name]
    x = torch.asarray(np.arange(-3, 3).reshape(2, 3))
    got, want = prim(x, **params), plain_form(prim)(namespace_of((x,)), x, **params)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(to_numpy(got), to_numpy(want))


def test_step_of_nan_zero_and_signed_zeros_is_the_forms():
    x = _tensor([np.nan, 0.0, -0.0, 1e-30, -1e-30, np.inf, -np.inf], "float64")
    for dtype in (torch.float64, torch.float32):
        got = elementwise.step(x.to(dtype))
        assert got.dtype == dtype
        np.testing.assert_array_equal(to_numpy(got), [0, 0, 0, 1, 0, 1, 0])


def test_several_axes_take_the_plain_form():
    a = RNG.normal(size=(2, 3, 4))
    got = nn.softmax(_tensor(a), axis=(0, 2))
    np.testing.assert_allclose(to_numpy(got), nn.softmax(a, axis=(0, 2)), rtol=1e-14)


def _model(w, x):
    """A GELU layer, a softmax and a log-softmax: each primitive above in one loss."""
    h = fg.nn.gelu(x @ w, approximate=True)
    s = fg.nn.softmax(h, axis=-1)
    return fnp.sum(s * fg.nn.log_softmax(h * 0.5, axis=0)) + fg.nn.logsumexp(h)


def _both(w, x):
    return (w, x), (_tensor(w), _tensor(x))


def test_grad_and_jit_agree_with_numpy():
    (w, x), (tw, tx) = _both(RNG.normal(size=(4, 5)), RNG.normal(size=(3, 4)))
    vg = fg.value_and_grad(_model, argnums=(0, 1))
    want_value, want_grads = vg(w, x)
    jitted = fg.jit(vg)
    for value, grads in (vg(tw, tx), jitted(tw, tx), jitted(tw, tx)):
        assert float(to_numpy(value)) == pytest.approx(float(want_value), rel=1e-13)
        for got, want in zip(grads, want_grads):
            np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-14)


def test_grad_agrees_with_central_differences():
    w, x = RNG.normal(size=(4, 5)), RNG.normal(size=(3, 4))
    got = to_numpy(fg.grad(_model)(_tensor(w), _tensor(x)))
    h, want = 1e-6, np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = h
        want[i] = (_model(w + e, x) - _model(w - e, x)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_grad_agrees_with_pytorchs_autograd():
    w, x = RNG.normal(size=(4, 5)), RNG.normal(size=(3, 4))
    got = to_numpy(fg.grad(_model)(_tensor(w), _tensor(x)))
    tw = _tensor(w).requires_grad_(True)
    h = torch.nn.functional.gelu(_tensor(x) @ tw, approximate="tanh")
    loss = (torch.softmax(h, -1) * torch.log_softmax(h * 0.5, 0)).sum() + torch.logsumexp(h, (0, 1))
    loss.backward()
    np.testing.assert_allclose(got, to_numpy(tw.grad), rtol=1e-12, atol=1e-14)


def test_jvp_and_hessian_vector_product_agree_with_numpy():
    (w, x), (tw, tx) = _both(RNG.normal(size=(4, 5)), RNG.normal(size=(3, 4)))
    v = RNG.normal(size=w.shape)
    _, want_t = fg.jvp(lambda w: _model(w, x), (w,), (v,))
    _, got_t = fg.jvp(lambda w: _model(w, tx), (tw,), (_tensor(v),))
    assert float(to_numpy(got_t)) == pytest.approx(float(want_t), rel=1e-12)
    hvp = lambda w, x, v: fg.jvp(fg.grad(lambda w: _model(w, x)), (w,), (v,))[1]
    np.testing.assert_allclose(
        to_numpy(hvp(tw, tx, _tensor(v))), hvp(w, x, v), rtol=1e-11, atol=1e-13
    )


def test_vmap_agrees_with_a_python_loop():
    ws, x = RNG.normal(size=(3, 4, 5)), RNG.normal(size=(3, 4))
    got = to_numpy(fg.vmap(fg.grad(_model), in_axes=(0, None))(_tensor(ws), _tensor(x)))
    want = np.stack([to_numpy(fg.grad(_model)(_tensor(w), _tensor(x))) for w in ws])
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_inside_a_loop_and_checkpoint():
    (w, x), (tw, tx) = _both(RNG.normal(size=(4, 4)), RNG.normal(size=(3, 4)))

    def looped(w, x):
        body = fg.checkpoint(lambda i, h: fg.nn.softmax(fg.nn.gelu(h @ w, approximate=True)))
        return fnp.sum(fg.lax.fori_loop(0, 3, body, x) ** 2)

    want = fg.grad(looped)(w, x)
    for got in (fg.grad(looped)(tw, tx), fg.jit(fg.grad(looped))(tw, tx)):
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-12, atol=1e-14)


def test_a_plan_binds_the_step_to_pytorchs_call(monkeypatch):
    x = _tensor(RNG.normal(size=(2, 3)))
    jitted = fg.jit(lambda x: fg.nn.softmax(x, axis=-1))
    jitted(x)
    calls = []
    real = torch.softmax
    monkeypatch.setattr(torch, "softmax", lambda *a, **k: calls.append(a) or real(*a, **k))
    got = jitted(x)  # the replay, not the trace
    assert len(calls) == 1
    np.testing.assert_allclose(to_numpy(got), nn.softmax(to_numpy(x), axis=-1), rtol=1e-15)


@pytest.mark.parametrize("dtype", sorted(TOL))
def test_rows_gathered_and_their_cotangent_agree_with_numpy(dtype):
    # an embedding: rows picked by integer ids, negative ones from the end, some twice
    table = RNG.normal(size=(6, 3)).astype(dtype)
    ids = np.array([[0, -1, 2], [5, 5, -6]])
    loss = lambda t, i: fnp.sum(fnp.sin(t[i]))
    want_value, want_grad = fg.value_and_grad(loss)(table, ids)
    t, i = torch.asarray(table), torch.asarray(ids)
    for value, grad in (fg.value_and_grad(loss)(t, i), fg.jit(fg.value_and_grad(loss))(t, i)):
        assert float(to_numpy(value)) == pytest.approx(float(want_value), rel=1e-6)
        np.testing.assert_allclose(to_numpy(grad), want_grad, **TOL[dtype])


def test_a_gathered_position_past_the_end_is_refused():
    # -5 of 4 rows: once counted from the end it is still out of bounds, and PyTorch's
    # index_select refuses it (array-api-compat's take would count it from the end again
    # and read row 3)
    t = torch.asarray(RNG.normal(size=(4, 2)))
    with pytest.raises((IndexError, RuntimeError), match="out of"):
        fg.grad(lambda t: fnp.sum(t[torch.asarray([-5])]))(t)


@pytest.mark.parametrize(
    "idx_shape, axis",
    [((2, 3, 1), -1), ((2, 3, 4), 2), ((2, 1, 5), 1), ((1, 3, 5), 0)],
)
def test_put_along_agrees_with_numpy(idx_shape, axis):
    # take_along_axis's cotangent: zeros with the cotangent added at the indices (repeats
    # add up; an index axis of 1 broadcasts)
    x = RNG.normal(size=(2, 3, 5))
    idx = RNG.integers(-5, 5, size=idx_shape) if axis in (-1, 2) else RNG.integers(0, 2, idx_shape)
    loss = lambda x, i: fnp.sum(fnp.take_along_axis(x, i, axis=axis) ** 3)
    want = fg.grad(loss)(x, idx)
    tx, ti = torch.asarray(x), torch.asarray(idx)
    for got in (fg.grad(loss)(tx, ti), fg.jit(fg.grad(loss))(tx, ti)):
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-13, atol=1e-15)


def test_put_along_under_vmap_agrees_with_a_python_loop():
    xs, idx = RNG.normal(size=(3, 4, 5)), np.array([[1], [4], [0], [4]])
    loss = lambda x: fnp.sum(fnp.take_along_axis(x, torch.asarray(idx), axis=-1) ** 2)
    got = to_numpy(fg.vmap(fg.grad(loss))(torch.asarray(xs)))
    want = np.stack([to_numpy(fg.grad(loss)(torch.asarray(x))) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("kind", ["int64", "int32", "int16", "uint8"])
def test_indices_of_every_integer_dtype(kind):
    # PyTorch's take_along_dim and scatter_add take int64 indices only, index_select int32
    # too: the forms convert the rest, as NumPy takes any integer index
    x, table = RNG.normal(size=(2, 3, 5)), RNG.normal(size=(6, 3))
    idx, ids = RNG.integers(0, 5, size=(2, 3, 1)).astype(kind), np.array([5, 0, 2, 2], kind)
    loss = lambda x, t: (
        fnp.sum(fnp.take_along_axis(x, torch.asarray(idx), axis=-1) ** 3)
        + (fnp.sum(fnp.sin(t[torch.asarray(ids)])))
    )
    want = fg.grad(
        lambda x, t: fnp.sum(fnp.take_along_axis(x, idx, axis=-1) ** 3) + fnp.sum(fnp.sin(t[ids])),
        argnums=(0, 1),
    )(x, table)
    tx, tt = torch.asarray(x), torch.asarray(table)
    for got in (
        fg.grad(loss, argnums=(0, 1))(tx, tt),
        fg.jit(fg.grad(loss, argnums=(0, 1)))(tx, tt),
    ):
        for g, w in zip(got, want):
            np.testing.assert_allclose(to_numpy(g), w, rtol=1e-13, atol=1e-15)


WHERE_OPERANDS = {  # name -> the shapes of (x, y); () is a Python float
    "tensor, number": ((3, 4), ()),
    "number, tensor": ((), (3, 4)),
    "two tensors": ((3, 4), (4,)),
}


@pytest.mark.parametrize("dtype", sorted(TOL))
@pytest.mark.parametrize("name", sorted(WHERE_OPERANDS))
def test_where_is_numpys_eagerly_and_jitted(name, dtype):
    # a causal mask's where: PyTorch's where takes a Python float beside a tensor as weak,
    # as NumPy does, so the tensor's dtype is kept
    c = np.tril(np.ones((3, 4), bool))
    x, y = (RNG.normal(size=s).astype(dtype) if s else -1e9 for s in WHERE_OPERANDS[name])
    want = np.where(c, x, y)
    as_tensor = lambda v: torch.asarray(v) if isinstance(v, np.ndarray) else v
    args = (torch.asarray(c), as_tensor(x), as_tensor(y))
    for got in (fnp.where(*args), fg.jit(fnp.where)(*args)):
        assert got.dtype == getattr(torch, dtype)
        np.testing.assert_array_equal(to_numpy(got), want)


def test_where_of_an_integer_tensor_and_a_float_takes_the_form():
    # not one of the operands torch.where takes as NumPy's where does: the form's answer
    c, ints = torch.asarray(np.array([True, False, True])), torch.asarray(np.arange(3))
    want = plain_form(elementwise.where)(namespace_of((ints,)), c, ints, 0.5)
    for got in (fnp.where(c, ints, 0.5), fg.jit(fnp.where)(c, ints, 0.5)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(to_numpy(got), to_numpy(want))


def test_a_masked_attention_score_under_every_transform():
    # where(mask, s, -1e9) inside a softmax: grad and jit against NumPy, vmap against a loop
    c = np.tril(np.ones((4, 4), bool))
    loss = lambda s, c: fnp.sum(fg.nn.softmax(fnp.where(c, s, -1e9), axis=-1) ** 2)
    s = RNG.normal(size=(2, 4, 4))
    want = fg.grad(loss)(s, c)
    ts, tc = torch.asarray(s), torch.asarray(c)
    for got in (fg.grad(loss)(ts, tc), fg.jit(fg.grad(loss))(ts, tc)):
        np.testing.assert_allclose(to_numpy(got), want, rtol=1e-13, atol=1e-15)
    looped = np.stack([to_numpy(fg.grad(loss)(torch.asarray(e), tc)) for e in s])
    np.testing.assert_allclose(to_numpy(fg.vmap(fg.grad(loss), (0, None))(ts, tc)), looped)
    v = RNG.normal(size=s.shape)
    _, want_t = fg.jvp(lambda s: loss(s, c), (s,), (v,))
    _, got_t = fg.jvp(lambda s: loss(s, tc), (ts,), (torch.asarray(v),))
    assert float(to_numpy(got_t)) == pytest.approx(float(want_t), rel=1e-12)


def test_a_plan_binds_where_and_an_embedding_to_pytorchs_calls():
    # the plan's steps call PyTorch's where and indexing themselves, their checks made
    # once when the plan was made: the rows one ``index`` call, their cotangent one
    # ``index_put``, negative positions counted by them (no comparison of the ids)
    table, ids = RNG.normal(size=(6, 3)), np.array([[0, -1], [5, 2]])
    c = np.array([True, False, True])
    loss = lambda t, i, c: fnp.sum(fnp.where(c, fnp.sin(t[i]), 0.5))
    want_value, want_grad = fg.value_and_grad(loss)(table, ids, c)
    args = torch.asarray(table), torch.asarray(ids), torch.asarray(c)
    jitted = fg.jit(fg.value_and_grad(loss))
    jitted(*args)
    plan = jitted.plan(*args)
    steps = [v for k, v in plan.run.__globals__.items() if k.startswith("s")]
    assert torch.where in steps  # the step is PyTorch's function itself
    (value, grad), ops = torch_operators(lambda: jitted(*args))  # the replay, not the trace
    assert ops.count("index") == 1 and ops.count("index_put") == 1
    assert not {"lt", "index_select", "index_add", "scalar_tensor"} & set(ops)
    assert float(to_numpy(value)) == pytest.approx(float(want_value), rel=1e-14)
    np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-14)


@pytest.mark.parametrize("dtype", sorted(TOL))
def test_a_plan_makes_its_constant_tensors_once(dtype):
    # a mask's fill, relu's zero and GELU's one are 0-d tensors the plan made: its replay
    # fills none, and gives the eager call's values
    c = np.tril(np.ones((4, 4), bool))
    x = RNG.normal(size=(4, 4)).astype(dtype)
    loss = lambda x, c: fnp.sum(fg.nn.softmax(fnp.where(c, fg.nn.gelu(fg.nn.relu(x)), -1e9)) ** 2)
    want = fg.value_and_grad(loss)(x, c)
    args = torch.asarray(x), torch.asarray(c)
    jitted = fg.jit(fg.value_and_grad(loss))
    jitted(*args)
    got, ops = torch_operators(lambda: jitted(*args))
    assert not {"scalar_tensor", "full", "ones", "ones_like", "zeros", "zeros_like"} & set(ops)
    assert {"gelu_backward", "where", "gt"} <= set(ops)
    for g, w in zip(got, want):
        np.testing.assert_allclose(to_numpy(g), w, **TOL[dtype])
    eager = fg.value_and_grad(loss)(*args)
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(to_numpy(g), to_numpy(e))


@pytest.mark.parametrize("dtype", sorted(TOL))
def test_relus_cotangent_is_the_forms_and_numpys(dtype):
    # g where x > 0, a zero of g's dtype elsewhere: NaN, -0.0 and 0.0 select nothing
    a = np.array([[1.5, -2.0, 0.0, -0.0], [np.nan, 3.0, -np.inf, np.inf]], dtype)
    h = RNG.normal(size=a.shape).astype(dtype)
    x, g = torch.asarray(a), torch.asarray(h)
    got = elementwise.where_positive(x, g)
    want = plain_form(elementwise.where_positive)(namespace_of((x, g)), x, g)
    assert isinstance(got, torch.Tensor) and got.dtype == g.dtype
    np.testing.assert_array_equal(to_numpy(got), to_numpy(want))
    np.testing.assert_array_equal(to_numpy(got), elementwise.where_positive(a, h))


@pytest.mark.parametrize("position", [5, 7, -6])
def test_take_along_refuses_a_position_out_of_bounds(position):
    # NumPy refuses an index past either end; torch.take_along_dim would take it modulo
    # the axis's length and read a value silently
    x, idx = torch.asarray(RNG.normal(size=(2, 5))), torch.asarray(np.array([[position], [0]]))
    take = lambda x, i: fnp.sum(fnp.take_along_axis(x, i, axis=1))
    with pytest.raises(IndexError):
        take(to_numpy(x), to_numpy(idx))
    for f in (take, fg.jit(take), fg.grad(take)):
        with pytest.raises((IndexError, RuntimeError), match="out of bounds"):
            f(x, idx)


def test_a_plans_basic_index_is_the_eager_calls():
    # slices, integers, new axes and ... bound once; a backward step is still read forwards
    x = RNG.normal(size=(4, 5, 3))
    index_of = {
        "slices": (slice(1, 3), slice(None), slice(0, 3, 2)),
        "integer": (2, Ellipsis, None),
        "backward": (slice(None, None, -1), 1),
    }
    for index in index_of.values():
        loss = lambda x: fnp.sum(fnp.cos(x[index]))
        want_value, want_grad = fg.value_and_grad(loss)(x)
        value, grad = fg.jit(fg.value_and_grad(loss))(torch.asarray(x))
        assert float(to_numpy(value)) == pytest.approx(float(want_value), rel=1e-14)
        np.testing.assert_allclose(to_numpy(grad), want_grad, rtol=1e-14)
