"""A primitive's help() page where nobody wrote one: read off what defines it.

A primitive defined in one place (``extend.elementwise("log_one_plus", np.log1p,
lambda ans, x: 1.0 / (1.0 + x))``) has a page without a line more: its
parameters and summary come from its NumPy ufunc (or its impl's docstring), its
derivative from the source of its partials. The page is made the first time it
is read (``help()``, ``__doc__``), so defining a primitive reads no source file.
Pages written by hand (:func:`funcgrad.core.primitive.describe`, funcgrad.numpy's
rows in ``numpy/_pages.py``) replace it.

>>> import numpy as np
>>> from funcgrad import extend
>>> log_one_plus = extend.elementwise("log_one_plus", np.log1p, lambda ans, x: 1.0 / (1.0 + x))
>>> print(log_one_plus.__doc__)
Return the natural logarithm of one plus the input array, element-wise (NumPy's ``log1p``).
<BLANKLINE>
Derivative: d/dx = 1.0 / (1.0 + x).
"""

import ast
import functools
import inspect
import linecache
import types

import numpy as np

__all__ = ["page", "ufunc_signature"]


def page(prim):
    """The page of ``prim`` from its impl and partials."""
    lines = [_summary(prim)]
    if prim.partials:
        lines += ["", f"Derivative: {_derivatives(prim.partials)}."]
    return "\n".join(lines)


def ufunc_signature(ufunc):
    """A ufunc's parameters as NumPy writes them: ``(x, /)``, ``(x1, x2, /)``."""
    names = ["x"] if ufunc.nin == 1 else [f"x{k + 1}" for k in range(ufunc.nin)]
    only = inspect.Parameter.POSITIONAL_ONLY
    return inspect.Signature([inspect.Parameter(n, only) for n in names])


def _summary(prim):
    impl = prim.impl
    ufunc = getattr(impl, "ufunc", None)
    if isinstance(ufunc, np.ufunc):
        said = _first_paragraph(ufunc.__doc__ or "")
        if said:
            return f"{said.rstrip('.')} (NumPy's ``{ufunc.__name__}``)."
    elif type(impl) is types.FunctionType and impl.__doc__:
        return inspect.cleandoc(impl.__doc__)  # the rule author's own words
    return f"The funcgrad primitive {prim.name!r}."


def _first_paragraph(doc):
    """The summary of a ufunc's docstring: the paragraph after its call signature."""
    paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n")]
    return next((p for p in paragraphs[1:] if p), "")


def _derivatives(partials):
    said = []
    for partial in partials:
        code = getattr(_weight(partial), "__code__", None)
        names = code.co_varnames[1 : code.co_argcount] if code is not None else ()
        said.append((names, _formula(partial)))
    if len(said) == 1:
        names, formula = said[0]
        wrt = names[0] if names else "x"
        return f"d/d{wrt} = {formula}"
    return "; ".join(
        f"d/d{names[k] if k < len(names) else f'x{k + 1}'} = {formula}"
        for k, (names, formula) in enumerate(said)
    )


def _weight(partial):
    """A selecting partial's weight function (rules/selection.Selection), else the partial."""
    return getattr(partial, "weight", partial)


def _formula(partial):
    """A partial as its formula in the arguments (``ans`` is the value), or its name; a
    selecting partial as its weight's, selected."""
    if partial is None:
        return "none (no derivative)"
    if _weight(partial) is not partial:
        return f"{_formula(_weight(partial))}, selected (a cotangent passes where it is 1)"
    code = getattr(partial, "__code__", None)
    if code is None or partial.__name__ != "<lambda>":
        return f"``{getattr(partial, '__qualname__', repr(partial))}``"
    node = _lambda_node(code)
    if node is None:
        return "given by its partial (its source is not available)"
    body = ast.unparse(node.body)
    return "0 (piecewise constant)" if body in ("0.0", "0") else body


def _lambda_node(code):
    """The ``lambda`` whose code is ``code``, found in its file's syntax tree, or None."""
    tree = _tree(code.co_filename)
    if tree is None:
        return None
    args = list(code.co_varnames[: code.co_argcount])
    found = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Lambda)
        and n.lineno == code.co_firstlineno
        and [a.arg for a in n.args.args] == args
    ]
    if len(found) <= 1:
        return found[0] if found else None
    # several alike on one line: the one whose body holds the code's own positions
    spots = [(ln, col) for ln, _, col, _ in code.co_positions() if ln is not None and col]
    return max(found, key=lambda n: sum(_inside(n.body, spot) for spot in spots))


def _inside(node, spot):
    start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
    return start <= spot < end


@functools.lru_cache(maxsize=64)
def _tree(filename):
    text = "".join(linecache.getlines(filename))
    try:
        return ast.parse(text) if text else None
    except SyntaxError:  # a fragment (a notebook cell's history): no formula, no error
        return None
