"""A split's cotangents merged into one array (funcgrad/rules/pieces.py): which sums of
``untake`` nodes become ``pieces`` and which stay sums; the values against the sum of the
untakes (numbers equal, a piece's -0.0 kept); and splits under jit (both backends), grad of
grad, jvp of grad, vmap, loops and checkpoint against eager, central differences and
PyTorch."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.rules import arrays, pieces


def _prims(jitted, *args):
    source = jitted.plan(*args).source
    return {name: source.count(f"= {name}") for name in ("pieces", "untake")}


def _qkv(h):
    q, k, v = fnp.split(h, 3, axis=-1)
    return fnp.sum(fnp.tanh(q) * k + v**2)


def test_a_jitted_splits_cotangent_is_one_pieces_call():
    h = np.random.default_rng(0).normal(size=(4, 5, 12))
    jitted = fg.jit(fg.grad(_qkv))
    assert _prims(jitted, h) == {"pieces": 1, "untake": 0}
    np.testing.assert_allclose(jitted(h), fg.grad(_qkv)(h), rtol=1e-14, atol=1e-15)


def test_what_stays_a_sum():
    x = np.random.default_rng(1).normal(size=(6, 8))
    cases = [
        lambda x: fnp.sum(x[:, :5] ** 2) + fnp.sum(x[:, 3:] ** 3),  # overlapping slices
        lambda x: fnp.sum(x[::2] ** 2) + fnp.sum(x[1::2] ** 3),  # steps of 2
        lambda x: fnp.sum(x[np.array([0, 2])] ** 2) + fnp.sum(x[1:2] ** 3),  # an integer array
    ]
    for f in cases:
        jitted = fg.jit(fg.grad(f))
        assert _prims(jitted, x)["pieces"] == 0
        np.testing.assert_allclose(jitted(x), fg.grad(f)(x), rtol=1e-14)
    # disjoint along the second axis, whole along the first: merged
    f = lambda x: fnp.sum(x[:, :3] ** 2) + fnp.sum(x[:, 3:5] ** 3) + fnp.sum(fnp.sin(x[:, 6:]))
    jitted = fg.jit(fg.grad(f))
    assert _prims(jitted, x) == {"pieces": 1, "untake": 0}
    np.testing.assert_allclose(jitted(x), fg.grad(f)(x), rtol=1e-14)


def test_pieces_against_the_sum_of_untakes():
    rng = np.random.default_rng(2)
    shape = (3, 10)
    indices = ((slice(None), slice(0, 4)), (slice(None), slice(7, 10)), (slice(0, 3), slice(4, 6)))
    gs = [rng.normal(size=(3, 4)), rng.normal(size=(3, 3)), rng.normal(size=(3, 2))]
    gs[0][0, 0] = -0.0
    got = pieces.pieces(*gs, indices=indices, shape=shape)
    want = sum(arrays.untake(g, index=i, shape=shape) for g, i in zip(gs, indices))
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[0, 0])  # kept: the sum's 0.0 + -0.0 is +0.0
    assert got[:, 6].tolist() == [0.0, 0.0, 0.0]  # no piece writes there
    for dtype in (np.float32, np.float64):
        made = pieces.pieces(*(g.astype(dtype) for g in gs), indices=indices, shape=shape)
        assert made.dtype == dtype


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_split_under_jit_against_eager(backend):
    if backend == "numba":
        pytest.importorskip("numba")
    rng = np.random.default_rng(3)
    h, w = rng.normal(size=(2, 7, 9)), rng.normal(size=(9, 9))
    f = lambda w, h: _qkv(h @ w)
    jitted = fg.jit(fg.value_and_grad(f, argnums=(0, 1)), backend=backend)
    value, grads = jitted(w, h)
    want_value, want = fg.value_and_grad(f, argnums=(0, 1))(w, h)
    np.testing.assert_allclose(value, want_value, rtol=1e-14)
    for a, b in zip(grads, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_second_derivatives_through_merged_pieces():
    rng = np.random.default_rng(4)
    h, v = rng.normal(size=(2, 6)), rng.normal(size=(2, 6))
    hessian = fg.hessian(_qkv)(h).reshape(12, 12)
    grad = fg.grad(_qkv)
    eps = 1e-6
    columns = [
        ((grad(h + eps * e.reshape(2, 6)) - grad(h - eps * e.reshape(2, 6))) / (2 * eps)).ravel()
        for e in np.eye(12)
    ]
    np.testing.assert_allclose(hessian, np.stack(columns, axis=1), rtol=1e-6, atol=1e-8)
    hvp = fg.jvp(grad, (h,), (v,))[1]
    np.testing.assert_allclose(hvp.ravel(), hessian @ v.ravel(), rtol=1e-10, atol=1e-12)
    # the jitted Hessian merges the inner gradient's cotangents
    np.testing.assert_allclose(fg.jit(fg.hessian(_qkv))(h), fg.hessian(_qkv)(h), rtol=1e-12)


def test_second_derivatives_against_pytorch():
    torch = pytest.importorskip("torch")
    h = np.random.default_rng(5).normal(size=(3, 6))

    def torch_qkv(h):
        q, k, v = torch.split(h, 2, dim=-1)
        return (torch.tanh(q) * k + v**2).sum()

    want = torch.autograd.functional.hessian(torch_qkv, torch.tensor(h)).numpy()
    np.testing.assert_allclose(fg.hessian(_qkv)(h), want, rtol=1e-12, atol=1e-14)


def test_pieces_under_vmap_loops_and_checkpoint():
    rng = np.random.default_rng(6)
    hs = rng.normal(size=(4, 3, 6))
    batched = fg.jit(fg.vmap(fg.grad(_qkv)))(hs)
    for b in range(4):
        np.testing.assert_allclose(batched[b], fg.grad(_qkv)(hs[b]), rtol=1e-13)
    # vmap of a function that calls pieces directly: its batching rule against a loop
    gs = rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3, 4))
    idx = ((slice(None), slice(0, 2)), (slice(None), slice(2, 6)))
    per = fg.vmap(lambda a, b: pieces.pieces(a, b, indices=idx, shape=(3, 6)))(*gs)
    for b in range(4):
        np.testing.assert_array_equal(
            per[b], pieces.pieces(gs[0][b], gs[1][b], indices=idx, shape=(3, 6))
        )

    def looped(h):
        body = fg.checkpoint(
            lambda i, c: c + 0.1 * fnp.concatenate(fnp.split(c, 3, axis=-1)[::-1], -1)
        )
        return _qkv(fg.lax.fori_loop(0, 3, body, h))

    h = rng.normal(size=(3, 6))
    want = fg.grad(looped)(h)
    np.testing.assert_allclose(fg.jit(fg.grad(looped))(h), want, rtol=1e-12)
    eps = 1e-6
    e = np.zeros_like(h)
    e[1, 4] = 1.0
    np.testing.assert_allclose(
        want[1, 4], (looped(h + eps * e) - looped(h - eps * e)) / (2 * eps), rtol=1e-6
    )


def test_pieces_on_another_librarys_arrays():
    strict = pytest.importorskip("array_api_strict")
    gs = [strict.asarray(np.ones((2, 2))), strict.asarray(np.full((2, 1), 3.0))]
    idx = ((slice(None), slice(0, 2)), (slice(None), slice(3, 4)))
    out = pieces.pieces(*gs, indices=idx, shape=(2, 4))
    np.testing.assert_array_equal(np.asarray(out), [[1.0, 1.0, 0.0, 3.0]] * 2)
