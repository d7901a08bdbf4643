"""Dask arrays as values: gradients stay lazy until computed, on a dask.distributed cluster.

A small LocalCluster (one worker, two threads, in this process) serves the
module and is shut down after it. While funcgrad builds a gradient the
scheduler is swapped for one that fails on any computation, so a test fails
if funcgrad computes a lazy array behind the user's back.
"""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

da = pytest.importorskip("dask.array", reason="the dask extra: pip install -e '.[test,dask]'")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        dashboard_address=":0",  # any free port
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _refuse(*args, **kwargs):
    raise AssertionError("funcgrad computed a lazy Dask array")


def _data(rows=400, features=5, chunk=100):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, features))
    y = (X @ np.arange(1.0, features + 1) + rng.normal(size=rows) > 0).astype(float)
    return X, y, da.from_array(X, chunks=(chunk, features)), da.from_array(y, chunks=chunk)


def logistic_loss(w, X, y):
    z = X @ w
    return fnp.mean(fnp.logaddexp(0.0, z) - y * z)


def test_gradient_with_respect_to_a_dask_array_is_lazy_and_equals_numpys(client):
    X, y, dX, dy = _data()
    w = np.linspace(-0.5, 0.5, 5)
    dw = da.from_array(w, chunks=5)
    with dask.config.set(scheduler=_refuse):
        value, g = fg.value_and_grad(logistic_loss)(dw, dX, dy)
    assert isinstance(g, da.Array) and isinstance(value, da.Array)
    want_value, want = fg.value_and_grad(logistic_loss)(w, X, y)
    got_value, got = dask.compute(value, g)  # on the cluster
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_value, want_value, rtol=1e-12)


def test_data_as_dask_and_weights_as_numpy_mix(client):
    X, y, dX, dy = _data()
    w = np.zeros(5)
    with dask.config.set(scheduler=_refuse):
        g = fg.grad(logistic_loss)(w, dX, dy)
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(g.compute(), fg.grad(logistic_loss)(w, X, y), rtol=1e-12)


def test_forward_mode_and_second_order_stay_lazy(client):
    X, y, dX, dy = _data()
    w = np.full(5, 0.1)
    dw, dv = da.from_array(w, chunks=5), da.ones(5, chunks=5)
    with dask.config.set(scheduler=_refuse):
        _, tangent = fg.jvp(lambda v: logistic_loss(v, dX, dy), (dw,), (dv,))
        hvp = fg.grad(lambda v: fnp.sum(fg.grad(logistic_loss)(v, dX, dy) * dv))(dw)
    want_t = fg.jvp(lambda v: logistic_loss(v, X, y), (w,), (np.ones(5),))[1]
    want_h = fg.hessian(logistic_loss)(w, X, y) @ np.ones(5)
    np.testing.assert_allclose(tangent.compute(), want_t, rtol=1e-12)
    np.testing.assert_allclose(hvp.compute(), want_h, rtol=1e-10)


def test_optimizers_step_dask_pytrees_lazily(client):
    X, y, dX, dy = _data()

    def loss(params, X, y):
        return logistic_loss(params["w"], X, y) + 0.01 * fnp.sum(params["w"] ** 2)

    _opt = fg.optim.adam(0.1)

    init, update = _opt.init, _opt.step
    params = {"w": np.zeros(5)}
    lazy = {"w": da.zeros(5, chunks=5)}
    state, lazy_state = init(params), init(lazy)
    for _ in range(3):
        params, state = update(fg.grad(loss)(params, X, y), state, params)
        with dask.config.set(scheduler=_refuse):
            lazy, lazy_state = update(fg.grad(loss)(lazy, dX, dy), lazy_state, lazy)
    assert isinstance(lazy["w"], da.Array)
    np.testing.assert_allclose(lazy["w"].compute(), params["w"], rtol=1e-10)


def test_jit_says_why_it_does_not_compile_dask_calls():
    _, _, dX, dy = _data()
    with pytest.raises(fg.NamespaceError, match=r"Dask array, which keeps its own task graph"):
        fg.jit(fg.grad(logistic_loss))(da.zeros(5, chunks=5), dX, dy)


def test_dask_arrays_do_not_mix_with_other_libraries():
    torch = pytest.importorskip("torch")
    with pytest.raises(fg.NamespaceError, match=r"two libraries, dask .* and torch"):
        fnp.multiply(da.ones(3, chunks=3), torch.ones(3, dtype=torch.float64))


def test_clipping_keeps_dask_gradients_lazy():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([4.0])}
    lazy = {k: da.from_array(v, chunks=1) for k, v in g.items()}
    with dask.config.set(scheduler=_refuse):
        clipped = fg.optim.clip_by_global_norm(lazy, 1.0)
        bounded = fg.optim.clip_by_value(lazy, -1.0, 3.5)
    assert isinstance(clipped["a"], da.Array) and isinstance(bounded["b"], da.Array)
    want = fg.optim.clip_by_global_norm(g, 1.0)
    np.testing.assert_allclose(clipped["a"].compute(), want["a"])
    np.testing.assert_allclose(clipped["b"].compute(), want["b"])
    np.testing.assert_allclose(bounded["b"].compute(), [3.5])


def test_what_dask_lacks_is_refused_by_name_and_the_rest_stays_lazy():
    x = da.from_array(np.array([3.0, 1.0, 2.0]), chunks=2)
    with dask.config.set(scheduler=_refuse):
        clipped = fnp.fmax(x, 2.0)  # a Python number beside a Dask array
    np.testing.assert_array_equal(clipped.compute(), [3.0, 2.0, 2.0])
    with pytest.raises(fg.NamespaceError, match=r"take_along: .*dask.* lacks .*take_along_axis"):
        fnp.sort(x)  # sort's gradient needs take_along_axis


def test_loops_run_lazily_and_a_test_on_a_dask_value_is_refused_by_name():
    x = da.from_array(np.linspace(0.0, 1.0, 10), chunks=5)
    plain = np.linspace(0.0, 1.0, 10)
    for loop in (
        lambda v: fg.scan(lambda c, xi: (c * 0.5 + xi, c), 0.0, v)[1],
        lambda v: fg.fori_loop(0, 3, lambda i, c: c * 0.5 + 1.0, v),
        lambda v: fg.grad(lambda w: fnp.sum(fg.scan(lambda c, xi: (c * xi, c), 1.0, w)[1]))(v),
    ):
        with dask.config.set(scheduler=_refuse):  # built lazily: nothing computed
            got = loop(x)
        assert isinstance(got, da.Array)
        np.testing.assert_allclose(np.asarray(got), loop(plain), rtol=1e-13)
    with pytest.raises(fg.NamespaceError, match=r"while_loop: .*never computes a lazy array"):
        fg.while_loop(lambda c: fnp.sum(c) < 100.0, lambda c: c * 2.0, x + 1.0)
    with pytest.raises(fg.NamespaceError, match=r"pred is a Dask array"):
        fg.cond(fnp.sum(x) > 0, lambda a: a, lambda a: -a, x)
