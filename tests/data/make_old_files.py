"""Writes the saved graphs that tests/io/test_old_files.py loads (run once per format change).

The files in this folder were written by the funcgrad version named in their
file names; later versions must keep loading them. Do not regenerate an
existing file: add a new one when the format changes.
"""

import pickle
import sys
from pathlib import Path

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp


def graph():
    """A small graph that reaches most kinds of row: names, arrays, scalars, parameters,
    slices, integers, complex numbers, shared nodes, several outputs."""
    x = fg.var(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]), name="x")
    w = fg.var(np.array([0.5, -1.0, 2.0]), name="w")
    s = fg.var(1.5, name="s")
    z = fg.var(np.array([1.0 + 2.0j, -0.5j]), name="z")
    h = fnp.tanh(x @ w) * s
    y = fnp.sum(fnp.exp(x[:, 1:]) * s, axis=0) + fnp.max(x, axis=1, keepdims=True)
    m = fnp.where(x > 2.0, fnp.sqrt(x), x**2)
    c = fnp.sum(fnp.abs(z * z)) + fnp.real(z[0])
    # y's mean as the files hold it, a sum over the count (funcgrad.numpy.mean is one
    # primitive since stop 93)
    loss = fnp.sum(h**2) + fnp.sum(y) / 4.0 + fnp.sum(fnp.reshape(m, (3, 2))[::2]) + c
    return {"loss": loss, "parts": (h, y), "leaves": [x, w, s, z]}


if __name__ == "__main__":
    here = Path(__file__).parent
    tag = sys.argv[1]
    g = graph()
    (here / f"graph-{tag}.fgtable").write_bytes(fg.dumps(g))
    (here / f"graph-{tag}.pickle").write_bytes(pickle.dumps(g, protocol=4))
