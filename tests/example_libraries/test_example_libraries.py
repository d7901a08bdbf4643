"""funcgrad.example_libraries against JAX's stax and optimizers in float64 (the same
params and inputs: the layers' outputs, their gradients and every optimizer's steps),
against central differences, and under jit, vmap and grad."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.example_libraries import optimizers, stax

RNG = np.random.default_rng(0)


def _jax():
    jax = pytest.importorskip("jax", reason="JAX is the reference (the jax extra)")
    jax.config.update("jax_enable_x64", True)
    from jax.example_libraries import optimizers as jopt
    from jax.example_libraries import stax as jstax

    return jax, jstax, jopt


def _jax_tree(tree, jax):
    return jax.tree_util.tree_map(lambda a: jax.numpy.asarray(np.asarray(a)), tree)


def _close(got, want, tol=1e-12):
    """Leaf by leaf (JAX's dicts, lists and tuples flatten as funcgrad's do)."""
    got_leaves, want_leaves = fg.tree_util.tree_leaves(got), fg.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


# Each: a layer made by both libraries (from the module given), and an input shape.
LAYERS = {
    "dense": (lambda s: s.Dense(5), (3, 4)),
    "conv": (lambda s: s.Conv(3, (3, 3), padding="SAME"), (2, 6, 6, 2)),
    "conv strided": (lambda s: s.Conv(2, (2, 3), strides=(2, 1)), (2, 7, 6, 3)),
    "general conv": (
        lambda s: s.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3), padding="SAME"),
        (2, 3, 5, 5),
    ),
    "conv transpose": (lambda s: s.ConvTranspose(2, (3, 3), strides=(2, 2)), (1, 4, 4, 3)),
    "conv1d transpose": (lambda s: s.Conv1DTranspose(2, (3,), padding="SAME"), (2, 5, 3)),
    "batch norm": (lambda s: s.BatchNorm(), (4, 3, 3, 2)),
    "batch norm axis 0": (lambda s: s.BatchNorm(axis=0, center=False), (6, 3)),
    "max pool": (lambda s: s.MaxPool((2, 2), strides=(2, 2)), (2, 6, 6, 3)),
    "avg pool same": (lambda s: s.AvgPool((3, 3), padding="SAME"), (2, 5, 5, 2)),
    "sum pool nchw": (lambda s: s.SumPool((2, 2), spec="NCHW"), (2, 3, 4, 4)),
    "flatten": (lambda s: s.Flatten, (3, 2, 2)),
    "activations": (
        lambda s: s.serial(s.Tanh, s.Relu, s.Elu, s.LeakyRelu, s.Selu, s.Gelu, s.Softplus),
        (3, 4),
    ),
    "softmaxes": (lambda s: s.serial(s.Sigmoid, s.Exp, s.LogSoftmax, s.Softmax), (3, 4)),
    "branches": (
        lambda s: s.serial(
            s.FanOut(3),
            s.parallel(s.Dense(4), s.Identity, s.Dense(4)),
            s.parallel(s.Identity, s.Dense(4), s.Identity),
            s.FanInSum,
        ),
        (2, 4),
    ),
    "concat": (
        lambda s: s.serial(s.FanOut(2), s.parallel(s.Dense(3), s.Identity), s.FanInConcat()),
        (2, 4),
    ),
    "mnist cnn": (
        lambda s: s.serial(
            s.Conv(4, (3, 3)),
            s.Relu,
            s.MaxPool((2, 2), (2, 2)),
            s.Flatten,
            s.Dense(10),
            s.LogSoftmax,
        ),
        (2, 8, 8, 1),
    ),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_a_layer_gives_jaxs_shapes_values_and_gradients(name):
    jax, jstax, _ = _jax()
    make, shape = LAYERS[name]
    out_shape, params = make(stax)[0](fg.random.key(1), shape)
    jax_shape, _ = make(jstax)[0](jax.random.PRNGKey(1), shape)
    assert tuple(out_shape) == tuple(jax_shape)
    x = RNG.normal(size=shape)
    apply, japply = make(stax)[1], make(jstax)[1]
    jparams = _jax_tree(params, jax)
    _close(apply(params, x), japply(jparams, jax.numpy.asarray(x)), 1e-11)
    loss = lambda p, x: fnp.sum(fnp.sin(apply(p, x)))
    jloss = lambda p, x: jax.numpy.sum(jax.numpy.sin(japply(p, x)))
    got = fg.grad(loss, argnums=(0, 1))(params, x)
    _close(got, jax.grad(jloss, argnums=(0, 1))(jparams, jax.numpy.asarray(x)), 1e-10)
    # jit is the eager call; vmap over examples is a loop over them
    _close(fg.jit(apply)(params, x), apply(params, x), 1e-13)
    if name not in ("batch norm", "batch norm axis 0"):  # a batch statistic: not per example
        batched = fg.vmap(lambda row: apply(params, row[None])[0])(x)
        looped = np.stack([np.asarray(apply(params, x[i : i + 1]))[0] for i in range(len(x))])
        np.testing.assert_allclose(batched, looped, rtol=1e-12, atol=1e-12)


def test_a_networks_gradient_agrees_with_central_differences():
    init, apply = stax.serial(stax.Conv(2, (2, 2)), stax.Tanh, stax.Flatten, stax.Dense(1))
    _, params = init(fg.random.key(3), (1, 3, 3, 1))
    x = RNG.normal(size=(1, 3, 3, 1))
    fg.check_grads(lambda p: fnp.sum(apply(p, x)), (params,), order=2, modes=("rev", "fwd"))


def test_dropout_keeps_with_probability_rate_and_needs_a_key():
    init, apply = stax.serial(stax.Dense(3), stax.Dropout(0.8))
    _, params = init(fg.random.key(0), (-1, 2))
    y = apply(params, np.ones((2000, 2)), rng=fg.random.key(5))
    kept = np.asarray(y)[:, 0] != 0
    assert 0.75 < kept.mean() < 0.85
    assert np.array_equal(
        apply(params, np.ones((4, 2)), rng=fg.random.key(5)),
        apply(params, np.ones((4, 2)), rng=fg.random.key(5)),
    )
    with pytest.raises(fg.errors.ArgumentError, match="needs a key"):
        apply(params, np.ones((2, 2)))
    assert np.array_equal(stax.Dropout(0.5, mode="test")[1]((), np.ones(3)), np.ones(3))


# Each optimizer with arguments that exercise it, including a schedule.
OPTIMIZERS = {
    "sgd": lambda o: o.sgd(o.exponential_decay(0.1, 3, 0.5)),
    "momentum": lambda o: o.momentum(0.05, 0.9),
    "nesterov": lambda o: o.nesterov(o.inverse_time_decay(0.05, 2, 0.5, staircase=True), 0.8),
    "adagrad": lambda o: o.adagrad(0.2),
    "rmsprop": lambda o: o.rmsprop(0.01),
    "rmsprop_momentum": lambda o: o.rmsprop_momentum(0.01, momentum=0.5),
    "adam": lambda o: o.adam(o.piecewise_constant([2, 4], [0.1, 0.05, 0.01])),
    "adamax": lambda o: o.adamax(o.polynomial_decay(0.1, 5, 0.01, power=2.0)),
    "sm3": lambda o: o.sm3(0.1),
}


def _params():
    return {"w": RNG.normal(size=(3, 2)), "b": RNG.normal(size=(2,)), "s": np.array(0.7)}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_an_optimizer_takes_jaxs_steps(name):
    jax, _, jopt = _jax()
    init, update, get_params = OPTIMIZERS[name](optimizers)
    jinit, jupdate, jget_params = OPTIMIZERS[name](jopt)
    params = _params()
    state, jstate = init(params), jinit(_jax_tree(params, jax))
    for i in range(7):
        grads = {k: RNG.normal(size=np.shape(v)) for k, v in params.items()}
        state = update(i, grads, state)
        jstate = jupdate(i, _jax_tree(grads, jax), jstate)
    _close(get_params(state), jget_params(jstate), 1e-12)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_an_optimizer_step_jits_with_the_step_traced_and_runs_in_a_loop(name):
    init, update, get_params = OPTIMIZERS[name](optimizers)
    loss = lambda p: fnp.sum(p["w"] ** 2) + fnp.sum(fnp.sin(p["b"])) + p["s"] ** 2

    def step(i, state):
        return update(i, fg.grad(loss)(get_params(state)), state)

    state = init(_params())
    eager, jitted = state, state
    jstep = fg.jit(step)
    for i in range(4):
        eager, jitted = step(i, eager), jstep(i, jitted)
    _close(get_params(jitted), get_params(eager), 1e-13)
    looped = fg.lax.fori_loop(0, 4, step, state)
    _close(get_params(looped), get_params(eager), 1e-13)


def test_the_state_unpacks_packs_and_refuses_other_trees():
    init, update, get_params = optimizers.adam(0.1)
    state = init({"a": 1.0, "b": np.ones(2)})
    marked = optimizers.unpack_optimizer_state(state)
    assert isinstance(marked["a"], optimizers.JoinPoint)
    again = optimizers.pack_optimizer_state(marked)
    grads = {"a": 0.5, "b": np.ones(2)}
    _close(get_params(update(0, grads, again)), get_params(update(0, grads, state)), 0)
    with pytest.raises(fg.errors.ArgumentError, match=r"PyTreeDef\(\{'a': \*\}\)"):
        update(0, {"a": 0.5}, state)
    with pytest.raises(fg.errors.ArgumentTypeError, match="OptimizerState"):
        get_params({"a": 1.0})


def test_clip_grads_and_l2_norm_are_jaxs():
    jax, _, jopt = _jax()
    grads = {"a": RNG.normal(size=3), "b": [RNG.normal(size=(2, 2))]}
    _close(optimizers.l2_norm(grads), jopt.l2_norm(_jax_tree(grads, jax)))
    for max_norm in (0.5, 100.0):
        _close(
            optimizers.clip_grads(grads, max_norm), jopt.clip_grads(_jax_tree(grads, jax), max_norm)
        )


def test_jaxs_mnist_classifier_example_trains_as_under_jax():
    """The shape of JAX's examples/mnist_classifier.py on synthetic data: the same params
    in, the same losses after each step."""
    jax, jstax, jopt = _jax()
    make = lambda s: s.serial(s.Dense(16), s.Relu, s.Dense(16), s.Relu, s.Dense(4), s.LogSoftmax)
    init, predict = make(stax)
    _, jpredict = make(jstax)
    _, params = init(fg.random.key(0), (-1, 8))
    images, labels = RNG.normal(size=(32, 8)), np.eye(4)[RNG.integers(0, 4, 32)]

    def loss(p, batch, xp, net):
        inputs, targets = batch
        return -xp.mean(xp.sum(net(p, inputs) * targets, axis=1))

    opt_init, opt_update, get_params = optimizers.momentum(0.01, mass=0.9)
    jopt_init, jopt_update, jget_params = jopt.momentum(0.01, mass=0.9)

    @fg.jit
    def update(i, state, batch):
        return opt_update(i, fg.grad(loss)(get_params(state), batch, fnp, predict), state)

    @jax.jit
    def jupdate(i, state, batch):
        return jopt_update(i, jax.grad(loss)(jget_params(state), batch, jax.numpy, jpredict), state)

    state, jstate = opt_init(params), jopt_init(_jax_tree(params, jax))
    for i in range(10):
        batch = (images[i % 4 * 8 : i % 4 * 8 + 8], labels[i % 4 * 8 : i % 4 * 8 + 8])
        state, jstate = update(i, state, batch), jupdate(i, jstate, _jax_tree(batch, jax))
        ours = float(loss(get_params(state), (images, labels), fnp, predict))
        theirs = float(
            loss(jget_params(jstate), _jax_tree((images, labels), jax), jax.numpy, jpredict)
        )
        assert abs(ours - theirs) < 1e-12
