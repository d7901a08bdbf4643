"""Seeing a graph: a short repr, a program-like listing, and Graphviz source.

Nothing here walks more than it prints: a node's repr reads only the node and
its parents, and listings of huge graphs keep their head and tail. One
numbering scheme: a listing numbers nodes by position (``%0``, ``%1``, ...) in
its own order; a repr numbers nothing (it names parents by name, constant
value or op), so reprs do not change from run to run and users' doctests can
show them.

Importing this module installs how a node prints (``repr``) and draws in
Jupyter (``_repr_svg_``), so that :mod:`funcgrad.dag.node` needs no pictures.
"""

import os
import shutil
import subprocess
from html import escape
from typing import Any

from ..analysis import facts
from ..control.body import Body
from ..core.errors import ArgumentError, ArgumentTypeError, GraphvizNotFound
from ..core.values import format_value
from ..dag.node import Leaf, Node, arg_list
from ..dag.order import check_outputs, toposort
from ..transforms.arguments import int_argument

__all__ = [
    "show",
    "Listing",
    "to_dot",
    "to_svg",
    "render",
    "GraphvizNotFound",
    "node_repr",
    "format_value",
]


def node_repr(node):
    """``<Node op(parent, ...) = value>``, parents by :func:`~funcgrad.dag.node.short_label`.

    >>> import funcgrad as fg
    >>> x = fg.var(2.0, name="x")
    >>> x, x * x + 1.0
    (<Node var x = 2.0>, <Node add(multiply(...), 1.0) = 5.0>)
    """
    prim = node._prim
    if type(prim) is Leaf:
        label = prim.name + (f" {node._name}" if node._name else "")
    else:
        named = f"{node._name}: " if node._name else ""
        label = f"{named}{prim.name}({arg_list(node._args)})"
    return f"<Node {label} = {format_value(node._value)}>"


def _label(node, position):
    prim = node._prim
    if type(prim) is Leaf:
        return prim.name
    return f"{prim.name}({arg_list(node._args, lambda a: '%' + str(position[a]))})"


def _name_of(node, labels):
    if labels is not None:
        text = labels.get(node)
        if text is not None:
            return text if len(text) <= 40 else text[:37] + "..."
    return node._name or ""


def _check_grads(grads, who):
    if grads is not None and not hasattr(grads, "get"):
        raise ArgumentTypeError(
            f"{who}: grads must be a map node -> gradient, such as "
            f"fg.backprop(f) returns; got {type(grads).__name__}"
        )


def _rows(order, grads, labels=None, shown=None):
    """One row of text per node, for the positions in ``shown`` (all by default)."""
    position = {n: i for i, n in enumerate(order)}
    for i in range(len(order)) if shown is None else shown:
        n = order[i]
        grad = ""
        if grads is not None:
            g = grads.get(n)
            # a Python int is a path count (the count semiring): print it as one
            grad = "-" if g is None else str(g) if type(g) is int else format_value(g)
        yield (f"%{i}", _name_of(n, labels), _label(n, position), format_value(n._value), grad)


def _show_plans(jitted, limit):
    """The compiled plans of a jitted function, one per input structure seen, each cut to
    its first and last ``limit // 2`` lines when longer."""
    plans = jitted.plans()
    if not plans:
        return (
            "no plan yet: a jitted function is compiled on its first call for each input structure"
        )
    texts = []
    for i, p in enumerate(plans):
        lines = p.source.splitlines()
        if limit is not None and len(lines) > limit:
            half = limit // 2
            lines = (
                lines[:half]
                + [
                    (
                        f"    # ... {len(lines) - 2 * half} more lines not shown "
                        f"(fg.show(f, limit=None) shows all) ..."
                    )
                ]
                + lines[-half:]
            )
        texts.append(f"# plan {i}: {p.n_steps} steps\n" + "\n".join(lines))
    return "\n\n".join(texts)


def _bodies(node):
    """The bodies a loop or branch node holds, each with a title."""
    found = []
    for key, v in (node._params or {}).items():
        for k, b in enumerate(v if isinstance(v, tuple) else (v,)):
            if isinstance(b, Body):
                found.append((f"{key} {k}" if isinstance(v, tuple) else key, b))
    return found


def _body_listing(body, indent):
    """A body's graph as indented lines: its inputs, its steps, which nodes it returns."""
    position = {n: i for i, n in enumerate(body.order)}
    declared = len(body.inputs) - body.n_captured
    names = {
        x: f"in{k}" if k < declared else f"captured{k - declared}"
        for k, x in enumerate(body.inputs)
    }
    returned = {}
    for k, o in enumerate(body.outputs):
        returned.setdefault(o, []).append(f"out{k}")
    rows = []
    for i, n in enumerate(body.order):
        text = f"const {format_value(n._value)}" if n.kind == "const" else _label(n, position)
        rows.append((f"%{i}", names.get(n, ""), text, ", ".join(returned.get(n, []))))
    widths = [max((len(r[k]) for r in rows), default=0) for k in range(3)]
    lines = []
    for n, r in zip(body.order, rows):
        line = f"{indent}{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}"
        lines.append((line + (f"  -> {r[3]}" if r[3] else "")).rstrip())
        for title, inner in _bodies(n):
            lines.append(f"{indent}    {title}: {inner!r}")
            lines.extend(_body_listing(inner, indent + "    | "))
    plain = [f"out{k} = {format_value(o)}" for k, o in enumerate(body.outputs) if o not in position]
    if plain:
        lines.append(f"{indent}returns constants: {', '.join(plain)}")
    return lines


def _show_linear_map(m):
    """A linear map (``fg.linearize``'s, ``fg.linear_transpose``'s): its graph's steps."""
    n_in, n_out = len(m.body.inputs) - m.body.n_captured, len(m.body.outputs)
    head = f"{m.who}: {n_in} input{'s' * (n_in != 1)}, {n_out} output{'s' * (n_out != 1)}"
    return "\n".join([head] + _body_listing(m.body, ""))


def show(
    *outputs: Any,
    grads: Any = None,
    limit: int | None = 60,
    method: str = "dfs",
    labels: Any = None,
) -> "Listing":
    """A listing of the graph, one line per node in topological order.

    Columns: position, name, op with its arguments by position, value and (if
    ``grads`` is given) gradient; ``-`` marks a node with no gradient (a
    constant). Graphs longer than ``limit`` lines keep their first and last
    lines with a note of how many were left out. ``method`` picks the order
    (``"dfs"`` or ``"kahn"``, as in :func:`toposort`); ``labels``, a map
    node -> text, fills the name column (``funcgrad grad`` puts each node's
    source text there). ``%k`` is a position, not a node's id (:func:`~funcgrad.graph`'s
    keys): ``fg.toposort(*outputs, method=method)[k]`` is the node on line ``%k``.

    >>> import funcgrad as fg
    >>> x, y = fg.var(2.0, name="x"), fg.var(-3.0, name="y")
    >>> f = (x + y) * x
    >>> print(fg.show(f, grads=fg.backprop(f)))
    %0  x  var               -->   2.0  grad 1.0
    %1  y  var               -->  -3.0  grad 2.0
    %2     add(%0, %1)       -->  -1.0  grad 2.0
    %3     multiply(%2, %0)  -->  -2.0  grad 1.0
    >>> print(fg.show(f, labels={f: "f"}))
    %0  x  var               -->   2.0
    %1  y  var               -->  -3.0
    %2     add(%0, %1)       -->  -1.0
    %3  f  multiply(%2, %0)  -->  -2.0

    A function compiled with ``fg.jit`` shows the plans it has compiled:

    >>> g = fg.jit(lambda a, b: (a + b) * a)
    >>> g(2.0, -3.0)
    np.float64(-2.0)
    >>> print(fg.show(g))
    # plan 0: 2 steps
    def plan(a0, a1):
        r0 = a0 + a1
        r1 = r0 * a0
        return (r1,)
    """
    return Listing(_listing(outputs, grads, _check_limit(limit, "show"), method, labels))


class Listing(str):
    """What :func:`show` returns: its text, as a ``str`` (equal to the text, printable,
    searchable), that the REPL shows without quotes and Jupyter as preformatted HTML.

    >>> import funcgrad as fg
    >>> listing = fg.show(fg.var(2.0, name="x") * 3.0)
    >>> listing
    %0  x  var               -->  2.0
    %1     const             -->  3.0
    %2     multiply(%0, %1)  -->  6.0
    >>> listing == str(listing), listing._repr_html_().startswith("<pre>")
    (True, True)
    """

    __slots__ = ()

    def __repr__(self):
        return str(self)

    def _repr_html_(self):
        return f"<pre>{escape(str(self))}</pre>"


def _check_limit(limit, who):
    """``limit``: None (everything) or a number of lines of at least 2 (a first and a last)."""
    if limit is None:
        return None
    return int_argument(
        limit,
        who,
        "limit must be an int (lines kept) or None (all)",
        "limit must be at least 2 (the first and the last lines) or None for all",
        2,
    )


def _listing(outputs, grads, limit, method, labels):
    if len(outputs) == 1 and callable(getattr(outputs[0], "plans", None)):
        return _show_plans(outputs[0], limit)
    if len(outputs) == 1 and isinstance(getattr(outputs[0], "body", None), Body):
        return _show_linear_map(outputs[0])
    check_outputs(outputs, "show")
    _check_grads(grads, "show")
    order = toposort(*outputs, method=method)
    skipped = 0
    shown = range(len(order))
    if limit is not None and len(order) > limit:
        head, tail = limit // 2, limit - limit // 2
        skipped = len(order) - limit
        shown = list(range(head)) + list(range(len(order) - tail, len(order)))
    rows = list(_rows(order, grads, labels, shown))  # format only what is printed
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    lines = []
    for k, (i, r) in enumerate(zip(shown, rows)):
        line = (
            f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  -->  "
            f"{r[3]:>{widths[3]}}"
        )
        if grads is not None:
            line += f"  grad {r[4]}"
        lines.append(line.rstrip())
        for title, body in _bodies(order[i]):
            lines.append(f"      {title}: {body!r}")
            lines.extend(_body_listing(body, "      | "))
        if skipped and k == limit // 2 - 1:
            lines.append(f"... {skipped} more nodes not shown (pass limit=None to list them all)")
    return "\n".join(lines)


# ---------------------------------------------------------------- Graphviz

_STYLE = {
    "var": ', style="filled,bold", fillcolor="#dbe9ff"',
    "const": ', style="filled,dashed", fillcolor="#f2f2f2", fontcolor="#555555"',
    "op": "",
}


def _dot_escape(text):
    for ch in '\\{}|<>"':
        text = text.replace(ch, "\\" + ch)
    return text


def to_dot(
    *outputs: Any,
    grads: Any = None,
    limit: int | None = 400,
    method: str = "dfs",
    labels: Any = None,
    backward: bool = False,
) -> str:
    """Graphviz DOT source for the graph: one box per node, shared nodes drawn once.

    Each box shows the topological position, name (or ``labels[node]``), op,
    value and (if given) gradient. Variables are blue, constants grey and
    dashed, outputs bold; an edge into an op whose argument order matters
    (``subtract``, ``divide``, ``power``, ``matmul``...) is numbered by
    argument. ``backward=True`` adds each node's step in the backward order
    (0 is the output). Graphs over ``limit`` nodes are cut to the ``limit``
    nodes nearest the outputs, with a note pointing at the nodes whose
    parents were left out.

    >>> import funcgrad as fg
    >>> x = fg.var(3.0, name="x")
    >>> src = fg.to_dot(x * x)
    >>> src.count("->"), "multiply" in src
    (2, True)
    >>> f = x - 1.0
    >>> print(fg.to_dot(f, grads=fg.backprop(f), backward=True))
    digraph funcgrad {
      rankdir=LR;
      node [shape=record, fontname="monospace", fontsize=10];
      n0 [label="{%0 x | var | value 3.0 | grad 1.0 | backward step 2}", style="filled,bold", fillcolor="#dbe9ff"];
      n1 [label="{%1 | const | value 1.0 | backward step 1}", style="filled,dashed", fillcolor="#f2f2f2", fontcolor="#555555"];
      n2 [label="{%2 | subtract | value 2.0 | grad 1.0 | backward step 0}", penwidth=2];
      n0 -> n2 [label="0", fontsize=8];
      n1 -> n2 [label="1", fontsize=8];
    }
    """
    check_outputs(outputs, "to_dot")
    _check_grads(grads, "to_dot")
    limit = _check_limit(limit, "to_dot")
    order = toposort(*outputs, method=method)
    position = {n: i for i, n in enumerate(order)}
    last = len(order) - 1
    drawn = order[-limit:] if limit is not None and len(order) > limit else order
    drawn_set = set(drawn)
    output_set = set(outputs)
    lines = [
        "digraph funcgrad {",
        "  rankdir=LR;",
        '  node [shape=record, fontname="monospace", fontsize=10];',
    ]
    for n in drawn:
        i = position[n]
        name = _name_of(n, labels)
        fields = [
            f"%{i}" + (f" {name}" if name else ""),
            n.kind if n.op is None else n.op,
            f"value {format_value(n._value)}",
        ]
        if grads is not None:
            g = grads.get(n)
            if g is not None:
                fields.append(f"grad {format_value(g)}")
        if backward:
            fields.append(f"backward step {last - i}")
        style = _STYLE[n.kind] + (", penwidth=2" if n in output_set else "")
        lines.append(f'  n{i} [label="{{{" | ".join(_dot_escape(f) for f in fields)}}}"{style}];')
    for n in drawn:
        lines.extend(_dot_bodies(n, f"n{position[n]}", "  "))
    cut: list = []
    for n in drawn:
        # a primitive whose operands commute needs no argument numbers on its edges
        numbered = len(n._args) > 1 and not facts.of(n._prim).commutative
        for k, a in enumerate(n._args):
            if a in drawn_set:
                attrs = f' [label="{k}", fontsize=8]' if numbered else ""
                lines.append(f"  n{position[a]} -> n{position[n]}{attrs};")
            elif not cut or cut[-1] is not n:
                cut.append(n)
    if len(drawn) < len(order):
        left_out = len(order) - len(drawn)
        lines.append(
            f'  note [shape=note, label="{left_out} earlier nodes not drawn '
            f'(to_dot limit={limit}; pass limit=None to draw all)"];'
        )
        lines.extend(f"  note -> n{position[n]} [style=dashed];" for n in cut)
    lines.append("}")
    return "\n".join(lines)


def _dot_bodies(node, node_id, indent):
    """A loop or branch node's bodies as Graphviz clusters, each joined to the node."""
    lines = []
    for title, body in _bodies(node):
        cid = f"{node_id}_{title.replace(' ', '')}"
        position = {n: i for i, n in enumerate(body.order)}
        lines += [
            f"{indent}subgraph cluster_{cid} {{",
            (
                f'{indent}  label="{_dot_escape(title)}: {_dot_escape(body.who)}"; '
                f'style=dashed; color="#888888";'
            ),
        ]
        for n, i in position.items():
            kind = n.kind if n.op is None else n.op
            lines.append(
                f'{indent}  {cid}_{i} [label="{{%{i} | {_dot_escape(kind)}}}"{_STYLE[n.kind]}];'
            )
            lines.extend(_dot_bodies(n, f"{cid}_{i}", indent + "  "))
        for n, i in position.items():
            lines.extend(f"{indent}  {cid}_{position[a]} -> {cid}_{i};" for a in n._args)
        lines.append(f"{indent}}}")
        lines.extend(
            f"{indent}{cid}_{position[o]} -> {node_id} [style=dotted];"
            for o in dict.fromkeys(body.outputs)
            if o in position
        )
    return lines


def _dot_program():
    path = shutil.which("dot")
    if path is None:
        raise GraphvizNotFound(
            "drawing needs Graphviz's 'dot' program, which is not on the PATH; install "
            "Graphviz (Debian/Ubuntu: apt-get install graphviz, macOS: brew install "
            "graphviz) or write the DOT source with fg.to_dot / funcgrad grad --dot FILE"
        )
    return path


def to_svg(*outputs: Any, **options: Any) -> str:
    """The graph drawn by Graphviz as SVG text (options as for :func:`to_dot`).

    >>> import funcgrad as fg
    >>> x = fg.var(2.0, name="x")
    >>> svg = fg.to_svg(x * x + 1.0)
    >>> svg.startswith("<?xml") and "multiply" in svg
    True
    """
    return run_dot(to_dot(*outputs, **options), "svg").decode()


def run_dot(src, fmt, timeout=120):
    """Graphviz's ``dot -T<fmt>`` of the DOT source ``src``: its output bytes (a
    RuntimeError if dot refuses the graph, subprocess.TimeoutExpired after ``timeout`` s)."""
    done = subprocess.run(
        [_dot_program(), f"-T{fmt}"], input=src.encode(), capture_output=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"Graphviz's dot could not draw the graph: "
            f"{done.stderr.decode(errors='replace').strip()}"
        )
    return done.stdout


def render(
    outputs: Any, path: Any, grads: Any = None, format: str | None = None, **options: Any
) -> Any:
    """Draw the graph of ``outputs`` (a node or a tuple of nodes) into the file ``path``.

    The format comes from ``format`` or the file's suffix: ``svg``, ``png``,
    ``pdf`` or ``dot`` (the source itself, no Graphviz needed). Other options
    are those of :func:`to_dot`. Returns ``path``. Without Graphviz's ``dot``
    program, raises :class:`GraphvizNotFound` naming what to install.

    >>> import os, pathlib, tempfile
    >>> import funcgrad as fg
    >>> from funcgrad.io.show import render, GraphvizNotFound
    >>> x = fg.var(3.0, name="x")
    >>> path = os.path.join(tempfile.mkdtemp(), "square.svg")
    >>> try:
    ...     drawn = render(x * x, path, grads=fg.backprop(x * x))
    ...     print(pathlib.Path(drawn).read_text().count('class="node"'))
    ... except GraphvizNotFound as err:          # no Graphviz: the error names it
    ...     print(2 if "apt-get install graphviz" in str(err) else err)
    2
    """
    outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    fmt = (format or os.path.splitext(str(path))[1].lstrip(".") or "svg").lower()
    if fmt not in ("svg", "png", "pdf", "dot", "gv"):
        raise ArgumentError(
            f"render: cannot write format {fmt!r}; use a path ending in "
            f".svg, .png, .pdf or .dot (or pass format=)"
        )
    src = to_dot(*outputs, grads=grads, **options)
    if fmt in ("dot", "gv"):
        with open(path, "w") as fh:
            fh.write(src + "\n")
        return path
    data = run_dot(src, fmt)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def _node_svg(node):
    """Jupyter draws a node as its graph (through Graphviz, when installed)."""
    try:
        return to_svg(node)
    except GraphvizNotFound:
        return None  # Jupyter falls back to the text repr


# Installed from here so that the core never imports pictures (setattr: mypy checks the class
# as written in node.py).
setattr(Node, "__repr__", node_repr)
setattr(Node, "_repr_svg_", _node_svg)
