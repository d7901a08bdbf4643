"""``fg.explore``: a graph, its two orderings and its reverse folds, as a page to step through.

The page is the idea of funcgrad made visible. It draws the DAG, then walks
the forward order (DFS post-order or Kahn's, as chosen) node by node, then the
reverse fold: the node being folded is highlighted, the edges to its parents
carry its contributions, and the gradient map gains the node's entry, which is
complete at that moment because every child has already been folded. A
selector replays the same fold over other semirings: the number of paths to
the output, whether the output is reachable, and the best path with its
back-pointers.

Every number on the page is computed here, by funcgrad's own orderings and
its one reverse fold (:func:`funcgrad.dag.fold.fold_back`), recording what each
node sends to its parents; the page only replays them. It is one
self-contained HTML file (no network, no CDN) whose script and style are in
``funcgrad/io/page/``; the graph's data is embedded as JSON, and labels reach
the page as text, never as markup or code.

>>> import funcgrad as fg
>>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
>>> page = fg.explore((x + y) * x)
>>> page
<Explorer: 4 nodes, 4 edges; folds gradient, paths, reachable, best; save(path) writes the page>
>>> page.folds["gradient"]["values"][page.number[x]], page.folds["paths"]["values"][page.number[x]]
(['1.0', '1.0'], ['2', '2'])
>>> text = page.html()                       # one file: nothing loaded from elsewhere
>>> "<script>" in text, "<script src" in text, "<link" in text
(True, False, False)
"""

import html
import json
import math
import os
import re
import shutil
import subprocess
from importlib import resources
from typing import Any

import numpy as np

from ..analysis.paths import best_path_fold
from ..core.errors import ArgumentError, ArgumentTypeError, GraphvizNotFound
from ..core.values import format_value, ones_like_value, raw
from ..dag.backprop import add_cotangents, vjp_step
from ..dag.fold import fold_back
from ..dag.node import VAR, Leaf
from ..dag.order import check_outputs, dfs_order, kahn_order
from ..dag.semiring import Semiring, path_step, semirings
from ..transforms.arguments import int_argument
from .show import run_dot

__all__ = ["explore", "Explorer"]

LIMIT = 1000
"""Graphs of more nodes than this are shown as a summary with search, not drawn."""

DOT_NODES = 300
"""``layout="auto"`` asks Graphviz to lay out graphs up to this size; dot's time grows
quickly past it (a 1,000-node chain whose input feeds every level takes over two minutes),
so larger graphs are laid out by the page, in layers."""

_BEST = (semirings.max_plus, semirings.min_plus, semirings.max_product)
_FULL_CHARS = 4000


def explore(
    *outputs: Any,
    grads: Any = None,
    semiring: Any = None,
    weight: Any = None,
    source: Any = None,
    labels: Any = None,
    limit: int = LIMIT,
    layout: str = "auto",
) -> "Explorer":
    """An interactive page of the graph below ``outputs``: its orders and reverse folds.

    The result displays itself in Jupyter and writes a self-contained HTML
    file with :meth:`Explorer.save`. The page offers four folds:

    - ``gradient``: backprop, the real semiring with local derivatives as edge
      weights. Each output is seeded with its entry of ``grads`` (a map from
      :func:`fg.backprop <funcgrad.backprop>`, whose seed it reuses) or with ones;
    - ``paths``: the number of paths from each node to an output;
    - ``reachable``: whether an output depends on the node;
    - ``best``: the best path to an output under ``max_plus`` (by default each
      edge weighs 1: the longest path), with each node's back-pointer, and the
      best path from ``source`` (default: the first variable) highlighted.

    ``semiring`` picks the fold shown first: ``fg.semirings.count``,
    ``boolean``, one of the selective ``max_plus``/``min_plus``/``max_product``
    (the best path, with edge weights ``weight(parent, child)``), or any other
    :class:`~funcgrad.Semiring`, which is added as a fold of its own. ``labels``
    names nodes as in :func:`fg.show <funcgrad.show>`. Graphs of more than
    ``limit`` nodes become a summary with a search box. ``layout``: ``"dot"``
    (Graphviz's layout), ``"layered"`` (the page's own) or ``"auto"`` (dot where
    it is installed, for graphs of up to ``DOT_NODES`` = 300 nodes).

    >>> import funcgrad as fg
    >>> x, y, z = fg.var(-2.0, name="x"), fg.var(5.0, name="y"), fg.var(-4.0, name="z")
    >>> f = (x + y) * z
    >>> page = fg.explore(f, layout="layered")
    >>> [page.folds["gradient"]["values"][page.number[v]][0] for v in (x, y, z)]
    ['-4.0', '-4.0', '3.0']
    >>> page.orders["kahn"] == [page.number[n] for n in fg.toposort(f, method="kahn")]
    True
    """
    return Explorer(outputs, grads, semiring, weight, source, labels, limit, layout)


class Explorer:
    """The page of :func:`explore`: ``html()`` is its text, ``save(path)`` writes it.

    Its data is public for programs and tests: ``nodes`` (in DFS order, which
    numbers them), ``number`` (node -> its number), ``orders`` (``"dfs"`` and
    ``"kahn"``, as lists of numbers) and ``folds`` (per fold: each reached
    node's value as ``[short, full]`` text, what each node sends to its parents,
    and for the best path the back-pointers and the path from the source).
    """

    def __init__(self, outputs, grads, semiring, weight, source, labels, limit, layout):
        outputs = check_outputs(outputs, "explore")
        limit = int_argument(
            limit, "explore", "limit must be an int", "limit must be at least 1", 1
        )
        if layout not in ("auto", "dot", "layered"):
            raise ArgumentError(
                f"explore: layout must be 'auto', 'dot' or 'layered'; got {layout!r}"
            )
        if semiring is not None and not isinstance(semiring, Semiring):
            raise ArgumentTypeError(
                f"explore: semiring must be a fg.Semiring such as "
                f"fg.semirings.count; got {semiring!r}"
            )
        if weight is not None and not callable(weight):
            raise ArgumentTypeError(
                f"explore: weight must be a function weight(parent, child); got {weight!r}"
            )
        order = dfs_order(outputs)
        self.outputs = outputs
        self.number = {n: i for i, n in enumerate(order)}
        self.large = len(order) > limit
        self.limit = limit
        self.nodes = [_describe(n, i, self.number, labels) for i, n in enumerate(order)]
        self.orders = {
            "dfs": list(range(len(order))),
            "kahn": [self.number[n] for n in kahn_order(outputs)],
        }
        self.folds = {}
        self.start = "gradient"
        with np.errstate(all="ignore"):
            self._fold_gradient(grads)
            if not self.large:
                self._fold_semirings(semiring, weight, source)
        self.layout = None
        if layout == "dot" and not self.large:
            self.layout = _dot_layout(self.nodes, self.folds, asked=True)
        elif layout == "auto" and len(order) <= DOT_NODES and shutil.which("dot"):
            self.layout = _dot_layout(self.nodes, self.folds, asked=False)

    # -- the folds, recorded ------------------------------------------------------

    def _record(self, name, title, seeds, step, plus, text=None):
        number, sends = self.number, {}
        text = text or _value_text

        def recording(node, m):
            out = list(step(node, m))
            sends[number[node]] = [
                [number[p], *text(c)] for p, c in zip(node._args, out) if c is not None
            ]
            return out

        # a summary page shows no step of the fold: what each node sends is not written
        values, _ = fold_back(seeds, step if self.large else recording, plus, check=False)
        fold = {
            "title": title,
            "values": {number[n]: text(v) for n, v in values.items() if n in number},
            "sends": sends,
        }
        self.folds[name] = fold
        return fold, values

    def _fold_gradient(self, grads):
        seeds = {}
        for out in self.outputs:
            seed = None if grads is None else grads.get(out)
            seeds[out] = ones_like_value(out._value) if seed is None else seed
        self._record(
            "gradient",
            "gradient (backprop: the real semiring, local derivatives)",
            seeds,
            vjp_step,
            add_cotangents,
        )

    def _fold_semirings(self, semiring, weight, source):
        def total(name, title, s, w):
            self._record(name, title, dict.fromkeys(self.outputs, s.one), path_step(s, w), s.plus)

        given = semiring is not None
        total(
            "paths",
            "paths to the output (the count semiring)",
            semirings.count,
            weight if semiring is semirings.count else None,
        )
        total(
            "reachable",
            "reaches the output (the boolean semiring)",
            semirings.boolean,
            weight if semiring is semirings.boolean else None,
        )
        best = semiring if semiring in _BEST else semirings.max_plus
        self._best(best, weight if semiring in _BEST else None, source)
        if semiring is semirings.count:
            self.start = "paths"
        elif semiring is semirings.boolean:
            self.start = "reachable"
        elif semiring in _BEST:
            self.start = "best"
        elif given and not (semiring is semirings.real and weight is None):
            total(
                semiring.name,
                f"{semiring.name} (sum over paths of path products)",
                semiring,
                weight,
            )
            self.start = semiring.name

    def _best(self, semiring, weight, source):
        edges = "each edge weighs 1" if weight is None else "weights given"
        step, plus = best_path_fold(weight or (lambda parent, child: 1.0), semiring, "explore")
        seeds = dict.fromkeys(self.outputs, (semiring.one, None))
        fold, values = self._record(
            "best",
            f"best path to the output ({semiring.name}, {edges}), back-pointers marked",
            seeds,
            step,
            plus,
            text=lambda v: _value_text(v[0]),
        )
        number = self.number
        fold["pointer"] = {number[n]: number[v[1]] for n, v in values.items() if v[1] is not None}
        if source is None:
            source = next((n for n in number if n._prim is VAR), None)
        elif source not in number:
            raise ArgumentError(
                f"explore: source {source!r} is not in the graph below the "
                f"outputs; pass one of its nodes (fg.toposort lists them)"
            )
        path = []
        node = source
        while node is not None and node in values:
            path.append(number[node])
            node = values[node][1]
        fold["path"] = path

    # -- the page -----------------------------------------------------------------

    def data(self):
        """Everything the page shows, as JSON-ready data."""
        return {
            "nodes": self.nodes,
            "orders": self.orders,
            "outputs": [self.number[o] for o in self.outputs],
            "folds": self.folds,
            "start": self.start,
            "layout": self.layout,
            "large": self.large,
            "limit": self.limit,
        }

    def html(self, title="funcgrad explorer"):
        """The page: one HTML document with its script, style and data inside."""
        page = resources.files(__package__).joinpath("page")
        payload = json.dumps(self.data(), separators=(",", ":"), allow_nan=False)
        # The data sits in a <script type="application/json">: no '<' may end it early, and
        # in JSON, '<' appears only inside strings, where \u003c means the same.
        payload = payload.replace("<", "\\u003c")
        parts = {
            "title": html.escape(title),
            "data": payload,
            "style": page.joinpath("explorer.css").read_text(),
            "script": page.joinpath("explorer.js").read_text(),
        }
        # one pass, so that no part's text is read as a placeholder
        return re.sub(
            r"\{\{(\w+)\}\}",
            lambda m: parts[m.group(1)],
            page.joinpath("explorer.html").read_text(),
        )

    def save(self, path, title="funcgrad explorer"):
        """Write the page to ``path`` (a file name or path); return the path."""
        with open(os.fspath(path), "w", encoding="utf-8") as fh:
            fh.write(self.html(title))
        return path

    def _repr_html_(self):
        # An iframe keeps the page's script and style apart from the notebook's.
        return (
            f'<iframe srcdoc="{html.escape(self.html())}" style="width:100%;height:640px;'
            f'border:1px solid #ddd" sandbox="allow-scripts"></iframe>'
        )

    def __repr__(self):
        edges = sum(len(n["args"]) for n in self.nodes)
        return (
            f"<Explorer: {len(self.nodes)} nodes, {edges} edges; folds "
            f"{', '.join(self.folds)}; save(path) writes the page>"
        )


# -- nodes and values as text ------------------------------------------------------


def _value_text(v):
    """``[short, full]`` text of a value: a number, an array, a count or a truth."""
    v = raw(v)
    if isinstance(v, (bool, np.bool_)):
        text = "true" if v else "false"
        return [text, text]
    if isinstance(v, int):
        return [str(v), str(v)]
    if isinstance(v, float) and math.isinf(v):
        return [repr(v), repr(v)]
    short = format_value(v)
    if isinstance(v, np.ndarray) and v.ndim:
        full = f"{v.dtype} array of shape {v.shape}\n" + np.array2string(
            v, threshold=400, max_line_width=78, precision=8
        )
    elif type(v) is tuple:
        full = "\n".join(_value_text(p)[1] for p in v)
    else:
        full = repr(v.item() if isinstance(v, np.generic) else v)
    return [short, full[:_FULL_CHARS]]


def _describe(node, i, number, labels):
    prim = node._prim
    leaf = type(prim) is Leaf
    name = (labels or {}).get(node) or node._name or ""
    v = raw(node._value)
    shape = getattr(v, "shape", ())
    return {
        "id": i,
        "op": prim.name,
        "name": str(name)[:60],
        "leaf": leaf,
        "args": [number[a] for a in node._args],
        "value": _value_text(v),
        "shape": str(tuple(shape)),
        "dtype": str(getattr(v, "dtype", type(v).__name__)),
    }


# -- Graphviz's layout -------------------------------------------------------------


def _dot_label(node, folds):
    widest = max((len(f["values"].get(node["id"], [""])[0]) for f in folds.values()), default=0)
    lines = [
        f"%{node['id']} {node['name']} {node['op']}".replace("  ", " "),
        node["value"][0],
        "0" * max(widest, 1),
    ]
    return "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)


def _dot_layout(nodes, folds, asked):
    """Positions from ``dot -Tplain``: per node its centre and size, per edge its spline, in
    points with y growing downwards (as the page draws). Where dot fails, or takes more than
    ten seconds when the layout was not ``asked`` for (``layout="auto"``), None: the page lays the
    graph out itself."""
    if shutil.which("dot") is None:
        raise GraphvizNotFound(
            "explore(layout='dot') needs Graphviz's 'dot' program on the "
            "PATH; install Graphviz or pass layout='layered'"
        )
    lines = [
        "digraph G {",
        "graph [rankdir=TB, nodesep=0.3, ranksep=0.4];",
        'node [shape=box, fontname="Helvetica", fontsize=11, margin="0.14,0.05", height=0.75];',
    ]
    lines += [f'n{n["id"]} [label="{_dot_label(n, folds)}"];' for n in nodes]
    lines += [f"n{a} -> n{n['id']};" for n in nodes for a in n["args"]]
    timeout = 120 if asked else 10
    try:
        plain = run_dot("\n".join(lines + ["}"]), "plain", timeout=timeout)
    except subprocess.TimeoutExpired:
        if not asked:
            return None
        raise GraphvizNotFound(
            f"explore: Graphviz took over {timeout} s to lay out {len(nodes)} "
            f"nodes; pass layout='layered' to let the page do it"
        ) from None
    except RuntimeError:  # dot refused the graph: the page lays it out itself
        return None
    boxes, splines, height = {}, {}, 0.0
    for row in plain.decode().splitlines():
        parts = row.split()
        if parts[0] == "graph":
            height = float(parts[3]) * 72
        elif parts[0] == "node":
            x, y, w, h = (float(p) * 72 for p in parts[2:6])
            boxes[int(parts[1][1:])] = [x, height - y, w, h]
        elif parts[0] == "edge":
            k = int(parts[3])
            points = [float(p) * 72 for p in parts[4 : 4 + 2 * k]]
            points[1::2] = [height - y for y in points[1::2]]
            splines.setdefault(f"{parts[1][1:]}-{parts[2][1:]}", []).append(points)
    return {"boxes": boxes, "splines": splines}
