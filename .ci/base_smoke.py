"""The base install (numpy, pyrsistent, toolz and nothing else) runs every feature the
README promises without an extra. CI runs this in a fresh virtual environment holding
``pip install .`` alone; it fails if SciPy (or another extra) is importable there.

    python .ci/base_smoke.py
"""

import importlib.util
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

for extra in ("scipy", "torch", "numba", "dask", "matplotlib", "sklearn"):
    assert importlib.util.find_spec(extra) is None, f"{extra} is installed: not the base install"

checks = []


def check(name):
    def run(f):
        f()
        checks.append(name)
        return f

    return run


@check("expressions, backprop, show")
def _():
    x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    f = (x + y) * x
    g = fg.backprop(f)
    assert (g[x], g[y]) == (1.0, 2.0)
    assert "multiply" in str(fg.show(f, grads=g))
    assert [n.name or n.op for n in fg.toposort(f, method="kahn")][-1] == "multiply"


@check("save and load, pickle")
def _():
    x = fg.var(np.array([1.0, 2.0]), name="x")
    f = fnp.sum(fnp.sin(x) * x)
    back = fg.loads(fg.dumps(f))
    assert np.allclose(back.value, f.value)
    again = pickle.loads(pickle.dumps(f))
    assert np.allclose(again.value, f.value)
    with tempfile.TemporaryDirectory() as tmp:
        fg.dump({"f": f}, os.path.join(tmp, "graph.fg"))
        assert np.allclose(fg.load(os.path.join(tmp, "graph.fg"))["f"].value, f.value)


@check("random numbers with keys")
def _():
    k1, k2 = fg.random.split(fg.random.key(0))
    noise = fg.jit(lambda k: fg.random.normal(k, (3,)))
    assert np.array_equal(noise(k1), fg.random.normal(k1, (3,)))
    assert fg.vmap(lambda k: fg.random.uniform(k, ()))(fg.random.split(k2, 4)).shape == (4,)


@check("debug.callback under jit, vmap and a loop")
def _():
    seen = []

    def f(x):
        fg.debug.callback(seen.append, x)
        return fg.fori_loop(0, 2, lambda i, c: (fg.debug.callback(seen.append, i), c * 2.0)[1], x)

    assert fg.jit(f)(1.0) == 4.0
    fg.vmap(lambda v: fg.debug.callback(seen.append, v) or v)(np.arange(2.0))
    assert [float(v) for v in seen] == [1.0, 0.0, 1.0, 0.0, 1.0]


@check("transforms, jit, vmap")
def _():
    f = lambda x: fnp.sum(fnp.tanh(x) ** 2)
    x = np.array([0.3, -1.2])
    g = fg.grad(f)(x)
    assert np.allclose(fg.jit(fg.grad(f))(x), g)
    assert np.allclose(fg.vmap(fg.grad(f))(np.stack([x, x])), np.stack([g, g]))
    assert fg.hessian(f)(x).shape == (2, 2)


@check("explain, lint")
def _():
    report = fg.explain(lambda x: fnp.sum(fnp.sqrt(x)), np.array([0.0, 1.0]))
    assert "sqrt" in str(report)
    assert isinstance(fg.lint(lambda x: fnp.sum(fnp.log(x)), np.array([1.0, 2.0])), list)


@check("loops, checkpoint, branches, fixed points")
def _():
    def rnn(h, x):
        h = fnp.tanh(0.5 * h + x)
        return h, h

    loss = lambda h0: fnp.sum(fg.scan(rnn, h0, np.ones(20), checkpoints=10)[1])
    assert np.isfinite(fg.grad(loss)(0.1))
    assert fg.fori_loop(0, 3, lambda i, c: c * 2.0, 1.0) == 8.0
    assert fg.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, 1.0) == 16.0
    assert fg.cond(True, lambda v: v + 1.0, lambda v: v, 1.0) == 2.0
    assert np.isclose(fg.fixed_point(lambda a, z: 0.5 * (z + a / z), 2.0, 1.0), np.sqrt(2.0))
    assert np.isclose(
        fg.grad(fg.checkpoint(lambda v: fnp.sin(v) * v))(0.5), np.sin(0.5) + 0.5 * np.cos(0.5)
    )


@check("optim, nn")
def _():
    opt = fg.optim.chain(fg.optim.clip_by_global_norm(1.0), fg.optim.adam(0.1))
    params = {"w": np.zeros(2)}
    state = opt.init(params)
    for _ in range(3):
        updates, state = opt.update(
            fg.grad(lambda p: fnp.sum((p["w"] - 1.0) ** 2))(params), state, params
        )
        params = fg.optim.apply_updates(params, updates)
    assert np.all(params["w"] > 0)
    logits = np.array([[1.0, 2.0, 0.5]])
    assert np.isfinite(fg.grad(lambda z: fg.nn.cross_entropy(z, np.array([1])))(logits)).all()


@check("fft, linalg")
def _():
    x = np.array([1.0, 2.0, 0.5, -1.0])  # Parseval: sum |fft(x)|^2 = n sum x^2
    assert np.allclose(fg.grad(lambda v: fnp.sum(fnp.abs(fnp.fft.fft(v)) ** 2))(x), 2 * 4 * x)
    a = np.array([[3.0, 1.0], [1.0, 2.0]])
    assert np.allclose(fg.grad(lambda m: fnp.linalg.slogdet(m)[1])(a), np.linalg.inv(a).T)
    assert np.allclose(fg.grad(lambda m: fnp.sum(fnp.linalg.eigvalsh(m)))(a), np.eye(2))


@check("funcgrad.scipy says which extra it needs")
def _():
    for load in (lambda: importlib.import_module("funcgrad.scipy"), lambda: fg.scipy):
        try:
            load()
        except ImportError as e:
            assert "pip install 'funcgrad[scipy]'" in str(e)
        else:
            raise AssertionError("funcgrad.scipy imported without SciPy")


@check("the command line")
def _():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "funcgrad",
            "grad",
            "(x + y) * z",
            "--at",
            "x=-2",
            "--at",
            "y=5",
            "--at",
            "z=-4",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "-12" in out.stdout or "-12.0" in out.stdout
    demo = subprocess.run(
        [sys.executable, "-m", "funcgrad", "demo", "chain"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "grad" in demo.stdout


@check("fg.explore's page is installed with the package")
def _():
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "fold.html")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "funcgrad",
                "explore",
                "(x + y) * z",
                "--at",
                "x=-2",
                "--at",
                "y=5",
                "--at",
                "z=-4",
                "--html",
                page,
            ],
            check=True,
            capture_output=True,
        )
        with open(page) as f:
            text = f.read()
    assert "fg-data" in text and "addEventListener" in text and ".node.current" in text


@check("convolutions, pooling, checkpoint policies and checkpointed loops")
def _():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2))
    f = lambda w: fnp.sum(
        fg.nn.max_pool(fg.nn.conv(x, w, (1, 1), "SAME"), (2, 2), (2, 2), data_format="NCHW")
    )
    g, h = fg.grad(f)(w), 1e-6
    fd = [(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(4).reshape(4, 1, 1, 2, 2)]
    assert np.allclose(g.ravel(), fd, rtol=1e-6)
    layer = fg.checkpoint(
        lambda w: fnp.tanh(fg.checkpoint_name(w @ w, "h")),
        policy=fg.checkpoint_policies.save_only_these_names("h"),
    )
    m = np.eye(2) * 0.5
    assert np.allclose(
        fg.grad(lambda w: fnp.sum(layer(w)))(m), fg.grad(lambda w: fnp.sum(fnp.tanh(w @ w)))(m)
    )
    loop = lambda a, k: fg.fori_loop(0, 50, lambda i, c: fnp.sin(c) * a, 0.5, checkpoints=k)
    assert fg.grad(lambda a: loop(a, 3))(0.9) == fg.grad(lambda a: loop(a, None))(0.9)


print(f"base install: {len(checks)} passed, 0 failed")
