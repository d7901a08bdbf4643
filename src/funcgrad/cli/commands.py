"""The ``funcgrad`` command (also ``python -m funcgrad``).

    funcgrad grad EXPR [--at NAME=VALUE ...] [--order dfs|kahn]
                       [--dot FILE] [--svg FILE] [--png FILE] [--draw FILE]
    funcgrad explain EXPR [--at NAME=VALUE ...]
    funcgrad explore EXPR [--at NAME=VALUE ...] --html FILE
    funcgrad demo [SECTION ...]
    funcgrad --version

``grad`` parses EXPR with funcgrad's own parser (:mod:`funcgrad.io.expr`; the
text is never evaluated as Python), builds its graph at the given point and
prints the value, every partial derivative, the listing of the graph and the
forward and backward orders. ``explain`` says why a partial derivative is
NaN, infinite or zero there (:func:`funcgrad.explain`) and what in the graph
will make gradients go wrong (:func:`funcgrad.lint`). ``explore`` writes the
page of :func:`funcgrad.explore`: the graph, its orders and its folds, to step
through in a browser. ``demo`` prints the worked examples.

Exit status: 0 on success, 2 on bad input (the message points at the
offending part of EXPR with a caret), 1 when the input was fine but an output
could not be made (Graphviz missing, a file that cannot be written).

>>> main(["grad", "x * y", "--at", "x=3", "--at", "y=-2"])   # doctest: +ELLIPSIS
f(x, y) = x * y   at x = 3.0, y = -2.0
value  -6.0
df/dx = -2.0
df/dy = 3.0
...
0
"""

import argparse
import importlib.metadata
import os
import re
import sys
import textwrap

import numpy as np

from ..analysis.explain import explain
from ..analysis.lint import lint
from ..dag.backprop import backprop
from ..io.explore import explore
from ..io.expr import CONSTANTS, FUNCTIONS, ExprError, build
from ..io.show import GraphvizNotFound, render, show, to_dot
from .demo import SECTIONS, run

__all__ = ["main", "parser"]

_OPTIONS_WITH_VALUE = ("--at", "--order", "--dot", "--svg", "--png", "--draw", "--html")

_GRAD_EPILOG = """\
EXPR uses numbers, variable names, + - * / ** (right-associative, as in
Python), unary minus, parentheses, the constants {constants} and these functions:
  {functions}
Quote EXPR in the shell. Example:
  funcgrad {command} "sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))" --at x=1
Exit status: 0 success, 1 an output could not be written, 2 bad input."""


class _Parser(argparse.ArgumentParser):
    """argparse with exit status 2 and a hint, never a traceback."""

    def error(self, message, hint=""):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n{hint}(run '{self.prog} --help' for help)\n")


_TAKES_EXPR = ("grad", "explain", "explore")


def parser():
    """The argument parser of the ``funcgrad`` command.

    >>> parser().parse_args(["grad", "x*x", "--at", "x=2"]).at
    ['x=2']
    """
    top = _Parser(
        prog="funcgrad", description="funcgrad: reverse-mode autodiff, on the command line."
    )
    top.add_argument("--version", action="version", version=f"funcgrad {_version()}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    g = _expr_parser(
        sub,
        "grad",
        "differentiate a formula at a point",
        "Evaluate EXPR at a point and print its value, every partial derivative, "
        "its graph and the forward and backward orders.",
    )
    g.add_argument(
        "--order",
        choices=("dfs", "kahn"),
        default="dfs",
        help="topological order to list and to backpropagate in (default dfs)",
    )
    g.add_argument(
        "--dot", metavar="FILE", help="write the graph with values and gradients as Graphviz DOT"
    )
    g.add_argument(
        "--svg", metavar="FILE", help="draw the graph as SVG (needs Graphviz's dot program)"
    )
    g.add_argument(
        "--png", metavar="FILE", help="draw the graph as PNG (needs Graphviz's dot program)"
    )
    g.add_argument(
        "--draw",
        metavar="FILE",
        help="draw the graph in the format its name ends in: .svg, .png, .pdf or .dot",
    )
    _expr_parser(
        sub,
        "explain",
        "say why a derivative is NaN, infinite or zero",
        "Evaluate EXPR at a point and explain every partial derivative that is NaN, "
        "infinite or zero (where it began, the path it took, the usual fix), then "
        "list what in the graph makes gradients go wrong.",
    )
    e = _expr_parser(
        sub,
        "explore",
        "write a page that steps through the graph and its folds",
        "Build EXPR's graph at a point and write one self-contained HTML page "
        "(fg.explore) that walks its DFS or Kahn order, then the reverse fold, "
        "over the real semiring (gradients) or the others (path counts, "
        "reachability, the best path).",
    )
    e.add_argument("--html", metavar="FILE", help="the page to write (open it in any browser)")
    d = sub.add_parser(
        "demo",
        help="walk through the worked examples",
        description="Print the worked examples: values, orders and gradients.",
    )
    d.add_argument(
        "sections",
        nargs="*",
        metavar="SECTION",
        help=f"only these sections, out of: {', '.join(SECTIONS)}",
    )
    return top


def _version():
    try:
        return importlib.metadata.version("funcgrad")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "(not installed)"


def _expr_parser(sub, name, summary, description):
    """A subcommand reading a formula and a point: EXPR and --at."""
    p = sub.add_parser(
        name,
        help=summary,
        description=description,
        allow_abbrev=False,
        epilog=_GRAD_EPILOG.format(
            command=name,
            constants=", ".join(sorted(CONSTANTS)),
            functions=textwrap.fill(", ".join(sorted(FUNCTIONS)), 76, subsequent_indent="  "),
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("expr", metavar="EXPR", nargs="?", help='the formula, e.g. "(x + y) * z"')
    p.add_argument(
        "--at",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="the value of one variable (repeat for each variable)",
    )
    return p


def _take_dash_expr(argv):
    """Take out an EXPR that starts with '-' ("-x**2"), which argparse would read as an option."""
    if not argv or argv[0] not in _TAKES_EXPR:
        return argv, None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return argv, None
        if a in _OPTIONS_WITH_VALUE:
            i += 2
            continue
        if a.startswith("-") and len(a) > 1 and not a.startswith("--") and a not in ("-h",):
            return argv[:i] + argv[i + 1 :], a
        i += 1
    return argv, None


class _BadInput(Exception):
    """A problem with the command line itself: printed, exit status 2."""


_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")


def _read_point(pairs):
    values = {}
    for pair in pairs:
        name, eq, text = pair.partition("=")
        name = name.strip()
        if not eq or not _NAME.match(name):
            raise _BadInput(f"--at {pair!r}: expected NAME=VALUE, e.g. --at x=2.0")
        try:
            value = float(text)
        except ValueError:
            raise _BadInput(
                f"--at {pair!r}: {text.strip()!r} is not a number; "
                f"give a value such as --at {name}=0.5"
            ) from None
        if name in values:
            raise _BadInput(
                f"--at {name} is given twice ({values[name]} and {value}); give it once"
            )
        values[name] = value
    return values


def _fmt(v):
    v = float(v)
    return repr(v) if len(repr(v)) <= 12 else f"{v:.10g}"


_ORDER_SHOWN = 40  # a longer order lists its first and last nodes, with a count between


def _order_text(order, labels):
    def item(n):
        label = labels.get(n, "?")
        if len(label) > 30:
            label = label[:27] + "..."
        return label if _NAME.match(label) or re.fullmatch(r"[\d.eE+-]+", label) else f"[{label}]"

    if len(order) <= _ORDER_SHOWN:
        return ", ".join(map(item, order))
    half = _ORDER_SHOWN // 2
    return (
        ", ".join(map(item, order[:half]))
        + f", ... {len(order) - 2 * half} more ..., "
        + ", ".join(map(item, order[-half:]))
    )


def _wrapped(title, text):
    return textwrap.fill(
        text,
        100,
        initial_indent=title,
        subsequent_indent=" " * len(title),
        break_long_words=False,
        break_on_hyphens=False,
    )


def _non_finite_notes(order, grads, labels):
    """Where a value or gradient first stops being finite, in words."""
    notes = []
    for n in order:
        if np.all(np.isfinite(n.value)):
            continue
        if not n.args:
            notes.append(
                f"note: {labels.get(n, n.kind)} = {_fmt(n.value)} at this point, so every "
                f"value that depends on it is not finite either"
            )
        elif all(np.all(np.isfinite(a.value)) for a in n.args):
            notes.append(
                f"note: {labels.get(n, n.op)} = {_fmt(n.value)} although its arguments are "
                f"finite (outside {n.op}'s domain, or an overflow)"
            )
    for n in order:
        g = grads.get(n)
        if g is not None and not np.all(np.isfinite(g)):
            notes.append(
                f"note: the gradient at {labels.get(n, n.op)} is {_fmt(g)}; the derivative "
                f"is not finite at this point"
            )
            break
    return notes


def _built(args, method="dfs"):
    """The graph of EXPR at the point given by --at."""
    if args.expr is None:
        raise _BadInput(
            f'{args.command} needs EXPR, e.g. funcgrad {args.command} "x * y" --at x=2 --at y=3'
        )
    values = _read_point(args.at)
    built = build(args.expr, values, method=method)
    extra = [n for n in values if n not in built.variables and n not in CONSTANTS]
    if extra:
        known = ", ".join(built.variables) if built.variables else "none"
        raise _BadInput(
            f"--at {extra[0]}=...: EXPR has no variable {extra[0]!r} "
            f"(its variables: {known}); remove it or check the spelling"
        )
    return built


def _explain(args, out):
    built = _built(args)
    if not built.variables:
        raise _BadInput("EXPR has no variables, so there is no derivative to explain")
    with np.errstate(all="ignore"):
        report = explain(built.output)
        findings = lint(built.output)
    print(report, file=out)
    if findings:
        print("\nwhat in the graph makes gradients go wrong (fg.lint):", file=out)
        for finding in findings:
            print(_wrapped("  ", str(finding)), file=out)
    return 0


_FORMATS = {"svg": "--svg", "png": "--png", "pdf": "--draw", "dot": "--dot", "gv": "--dot"}


def _drawings(args):
    """(path, format) for each drawing asked for; a name whose suffix names another format
    than its option is refused rather than written with the wrong bytes."""
    asked = []
    for option, path, fmt in (
        ("--dot", args.dot, "dot"),
        ("--svg", args.svg, "svg"),
        ("--png", args.png, "png"),
        ("--draw", args.draw, None),
    ):
        if path is None:
            continue
        suffix = os.path.splitext(path)[1].lstrip(".").lower()
        if fmt is None:
            if suffix not in _FORMATS:
                raise _BadInput(
                    f"--draw {path}: cannot tell the format from the name; end it in "
                    f".svg, .png, .pdf or .dot"
                )
            fmt = suffix
        elif suffix in _FORMATS and _FORMATS[suffix] != option:
            raise _BadInput(
                f"{option} {path}: the name ends in .{suffix} but {option} writes "
                f"{fmt.upper()}; use {_FORMATS[suffix]} {path}, or --draw {path}"
            )
        asked.append((path, "dot" if fmt == "gv" else fmt))
    return asked


def _explore(args, out, err):
    if args.html is None:
        raise _BadInput(
            "explore needs --html FILE, the page to write, e.g. funcgrad explore "
            '"(x + y) * z" --at x=-2 --at y=5 --at z=-4 --html page.html'
        )
    built = _built(args)
    page = explore(built.output, labels=built.labels)
    try:
        page.save(args.html, title=f"funcgrad explore: {' '.join(args.expr.split())}")
    except OSError as e:
        print(f"funcgrad explore: error: cannot write {args.html}: {e.strerror or e}", file=err)
        return 1
    print(
        f"wrote {args.html}: {len(page.nodes)} nodes; open it in a browser and step with "
        f"the arrow keys",
        file=out,
    )
    return 0


def _grad(args, out, err):
    text = args.expr
    built = _built(args, method=args.order)
    drawings = _drawings(args)
    names = list(built.variables)
    with np.errstate(all="ignore"):
        try:
            grads = backprop(built.output, method=args.order)
        except ArithmeticError as e:
            raise _BadInput(
                f"the derivatives cannot be computed at this point ({e} in a "
                f"derivative rule); choose a point where EXPR is differentiable"
            ) from None
    f, labels, order = built.output, built.labels, built.order
    point = ", ".join(f"{n} = {_fmt(v.value)}" for n, v in built.variables.items())
    print(
        f"f({', '.join(names)}) = {' '.join(text.split())}" + (f"   at {point}" if point else ""),
        file=out,
    )
    print(f"value  {_fmt(f.value)}", file=out)
    for n in names:
        print(f"df/d{n} = {_fmt(grads[built.variables[n]])}", file=out)
    for note in _non_finite_notes(order, grads, labels):
        print(note, file=out)
    print(
        f"\ngraph in {args.order} order ({len(order)} nodes; equal subexpressions are one node):",
        file=out,
    )
    print(show(f, grads=grads, method=args.order, labels=labels, limit=80), file=out)
    title = f"forward order ({args.order}):  "
    print(_wrapped(title, _order_text(order, labels)), file=out)
    print(_wrapped("backward order:".ljust(len(title)), _order_text(order[::-1], labels)), file=out)
    options = {"grads": grads, "method": args.order, "labels": labels, "backward": True}
    for path, fmt in drawings:
        try:
            if fmt == "dot":
                with open(path, "w") as fh:
                    fh.write(to_dot(f, **options) + "\n")
            else:
                render(f, path, format=fmt, **options)
        except GraphvizNotFound as e:
            print(f"funcgrad grad: error: {path}: {e}", file=err)
            return 1
        except OSError as e:
            print(f"funcgrad grad: error: cannot write {path}: {e.strerror or e}", file=err)
            return 1
        print(f"wrote {path}", file=out)
    return 0


def main(argv=None):
    """Run the ``funcgrad`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    >>> from funcgrad.cli import main
    >>> main(["grad", "x +* 2", "--at", "x=1"])
    2
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    out, err = sys.stdout, sys.stderr
    argv, dash_expr = _take_dash_expr(argv)
    try:
        top = parser()
        args, extra = top.parse_known_args(argv)
        if extra:
            hint = ""
            if args.command in _TAKES_EXPR:
                # `funcgrad grad x * y`: the shell split the formula (and expanded * into file names)
                hint = (
                    f"hint: EXPR is one argument; quote it in the shell, e.g. "
                    f'funcgrad {args.command} "x * y" --at x=2 --at y=3\n'
                )
            top.error(f"unrecognized arguments: {' '.join(extra)}", hint)
    except SystemExit as done:  # --help (0) or a usage error (2), already printed
        return done.code if isinstance(done.code, int) else 2
    if dash_expr is not None:
        if args.expr is not None:
            print(
                f"funcgrad grad: error: two formulas given ({dash_expr!r} and {args.expr!r}); "
                f"give one",
                file=err,
            )
            return 2
        args.expr = dash_expr
    try:
        if args.command == "demo":
            unknown = [s for s in args.sections if s not in SECTIONS]
            if unknown:
                raise _BadInput(
                    f"no demo section {unknown[0]!r}; choose from {', '.join(SECTIONS)}"
                )
            run(args.sections or None, write=lambda text: print(text, file=out))
            return 0
        if args.command == "explain":
            return _explain(args, out)
        if args.command == "explore":
            return _explore(args, out, err)
        return _grad(args, out, err)
    except ExprError as e:
        print(f"funcgrad grad: error: {e}", file=err)
        print(e.pointer(args.expr), file=err)
        if e.hint:
            print(f"hint: {e.hint}", file=err)
        return 2
    except _BadInput as e:
        print(f"funcgrad {args.command}: error: {e}", file=err)
        return 2
    except BrokenPipeError:  # funcgrad demo | head
        return 0
