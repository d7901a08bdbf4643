"""JAX under ``jax.jit`` (XLA), float64 on the CPU: the same functions as engine_jax,
jitted whole (W4: the training step with its update; W5: ``jax.jit(jax.hessian(f))``);
W1 as batched matrix products and W2 as a ``lax.fori_loop`` (see engine_jax)."""

import engine_jax
import jax
import jax.numpy as jnp
import numpy as np
from common import ALPHA, LR, init_params, layer_shapes
from engine_jax import ovc_make, ovg_make, w4_make, w5_make  # noqa: F401

engine_jax.JIT = True
NAME = "jax_jit"


# -- W1 and W2, under jit only  ----------------------------------
# JAX's jit of micrograd's scalar program as written (about 60,000 scalar operations)
# did not finish compiling in 15 minutes on this machine, so W1 is the same network
# written the way JAX is meant to be used: the 100 points as one batch, each layer a
# matrix product. W2 is the chain as a lax.fori_loop, compiled once per depth.


def _w1_loss(X, Y):
    Xj, Yj = jnp.asarray(X), jnp.asarray(Y)
    shapes = layer_shapes()

    def loss(flat):
        h, i = Xj, 0
        for k, (nin, nout) in enumerate(shapes):
            block = flat[i : i + (nin + 1) * nout].reshape(nout, nin + 1)  # per neuron: w, b
            i += (nin + 1) * nout
            h = h @ block[:, :nin].T + block[:, nin]
            if k < len(shapes) - 1:
                h = jax.nn.relu(h)
        data = jnp.mean(jax.nn.relu(1.0 - Yj * h[:, 0]))
        return data + ALPHA * jnp.sum(flat * flat)

    return loss


_w1 = None


def w1_compile(X, Y):
    global _w1
    vg = jax.value_and_grad(_w1_loss(X, Y))

    @jax.jit
    def step(flat):
        loss, g = vg(flat)
        return loss, g, flat - LR * g

    jax.block_until_ready(step(jnp.asarray(np.array(init_params()))))
    _w1 = step


def w1_step(params, X, Y):
    if _w1 is None:
        w1_compile(X, Y)
    loss, g, new = _w1(jnp.asarray(np.array(params)))  # a list straight to jnp is slow
    return float(loss), np.asarray(g).tolist(), np.asarray(new).tolist()


_w2 = {}


def w2_compile(depth, x0):
    """Compile the chain as a fori_loop of this depth (the one-time cost)."""

    def f(x):
        return jax.lax.fori_loop(0, depth, lambda i, x: jnp.tanh(x) * 0.5 + x * 0.5, x)

    _w2.clear()
    _w2[depth] = g = jax.jit(jax.value_and_grad(f))
    jax.block_until_ready(g(jnp.float64(x0)))
    return


def w2_chain(depth, x0):
    if depth not in _w2:
        w2_compile(depth, x0)
    value, g = jax.block_until_ready(_w2[depth](jnp.float64(x0)))
    return float(value), float(g)
