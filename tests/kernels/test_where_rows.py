"""where as one numba select (funcgrad/kernels/where_rows.py): np.where's bits for masks
repeated over leading axes beside a number, NaNs and signed zeros; None (NumPy's where)
where it does not apply; a masked attention step's gradient with the
kernels on and off, eagerly and under grad, jvp, vmap (oracle: a Python loop), jit,
a Hessian-vector product, a loop and checkpoint."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

pytest.importorskip("numba", reason="the kernels need the native extra")
from funcgrad.kernels.where_rows import where_kernel

RNG = np.random.default_rng(11)


def _values(shape, dtype):
    v = RNG.normal(size=shape).astype(dtype)
    v.flat[::5] = np.nan
    v.flat[1::7] = -0.0
    return v


CASES = {  # name -> (mask shape, x shape or number, y shape or number)
    "causal mask, number": ((64, 64), (8, 4, 64, 64), -1e9),
    "causal mask, number first": ((64, 64), 0.0, (8, 4, 64, 64)),
    "an integer": ((96, 96), (4, 96, 96), 2),
    "mask with ones in front": ((1, 1, 128, 64), (6, 2, 128, 64), 2.5),
    "a row of a mask": ((48,), (32, 64, 48), -1.0),
}


def _operand(spec, dtype):
    return _values(spec, dtype) if isinstance(spec, tuple) else spec


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_bits_are_numpys(name, dtype):
    mask, x, y = CASES[name]
    c = RNG.random(mask) < 0.5
    x, y = _operand(x, dtype), _operand(y, dtype)
    got = where_kernel(c, x, y)
    want = np.where(c, x, y)
    assert got is not None and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


ROW = np.array([True, False, True, True])


@pytest.mark.parametrize(
    "c, x, y",
    [
        (np.ones(4), np.ones((3, 4)), 0.0),  # not a bool mask
        (ROW, np.ones((3, 4), int), 0),  # integers
        (ROW, np.ones((3, 4), np.float32), np.float64(2.0)),  # float64 out, float32 in
        (ROW, np.ones((3, 4), np.float32), 1e300),  # overflows float32
        (ROW, np.ones((3, 4), np.float32), 10**400),  # beyond any float
        (ROW, np.ones((3, 4)).T.copy().T, 0.0),  # not C-ordered
        (np.ones((4, 1), bool), np.ones((4, 5)), 0.0),  # repeated over the last axis
        (np.ones((5, 4), bool)[::2], np.ones((3, 4)), 0.0),  # a strided mask
        (np.ones((3, 4), bool), np.ones((2, 3, 4)), np.ones((2, 1, 4))),  # two arrays
        (np.ones((2, 3, 4), bool), np.ones((2, 3, 4)), 0.0),  # a whole mask: where by bits
        (np.ones((3, 4), bool), 1.0, 0.0),  # two numbers
        (np.array(True), np.ones((4, 4)), 0.0),  # one number as the mask
        (np.ones((0, 4), bool), np.ones((3, 0, 4)), 0.0),  # no elements
    ],
)
def test_what_it_leaves_to_numpy(c, x, y):
    assert where_kernel(c, x, y) is None


def _attention(q, k, mask):
    s = fnp.where(mask, q @ fnp.swapaxes(k, -1, -2), -1e9)
    return fnp.sum(fg.nn.softmax(s, axis=-1) ** 2)


def _inputs(dtype):
    q, k = (RNG.normal(size=(8, 4, 64, 32)).astype(dtype) for _ in range(2))
    return q, k, np.tril(np.ones((64, 64), bool))


def _on_and_off(switch, f, *args):
    out = {}
    for on in (True, False):
        switch(on)
        out[on] = fg.tree_util.tree_leaves(f(*args))
    return out[True], out[False]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_masked_attention_has_the_same_bits_under_every_transform(switch, dtype, monkeypatch):
    q, k, mask = _inputs(dtype)
    v = RNG.normal(size=q.shape).astype(dtype)
    calls = []
    real = where_kernel
    monkeypatch.setattr(
        "funcgrad.kernels.where_rows.where_kernel",
        lambda *a: calls.append(1) or real(*a),
    )
    grad = fg.value_and_grad(_attention)
    hvp = lambda q: fg.jvp(fg.grad(lambda q: _attention(q, k, mask)), (q,), (v,))[1]

    def looped(q, k):
        body = fg.checkpoint(lambda i, q: q + fg.grad(_attention)(q, k, mask))
        return fg.lax.fori_loop(0, 2, body, q)

    programs = {
        "value and grad": lambda: grad(q, k, mask),
        "jit": lambda: fg.jit(grad)(q, k, mask),
        "jvp": lambda: fg.jvp(lambda q: _attention(q, k, mask), (q,), (v,)),
        "hvp": lambda: hvp(q),
        "loop, checkpoint": lambda: looped(q, k),
    }
    for name, program in programs.items():
        got, want = _on_and_off(switch, program)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=name)
    assert calls  # the kernel ran


def test_vmap_agrees_with_a_python_loop(switch):
    q, k, mask = _inputs("float64")
    switch(True)
    g = fg.grad(_attention)
    got = fg.vmap(g, in_axes=(0, None, None))(q, k, mask)
    want = np.stack([g(e, k, mask) for e in q])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_the_gradient_against_central_differences(switch):
    q, k, mask = (a[:2] if a.ndim == 4 else a for a in _inputs("float64"))  # 2^15 scores
    switch(True)
    got = fg.grad(_attention)(q, k, mask)
    h, at = 1e-4, [(0, 0, 5, 3), (1, 3, 63, 31), (0, 2, 0, 0)]
    for i in at:
        e = np.zeros_like(q)
        e[i] = h
        want = (_attention(q + e, k, mask) - _attention(q - e, k, mask)) / (2 * h)
        assert got[i] == pytest.approx(float(want), rel=1e-6, abs=1e-9)
