"""JAX, eager (op by op), float64 on the CPU. W4, W5 and the overheads only.

The worker limits XLA to one thread before JAX is imported (as for every
engine: see worker.py). ``block_until_ready`` ends every timed call, so JAX's
asynchronous dispatch cannot hide work.
"""

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

NAME = "jax"
JIT = False


def _maybe_jit(f):
    return jax.jit(f) if JIT else f


def w4_loss(params, X, y):
    W1, b1, W2, b2, W3, b3 = params
    h1 = jnp.tanh(X @ W1 + b1)
    h2 = jnp.tanh(h1 @ W2 + b2)
    z = h2 @ W3 + b3
    logp = jax.nn.log_softmax(z, axis=1)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def w4_make(X, y, params, lr):
    """Eager: value_and_grad, then the update with tree_map. Jit: the whole step in one jit."""
    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    vg = jax.value_and_grad(w4_loss)

    def train_step(ps, X, y):
        loss, grads = vg(ps, X, y)
        return loss, jax.tree.map(lambda p, g: p - lr * g, ps, grads)

    step_fn = _maybe_jit(train_step)
    vg_fn = _maybe_jit(vg)
    state = [jnp.asarray(p) for p in params]

    def step():
        loss, new = step_fn(state, Xj, yj)
        state[:] = jax.block_until_ready(new)
        return loss

    def evaluate():
        loss, grads = vg_fn(state, Xj, yj)
        return [np.asarray(loss)] + [np.asarray(g) for g in grads]

    return step, evaluate


def w5_make(A, x0):
    Aj, xj = jnp.asarray(A), jnp.asarray(x0)

    def f(x):
        return jnp.sum(jnp.tanh(Aj @ x)) + x @ x

    h = _maybe_jit(jax.hessian(f))
    run = lambda: h(xj).block_until_ready()
    return run, (lambda: [np.asarray(run())])


def ovg_make(x):
    g = _maybe_jit(jax.grad(lambda x: x * x + jnp.sin(x)))
    run = lambda: g(x).block_until_ready()
    return run, (lambda: [np.float64(run())])


def ovc_make(v0, K):
    vj = jnp.asarray(v0)

    def f(v):
        for _ in range(K):
            v = jnp.tanh(v) * 0.9
        return jnp.sum(v)

    vg = _maybe_jit(jax.value_and_grad(f))

    def run():
        return jax.block_until_ready(vg(vj))

    def result():
        loss, g = run()
        return [np.asarray(loss), np.asarray(g)]

    return run, result
