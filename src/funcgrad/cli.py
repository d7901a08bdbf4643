"""The ``funcgrad`` command (also ``python -m funcgrad``).

    funcgrad grad EXPR [--at NAME=VALUE ...] [--order dfs|kahn] [--dot FILE] [--svg FILE]
    funcgrad demo [SECTION ...]

``grad`` parses EXPR with funcgrad's own parser (:mod:`funcgrad.expr`; the
text is never evaluated as Python), builds its graph at the given point and
prints the value, every partial derivative, the listing of the graph and the
forward and backward orders. ``demo`` prints the worked examples.

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
import re
import sys
import textwrap

import numpy as np

from .backprop import backprop
from .demo import SECTIONS, run
from .expr import CONSTANTS, FUNCTIONS, ExprError, build
from .show import GraphvizNotFound, render, show, to_dot

__all__ = ["main", "parser"]

_OPTIONS_WITH_VALUE = ("--at", "--order", "--dot", "--svg")

_GRAD_EPILOG = """\
EXPR uses numbers, variable names, + - * / ** (right-associative, as in
Python), unary minus, parentheses, the constant pi and these functions:
  {functions}
Quote EXPR in the shell. Example:
  funcgrad grad "sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))" --at x=1
Exit status: 0 success, 1 an output could not be written, 2 bad input."""


class _Parser(argparse.ArgumentParser):
    """argparse with exit status 2 and a hint, never a traceback."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n(run '{self.prog} --help' for help)\n")


def parser():
    """The argument parser of the ``funcgrad`` command.

    >>> parser().parse_args(["grad", "x*x", "--at", "x=2"]).at
    ['x=2']
    """
    top = _Parser(prog="funcgrad", description="funcgrad: reverse-mode autodiff, on the command line.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    g = sub.add_parser(
        "grad", help="differentiate a formula at a point", allow_abbrev=False,
        description="Evaluate EXPR at a point and print its value, every partial "
                    "derivative, its graph and the forward and backward orders.",
        epilog=_GRAD_EPILOG.format(functions=textwrap.fill(", ".join(sorted(FUNCTIONS)), 76,
                                                           subsequent_indent="  ")),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("expr", metavar="EXPR", nargs="?", help="the formula, e.g. \"(x + y) * z\"")
    g.add_argument("--at", action="append", default=[], metavar="NAME=VALUE",
                   help="the value of one variable (repeat for each variable)")
    g.add_argument("--order", choices=("dfs", "kahn"), default="dfs",
                   help="topological order to list and to backpropagate in (default dfs)")
    g.add_argument("--dot", metavar="FILE", help="write the graph with values and gradients as Graphviz DOT")
    g.add_argument("--svg", metavar="FILE", help="draw the graph as SVG (needs Graphviz's dot program)")
    d = sub.add_parser("demo", help="walk through the worked examples",
                       description="Print the worked examples: values, orders and gradients.")
    d.add_argument("sections", nargs="*", metavar="SECTION",
                   help=f"only these sections, out of: {', '.join(SECTIONS)}")
    return top


def _take_dash_expr(argv):
    """Take out an EXPR that starts with '-' ("-x**2"), which argparse would read as an option."""
    if not argv or argv[0] != "grad":
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
            return argv[:i] + argv[i + 1:], a
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
            raise _BadInput(f"--at {pair!r}: {text.strip()!r} is not a number; "
                            f"give a value such as --at {name}=0.5") from None
        if name in values:
            raise _BadInput(f"--at {name} is given twice ({values[name]} and {value}); give it once")
        values[name] = value
    return values


def _fmt(v):
    v = float(v)
    return repr(v) if len(repr(v)) <= 12 else f"{v:.10g}"


_ORDER_SHOWN = 40   # a longer order lists its first and last nodes, with a count between


def _order_text(order, labels):
    def item(n):
        label = labels.get(n, "?")
        if len(label) > 30:
            label = label[:27] + "..."
        return label if _NAME.match(label) or re.fullmatch(r"[\d.eE+-]+", label) else f"[{label}]"
    if len(order) <= _ORDER_SHOWN:
        return ", ".join(map(item, order))
    half = _ORDER_SHOWN // 2
    return (", ".join(map(item, order[:half])) + f", ... {len(order) - 2 * half} more ..., "
            + ", ".join(map(item, order[-half:])))


def _wrapped(title, text):
    return textwrap.fill(text, 100, initial_indent=title, subsequent_indent=" " * len(title),
                         break_long_words=False, break_on_hyphens=False)


def _non_finite_notes(order, grads, labels):
    """Where a value or gradient first stops being finite, in words."""
    notes = []
    for n in order:
        if not np.all(np.isfinite(n.value)) and all(np.all(np.isfinite(a.value)) for a in n.args):
            notes.append(f"note: {labels.get(n, n.op)} = {_fmt(n.value)} although its arguments are "
                         f"finite (outside {n.op}'s domain, or an overflow)")
    for n in order:
        g = grads.get(n)
        if g is not None and not np.all(np.isfinite(g)):
            notes.append(f"note: the gradient at {labels.get(n, n.op)} is {_fmt(g)}; the derivative "
                         f"is not finite at this point")
            break
    return notes


def _grad(args, out, err):
    if args.expr is None:
        raise _BadInput("grad needs EXPR, e.g. funcgrad grad \"x * y\" --at x=2 --at y=3")
    text = args.expr
    values = _read_point(args.at)
    built = build(text, values, method=args.order)
    names = list(built.variables)
    extra = [n for n in values if n not in built.variables and n not in CONSTANTS]
    if extra:
        known = ", ".join(names) if names else "none"
        raise _BadInput(f"--at {extra[0]}=...: EXPR has no variable {extra[0]!r} "
                        f"(its variables: {known}); remove it or check the spelling")
    with np.errstate(all="ignore"):
        try:
            grads = backprop(built.output, method=args.order)
        except ArithmeticError as e:
            raise _BadInput(f"the derivatives cannot be computed at this point ({e} in a "
                            f"derivative rule); choose a point where EXPR is differentiable") from None
    f, labels, order = built.output, built.labels, built.order
    point = ", ".join(f"{n} = {_fmt(v.value)}" for n, v in built.variables.items())
    print(f"f({', '.join(names)}) = {' '.join(text.split())}" + (f"   at {point}" if point else ""), file=out)
    print(f"value  {_fmt(f.value)}", file=out)
    for n in names:
        print(f"df/d{n} = {_fmt(grads[built.variables[n]])}", file=out)
    for note in _non_finite_notes(order, grads, labels):
        print(note, file=out)
    print(f"\ngraph in {args.order} order ({len(order)} nodes; equal subexpressions are one node):", file=out)
    print(show(f, grads=grads, method=args.order, labels=labels, limit=80), file=out)
    title = f"forward order ({args.order}):  "
    print(_wrapped(title, _order_text(order, labels)), file=out)
    print(_wrapped("backward order:".ljust(len(title)), _order_text(order[::-1], labels)), file=out)
    options = dict(grads=grads, method=args.order, labels=labels, backward=True)
    for path, fmt in ((args.dot, "dot"), (args.svg, "svg")):
        if path is None:
            continue
        try:
            if fmt == "dot":
                with open(path, "w") as fh:
                    fh.write(to_dot(f, **options) + "\n")
            else:
                render(f, path, format="svg", **options)
        except GraphvizNotFound as e:
            print(f"funcgrad grad: error: --svg {path}: {e}", file=err)
            return 1
        except OSError as e:
            print(f"funcgrad grad: error: cannot write {path}: {e.strerror or e}", file=err)
            return 1
        print(f"wrote {path}", file=out)
    return 0


def main(argv=None):
    """Run the ``funcgrad`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    >>> main(["grad", "x +* 2", "--at", "x=1"])
    2
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    out, err = sys.stdout, sys.stderr
    argv, dash_expr = _take_dash_expr(argv)
    try:
        args = parser().parse_args(argv)
    except SystemExit as done:           # --help (0) or a usage error (2), already printed
        return done.code if isinstance(done.code, int) else 2
    if dash_expr is not None:
        if args.expr is not None:
            print(f"funcgrad grad: error: two formulas given ({dash_expr!r} and {args.expr!r}); "
                  f"give one", file=err)
            return 2
        args.expr = dash_expr
    try:
        if args.command == "demo":
            unknown = [s for s in args.sections if s not in SECTIONS]
            if unknown:
                raise _BadInput(f"no demo section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
            run(args.sections or None, write=lambda text: print(text, file=out))
            return 0
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
    except BrokenPipeError:              # funcgrad demo | head
        return 0
