"""Formulas as text: a tokenizer, a parser and a builder of expression DAGs.

``funcgrad grad "EXPR"`` reads a formula written by a person. It is parsed by
the small grammar below, never handed to Python's ``eval``: only numbers,
names, ``+ - * / **``, parentheses and calls of a fixed set of funcgrad
functions are accepted, and anything else is an :class:`ExprError` that knows
where in the text it is.

    expr    := term   (("+" | "-") term)*
    term    := unary  (("*" | "/") unary)*
    unary   := ("-" | "+") unary | power
    power   := atom   ("**" unary)?          (right-associative, as in Python)
    atom    := NUMBER | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"

The parser is an operator-precedence (shunting-yard) loop with explicit stacks
and the builder walks the tree with an explicit stack, so nesting depth is
limited only by memory. Equal subexpressions are built once: in
``sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))`` the node ``x**2 + exp(x**2)``
has two children, exactly as in the hand-drawn computation graph.

>>> from funcgrad.io.expr import build
>>> e = build("(x + y) * z", {"x": -2.0, "y": 5.0, "z": -4.0})
>>> e.output.value, [e.variables[v].value for v in ("x", "y", "z")]
(-12.0, [-2.0, 5.0, -4.0])
>>> [e.labels[n] for n in e.order]
['x', 'y', 'x + y', 'z', '(x + y) * z']
"""

import difflib
import re
from typing import NamedTuple

import numpy as np

from .. import nn
from .. import numpy as fnp
from ..core.errors import FuncgradError
from ..core.primitive import Primitive
from ..dag.leaves import const, var
from ..dag.order import toposort

__all__ = [
    "ExprError",
    "Token",
    "tokenize",
    "parse",
    "free_names",
    "build",
    "Built",
    "FUNCTIONS",
    "CONSTANTS",
]


class ExprError(FuncgradError, ValueError):
    """A formula that cannot be read or evaluated, with the span ``[start, end)`` at fault.

    ``str(err)`` is the message alone; :meth:`pointer` draws the text with a
    caret under the offending part.

    >>> from funcgrad.io.expr import parse, ExprError
    >>> try:
    ...     parse("2 * (x + 1")
    ... except ExprError as err:
    ...     print(err); print(err.pointer("2 * (x + 1"))
    this '(' is never closed; add a ')' after the expression it opens
      2 * (x + 1
          ^
    """

    def __init__(self, message, start, end=None, hint=None):
        super().__init__(message)
        self.start = start
        self.end = start + 1 if end is None or end <= start else end
        self.hint = hint

    def pointer(self, text, indent="  "):
        """The text on one line with carets under ``[start, end)``."""
        shown = re.sub(r"\s", " ", text)
        start = min(self.start, len(shown))
        width = max(1, min(self.end, len(shown) + 1) - start)
        return f"{indent}{shown}\n{indent}{' ' * start}{'^' * width}"


class Token(NamedTuple):
    kind: str  # 'num', 'name', 'op', '(', ')', ',', 'end'
    text: str
    start: int
    end: int


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>\*\*|[-+*/])
  | (?P<open>\()
  | (?P<close>\))
  | (?P<comma>,)
""",
    re.VERBOSE,
)

_KIND = {"open": "(", "close": ")", "comma": ","}

_HINTS = {
    "^": "write powers as x ** 2",
    "[": "only scalar variables are supported; group with ( )",
    "]": "only scalar variables are supported; group with ( )",
    ".": "attribute access is not part of a formula; call functions by name, e.g. exp(x)",
    "'": "strings are not part of a formula",
    '"': "strings are not part of a formula",
    "=": "give values with --at NAME=VALUE, not inside the formula",
}


def tokenize(text):
    """Yield the tokens of ``text``, ending with an ``'end'`` token.

    >>> [t.text for t in tokenize("2*x**-1.5e3")]
    ['2', '*', 'x', '**', '-', '1.5e3', '']
    """
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            ch = text[pos]
            raise ExprError(
                f"unexpected character {ch!r}",
                pos,
                hint=_HINTS.get(
                    ch, "a formula has numbers, names, + - * / **, parentheses and function calls"
                ),
            )
        kind = m.lastgroup
        if kind == "num" and m.end() < n and (text[m.end()].isalpha() or text[m.end()] == "_"):
            raise ExprError(
                f"a number runs into a name here ({text[pos : m.end() + 1]!r}...)",
                pos,
                m.end() + 1,
                hint="write the product with *, e.g. 2*x",
            )
        if kind != "space":
            yield Token(_KIND.get(kind, kind), m.group(), pos, m.end())
        pos = m.end()
    yield Token("end", "", n, n)


# ---------------------------------------------------------------- parsing


def _functions():
    """The functions a formula may call, by name: ``{name: (function, number of
    arguments)}``. Read off the primitives themselves: every differentiable elementwise
    primitive of one or two arguments (its partials say both) that funcgrad.numpy or
    funcgrad.nn publishes, by its name there, so a primitive added to either is a formula's
    word with no list to extend. softplus, a composition, is the one added by hand.

    >>> FUNCTIONS["cbrt"][1], FUNCTIONS["arctan2"][1], "eval" in FUNCTIONS
    (1, 2, False)
    """
    found = {}
    for namespace in (nn, fnp):  # fnp's names win where both publish one
        for name in namespace.__all__:
            fun = getattr(namespace, name, None)
            partials = getattr(fun, "partials", None) if isinstance(fun, Primitive) else None
            if partials and len(partials) <= 2 and all(p is not None for p in partials):
                found[name] = (fun, len(partials))
    found["softplus"] = (nn.softplus, 1)
    return found


FUNCTIONS = _functions()
CONSTANTS = {"pi": float(np.pi), "e": float(np.e), "tau": 2.0 * float(np.pi)}

_BINARY = {
    "+": ("add", 1),
    "-": ("subtract", 1),
    "*": ("multiply", 2),
    "/": ("divide", 2),
    "**": ("power", 4),
}
_UNARY_PREC = 3  # -x**2 is -(x**2), 2*-x is 2*(-x), as in Python

# A parsed formula is a tree of tuples, each ending in its span (start, end):
#   ("num", value, span)   ("name", name, span)   ("call", fname, (children...), span)
# Operators are calls of their funcgrad names: "x + y" -> ("call", "add", (x, y), span).


def _closest(name):
    """The known function a mistyped ``name`` most likely meant, as a list of at most one:
    the shortest that begins with it (``max``: ``maximum``), else difflib's closest."""
    starting = sorted((f for f in FUNCTIONS if f.startswith(name)), key=len)
    return starting[:1] or difflib.get_close_matches(name, FUNCTIONS, n=1)


def _describe(tok):
    return "the end of the formula" if tok.kind == "end" else repr(tok.text)


def parse(text):
    """The tree of ``text``, or an :class:`ExprError` pointing at the first problem.

    >>> parse("-x**2")
    ('call', 'negative', (('call', 'power', (('name', 'x', (1, 2)), ('num', 2.0, (4, 5))), (1, 5)),), (0, 5))
    """
    if not isinstance(text, str):
        raise TypeError(f"parse takes the formula as a string; got {type(text).__name__}")
    out = []  # operands: finished subtrees
    ops = []  # pending: ("bin", tok, prec, right) | ("neg"/"pos", tok, prec) | ("(", tok) | ("call", tok, nargs)
    expect_operand = True
    tokens = tokenize(text)
    pending = None

    def reduce_one():
        entry = ops.pop()
        kind, tok = entry[0], entry[1]
        if kind == "bin":
            right = out.pop()
            left = out.pop()
            out.append(("call", _BINARY[tok.text][0], (left, right), (left[-1][0], right[-1][1])))
        else:  # unary
            operand = out.pop()
            if kind == "neg":
                out.append(("call", "negative", (operand,), (tok.start, operand[-1][1])))
            else:
                out.append(operand[:-1] + ((tok.start, operand[-1][1]),))

    def reduce_while(prec, right_assoc):
        while ops and ops[-1][0] in ("bin", "neg", "pos"):
            top_prec = ops[-1][2]
            if top_prec > prec or (top_prec == prec and not right_assoc):
                reduce_one()
            else:
                break

    while True:
        tok = pending if pending is not None else next(tokens)
        pending = None
        if expect_operand:
            if tok.kind == "num":
                out.append(("num", float(tok.text), (tok.start, tok.end)))
                expect_operand = False
            elif tok.kind == "name":
                nxt = next(tokens)
                if nxt.kind == "(":
                    if tok.text not in FUNCTIONS:
                        close = _closest(tok.text)
                        guess = f"did you mean {close[0]}? " if close else ""
                        raise ExprError(
                            f"unknown function {tok.text!r}",
                            tok.start,
                            tok.end,
                            hint=guess + "known functions: " + ", ".join(sorted(FUNCTIONS)),
                        )
                    ops.append(("call", tok, 0, nxt))
                else:
                    if tok.text in FUNCTIONS:
                        raise ExprError(
                            f"{tok.text!r} is a function; call it, e.g. {tok.text}(x)",
                            tok.start,
                            tok.end,
                        )
                    out.append(("name", tok.text, (tok.start, tok.end)))
                    expect_operand = False
                    pending = nxt
            elif tok.kind == "(":
                ops.append(("(", tok))
            elif tok.text in ("-", "+"):
                ops.append(("neg" if tok.text == "-" else "pos", tok, _UNARY_PREC))
            elif tok.kind == ")" and ops and ops[-1][0] == "call" and ops[-1][2] == 0:
                name = ops[-1][1].text
                arity = FUNCTIONS[name][1]
                raise ExprError(
                    f"{name}() takes {arity} argument{'s' * (arity > 1)}, got none",
                    ops[-1][1].start,
                    tok.end,
                )
            elif tok.kind == "end":
                raise ExprError(
                    "the formula ends where an operand is expected",
                    tok.start,
                    tok.end,
                    hint=None if text.strip() else 'give a formula, e.g. "x * y"',
                )
            else:
                where = "to start the formula" if not out and not ops else "here"
                raise ExprError(
                    f"expected a number, a name or '(' {where}, found {_describe(tok)}",
                    tok.start,
                    tok.end,
                )
        else:
            if tok.kind == "op":
                _, prec = _BINARY[tok.text]
                right_assoc = tok.text == "**"
                reduce_while(prec, right_assoc)
                ops.append(("bin", tok, prec, right_assoc))
                expect_operand = True
            elif tok.kind in (")", ","):
                reduce_while(-1, False)
                if not ops:
                    what = (
                        "')' has no matching '('"
                        if tok.kind == ")"
                        else "',' outside a function call"
                    )
                    raise ExprError(f"this {what}", tok.start, tok.end)
                top = ops[-1]
                if tok.kind == ",":
                    if top[0] != "call":
                        raise ExprError(
                            "this ',' is not inside a function call's parentheses",
                            tok.start,
                            tok.end,
                        )
                    ops[-1] = ("call", top[1], top[2] + 1, top[3])
                    expect_operand = True
                    continue
                ops.pop()
                if top[0] == "(":
                    inner = out.pop()
                    out.append(inner[:-1] + ((top[1].start, tok.end),))
                else:
                    name_tok, nargs = top[1], top[2] + 1
                    fname = name_tok.text
                    arity = FUNCTIONS[fname][1]
                    if nargs != arity:
                        raise ExprError(
                            f"{fname}() takes {arity} argument{'s' * (arity > 1)}, got {nargs}",
                            name_tok.start,
                            tok.end,
                        )
                    args = tuple(out[len(out) - nargs :])
                    del out[len(out) - nargs :]
                    out.append(("call", fname, args, (name_tok.start, tok.end)))
            elif tok.kind == "end":
                reduce_while(-1, False)
                if ops:
                    open_tok = ops[-1][3] if ops[-1][0] == "call" else ops[-1][1]
                    raise ExprError(
                        "this '(' is never closed; add a ')' after the expression it opens",
                        open_tok.start,
                        open_tok.end,
                    )
                return out[0]
            else:
                hint = "write the product with *" if tok.kind in ("name", "num", "(") else None
                raise ExprError(
                    f"expected an operator (+ - * / **) before {_describe(tok)}",
                    tok.start,
                    tok.end,
                    hint=hint,
                )


def _walk(tree):
    """Every subtree of ``tree``, children before parents, without recursion."""
    stack = [(tree, False)]
    while stack:
        t, expanded = stack.pop()
        if t[0] == "call" and not expanded:
            stack.append((t, True))
            stack.extend((c, False) for c in reversed(t[2]))
        else:
            yield t


def free_names(tree):
    """The variables of a tree, in order of first appearance, each with its first span.

    >>> free_names(parse("x*y + sin(x) + pi"))
    {'x': (0, 1), 'y': (2, 3)}
    """
    names = {}
    for t in _walk(tree):
        if t[0] == "name" and t[1] not in CONSTANTS and t[1] not in names:
            names[t[1]] = t[-1]
    return names


class Built(NamedTuple):
    """A formula built as a graph: the output node, the variables by name, the
    source text of every node, the tree, and the nodes in topological order."""

    output: object
    variables: dict
    labels: dict
    tree: tuple
    order: tuple


def _matching_parens(text):
    """{position of '(': position of its ')'} over the whole text, in one pass."""
    match, opened = {}, []
    for i, ch in enumerate(text):
        if ch == "(":
            opened.append(i)
        elif ch == ")" and opened:
            match[opened.pop()] = i
    return match


def _label(text, start, end, match, longest=80):
    """The source of a subtree as a label: outer parentheses dropped, spaces collapsed,
    long ones cut in the middle (constant work per node, however deep the nesting)."""
    while True:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end and text[start] == "(" and match.get(start) == end - 1:
            start, end = start + 1, end - 1
        else:
            break
    if end - start > longest:
        head = " ".join(text[start : start + longest // 2].split())
        tail = " ".join(text[end - longest // 4 : end].split())
        return f"{head} ... {tail}"
    return " ".join(text[start:end].split())


def build(text, values, method="dfs"):
    """Parse ``text`` and build its graph with ``values[name]`` for each variable.

    Equal subtrees become one node. Missing values are an :class:`ExprError`
    naming every missing variable and pointing at the first one.

    >>> e = build("sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))", {"x": 1.0})
    >>> len(e.order), round(e.output.value, 5)
    (8, 1.09001)
    """
    tree = parse(text)
    names = free_names(tree)
    missing = [n for n in names if n not in values]
    if missing:
        first = names[missing[0]]
        listed = ", ".join(repr(n) for n in missing)
        example = " ".join(f"--at {n}=1.0" for n in missing)
        raise ExprError(f"no value for {listed}", *first, hint=f"give one with {example}")
    for name in values:
        if name in CONSTANTS:
            raise ExprError(
                f"{name!r} is a constant ({CONSTANTS[name]}) and cannot be given a value",
                0,
                len(text),
            )
    variables = {n: var(float(values[n]), name=n) for n in names}
    made = {}  # structural key -> node: equal subtrees are built once
    node_of = {}  # id(subtree) -> node
    labels = {node: name for name, node in variables.items()}
    match = _matching_parens(text)
    with np.errstate(all="ignore"):
        for t in _walk(tree):
            kind = t[0]
            if kind == "num" or (kind == "name" and t[1] in CONSTANTS):
                value = t[1] if kind == "num" else CONSTANTS[t[1]]
                key = ("const", value)
                node = made.get(key)
                if node is None:
                    node = made[key] = const(value)
            elif kind == "name":
                node = variables[t[1]]
                key = None
            else:
                args = tuple(node_of[id(c)] for c in t[2])
                key = (t[1],) + tuple(a.id for a in args)
                node = made.get(key)
                if node is None:
                    fun = FUNCTIONS[t[1]][0]
                    try:
                        node = made[key] = fun(*args)
                    except (FuncgradError, ArithmeticError, ValueError, TypeError) as err:
                        raise ExprError(f"{t[1]} failed here: {err}", *t[-1]) from None
            node_of[id(t)] = node
            if node not in labels:
                labels[node] = _label(text, t[-1][0], t[-1][1], match)
    output = node_of[id(tree)]
    order = toposort(output, method=method)
    return Built(output, variables, labels, tree, order)
