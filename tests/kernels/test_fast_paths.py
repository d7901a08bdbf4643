"""The impls that hand large arrays to numba's kernels (funcgrad/kernels/switch.py):
GELU's tanh form, the softmax along the last axis, relu's slope, max pooling and its
cotangent give the same bits with the switch on and off, eagerly and under grad, jvp, vmap, jit, a
Hessian-vector product, a loop and checkpoint (all but float32 GELU, whose kernel computes
its own tanh: within float32's rounding there); the gradient agrees with PyTorch; small
arrays, the environment's off switch and a missing numba never load numba."""

import functools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.kernels import switch as kernel_switch

numba = pytest.importorskip("numba", reason="the kernels need the native extra")


def model(p, x, activation=lambda h: fg.nn.gelu(h, approximate=True)):
    """GELU over 2**18 numbers, a ReLU, a 2x2 max pool of them, a softmax over 256 rows of
    256: each large enough for its kernel."""
    h = fg.nn.relu(activation(x * p["a"]) - 0.05)
    h = fg.nn.max_pool(h, (2, 2), strides=(2, 2))
    s = fg.nn.softmax(fnp.reshape(h, (-1, 256)) * p["t"], axis=-1)
    return fnp.sum(s * p["w"])


def inputs(dtype, rng):
    x = rng.normal(size=(8, 64, 64, 8))
    x[:, ::7, ::5] = 0.0  # ties inside pooling windows after GELU
    p = {"a": np.array(1.5), "t": np.array(3.0), "w": rng.normal(size=(256, 256))}
    cast = lambda a: a.astype(dtype)
    return fg.tree_util.tree_map(cast, p), cast(x)


def _on_and_off(switch, f, *args):
    results = {}
    for on in (True, False):
        switch(on)
        results[on] = f(*args)
    return [fg.tree_util.tree_leaves(results[on]) for on in (True, False)]


def _same_bits(switch, f, *args):
    got, want = _on_and_off(switch, f, *args)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_array_equal(a, b)
    return got


def _close(switch, f, *args):
    """The same results to float32's rounding: a unit of the last place in GELU's tanh
    moves each of 2**18 terms, and float32 sums of them that cancel to a small total (a
    jvp's) move by up to 1e-4 of it."""
    got, want = _on_and_off(switch, f, *args)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * float(np.max(np.abs(b))))
    return got


# The model with tanh for GELU: float32 GELU's kernel has a tanh of its own (within a unit
# of the last place of NumPy's), so in float32 the other kernels' bits are checked on it
without_gelu = functools.partial(model, activation=fnp.tanh)


def _as_numpys(switch, dtype, transformed, *args):
    """``transformed(model)`` gives NumPy's bits with the switch on and off; in float32 the
    model without GELU does, and the model within float32's rounding of them."""
    if dtype == np.float64:
        return _same_bits(switch, transformed(model), *args)
    _same_bits(switch, transformed(without_gelu), *args)
    return _close(switch, transformed(model), *args)


def test_the_kernels_are_called_and_give_the_numpy_impls_bits(switch, monkeypatch):
    kernels = pytest.importorskip("funcgrad.kernels.numba_kernels")
    called = []
    kernel_names = ("gelu_kernel", "softmax_rows", "cotangent_of_windows")
    for name in (*kernel_names, "extremum_of_windows", "positive_gate"):
        real = getattr(kernels, name)

        def spy(*args, _real=real, _name=name):
            out = _real(*args)
            called.append((_name, out is not None))
            return out

        monkeypatch.setattr(kernels, name, spy)
    for dtype in (np.float32, np.float64):
        p, x = inputs(dtype, np.random.default_rng(0))
        leaves = _as_numpys(switch, dtype, fg.value_and_grad, p, x)  # the loss, the gradients
        assert len(leaves) == 4 and all(np.asarray(a).dtype == dtype for a in leaves)
    assert {name for name, ran in called if ran} == {
        *kernel_names,
        "extremum_of_windows",
        "positive_gate",
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_under_every_transform_the_bits_are_numpys(switch, dtype):
    p, x = inputs(dtype, np.random.default_rng(1))
    _as_numpys(switch, dtype, lambda m: fg.jit(fg.grad(m, argnums=(0, 1))), p, x)
    tangent = lambda m: lambda v: fg.jvp(lambda a: m(p, a), (x,), (v,))
    _as_numpys(switch, dtype, tangent, x[::-1].copy())
    hvp = lambda m: lambda v: fg.jvp(lambda a: fg.grad(m, 1)(p, a), (x,), (v,))
    _as_numpys(switch, dtype, hvp, np.cos(x))
    _as_numpys(switch, dtype, lambda m: fg.checkpoint(fg.grad(m)), p, x)

    def twice(m):  # a loop whose body has all three
        def looped(p, x):
            start = np.zeros((), x.dtype)
            return fg.lax.fori_loop(0, 2, lambda i, acc: acc + m(p, x * (i + 1)), start)

        return fg.grad(looped)

    _as_numpys(switch, dtype, twice, p, x)


def test_an_embeddings_cotangent_takes_numbas_loop_with_np_add_ats_bits(switch, monkeypatch):
    kernels = pytest.importorskip("funcgrad.kernels.numba_kernels")
    rng = np.random.default_rng(5)
    table = rng.normal(size=(96, 512)).astype(np.float32)
    tokens = rng.integers(-96, 96, size=(16, 64))
    w = rng.normal(size=(16, 64, 512)).astype(np.float32)
    loss = lambda e: fnp.sum(fnp.tanh(e[tokens]) * w)
    real, took = kernels.add_rows, []
    monkeypatch.setattr(kernels, "add_rows", lambda *a: took.append(real(*a)) or took[-1])
    for f in (fg.grad(loss), fg.jit(fg.grad(loss))):
        got = _same_bits(switch, f, table)[0]
        want = np.zeros_like(table)
        np.add.at(want, tokens, (1 - np.tanh(table[tokens]) ** 2) * w)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert took and all(took)


def test_views_take_the_kernel_or_numpy_with_the_same_bits(switch):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(64, 64, 64, 8)).astype(np.float32)
    view = x.transpose(1, 0, 2, 3)[:, ::2]  # neither C- nor F-ordered
    view64 = x.astype(np.float64).transpose(1, 0, 2, 3)[:, ::2]
    gelu = lambda a: fg.nn.gelu(a, approximate=True)
    for f in (
        gelu,
        lambda a: fg.nn.softmax(a, axis=-1),
        lambda a: fg.grad(lambda b: fnp.sum(fg.nn.max_pool(b, (2, 2), (2, 2)) ** 2))(a),
    ):
        _same_bits(switch, f, view64)
        # float32 too, but GELU's within float32's rounding: its kernel has its own tanh
        (_close if f is gelu else _same_bits)(switch, f, view)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vmap_agrees_with_a_python_loop(switch, dtype):
    switch(True)
    rng = np.random.default_rng(3)
    p, x = inputs(dtype, rng)
    xs = np.stack([x, -x[::-1]])
    got = fg.vmap(fg.grad(model, 1), in_axes=(None, 0))(p, xs)
    for i in range(2):
        want = fg.grad(model, 1)(p, xs[i])
        assert got[i].dtype == want.dtype == dtype
        if dtype == np.float64:
            np.testing.assert_allclose(got[i], want, rtol=1e-12, atol=1e-15)
        else:  # float32's sums in another order
            np.testing.assert_allclose(got[i], want, rtol=1e-4, atol=1e-5 * np.abs(want).max())


def test_the_gradient_against_pytorch_and_central_differences(switch):
    switch(True)
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    p, x = inputs(np.float64, np.random.default_rng(4))
    grads = fg.grad(model, argnums=(0, 1))(p, x)

    t = {k: torch.tensor(v, requires_grad=True) for k, v in p.items()}
    tx = torch.tensor(x, requires_grad=True)
    h = F.relu(F.gelu(tx * t["a"], approximate="tanh") - 0.05).permute(0, 3, 1, 2)
    h = F.max_pool2d(h, 2).permute(0, 2, 3, 1).reshape(-1, 256)
    (torch.softmax(h * t["t"], -1) * t["w"]).sum().backward()
    for k in p:
        np.testing.assert_allclose(grads[0][k], t[k].grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(grads[1], tx.grad.numpy(), rtol=1e-9, atol=1e-12)

    eps = 1e-6  # the scale's derivative by central differences
    up, down = dict(p, t=p["t"] + eps), dict(p, t=p["t"] - eps)
    fd = (model(up, x) - model(down, x)) / (2 * eps)
    np.testing.assert_allclose(grads[0]["t"], fd, rtol=1e-6)


def test_the_config_flag_turns_the_kernels_on_and_off(switch):
    switch(False)
    assert fg.config.funcgrad_numba_kernels is False
    x = np.ones(kernel_switch.LARGE)
    assert kernel_switch.kernels_for(x) is None
    switch(True)
    assert fg.config.funcgrad_numba_kernels is True
    assert kernel_switch.kernels_for(x) is not None
    assert kernel_switch.kernels_for(x[:-1]) is None  # below LARGE: NumPy's impl
    assert kernel_switch.kernels_for([0.0] * kernel_switch.LARGE) is None  # not an ndarray


def test_without_numba_the_switch_stays_off(switch, monkeypatch):
    monkeypatch.setattr(kernel_switch.importlib.util, "find_spec", lambda name: None)
    switch(True)
    assert fg.config.funcgrad_numba_kernels is False
    assert kernel_switch.kernels_for(np.ones(kernel_switch.LARGE)) is None


def test_a_numba_that_fails_to_load_turns_the_kernels_off(switch, monkeypatch):
    switch(True)

    def broken(name):
        raise ImportError(f"{name}: numba needs another NumPy")

    monkeypatch.setattr(kernel_switch.importlib, "import_module", broken)
    x = np.linspace(-3, 3, kernel_switch.LARGE)
    assert kernel_switch.kernels_for(x) is None and fg.config.funcgrad_numba_kernels is False
    monkeypatch.undo()
    switch(False)
    want = fg.nn.gelu(x, approximate=True)
    kernel_switch.SWITCH["on"] = False  # as the failed load left it
    np.testing.assert_array_equal(fg.nn.gelu(x, approximate=True), want)


PROBE = textwrap.dedent("""
    import sys
    import numpy as np
    import funcgrad as fg
    import funcgrad.numpy as fnp
    rng = np.random.default_rng(0)
    x = rng.normal(size={shape})
    f = lambda a: fnp.sum(fg.nn.softmax(fg.nn.gelu(fg.nn.max_pool(a, (2, 2), (2, 2)),
                                                   approximate=True), axis=-1))
    fg.grad(f)(x)
    print(fg.config.funcgrad_numba_kernels, "numba" in sys.modules)
""")


@pytest.mark.parametrize(
    "shape, env, want",
    [
        ((2, 8, 8, 4), {}, "True False"),  # small arrays: numba never loads
        ((8, 64, 64, 8), {"FUNCGRAD_NUMBA_KERNELS": "0"}, "False False"),  # switched off
        ((8, 64, 64, 8), {}, "True True"),  # large arrays load it
    ],
)
def test_what_loads_numba(shape, env, want):
    res = subprocess.run(
        [sys.executable, "-c", PROBE.format(shape=shape)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == want.split()


def _with_warnings(f, *args):
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = f(*args)
    return out, sorted({str(w.message) for w in seen})


def _inputs_numpy_warns_about():
    """(what, function, input) whose NumPy impl warns: each kernel leaves them to NumPy."""
    rng = np.random.default_rng(6)
    gelu_grad = fg.grad(lambda v: fnp.sum(fg.nn.gelu(v, approximate=True)))
    softmax = lambda v: fg.nn.softmax(v, axis=-1)
    rows = rng.normal(size=(256, 256)).astype(np.float32)
    infinite, wide = rows.copy(), rows.copy()
    infinite[3, 5], infinite[7] = np.inf, -np.inf  # inf - inf in the shift
    wide[3, 5], wide[3, 6] = 3e38, -3e38  # a shift past float32's largest number
    x = np.abs(rng.normal(size=(8, 32, 32, 16))).astype(np.float32)
    pooled_back = lambda g: fg.vjp(lambda a: fg.nn.max_pool(a, (2, 2), (2, 2)), x)[1](g)
    tokens = np.zeros((16, 64), int)
    embedding_back = lambda g: fg.vjp(lambda e: e[tokens], np.zeros((96, 512), np.float32))[1](g)
    return [
        ("gelu of 1e20", gelu_grad, np.full((256, 256), 1e20, np.float32)),
        ("softmax of infinities", softmax, infinite),
        ("softmax's shift overflows", softmax, wide),
        ("an infinite pooled cotangent", pooled_back, np.full((8, 16, 16, 16), np.inf, np.float32)),
        ("an embedding's sum overflows", embedding_back, np.full((16, 64, 512), 3e38, np.float32)),
    ]


@pytest.mark.parametrize("case", range(5))
def test_what_numpy_warns_about_warns_as_it_did(switch, case):
    what, f, x = _inputs_numpy_warns_about()[case]
    switch(True)
    got, said = _with_warnings(f, x)
    switch(False)
    want, numpy_said = _with_warnings(f, x)
    assert numpy_said, f"{what}: NumPy's impl no longer warns; the case tests nothing"
    assert said == numpy_said, what
    for a, b in zip(fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)):
        np.testing.assert_array_equal(a, b)


def test_an_underflow_numpy_is_told_to_report_stays_in_numpy(switch, monkeypatch):
    kernels = pytest.importorskip("funcgrad.kernels.numba_kernels")
    switch(True)
    called = []
    real = kernels.gelu_kernel
    monkeypatch.setattr(kernels, "gelu_kernel", lambda *a: called.append(1) or real(*a))
    x = np.full((256, 256), 1e-30, np.float32)  # x * x underflows
    with np.errstate(under="warn"):
        _, said = _with_warnings(lambda v: fg.nn.gelu(v, approximate=True), x)
    assert not called and any("underflow" in m for m in said)
    fg.nn.gelu(x, approximate=True)  # NumPy's default: underflows are ignored, the kernel runs
    assert called


def test_operands_in_another_byte_order_give_the_native_values(switch):
    switch(True)
    rng = np.random.default_rng(7)
    x = rng.normal(size=(8, 32, 32, 16)).astype(np.float32)
    tokens = rng.integers(0, 96, size=(16, 64))
    table = rng.normal(size=(96, 512)).astype(np.float32)

    def f(v, e, t):  # pooling's, GELU's, the softmax's and an embedding's cotangents
        h = fg.nn.gelu(fg.nn.max_pool(v, (2, 2), (2, 2)), approximate=True)
        s = fg.nn.softmax(fnp.reshape(h, (-1, 64)), axis=-1)
        return fnp.sum(s * fnp.cos(fnp.reshape(h, (-1, 64)))) + fnp.sum(fnp.tanh(e[t]))

    want = fg.grad(f, argnums=(0, 1))(x, table, tokens)
    swapped = (x.astype(">f4"), table.astype(">f4"), tokens.astype(">i8"))  # a file's order
    for g in (fg.grad(f, argnums=(0, 1)), fg.jit(fg.grad(f, argnums=(0, 1)))):
        for a, b in zip(g(*swapped), want):
            np.testing.assert_array_equal(a, b)
