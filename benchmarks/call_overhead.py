"""What one call of a transformed function costs beyond its arithmetic.

    python benchmarks/call_overhead.py [--rounds 7]

Three tiny functions, where the fixed cost of a call is all there is: a jitted
``x * 2.0`` on a float (the plan lookup and run), ``grad`` of ``x * x + 1`` (a
trace, a fold), and ``vmap`` of a 300-primitive chain on an (8, 4) array (per
primitive: the batch trace's dispatch). Each is checked against its plain
computation first; each figure is the least of ``--rounds`` rounds, a round
the mean of many calls, on one thread.
"""

import argparse
import os
import timeit

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp


def chain(x):
    for _ in range(100):
        x = fnp.tanh(x) * 0.5 + x
    return x


def plain_chain(x):
    for _ in range(100):
        x = np.tanh(x) * 0.5 + x
    return x


def cases():
    jitted = fg.jit(lambda x: x * 2.0)
    slope = fg.grad(lambda x: x * x + 1.0)
    batched = fg.vmap(chain)
    xs = np.linspace(-1.0, 1.0, 32).reshape(8, 4)
    assert jitted(1.5) == 3.0 and slope(1.5) == 3.0
    assert np.allclose(batched(xs), plain_chain(xs), rtol=1e-12)
    return [
        ("jit call, x * 2.0 on a float", lambda: jitted(1.5), 20000),
        ("grad call, x * x + 1 on a float", lambda: slope(1.5), 20000),
        ("vmap call, 300 primitives on (8, 4)", lambda: batched(xs), 50),
    ]


def main(rounds):
    print("| call | least of rounds | per primitive |")
    print("| --- | ---: | ---: |")
    for name, call, number in cases():
        best = min(timeit.repeat(call, number=number, repeat=rounds)) / number
        per = f"{best / 300 * 1e6:.2f} us" if name.startswith("vmap") else ""
        unit = f"{best * 1e6:.2f} us" if best < 1e-3 else f"{best * 1e3:.3f} ms"
        print(f"| {name} | {unit} | {per} |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    main(ap.parse_args().rounds)
