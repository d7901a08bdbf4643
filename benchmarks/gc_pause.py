"""What pausing the cyclic garbage collector buys a large fold.

    python benchmarks/gc_pause.py

Backprop of a chain y <- tanh(y) * 0.9 of n levels, with the collector
paused during the fold (funcgrad's behaviour for graphs of more than
``funcgrad.dag.fold.PAUSE_ABOVE`` nodes) and with the pause taken out; the
least of two interleaved runs each. The gradients are checked to agree.
"""

import time

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core import collector as _gc


def chain(n, size):
    x = fg.var(np.ones(size) * 0.5)
    y = x
    for _ in range(n):
        y = fnp.tanh(y) * 0.9
    return x, fnp.sum(y)


def timed(out, paused):
    saved = _gc._Pause.__enter__, _gc._Pause.__exit__
    if not paused:
        _gc._Pause.__enter__ = lambda self: None
        _gc._Pause.__exit__ = lambda self, *exc: None
    try:
        start = time.perf_counter()
        g = fg.backprop(out)
        return time.perf_counter() - start, g
    finally:
        _gc._Pause.__enter__, _gc._Pause.__exit__ = saved


def main():
    print("| levels | array size | paused | collector on | on / paused |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n, size in [(10**5, 1), (10**5, 8), (2 * 10**5, 1)]:
        x, out = chain(n, size)
        times = {True: [], False: []}
        grads = []
        for paused in (True, False, True, False):
            t, g = timed(out, paused)
            times[paused].append(t)
            grads.append(g[x])
        assert all(np.allclose(g, grads[0], rtol=1e-12) for g in grads)
        p, on = min(times[True]), min(times[False])
        print(f"| {n:,} | {size} | {p:.2f} s | {on:.2f} s | {on / p:.2f}x |")


if __name__ == "__main__":
    main()
