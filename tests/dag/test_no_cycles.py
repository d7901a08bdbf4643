"""Graphs are freed by reference counting alone: no transform leaves a reference cycle.

A cycle anywhere on the way (a closure that calls itself, a trace whose table
points back at its nodes) keeps what it reaches, perhaps a whole graph of a
million nodes, alive until Python's cyclic collector runs; jit's trace of a
10^6-step plan stayed alive that way for about a second after every compile.
Each case below runs with the collector off and then asks it what it would
have had to free.
"""

import contextlib
import gc
import tracemalloc

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core.tree import tree_flatten, tree_unflatten
from funcgrad.dag.node import Node


def f(x):
    return fnp.sum(fnp.tanh(x) ** 2)


def loss(p, x):
    return fnp.sum((fnp.tanh(x @ p["w"]) + p["b"]) ** 2)


X = np.linspace(-1.0, 1.0, 4)
P = {"w": np.ones((4, 3)), "b": np.zeros(3)}
BATCH = np.ones((2, 4))
JITTED = fg.jit(fg.value_and_grad(loss))
JITTED_LOOP = fg.jit(fg.grad(lambda c: fnp.sum(fg.fori_loop(0, 3, lambda i, c: fnp.sin(c), c))))


def _grad_of_a_function_that_raises():
    def f(x):
        fnp.sum(fnp.tanh(x) * 2.0)
        raise ValueError("stop")

    with contextlib.suppress(ValueError):
        fg.grad(f)(X)


def _grad_of_a_vector():
    with contextlib.suppress(fg.ShapeError):  # not a scalar: grad's check raises
        fg.grad(lambda x: x * 2.0)(X)


CASES = {
    "grad of a function that raises": _grad_of_a_function_that_raises,
    "grad with a check that raises": _grad_of_a_vector,
    "grad": lambda: fg.grad(f)(X),
    "value_and_grad of a tree": lambda: fg.value_and_grad(loss)(P, BATCH),
    "var and backprop": lambda: fg.backprop(f(fg.var(X))),
    "jit": lambda: JITTED(P, BATCH),
    "jit of a loop": lambda: JITTED_LOOP(X),
    "jvp": lambda: fg.jvp(f, (X,), (X,)),
    "vjp": lambda: fg.vjp(f, X)[1](1.0),
    "hessian": lambda: fg.hessian(f)(X),
    "jacfwd": lambda: fg.jacfwd(fnp.tanh)(X),
    "jacrev": lambda: fg.jacrev(fnp.tanh)(X),
    "elementwise_grad": lambda: fg.elementwise_grad(fnp.tanh)(X),
    "vmap": lambda: fg.vmap(f)(np.ones((3, 4))),
    "scan": lambda: fg.grad(
        lambda c: fnp.sum(fg.scan(lambda c, _: (fnp.sin(c), c), c, None, length=3)[0])
    )(X),
    "cond": lambda: fg.grad(lambda c: fnp.sum(fg.cond(True, fnp.sin, fnp.cos, c)))(X),
    "checkpoint": lambda: fg.grad(lambda c: fnp.sum(fg.checkpoint(fnp.sin)(c)))(X),
}


def garbage_after(call):
    """The objects the cyclic collector finds unreachable after ``call()``."""
    call()  # warm any caches, which are meant to stay
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        call()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_node_is_left_to_the_cyclic_collector(name):
    left = [o for o in garbage_after(CASES[name]) if isinstance(o, Node)]
    assert not left, f"{name}: {len(left)} nodes in reference cycles, e.g. {left[0]!r}"


def test_grad_folds_the_nodes_in_the_order_made_and_forgets_them():
    # value_and_grad folds its trace's record of nodes (no walk of the graph), dead
    # branches included; inside debug_nans it walks the graph from the output instead.
    # Both give the same bits, and the record is dropped once folded.
    def f(x):
        unused = fnp.exp(x) * 3.0
        y = fnp.tanh(x) * x
        return fnp.sum(y * y + fnp.sin(x)), unused

    seen = []
    real_pull_back = fg.transforms.reverse.pull_back

    def spy(trace, *args):
        seen.append(trace)
        return real_pull_back(trace, *args)

    x = np.linspace(-2.0, 2.0, 7)
    mp = pytest.MonkeyPatch()
    mp.setattr(fg.transforms.reverse, "pull_back", spy)
    try:
        (value, _), g = fg.value_and_grad(f, has_aux=True)(x)
        with fg.debug_nans():
            (value_walked, _), g_walked = fg.value_and_grad(f, has_aux=True)(x)
    finally:
        mp.undo()
    assert value == value_walked and np.array_equal(g, g_walked)
    assert len(seen) == 2 and all(t.made is None for t in seen)


def test_tree_flatten_and_unflatten_make_no_cycle():
    leaf = np.ones(3)
    assert (
        garbage_after(lambda: tree_unflatten(*reversed(tree_flatten({"a": [leaf, (leaf,)]})))) == []
    )


def test_grad_frees_big_arrays_the_function_drops():
    # A grad's trace lists its nodes for the fold, which would keep every array the
    # function computed and dropped (a scratch array per iteration) until the fold;
    # at its first big array it stops listing, so they are freed as before.
    x = np.ones(125_000)  # 1 MB

    def f(x, scratch):
        y = x
        for _ in range(30):
            if scratch and fnp.sum(fnp.exp(y) * 2.0) < 0:  # 2 MB computed and dropped
                break
            y = fnp.sin(y)
        return fnp.sum(y)

    def peak(scratch):
        fg.grad(f)(x, scratch)
        tracemalloc.start()
        try:
            fg.grad(f)(x, scratch)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(True) < peak(False) + 10e6  # kept until the fold: 60 MB more
