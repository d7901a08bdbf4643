"""The fold's additions in place (funcgrad/dag/fold.py, accumulate): only into a sum the
fold made itself, never into an array a rule returned, the caller's cotangent or a
read-only array; the values against the fold without them, finite differences and PyTorch,
under vmap, jit, hessian and checkpoint."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag.backprop import add_cotangents, vjp_step
from funcgrad.dag.fold import accumulate, reverse_fold
from funcgrad.dag.order import dfs_order


def _qkv(h):
    q, k, v = fnp.split(h, 3, axis=-1)
    return fnp.sum(fnp.tanh(q) * k + v**2)


def test_a_splits_cotangents_are_right():
    h = np.random.default_rng(0).normal(size=(4, 5, 12))
    got = fg.grad(_qkv)(h)
    q, k, v = np.split(h, 3, axis=-1)
    np.testing.assert_allclose(
        got, np.concatenate([(1 - np.tanh(q) ** 2) * k, np.tanh(q), 2 * v], -1), rtol=1e-14
    )


def test_accumulate_writes_only_into_a_sum_the_fold_made():
    a, b = fg.var(1.0, name="a"), fg.var(2.0, name="b")
    first, second, third = np.ones(3), np.full(3, 2.0), np.full(3, 4.0)
    acc, owned = {}, set()
    accumulate(acc, a, first, add_cotangents, owned)
    assert acc[a] is first and a not in owned  # a rule's array: stored, never written
    accumulate(acc, a, second, add_cotangents, owned)
    total = acc[a]
    assert total is not first and a in owned  # the fold's own sum
    np.testing.assert_array_equal(first, np.ones(3))  # the rule's array as it was
    accumulate(acc, a, third, add_cotangents, owned)
    assert acc[a] is total  # added in place into the fold's own sum
    np.testing.assert_array_equal(total, [7.0, 7.0, 7.0])
    np.testing.assert_array_equal(second, np.full(3, 2.0))
    # one array a rule hands to two parents (add's cotangent): each entry its own sum
    shared = np.ones(3)
    accumulate(acc, b, shared, add_cotangents, owned)
    accumulate(acc, b, np.ones(3), add_cotangents, owned)
    np.testing.assert_array_equal(shared, np.ones(3))
    # without ``owned`` (another semiring's fold) nothing is written in place
    plain = {}
    accumulate(plain, a, first, add_cotangents)
    accumulate(plain, a, second, add_cotangents)
    before = plain[a]
    accumulate(plain, a, third, add_cotangents)
    assert plain[a] is not before


def test_in_place_adds_give_the_bits_of_the_fold_without_them():
    h = np.random.default_rng(7).normal(size=(3, 12))
    x = fg.var(h, name="h")
    out = _qkv(x) + fnp.sum(x * x) + fnp.sum(fnp.sin(x[:, 2:5])) + fnp.sum(x[1] ** 3)
    order = dfs_order((out,))
    mine = reverse_fold(order, {out: 1.0}, vjp_step, add_cotangents, owned=set())
    plain = reverse_fold(order, {out: 1.0}, vjp_step, add_cotangents)
    assert mine.keys() == plain.keys()
    for n, g in plain.items():
        np.testing.assert_array_equal(mine[n], g)


def test_float32_stays_float32_and_other_shares_are_added_in_place():
    h = np.random.default_rng(1).normal(size=(3, 9)).astype(np.float32)
    f = lambda h: fnp.sum(fnp.sum(h, axis=0) ** 2) + _qkv(h) + fnp.sum(fnp.sin(h[:, 2:4]))
    got = fg.grad(f)(h)
    assert got.dtype == np.float32
    want = fg.grad(f)(h.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def test_an_array_two_entries_hold_is_not_written():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=6), rng.normal(size=6)

    def f(x, y):
        a = fnp.sum(x[:2] ** 2)  # made first: its share reaches x after x + y's
        return a + fnp.sum((x + y) * 1.0)  # add hands one cotangent to both x and y

    gx, gy = fg.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gy, np.ones(6), rtol=0)  # y's entry did not take x's slice
    np.testing.assert_allclose(gx, np.r_[1 + 2 * x[:2], np.ones(4)], rtol=1e-15)


def test_the_callers_cotangent_and_read_only_arrays_are_not_written():
    x = np.random.default_rng(3).normal(size=(4, 6))
    f = lambda x: fnp.concatenate([x[:, :3] * 2.0, x], axis=-1)[:, :6]
    ct = np.ones((4, 6))
    keep = ct.copy()
    _, pull = fg.vjp(lambda x: f(x), x)
    pull(ct)
    np.testing.assert_array_equal(ct, keep)
    frozen = np.ones((4, 6))
    frozen.setflags(write=False)
    (g,) = pull(frozen)
    np.testing.assert_allclose(g, fg.vjp(f, x)[1](np.ones((4, 6)))[0], rtol=0)


def test_in_place_gradients_against_finite_differences_and_pytorch():
    torch = pytest.importorskip("torch")
    h = np.random.default_rng(4).normal(size=(2, 9))
    g = fg.grad(_qkv)(h)
    t = torch.tensor(h, requires_grad=True)
    q, k, v = torch.split(t, 3, dim=-1)
    (torch.tanh(q) * k + v**2).sum().backward()
    np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-14)
    e = np.zeros_like(h)
    e[1, 4] = 1e-6
    np.testing.assert_allclose(g[1, 4], (_qkv(h + e) - _qkv(h - e)) / 2e-6, rtol=1e-6)


def test_under_vmap_jit_hessian_and_checkpoint():
    rng = np.random.default_rng(5)
    hs = rng.normal(size=(3, 2, 6))
    batched = fg.vmap(fg.grad(_qkv))(hs)
    for b in range(3):
        np.testing.assert_allclose(batched[b], fg.grad(_qkv)(hs[b]), rtol=1e-14)
    np.testing.assert_allclose(fg.jit(fg.grad(_qkv))(hs[0]), fg.grad(_qkv)(hs[0]), rtol=1e-14)
    hess = fg.hessian(_qkv)(hs[0]).reshape(12, 12)
    grad = fg.grad(_qkv)
    cols = [
        ((grad(hs[0] + 1e-6 * e.reshape(2, 6)) - grad(hs[0] - 1e-6 * e.reshape(2, 6))) / 2e-6)
        for e in np.eye(12)
    ]
    np.testing.assert_allclose(hess, np.stack([c.ravel() for c in cols], 1), rtol=1e-6, atol=1e-8)
    checked = fg.grad(fg.checkpoint(_qkv))(hs[1])
    np.testing.assert_allclose(checked, fg.grad(_qkv)(hs[1]), rtol=1e-14)


def test_elements_rows_and_new_axes():
    x = np.random.default_rng(6).normal(size=(3, 4))
    f = lambda x: x[0, 1] ** 2 + fnp.sum(x[1] * 3.0) + fnp.sum(x[2, None, 1:3] ** 3) + x[0, 0]
    want = np.zeros((3, 4))
    want[0, 1], want[1], want[2, 1:3], want[0, 0] = 2 * x[0, 1], 3.0, 3 * x[2, 1:3] ** 2, 1.0
    np.testing.assert_allclose(fg.grad(f)(x), want, rtol=1e-15)
    np.testing.assert_allclose(
        fg.grad(lambda v: v[0] * v[1] + v[1])(x[0]), [x[0, 1], x[0, 0] + 1, 0, 0]
    )
