"""jax.nn's other activations and attention: JAX's definitions (closed forms here; the
conformance matrix runs each under every transform, against PyTorch where it has one),
JAX's slopes at the kinks, and attention against a loop over heads and positions."""

import math

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

X = np.linspace(-7.0, 7.0, 29)  # holds every kink: -3, -1, 0, 1, 3, 6
SELU = (1.0507009873554804934193349852946, 1.6732632423543772848170429916717)

CLOSED_FORMS = {
    "relu6": lambda x: np.clip(x, 0.0, 6.0),
    "hard_tanh": lambda x: np.clip(x, -1.0, 1.0),
    "hard_sigmoid": lambda x: np.clip(x + 3.0, 0.0, 6.0) / 6.0,
    "hard_silu": lambda x: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0,
    "celu": lambda x: np.maximum(x, 0.0) + np.expm1(np.minimum(x, 0.0)),
    "selu": lambda x: SELU[0] * np.where(x > 0, x, SELU[1] * np.expm1(np.minimum(x, 0.0))),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "soft_sign": lambda x: x / (1.0 + np.abs(x)),
    "squareplus": lambda x: (x + np.sqrt(x * x + 4.0)) / 2.0,
    "sparse_plus": lambda x: np.where(x <= -1, 0.0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip((x + 1.0) / 2.0, 0.0, 1.0),
    "swish": lambda x: x / (1.0 + np.exp(-x)),
}


@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_activation_is_its_closed_form(name):
    np.testing.assert_allclose(
        getattr(fg.nn, name)(X), CLOSED_FORMS[name](X), rtol=1e-14, atol=1e-15
    )


@pytest.mark.parametrize("name", CLOSED_FORMS)
def test_an_activation_of_a_number_is_numpys_scalar(name):
    # as a ufunc's: relu6, hard_tanh and sparse_plus, written with where, gave a 0-d array
    f = getattr(fg.nn, name)
    for x, kind in [(0.5, np.float64), (np.float32(-1.5), np.float32), (7.0, np.float64)]:
        for got in (f(x), fg.jit(f)(x)):
            assert type(got) is kind, (name, x, type(got))
            assert got == pytest.approx(CLOSED_FORMS[name](np.float64(x)), rel=1e-6)


def test_glu_of_a_number_says_why():
    with pytest.raises(fg.FuncgradError, match="glu: a number has no axis"):
        fg.nn.glu(0.5)


def test_defaults_shared_with_jax_nn_are_jaxs():
    # a default that differs gives JAX code moved over other numbers without a word
    # (gelu's approximate was False, jax.nn.gelu's True); a keyword funcgrad lacks raises
    import inspect

    jnn = pytest.importorskip("jax.nn")
    differ = {}
    for name in sorted(n for n in dir(jnn) if not n.startswith("_") and hasattr(fg.nn, n)):
        theirs, ours = getattr(jnn, name), getattr(fg.nn, name)
        try:
            a, b = inspect.signature(theirs).parameters, inspect.signature(ours).parameters
        except (TypeError, ValueError):
            continue  # not a function
        for key, p in a.items():
            mine = b.get(key)
            if mine is not None and mine.default != p.default:
                differ[name, key] = (p.default, mine.default)
    assert not differ, differ


def test_slopes_at_the_kinks_are_jaxs():
    slope = fg.elementwise_grad
    np.testing.assert_array_equal(slope(fg.nn.relu6)(np.array([0.0, 6.0])), [0.0, 0.0])
    assert slope(fg.nn.selu)(np.array([0.0]))[0] == pytest.approx(SELU[0] * SELU[1], rel=1e-15)
    np.testing.assert_array_equal(
        slope(fg.nn.hard_tanh)(np.array([-2.0, -1.0, 0.5, 1.0, 2.0])), [0.0, 1.0, 1.0, 1.0, 0.0]
    )
    # elu at 0: the negative side's slope alpha (JAX's and PyTorch's; minimum's tie gave half)
    for alpha in (1.0, 0.5):
        elu_slope = slope(lambda x: fg.nn.elu(x, alpha))(np.array([-0.0, 0.0, 1.0]))
        np.testing.assert_array_equal(elu_slope, [alpha, alpha, 1.0])


def test_slopes_at_the_kinks_are_pytorchs_where_it_agrees_with_jax():
    torch = pytest.importorskip("torch")
    x = np.array([-2.0, -0.0, 0.0, 0.5, 3.0])
    for alpha in (1.0, 0.5, 2.0):
        t = torch.tensor(x, requires_grad=True)
        torch.nn.functional.elu(t, alpha).sum().backward()
        np.testing.assert_allclose(
            fg.elementwise_grad(lambda v: fg.nn.elu(v, alpha))(x), t.grad.numpy(), rtol=1e-15
        )


def test_log1mexp_keeps_its_digits_at_both_ends():
    x = np.array([1e-10, 0.5, 1.0, 40.0])
    want = [math.log(-math.expm1(-v)) if v < math.log(2) else math.log1p(-math.exp(-v)) for v in x]
    np.testing.assert_allclose(fg.nn.log1mexp(x), want, rtol=1e-15)


def test_glu_standardize_logmeanexp():
    x = np.arange(12.0).reshape(3, 4) / 7.0
    np.testing.assert_allclose(
        fg.nn.glu(x, axis=-1), x[:, :2] / (1 + np.exp(-x[:, 2:])), rtol=1e-15
    )
    with pytest.raises(fg.ShapeError, match="odd"):
        fg.nn.glu(x, axis=0)
    np.testing.assert_allclose(
        fg.nn.standardize(x, axis=0, epsilon=0.0), (x - x.mean(0)) / x.std(0), rtol=1e-12
    )
    np.testing.assert_allclose(
        fg.nn.standardize(x, mean=1.0, variance=4.0, epsilon=0.0), (x - 1.0) / 2.0
    )
    np.testing.assert_allclose(fg.nn.logmeanexp(x, axis=1), np.log(np.exp(x).mean(1)), rtol=1e-14)
    assert fg.nn.identity(x) is x


def _attention_loop(q, k, v, bias, mask, scale, causal):
    b, t, n, _h = q.shape
    s, kh = k.shape[1], k.shape[2]
    out = np.zeros_like(q)
    for bi in range(b):
        for head in range(n):
            g = head // (n // kh)
            for i in range(t):
                logits = np.array([q[bi, i, head] @ k[bi, j, g] * scale for j in range(s)])
                if bias is not None:
                    logits = logits + bias[bi, head, i]
                keep = np.ones(s, bool) if mask is None else mask[bi, head, i].copy()
                if causal:
                    keep &= np.arange(s) <= i
                w = np.where(keep, np.exp(logits - logits[keep].max()), 0.0)
                out[bi, i, head] = (w / w.sum()) @ v[bi, :, g]
    return out


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("extras", ["none", "bias", "mask", "causal"])
def test_attention_is_the_loop_over_heads_and_positions(grouped, extras):
    r = np.random.default_rng(5)
    q = r.normal(size=(2, 4, 4, 3))
    kv_heads = 2 if grouped else 4
    k, v = r.normal(size=(2, 4, kv_heads, 3)), r.normal(size=(2, 4, kv_heads, 3))
    bias = r.normal(size=(2, 4, 4, 4)) if extras == "bias" else None
    mask = (
        (r.uniform(size=(2, 4, 4, 4)) > 0.3) | np.eye(4, dtype=bool) if extras == "mask" else None
    )
    causal = extras == "causal"
    got = fg.nn.dot_product_attention(q, k, v, bias, mask, is_causal=causal)
    want = _attention_loop(q, k, v, bias, mask, 1 / math.sqrt(3), causal)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        fg.nn.dot_product_attention(q[0], k[0], v[0], scale=0.5),
        _attention_loop(q[:1], k[:1], v[:1], None, None, 0.5, False)[0],
        rtol=1e-12,
    )
    # vmap over the batch is the batched call; jit is the eager call
    np.testing.assert_allclose(
        fg.vmap(lambda q, k, v: fg.nn.dot_product_attention(q, k, v, is_causal=causal))(q, k, v),
        fg.nn.dot_product_attention(q, k, v, is_causal=causal),
        rtol=1e-14,
    )
    np.testing.assert_array_equal(
        fg.jit(lambda q: fg.nn.dot_product_attention(q, k, v, bias, mask, is_causal=causal))(q), got
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_row_masked_whole_weighs_its_values_evenly(dtype):
    # JAX's rule: the fill is a finite number of the logits' dtype, so a row with no key
    # to attend to gives the mean of the values (-inf in float32 would give NaN)
    r = np.random.default_rng(6)
    q, v = r.normal(size=(1, 3, 1, 2)).astype(dtype), r.normal(size=(1, 3, 1, 2)).astype(dtype)
    mask = np.ones((3, 3), bool)
    mask[1] = False
    got = fg.nn.dot_product_attention(q, q, v, mask=mask)
    assert got.dtype == dtype
    np.testing.assert_allclose(got[0, 1, 0], v[0, :, 0].mean(axis=0), rtol=1e-6)


def test_attention_on_pytorch_tensors_is_numpys(torch_refuses_numpy):
    # the causal mask is made in the tensors' library (it was NumPy's, which a tensor
    # refuses), and a tensor mask is read as boolean
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(7)
    q, k, v = (r.normal(size=(2, 4, 2, 3)) for _ in range(3))
    mask = r.uniform(size=(4, 4)) > 0.3

    def loss(k, v, mask):
        attend = fg.nn.dot_product_attention
        return lambda q: fnp.sum(fnp.sin(attend(q, k, v, mask=mask, is_causal=True)))

    want_value, want_grad = fg.value_and_grad(loss(k, v, mask))(q)
    f = loss(torch.asarray(k), torch.asarray(v), torch.asarray(mask))
    for run in (fg.value_and_grad(f), fg.jit(fg.value_and_grad(f))):
        value, grad = run(torch.asarray(q))
        assert isinstance(grad, torch.Tensor)
        np.testing.assert_allclose(float(value), want_value, rtol=1e-12)
        np.testing.assert_allclose(grad.detach().numpy(), want_grad, rtol=1e-10, atol=1e-13)


def test_attention_refuses_by_name():
    q = np.ones((2, 3, 4))
    with pytest.raises(fg.ShapeError, match="divide"):
        fg.nn.dot_product_attention(np.ones((2, 3, 4)), np.ones((2, 2, 4)), np.ones((2, 2, 4)))
    with pytest.raises(fg.ArgumentError, match="boolean"):
        fg.nn.dot_product_attention(q, q, q, mask=np.ones((3, 2, 2)))
    with pytest.raises(fg.ShapeError, match="alike"):
        fg.nn.dot_product_attention(q, q[0], q)
    with pytest.raises(fg.ShapeError):
        fnp.asarray(fg.nn.glu(np.ones(3)))
