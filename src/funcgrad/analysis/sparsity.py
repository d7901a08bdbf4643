"""Sparsity patterns: the reverse fold over the semiring of boolean matrices.

Over the reals, backprop multiplies a node's cotangent by each edge's local
Jacobian and adds what meets at a parent. Replace every number by "nonzero
or not" and every local Jacobian by its *pattern*, a boolean matrix (output
elements x argument elements), and the same fold, seeded with the identity at
the output, ends at each input with the pattern of the whole Jacobian: which
outputs can depend on which inputs, element by element. The sum is ``or``, the
product boolean matrix multiplication, both SciPy sparse.

The pattern is *structural*: it holds wherever the inputs move. A constant
matrix's zeros are known (``A @ x`` reads only ``A``'s nonzeros), but masks are
taken to move with the inputs: a ``where`` keeps both branches. A primitive
with no pattern of its own counts as dense, every output element reading every
input element. A primitive that holds functions (a loop, a branch, a checkpoint, a
custom rule) has the pattern of its functions' graphs, composed over its steps
(:mod:`funcgrad.analysis.body_patterns`). The
Hessian's pattern is the Jacobian pattern of the gradient, whose graph
funcgrad traces like any other function.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def f(x):
...     return x[1:] * x[:-1]            # each output reads two neighbours
>>> fg.jacobian_sparsity(f, np.ones(4)).toarray().astype(int)
array([[1, 1, 0, 0],
       [0, 1, 1, 0],
       [0, 0, 1, 1]])
>>> fg.hessian_sparsity(lambda x: fnp.sum(f(x)), np.ones(4)).toarray().astype(int)
array([[0, 1, 0, 0],
       [1, 0, 1, 0],
       [0, 1, 0, 1],
       [0, 0, 1, 0]])
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.errors import ArgumentError, ShapeError
from ..core.tree import tree_leaves
from ..core.values import normalize_axes, raw, shape_of
from ..dag.fold import reverse_fold
from ..dag.node import CONST, VAR, Node
from ..dag.order import dfs_order
from ..rules.windows import windows
from ..transforms.arguments import argnums_tuple, fun_name
from ..transforms.reverse import grad, trace_argnums
from . import facts
from .body_patterns import DENSE_LIMIT, composite_pattern, holds_functions

__all__ = ["jacobian_sparsity", "hessian_sparsity", "local_pattern"]


def _size(v):
    if isinstance(v, tuple):
        return sum(_size(p) for p in v)
    return int(np.prod(shape_of(v), dtype=np.int64))


def _pattern(rows, cols, shape):
    data = np.ones(len(rows), dtype=bool)
    return sp.csr_array(
        (data, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))), shape=shape
    )


def _dense(node, k):
    """Every output element may depend on every element of argument ``k``."""
    m, n = _size(node._value), _size(node._args[k]._value)
    if m * n > DENSE_LIMIT:
        raise ArgumentError(
            f"jacobian_sparsity: {node.op} gives every one of its {m} outputs a dependence on "
            f"each of the {n} elements of argument {k} ({m * n} entries); write the step with "
            f"elementwise operations, slices or sums, whose patterns are known, or compute a "
            f"dense Jacobian"
        )
    return sp.csr_array(np.ones((m, n), dtype=bool))


def _known(node, touched):
    """The value of a matrix operand that is a genuine constant, or None.

    Only products and convolutions read their constant operands' zeros (a constant
    sparse matrix ``A @ x``). Elementwise masks are never read: a traced graph's
    boolean and integer constants are computed from the inputs (``x > 0``,
    ``argsort(x)``), and so are the 0/1 float masks inside derivative rules, so
    a ``where`` keeps both branches and ``x * mask`` its whole diagonal.
    """
    if node in touched:
        return None
    v = np.asarray(raw(node._value))
    return v if np.issubdtype(v.dtype, np.inexact) else None


def _elementwise(node, k):
    """A broadcast diagonal: output element ``i`` reads the element of argument ``k`` broadcast to it."""
    out_shape = shape_of(node._value)
    arg = node._args[k]
    idx = np.broadcast_to(np.arange(_size(arg._value)).reshape(shape_of(arg._value)), out_shape)
    return _pattern(np.arange(idx.size), idx.ravel(), (_size(node._value), _size(arg._value)))


def _numbers(v):
    """Element numbers 1..size in ``v``'s shape (0 will mean 'reads nothing')."""
    return np.arange(1, _size(v) + 1, dtype=np.int64).reshape(shape_of(v))


def _moved(prim, values, k, params, out_size):
    """The pattern of an element-moving primitive for argument ``k``: apply it to numbers."""
    probe = [
        _numbers(v)
        if i == k
        else np.zeros(shape_of(v), dtype=np.int64)
        if np.issubdtype(np.result_type(v), np.inexact)
        else v  # an index operand keeps its value
        for i, v in enumerate(values)
    ]
    out = prim.impl(*probe, **params)
    flat = np.concatenate([np.ravel(p) for p in out]) if isinstance(out, tuple) else np.ravel(out)
    src = np.asarray(np.real(flat), dtype=np.int64)
    rows = np.flatnonzero(src)
    return _pattern(rows, src[rows] - 1, (out_size, _size(values[k])))


def _moves(node, k):
    values = [raw(a._value) for a in node._args]
    return _moved(node._prim, values, k, node._params or {}, _size(node._value))


def _pick(node, k):
    """One result of a several-result primitive: its block of the tuple's elements."""
    parts = raw(node._args[0]._value)
    index = node._params["index"]
    start = sum(_size(p) for p in parts[:index])
    n = _size(parts[index])
    return _pattern(np.arange(n), np.arange(start, start + n), (n, _size(parts)))


def _scatter(node, k):
    """``untake`` adds ``g`` into zeros (``pieces`` each of its operands into one array): the
    transpose of the matching gather."""
    params = dict(node._params or {})
    if "indices" in params:
        index = params["indices"][k]
    elif k != 0:
        return None
    else:
        index = params["index"]
    out = raw(node._value)
    src = np.ravel(_numbers(out)[index])
    return _pattern(src - 1, np.arange(src.size), (_size(out), _size(raw(node._args[k]._value))))


def _reduction(node, k):
    """Each output element depends on every input element it reduces over."""
    x = raw(node._args[k]._value)
    shape = shape_of(x)
    params = node._params or {}
    axes = normalize_axes(params.get("axis"), len(shape))
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    out_of = np.broadcast_to(np.arange(int(np.prod(kept, dtype=np.int64))).reshape(kept), shape)
    return _pattern(out_of.ravel(), np.arange(_size(x)), (_size(node._value), _size(x)))


def _fibers(shape, axis):
    """Element numbers of an array of ``shape``, one row per fiber along ``axis``."""
    n = int(np.prod(shape, dtype=np.int64))
    if not shape:
        return np.zeros((1, 1), dtype=np.int64)
    return np.moveaxis(np.arange(n).reshape(shape), axis, -1).reshape(-1, shape[axis])


def _along_axis(node, k, cumulative=False):
    """Each output depends on its whole fiber along ``axis`` (cumulative ones: the part up to it).
    A sort's gather and scatter (``take_along``, ``put_along``) read their index from values,
    so they too link each element to its whole fiber."""
    x = raw(node._args[k]._value)
    in_shape, out_shape = shape_of(x), shape_of(raw(node._value))
    axis = (node._params or {}).get("axis", -1)
    if axis is None:  # cumsum of a flattened array
        in_shape, axis = (_size(x),), 0
    axis = axis % len(out_shape) if out_shape else 0
    outs, ins = _fibers(out_shape, axis), _fibers(in_shape, axis)
    rows = np.repeat(outs, ins.shape[1], axis=1).ravel()
    cols = np.tile(ins, (1, outs.shape[1])).ravel()
    if cumulative:
        pos = np.arange(ins.shape[1])
        keep = np.tile((pos[:, None] >= pos[None, :]).ravel(), outs.shape[0])
        rows, cols = rows[keep], cols[keep]
    return _pattern(rows, cols, (_size(node._value), _size(x)))


def _contraction(node, k, touched):
    """A product's pattern for operand ``k``: an einsum of the other operands' nonzero masks
    (all ones where they move with the inputs) over the indices neither the output nor
    operand ``k`` keeps; what is left links output elements to operand elements."""
    args = node._args
    values = [np.asarray(raw(a._value)) for a in args]
    spec = facts.of(node._prim).spec([v.shape for v in values], node._params or {})
    if spec is None:
        return _elementwise(node, k)  # a 0-d operand: a scaling
    terms, out = spec
    values = [np.ravel(v) if len(t) == 1 else v for t, v in zip(terms, values)]
    masks = [
        np.ones(v.shape) if i == k or a in touched else (v != 0).astype(float)
        for i, (a, v) in enumerate(zip(args, values))
    ]
    keep = "".join(dict.fromkeys(out + terms[k]))
    sizes = {}
    for t, v in zip(terms, values):
        for c, n in zip(t, v.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    if int(np.prod([sizes[c] for c in keep], dtype=np.int64)) > DENSE_LIMIT:
        return _dense(node, k)
    linked = np.einsum(",".join(terms) + "->" + keep, *masks) != 0
    coords = dict(zip(keep, np.nonzero(linked)))
    out_shape = tuple(sizes[c] for c in out)
    rows = (
        np.ravel_multi_index(tuple(coords[c] for c in out), out_shape)
        if out
        else np.zeros(len(next(iter(coords.values()), [])), dtype=np.int64)
    )
    k_shape = values[k].shape
    cols = (
        np.ravel_multi_index(tuple(coords[c] % n for c, n in zip(terms[k], k_shape)), k_shape)
        if terms[k]
        else np.zeros_like(rows)
    )
    return _pattern(rows, cols, (_size(node._value), _size(values[k])))


def _trace(node, k):
    """``trace``: each output sums the diagonal of its matrix."""
    x = raw(node._args[k]._value)
    p = dict(node._params or {})
    diag = np.diagonal(_numbers(x) - 1, p.get("offset", 0), p.get("axis1", 0), p.get("axis2", 1))
    rows = np.repeat(np.arange(_size(node._value)), diag.shape[-1])
    return _pattern(rows, diag.ravel(), (_size(node._value), _size(x)))


def _convolve(node, k, touched):
    """A 1-D convolution is banded: output ``i + j - start`` reads ``a[i] * v[j]``."""
    a, v = (np.asarray(raw(n._value)) for n in node._args)
    if a.ndim != 1:
        return _dense(node, k)
    mode = (node._params or {}).get("mode", "full")
    short = min(a.size, v.size)
    start = {"full": 0, "same": (short - 1) // 2, "valid": short - 1}[mode]
    other = _known(node._args[1 - k], touched)
    support = np.arange((v if k == 0 else a).size) if other is None else np.flatnonzero(other)
    mine = np.arange((a if k == 0 else v).size)
    rows = (mine[None, :] + support[:, None] - start).ravel()
    cols = np.broadcast_to(mine[None, :], (support.size, mine.size)).ravel()
    inside = (rows >= 0) & (rows < _size(node._value))
    return _pattern(rows[inside], cols[inside], (_size(node._value), mine.size))


def _conv_layer(node, k, touched):
    """rules.conv's three primitives: output ``(m, o)`` of the convolution (``m`` a window
    position) reads input element ``(m, t, c)`` of window element ``t`` through kernel element
    ``(t, c, o)``; each primitive links two of these three index sets."""
    params = dict(node._params or {})
    # which of the three it is shows in its parameters: each transpose names what it gives
    gives = "x" if "shape" in params else "w" if "window" in params else "y"
    values = [raw(a._value) for a in node._args]
    x_shape = params.pop("shape", None) or shape_of(values[0])
    window = params.pop("window", None) or shape_of(values[1])[:-2]
    o = shape_of(values[1])[-1]
    x_size = int(np.prod(x_shape, dtype=np.int64))
    numbers = np.arange(1.0, x_size + 1).reshape(x_shape)  # 0 is what the padding reads
    axes = tuple(range(1, len(x_shape) - 1))
    read = windows(numbers, axes=axes, window=tuple(window), **params)
    k_dims = len(window)
    taps = np.moveaxis(read, len(x_shape) - 1, -1)  # (N, positions..., window..., C)
    taps = taps.reshape(-1, int(np.prod(taps.shape[1 + k_dims :], dtype=np.int64)))
    if taps.size * o > DENSE_LIMIT:
        return _dense(node, k)
    m, tc = np.nonzero(taps)
    x_index = np.repeat(taps[m, tc].astype(np.int64) - 1, o)
    o_index = np.tile(np.arange(o), len(m))
    y_index = np.repeat(m, o) * o + o_index
    w_index = np.repeat(tc, o) * o + o_index
    sets = {
        "x": (x_index, x_size),
        "y": (y_index, taps.shape[0] * o),
        "w": (w_index, taps.shape[1] * o),
    }
    operands = {"y": "xw", "x": "yw", "w": "xy"}[gives]
    (rows, n_rows), (cols, n_cols) = sets[gives], sets[operands[k]]
    return _pattern(rows, cols, (n_rows, n_cols))


def _cast(node, k):
    dtype = np.dtype((node._params or {})["dtype"])
    return _elementwise(node, k) if np.issubdtype(dtype, np.inexact) else None


# Each primitive says how its Jacobian's pattern is found (its ``structure`` fact,
# declared where it is defined; analysis/facts.py).
_BY_STRUCTURE = {
    "elementwise": lambda node, k, touched: _elementwise(node, k),
    "moves": lambda node, k, touched: _moves(node, k),
    "pick": lambda node, k, touched: _pick(node, k),
    "scatter": lambda node, k, touched: _scatter(node, k),
    "sort_gather": lambda node, k, touched: _along_axis(node, k),
    "sort_scatter": lambda node, k, touched: _along_axis(node, k) if k == 0 else None,
    "reduction": lambda node, k, touched: _reduction(node, k),
    "along_axis": lambda node, k, touched: _along_axis(node, k),
    "cumulative": lambda node, k, touched: _along_axis(node, k, cumulative=True),
    "contraction": _contraction,
    "diagonal_sum": lambda node, k, touched: _trace(node, k),
    "banded": _convolve,
    "convolution": _conv_layer,
    "cast": lambda node, k, touched: _cast(node, k),
}


def local_pattern(node, k, touched, in_body=False):
    """The pattern (outputs x elements of argument ``k``) of one node's local Jacobian, or
    None where it is zero. ``touched``: the nodes that depend on the inputs at all.
    ``in_body``: the node is a step of a traced body, whose values are examples only."""
    prim = node._prim
    if k in facts.of(prim).flat:
        return None
    if holds_functions(prim):
        return _operand_columns(_composite(node, touched), node, k)
    structure = _structure(prim)
    if (
        in_body
        and structure == "moves"
        and any(
            a in touched and not np.issubdtype(np.result_type(raw(a._value)), np.inexact)
            for a in node._args
        )
    ):
        return _dense(node, k)  # it moves elements by an index the body computes
    rule = _BY_STRUCTURE.get(structure)
    return _dense(node, k) if rule is None else rule(node, k, touched)


def _composite(node, touched, wanted=None):
    """The pattern of a node of a primitive that holds functions in all its operands'
    elements (rows ``wanted`` only, all by default), or None for a dense one."""
    moving = [a in touched for a in node._args]
    if wanted is None:
        wanted = np.arange(_size(node._value))
    found = composite_pattern(node, moving, wanted, _body_pattern, _size)
    return None if found is None else sp.csr_array(found)


def _operand_columns(whole, node, k):
    """Argument ``k``'s columns of a node's pattern in all its operands (None: dense)."""
    if whole is None:
        return _dense(node, k)
    start = sum(_size(a._value) for a in node._args[:k])
    return whole[:, start : start + _size(node._args[k]._value)]


def _body_pattern(body):
    """The pattern of a traced body's outputs in its inputs (a body is traced once, so its
    pattern is found once, and kept with it)."""
    pattern = body.found.get("sparsity")
    if pattern is None:
        trace = next((n._trace for n in body.inputs), None)
        pattern = body.found["sparsity"] = sp.csr_array(
            _fold_patterns(list(body.inputs), list(body.outputs), trace, in_body=True)
        )
    return pattern


def _structure(prim):
    """How the primitive's pattern is found: its ``structure`` fact; a primitive given by
    its partials (``fg.extend``'s elementwise form) is elementwise, any other dense."""
    return facts.of(prim).structure or ("elementwise" if prim.partials is not None else None)


def _fold_patterns(inputs, outputs, trace, in_body=False):
    """The boolean fold from the outputs (seeded with the identity) to the inputs."""
    sizes = [_size(raw(o._value if isinstance(o, Node) else o)) for o in outputs]
    total = sum(sizes)
    seeds, start = {}, 0
    for o, n in zip(outputs, sizes):
        if isinstance(o, Node) and o._trace is trace:
            block = _pattern(np.arange(start, start + n), np.arange(n), (total, n))
            seeds[o] = block if o not in seeds else seeds[o] + block
        start += n
    order = dfs_order(tuple(seeds))
    touched = set(inputs)
    for node in order:
        if (
            node._prim is not VAR
            and node._prim is not CONST
            and any(a in touched for a in node._args)
        ):
            touched.add(node)

    seeds = {o: _small(p) for o, p in seeds.items()}

    def step(node, m):
        prim = node._prim
        same = _structure(prim) == "elementwise"  # the identity for an operand of its shape
        if holds_functions(prim):  # its whole pattern once, for the rows read further on
            whole = _composite(node, touched, _columns(m))
            return [
                None
                if a not in touched or k in facts.of(prim).flat
                else _times(m, _operand_columns(whole, node, k))
                for k, a in enumerate(node._args)
            ]
        return [
            None
            if a not in touched or k in facts.of(prim).flat
            else m
            if same and shape_of(a._value) == shape_of(node._value)
            else _times(m, local_pattern(node, k, touched, in_body))
            for k, a in enumerate(node._args)
        ]

    wanted = set(inputs)
    found = reverse_fold(order, seeds, step, _plus, keep=wanted.__contains__)
    blocks = [
        sp.csr_array(found[x]) if x in found else sp.csr_array((total, _size(x._value)), dtype=bool)
        for x in inputs
    ]
    if not blocks:
        return sp.csr_array((total, 0), dtype=bool)
    return sp.hstack(blocks, format="csr").astype(bool)


def _columns(m):
    """The columns where pattern ``m`` has an entry: the node's outputs some output reads."""
    if isinstance(m, np.ndarray):
        return np.flatnonzero(m.any(axis=0))
    return np.unique(sp.coo_array(m).col)


SMALL = 1 << 16
"""Patterns of at most this many entries are dense boolean arrays in the fold: a sparse
matrix costs tens of microseconds to make, add or multiply, a small array one."""


def _small(p):
    """A pattern as a dense boolean array if it is small, else as it is (sparse)."""
    if isinstance(p, np.ndarray) or p.shape[0] * p.shape[1] > SMALL:
        return p
    return p.toarray().astype(bool)


def _times(m, w):
    if w is None:
        return None
    if isinstance(m, np.ndarray):  # small: (w^T m^T)^T in integers, back to booleans
        out = (w.T.astype(np.int32) @ m.T.astype(np.int32)).T
        return _small(sp.csr_array(out)) if sp.issparse(out) else np.asarray(out) != 0
    return _small(m @ w)


def _plus(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a | b
    return _small(sp.csr_array(a) + sp.csr_array(b))


def jacobian_sparsity(fun: Callable, *args: Any, argnums: int = 0) -> Any:
    """Which outputs of ``fun`` can depend on which inputs: a boolean ``scipy.sparse`` matrix.

    Rows are the output's elements (a pytree's leaves raveled one after another),
    columns the elements of ``args[argnums]`` (likewise); ``J[i, j]`` is True
    where the Jacobian entry can be nonzero. One boolean fold over the traced
    graph, so its cost is that of the graph's patterns, never of a dense Jacobian.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> A = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 3.0]])
    >>> fg.jacobian_sparsity(lambda x: A @ fnp.sin(x), np.ones(3)).toarray()
    array([[ True, False, False],
           [False, False,  True]])
    """
    who = f"jacobian_sparsity of {fun_name(fun)}"
    trace, boxes, out, _, _ = trace_argnums(fun, args, None, argnums, who)
    inputs = [x for wrapped, _ in boxes for x in wrapped]
    return _fold_patterns(inputs, tree_leaves(out), trace)


def hessian_sparsity(fun: Callable, *args: Any, argnums: int = 0) -> Any:
    """The pattern of the Hessian of a scalar ``fun``: the Jacobian pattern of its gradient.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.hessian_sparsity(lambda x: fnp.sum(x ** 2) + x[0] * x[2], np.ones(3)).toarray()
    array([[ True, False,  True],
           [False,  True, False],
           [ True, False,  True]])
    """
    nums, _ = argnums_tuple(argnums, len(args), f"hessian_sparsity of {fun_name(fun)}")
    gradient = grad(fun, argnums=nums if len(nums) > 1 else nums[0])
    pattern = jacobian_sparsity(gradient, *args, argnums=argnums)
    if pattern.shape[0] != pattern.shape[1]:
        raise ShapeError(f"hessian_sparsity: {fun_name(fun)} must return a scalar")
    return pattern
