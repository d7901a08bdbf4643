"""The fold's additions in place (funcgrad/dag/backprop.py, add_into): a split's cotangents
added into their slices of one array (one array of zeros, not one per piece), other shares
added into the fold's own arrays; never into an array anything else holds (another entry
of the map, a view, the caller's cotangent, a read-only array); the values against the fold
without it, finite differences and PyTorch, under vmap, jit, hessian and checkpoint."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.dag import backprop
from funcgrad.rules import arrays
from funcgrad.transforms import reverse


def _qkv(h):
    q, k, v = fnp.split(h, 3, axis=-1)
    return fnp.sum(fnp.tanh(q) * k + v**2)


@pytest.fixture
def untakes(monkeypatch):
    """How many arrays of zeros the untake primitive makes."""
    made = []
    impl = arrays.untake.impl

    def counted(*args, **kwargs):
        made.append(1)
        return impl(*args, **kwargs)

    monkeypatch.setattr(arrays.untake, "impl", counted)
    return made


def _without(monkeypatch):
    monkeypatch.setattr(reverse, "add_into", None)


def test_a_splits_cotangents_go_into_one_array(untakes, monkeypatch):
    h = np.random.default_rng(0).normal(size=(4, 5, 12))
    got = fg.grad(_qkv)(h)
    assert len(untakes) == 1  # the first piece's; the others are added into its slices
    untakes.clear()
    _without(monkeypatch)
    want = fg.grad(_qkv)(h)
    assert len(untakes) == 3
    np.testing.assert_array_equal(got, want)
    q, k, v = np.split(h, 3, axis=-1)
    np.testing.assert_allclose(
        got, np.concatenate([(1 - np.tanh(q) ** 2) * k, np.tanh(q), 2 * v], -1), rtol=1e-14
    )


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


def test_the_fold_counts_its_own_references():
    # found by the same calls at import; an interpreter without counts adds nothing in place
    assert backprop._FOLD_REFERENCES >= 1


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
