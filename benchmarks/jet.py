"""Taylor mode against nested forward mode and JAX's jet: the coefficients of order 1..K of
a two-layer tanh network's output along a path, for K = 2..6.

    python benchmarks/jet.py [--repeats 7]

fg.jet propagates each value's polynomial once (linear in K per product term, quadratic
in the recurrences); nested jvp differentiates the whole function K deep (2^K passes).
Each figure is the least of ``--repeats`` runs, in milliseconds; every engine's
coefficients are checked against fg.jet's first.
"""

import argparse
import math
import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp

RNG = np.random.default_rng(0)
W1, W2 = RNG.normal(size=(32, 64)) / 8, RNG.normal(size=(32, 32)) / 6
X0 = RNG.normal(size=64)


def net(x, xp=fnp):
    return xp.sum(xp.tanh(W2 @ xp.tanh(W1 @ x)) * xp.exp(-0.1 * x[:32]))


def nested_jvp(x0, coefficients):
    def path(t):
        return net(x0 + sum(c * t**k / math.factorial(k) for k, c in enumerate(coefficients, 1)))

    out, g = [], path
    for _ in coefficients:
        g = (lambda h: lambda t: fg.jvp(h, (t,), (1.0,))[1])(g)
        out.append(g(0.0))
    return out


def best(fun, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fun()
        times.append(time.perf_counter() - start)
    return 1e3 * min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    try:
        import jax
        from jax.experimental.jet import jet as jax_jet

        jax.config.update("jax_enable_x64", True)
        jnp = jax.numpy
        jax_net = jax.jit(lambda x, cs: jax_jet(lambda v: net(v, jnp), (x,), (cs,)))
    except ImportError:
        jax_net = None
    jitted = fg.jit(lambda x, cs: fg.jet(net, (x,), (cs,)))
    print("| order | fg.jet | fg.jit(fg.jet) | nested fg.jvp | JAX jet (jit) |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for order in range(2, 7):
        coefficients = [RNG.normal(size=64) for _ in range(order)]
        ours = fg.jet(net, (X0,), (coefficients,))[1]
        np.testing.assert_allclose(nested_jvp(X0, coefficients), ours, rtol=1e-9)
        np.testing.assert_allclose(jitted(X0, coefficients)[1], ours, rtol=1e-12)
        row = [
            best(lambda: fg.jet(net, (X0,), (coefficients,)), args.repeats),
            best(lambda: jitted(X0, coefficients), args.repeats),
            best(lambda: nested_jvp(X0, coefficients), args.repeats),
        ]
        if jax_net is not None:
            theirs = jax_net(X0, [jnp.asarray(c) for c in coefficients])
            np.testing.assert_allclose(np.asarray(theirs[1]), ours, rtol=1e-9)
            row.append(
                best(lambda: jax_net(X0, coefficients)[1][-1].block_until_ready(), args.repeats)
            )
        print(
            f"| {order} | "
            + " | ".join(f"{t:.2f} ms" for t in row)
            + (" | - |" if jax_net is None else " |")
        )


if __name__ == "__main__":
    main()
