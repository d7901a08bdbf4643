"""The worked examples funcgrad grew from, as functions: ``funcgrad demo`` prints them.

Each example has a *builder* (plain numbers in, output node and named leaves
out, so it can be rebuilt at shifted points for a finite-difference check) and
a *section* that returns the text the demo prints. Everything is pure: a
section returns a string and touches nothing.

    gates     f(x, y, z) = (x + y) z: the add gate distributes, the mul gate swaps,
              the max gate routes
    shared    f(x) = sqrt(x^2 + exp(x^2)) + cos(x^2 + exp(x^2)), intermediates shared
    chain     a, b, c -> d = a*b -> L = d + c, with its forward and backward orders
    micrograd micrograd's README expression: relu, pow, division, nodes reused
    network   a tiny vector network: matmul, tanh, softmax and the pnls loss
    paths     the 729-path DAG of the two-page note, folded over semirings

>>> from funcgrad.cli import demo
>>> f, leaves = demo.gates()
>>> f.value
-12.0
>>> print(demo.section("chain"))              # doctest: +ELLIPSIS
== the scalar chain: a, b, c -> d = a*b -> L = d + c ==
%0  a  var               -->   2.0  grad -3.0
%1  b  var               -->  -3.0  grad 2.0
%2  d  multiply(%0, %1)  -->  -6.0  grad 1.0
%3  c  var               -->  10.0  grad 1.0
%4  L  add(%2, %3)       -->   4.0  grad 1.0
forward order (dfs):         a, b, d, c, L
forward order (kahn):        a, b, d, c, L
backward order (reversed):   L, c, d, b, a
backward: L gets 1; the add gate passes 1 to d and c; the mul gate sends d's 1 times b = -3.0 to a and times a = 2.0 to b
finite differences agree to 7e-10
"""

import itertools

import numpy as np

from .. import nn
from .. import numpy as fnp
from ..analysis.paths import best_path
from ..core.errors import ArgumentError
from ..dag.backprop import backprop
from ..dag.leaves import var
from ..dag.order import children, toposort
from ..dag.semiring import semirings, sum_product
from ..io.show import format_value, show
from ..rules.arrays import add_n

__all__ = [
    "gates",
    "shared",
    "chain",
    "micrograd",
    "network",
    "layered_dag",
    "SECTIONS",
    "section",
    "run",
    "finite_difference_error",
    "all_paths",
]


# ---------------------------------------------------------------- builders


def gates(x=-2.0, y=5.0, z=-4.0):
    """f(x, y, z) = (x + y) z; returns ``(f, {"x": x, "y": y, "z": z})``.

    >>> f, v = gates()
    >>> g = backprop(f)
    >>> f.value, g[v["x"]], g[v["y"]], g[v["z"]]
    (-12.0, -4.0, -4.0, 3.0)
    """
    x, y, z = var(x, name="x"), var(y, name="y"), var(z, name="z")
    return (x + y) * z, {"x": x, "y": y, "z": z}


def shared(x=1.0):
    """f(x) = sqrt(x^2 + exp(x^2)) + cos(x^2 + exp(x^2)), each intermediate built once.

    >>> f, v = shared()
    >>> round(f.value, 6), round(backprop(f)[v["x"]], 6)
    (1.090012, 5.983083)
    """
    x = var(x, name="x")
    a = x**2
    b = fnp.exp(a)
    c = a + b  # used twice below: one node, two children
    d = fnp.sqrt(c)
    e = fnp.cos(c)
    return d + e, {"x": x}


def chain(a=2.0, b=-3.0, c=10.0):
    """L = a*b + c; returns ``(L, {"a": a, "b": b, "c": c, "d": d})``.

    >>> L, v = chain()
    >>> g = backprop(L)
    >>> L.value, g[v["d"]], g[v["c"]], g[v["a"]], g[v["b"]]
    (4.0, 1.0, 1.0, -3.0, 2.0)
    """
    a, b, c = var(a, name="a"), var(b, name="b"), var(c, name="c")
    d = a * b
    return d + c, {"a": a, "b": b, "c": c, "d": d}


def micrograd(a=-4.0, b=2.0):
    """The expression of micrograd's README, written with funcgrad nodes.

    >>> g, v = micrograd()
    >>> grads = backprop(g)
    >>> f"{g.value:.4f} {grads[v['a']]:.4f} {grads[v['b']]:.4f}"
    '24.7041 138.8338 645.5773'
    """
    a, b = var(a, name="a"), var(b, name="b")
    c = a + b
    d = a * b + b**3
    c = c + c + 1  # rebinding a name builds a new node; the old one stays in the graph
    c = c + 1 + c + (-a)
    d = d + d * 2 + nn.relu(b + a)
    d = d + 3 * d + nn.relu(b - a)
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    return g, {"a": a, "b": b}


def _network_params():
    rng = np.random.default_rng(0)
    return {
        "x": np.array([0.5, -1.0]),
        "W1": rng.normal(size=(3, 2)).round(2),
        "b1": np.array([0.1, 0.0, -0.1]),
        "W2": rng.normal(size=(3, 3)).round(2),
        "b2": np.zeros(3),
    }


def network(label=2, **values):
    """loss = pnls(W2 tanh(W1 x + b1) + b2, label); returns ``(loss, leaves)``.

    The leaves include the logits and the softmax probabilities, so the closed form
    d pnls / d logits = softmax - e_label can be read off.

    >>> loss, v = network()
    >>> g = backprop(loss)
    >>> bool(np.allclose(g[v["logits"]], v["probs"].value - np.eye(3)[2]))
    True
    """
    params = {**_network_params(), **values}
    leaves = {k: var(np.asarray(v, dtype=float), name=k) for k, v in params.items()}
    h = nn.tanh(fnp.matmul(leaves["W1"], leaves["x"]) + leaves["b1"])
    logits = fnp.matmul(leaves["W2"], h) + leaves["b2"]
    loss = nn.pnls(logits, label)
    return loss, {**leaves, "h": h, "logits": logits, "probs": nn.softmax(logits)}


def layered_dag(layers=6, width=3):
    """A layered DAG: a source, ``layers`` fully connected layers of ``width``, a sink.

    Every node adds its parents (``fg.add_n``), so the value at each node, for
    a source of 1, is the number of paths reaching it from the source. Returns
    ``(sink, source, names)`` with ``names`` mapping each node to ``"s"``,
    ``"t"`` or ``"L<layer><letter>"``.

    >>> t, s, names = layered_dag()
    >>> len(toposort(t)), sum(len(n.args) for n in toposort(t)), t.value
    (20, 51, 729.0)
    """
    s = var(1.0, name="s")
    names = {s: "s"}
    previous = [s]
    for i in range(1, layers + 1):
        layer = [add_n(*previous) for _ in range(width)]
        names.update(
            (n, f"L{i}{'abcdefghijklmnopqrstuvwxyz'[k % 26]}") for k, n in enumerate(layer)
        )
        previous = layer
    t = add_n(*previous)
    names[t] = "t"
    return t, s, names


# ---------------------------------------------------------------- helpers


def finite_difference_error(builder, eps=1e-6, **point):
    """The largest gap between backprop and central differences, over every input entry.

    ``builder(**values)`` returns ``(output, leaves)`` as the builders above do.

    >>> finite_difference_error(gates) < 1e-6
    True
    """
    out, leaves = builder(**point)
    grads = backprop(out)
    base = {k: np.array(leaves[k].value, dtype=float) for k in leaves if leaves[k].op is None}
    worst = 0.0
    for name, value in base.items():
        for idx in np.ndindex(value.shape):
            shifted = []
            for sign in (1.0, -1.0):
                v = value.copy()
                v[idx] += sign * eps
                moved = {
                    **{k: (float(b) if b.ndim == 0 else b) for k, b in base.items()},
                    name: float(v) if v.ndim == 0 else v,
                }
                shifted.append(float(builder(**moved)[0].value))
            numeric = (shifted[0] - shifted[1]) / (2 * eps)
            exact = float(np.asarray(grads[leaves[name]])[idx])
            worst = max(worst, abs(numeric - exact) / max(1.0, abs(exact)))
    return worst


def _children(output):
    return children(toposort(output))


def all_paths(output, source):
    """Every path ``source -> output`` as a list of nodes (exponential: for checks only).

    >>> t, s, _ = layered_dag(layers=3, width=2)
    >>> len(list(all_paths(t, s)))
    8
    """
    kids = _children(output)
    stack = [[source]]
    while stack:
        path = stack.pop()
        if path[-1] is output:
            yield path
            continue
        stack.extend(path + [c] for c in reversed(kids[path[-1]]))


# ---------------------------------------------------------------- sections


def _names(order, labels):
    return ", ".join(labels.get(n) or n.name or f"%{i}" for i, n in enumerate(order))


def _gates_text():
    f, v = gates()
    g = backprop(f)
    x, y, z = v["x"], v["y"], v["z"]
    m = fnp.maximum(x, y)
    gm = backprop(m)
    return "\n".join(
        [
            "== f(x, y, z) = (x + y) * z  at  x = -2, y = 5, z = -4 ==",
            show(f, grads=g),
            f"value {format_value(f.value)};  df/dx = {g[x]}, df/dy = {g[y]}, df/dz = {g[z]}",
            "the add gate %2 hands its gradient (-4 = z) unchanged to both x and y;",
            "the mul gate %4 swaps: z gets x + y = 3, (x + y) gets z = -4.",
            (
                f"max gate: maximum(x, y) = {m.value} routes its gradient to the larger input: "
                f"d/dx = {gm[x]}, d/dy = {gm[y]}"
            ),
            f"finite differences agree to {finite_difference_error(gates):.0e}",
        ]
    )


def _shared_text():
    f, v = shared()
    g = backprop(f)
    x = v["x"]
    dfs, kahn = toposort(f), toposort(f, method="kahn")
    c = 1.0 + np.e
    hand = (0.5 / np.sqrt(c) - np.sin(c)) * 2.0 * (1.0 + np.e)
    paths = sum_product(f, None, semirings.count)[x]
    # Nodes are found by identity: list.index compares with ==, which compares values, and
    # x**2 = 1.0 = x here would be taken for x.
    number = {id(n): i for i, n in enumerate(dfs)}
    return "\n".join(
        [
            "== f(x) = sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))  at  x = 1 ==",
            "a = x**2, b = exp(a), c = a + b, d = sqrt(c), e = cos(c), f = d + e: a and c are shared",
            show(f, grads=g),
            f"df/dx = {g[x]:.6f}; by hand (1/(2 sqrt c) - sin c) * 2x(1 + e^(x^2)) = {hand:.6f}",
            (
                f"{paths} paths lead from x to f; backprop walks each of the {sum(len(n.args) for n in dfs)} "
                f"edges once"
            ),
            f"dfs order:   {' '.join('%' + str(number[id(n)]) for n in dfs)}",
            f"kahn order:  {' '.join('%' + str(number[id(n)]) for n in kahn)}"
            + ("  (the same here)" if [id(n) for n in dfs] == [id(n) for n in kahn] else ""),
            f"finite differences agree to {finite_difference_error(shared):.0e}",
        ]
    )


def _chain_text():
    L, v = chain()
    g = backprop(L)
    labels = {v["d"]: "d", L: "L"}
    order = toposort(L)
    kahn = toposort(L, method="kahn")
    return "\n".join(
        [
            "== the scalar chain: a, b, c -> d = a*b -> L = d + c ==",
            show(L, grads=g, labels=labels),
            f"forward order (dfs):         {_names(order, labels)}",
            f"forward order (kahn):        {_names(kahn, labels)}",
            f"backward order (reversed):   {_names(order[::-1], labels)}",
            (
                "backward: L gets 1; the add gate passes 1 to d and c; the mul gate sends "
                f"d's 1 times b = {g[v['a']]} to a and times a = {g[v['b']]} to b"
            ),
            f"finite differences agree to {finite_difference_error(chain):.0e}",
        ]
    )


def _micrograd_text():
    g, v = micrograd()
    grads = backprop(g)
    order = toposort(g)
    uses = {}
    for n in order:
        for p in n.args:
            uses[p] = uses.get(p, 0) + 1
    reused = sum(1 for n, k in uses.items() if k > 1 and n.op is not None)
    kahn = toposort(g, method="kahn")
    moved = sum(1 for a, b in zip(order, kahn) if a is not b)
    return "\n".join(
        [
            "== micrograd's README expression: relu, **, /, and nodes reused ==",
            "c = a + b; d = a*b + b**3; c = c + c + 1; c = c + 1 + c + (-a)",
            "d = d + d*2 + relu(b + a); d = d + 3*d + relu(b - a); e = c - d; f = e**2",
            "g = f / 2 + 10 / f      at  a = -4, b = 2",
            (
                f"g = {g.value:.4f}   dg/da = {grads[v['a']]:.4f}   dg/db = {grads[v['b']]:.4f}"
                "   (micrograd prints 24.7041, 138.8338, 645.5773)"
            ),
            (
                f"{len(order)} nodes; {reused} intermediate nodes feed more than one child "
                "and each gets the sum of its children's contributions"
            ),
            show(g, grads=grads, limit=10),
            (
                f"the kahn order differs from the dfs order at {moved} of {len(order)} places; "
                "both put every node after its arguments"
            ),
            f"finite differences agree to {finite_difference_error(micrograd):.0e}",
        ]
    )


def _network_text():
    loss, v = network()
    g = backprop(loss)
    closed = v["probs"].value - np.eye(3)[2]
    with np.printoptions(precision=4, suppress=True):  # the caller's options stay theirs
        return "\n".join(
            [
                "== a tiny network: loss = pnls(W2 tanh(W1 x + b1) + b2, label=2) ==",
                "(pnls: the softmax cross-entropy, -log softmax(logits)[label], one primitive)",
                show(loss, grads=g, labels={v["h"]: "h", v["logits"]: "logits", loss: "loss"}),
                f"loss = {loss.value:.6f}",
                f"d loss / d logits = {np.round(g[v['logits']], 4).tolist()}",
                f"softmax(logits) - e_2 = {np.round(closed, 4).tolist()}   (its closed form)",
                f"d loss / d W1 =\n{np.round(g[v['W1']], 4)}",
                f"finite differences agree to {finite_difference_error(network):.0e} (all 26 weights)",
            ]
        )


def _edge_tables(names, kids):
    """Edge weights for the path examples: small integers and, per node, probabilities."""

    def length(parent, child):
        # a fixed, irregular pattern of lengths 1..9 from the two endpoints' names
        return float((sum(map(ord, names[parent])) * 7 + sum(map(ord, names[child])) * 3) % 9 + 1)

    def probability(parent, child):
        # each node splits its probability over its children in proportion to their lengths
        total = sum(length(parent, c) for c in kids[parent])
        return length(parent, child) / total

    return length, probability


def _paths_text(layers=6, width=3):
    t, s, names = layered_dag(layers, width)
    order = toposort(t)
    edges = sum(len(n.args) for n in order)
    count = sum_product(t, None, semirings.count)
    grads = backprop(t)
    length, probability = _edge_tables(names, _children(t))
    shortest = sum_product(t, length, semirings.min_plus)
    likely = sum_product(t, probability, semirings.max_product)
    total = sum_product(t, probability, semirings.real)
    _, short_path = best_path(t, s, length, semirings.min_plus)
    _, likely_path = best_path(t, s, probability, semirings.max_product)
    every = list(all_paths(t, s)) if count[s] <= 100_000 else None

    def path_length(p):
        return sum(length(a, b) for a, b in itertools.pairwise(p))

    def path_prob(p):
        return float(np.prod([probability(a, b) for a, b in itertools.pairwise(p)]))

    lines = [
        (
            f"== a layered DAG: a source, {layers} layers of {width}, a sink: "
            f"{len(order)} nodes, {edges} edges =="
        ),
        "each node adds its parents, so with s = 1 a node's value counts the paths from s to it;",
        "the count semiring folds the other way and counts the paths from each node to t:",
        show(t, grads=count, labels=names, limit=12).replace("grad", "paths to t"),
        f"paths s -> t: {count[s]} = {width}^{layers}, found in one pass over {edges} edges;",
        (
            f"backprop gives dt/ds = {format_value(grads[s])}: with every local derivative 1, "
            "the real semiring counts too"
        ),
        f"shortest path (min_plus, edge lengths 1..9): {shortest[s]:g} via "
        + " -> ".join(names[n] for n in short_path),
        f"most probable path (max_product): {likely[s]:.6f} via "
        + " -> ".join(names[n] for n in likely_path),
        f"total probability over all paths (real semiring): {total[s]:.6f}",
    ]
    if every is not None:
        ok = (
            len(every) == count[s]
            and min(map(path_length, every)) == shortest[s]
            and np.isclose(max(map(path_prob, every)), likely[s])
        )
        lines.append(
            f"checked by enumerating all {len(every)} paths: "
            + ("they agree" if ok else "MISMATCH")
        )
    return "\n".join(lines)


SECTIONS = {
    "gates": _gates_text,
    "shared": _shared_text,
    "chain": _chain_text,
    "micrograd": _micrograd_text,
    "network": _network_text,
    "paths": _paths_text,
}


def section(name, **options):
    """The text of one demo section (see the module docstring for the names)."""
    try:
        make = SECTIONS[name]
    except KeyError:
        raise ArgumentError(
            f"no demo section {name!r}; choose from {', '.join(SECTIONS)}"
        ) from None
    with np.printoptions(precision=4, suppress=True):
        return make(**options)


def run(names=None, write=print):
    """Write the chosen sections (all by default), separated by blank lines.

    >>> lines = []
    >>> run(["gates"], write=lines.append)
    >>> lines[0].splitlines()[0]
    '== f(x, y, z) = (x + y) * z  at  x = -2, y = 5, z = -4 =='
    """
    for k, name in enumerate(names or SECTIONS):
        write(("\n" if k else "") + section(name))
