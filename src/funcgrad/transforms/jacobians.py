"""Jacobians and Hessians: the reverse, forward and batching traces composed.

A full Jacobian pushes every basis vector through one pass: ``jacrev``
folds back once with a batch of cotangents (vmap's trace inside reverse
mode), ``jacfwd`` pushes a batch of tangents forward. ``hessian`` is
``jacfwd(jacrev(f))`` and ``hvp`` the forward derivative of the gradient.
"""

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, NotDifferentiableError
from ..core.primitive import numpy_answer
from ..core.traces import new_level
from ..core.tree import tree_flatten, tree_map, tree_unflatten
from ..core.values import (
    float_dtype,
    in_library_of,
    is_complex,
    shape_of,
    zeros_like_value,
)
from ..dag.finite import unwatched, watched
from ..rules.arrays import getitem, reshape, transpose
from .arguments import (
    argnums_tuple,
    call_user,
    check_callable,
    check_complex_output,
    check_holomorphic_inputs,
    diff_leaf,
    distinct,
    fun_name,
    result_of,
    split_aux,
)
from .batching import Batched, BatchTrace, leave
from .forward import Dual, ForwardTrace, jvp
from .reverse import grad, pull_back, trace_argnums

__all__ = ["jacrev", "jacfwd", "jacobian", "hessian", "hvp"]


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _basis_batch(leaves):
    """One-hot directions over several leaves at once: per leaf, an array of
    shape ``(total,) + shape`` (in the leaf's float dtype and library) whose rows
    for that leaf's elements are the unit vectors and whose other rows are zero."""
    shapes = [shape_of(v) for v in leaves]
    total = sum(_size(s) for s in shapes)
    blocks, start = [], 0
    for leaf, shape in zip(leaves, shapes):
        n = _size(shape)
        block = np.zeros((total, n), dtype=float_dtype(leaf))
        block[start : start + n] = np.eye(n)
        blocks.append(in_library_of(block.reshape((total,) + shape), leaf))
        start += n
    return total, blocks


def _rows(batch, start, stop, shape):
    """Rows ``start:stop`` of a batch-first array (plain or traced), differentiably."""
    return getitem(batch, index=slice(start, stop)) if (start, stop) != (0, shape[0]) else batch


def _jacobian_tree(blocks, out_def, in_def, single, where):
    """``blocks[o][i]`` arranged as the output tree of input trees (JAX's layout);
    ``where`` gives, for each requested argnum, its place among the distinct ones."""
    per_out = []
    for row in blocks:
        in_tree = tree_unflatten(in_def, row)
        per_out.append(in_tree[0] if single else tuple(in_tree[k] for k in where))
    return tree_map(numpy_answer, tree_unflatten(out_def, per_out))


def jacrev(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """The full Jacobian by reverse mode, shape ``out.shape + in.shape``.

    The function is traced once, then folded back once with every output
    direction at the same time (a batch of cotangents). With ``has_aux`` the
    function returns ``(out, aux)`` and the result is ``(jacobian, aux)``.
    Outputs are real, unless ``holomorphic=True`` (complex inputs and
    outputs, giving the complex derivative; docs/complex.md).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.jacrev(lambda x: x ** 2)(np.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    """
    check_callable(fun, "jacrev")

    @functools.wraps(fun)
    def jac_fun(*args, **kwargs):
        who = f"jacrev of {fun_name(fun)}"
        trace, inputs, out, single, where = trace_argnums(
            fun, args, kwargs, argnums, who, record=True
        )
        with trace.recording():
            if holomorphic:
                check_holomorphic_inputs([n._value for nodes, _ in inputs for n in nodes], who)
            if has_aux:
                out, aux = split_aux(out, who)
            for o in tree_flatten(out)[0]:
                check_complex_output(o, who, holomorphic)
            if has_aux:
                return _jacrev(trace, inputs, out, single, where), result_of(trace, aux)
            return _jacrev(trace, inputs, out, single, where)

    return jac_fun


def _jacrev(trace, inputs, out, single, where):
    """The Jacobian of ``out`` with respect to ``inputs``: one fold back with a batch of cotangents."""
    out_leaves, out_def = tree_flatten(out)
    out_shapes = [shape_of(o) for o in out_leaves]
    in_nodes = [n for nodes, _ in inputs for n in nodes]
    in_def = tree_flatten(tuple(tree_unflatten(td, nodes) for nodes, td in inputs))[1]
    total, directions = _basis_batch(out_leaves)
    if total == 0:
        return _jacobian_tree(
            [[np.zeros(s + shape_of(n._value)) for n in in_nodes] for s in out_shapes],
            out_def,
            in_def,
            single,
            where,
        )
    batch = BatchTrace(new_level(), total)
    pulled = pull_back(trace, out_leaves, [Batched(d, batch) for d in directions], inputs)
    cotangents = [leave(ct, batch) for ct in tree_flatten(tuple(pulled))[0]]
    blocks, start = [], 0
    for oshape in out_shapes:
        stop = start + _size(oshape)
        blocks.append(
            [
                reshape(_rows(ct, start, stop, (total,)), shape=oshape + shape_of(n._value))
                for ct, n in zip(cotangents, in_nodes)
            ]
        )
        start = stop
    return _jacobian_tree(blocks, out_def, in_def, single, where)


jacobian = jacrev


def jacfwd(
    fun: Callable,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable:
    """The full Jacobian by forward mode, every input direction in one pass.

    With ``has_aux`` the function returns ``(out, aux)`` and the result is
    ``(jacobian, aux)``. Inputs are real, unless ``holomorphic=True`` (complex
    inputs and outputs, giving the complex derivative; docs/complex.md).

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.jacfwd(lambda x: fnp.exp(x) * 2.0)(np.array([0.0, 1.0]))
    array([[2.        , 0.        ],
           [0.        , 5.43656366]])
    """
    check_callable(fun, "jacfwd")

    @functools.wraps(fun)
    def jac_fun(*args, **kwargs):
        who = f"jacfwd of {fun_name(fun)}"
        nums, single = argnums_tuple(argnums, len(args), who)
        unique, where = distinct(nums)
        diff = tuple(
            tree_map(lambda v, i=i: diff_leaf(v, who, f"argument {i}"), args[i]) for i in unique
        )
        in_leaves, in_def = tree_flatten(diff)
        if holomorphic:
            check_holomorphic_inputs(in_leaves, who)
        else:
            _check_real_inputs(in_leaves, who)
        in_shapes = [shape_of(v) for v in in_leaves]
        total, directions = _basis_batch(in_leaves)
        (in_leaves, directions), watch = watched((in_leaves, directions), who)
        batch = BatchTrace(new_level(), max(total, 1))
        forward = ForwardTrace(new_level())
        duals = [
            Dual(v, Batched(d if total else np.zeros((1,) + s), batch), forward)
            for v, d, s in zip(in_leaves, directions, in_shapes)
        ]
        call_args = list(args)
        for i, d in zip(unique, tree_unflatten(in_def, duals)):
            call_args[i] = d
        out = call_user(fun, call_args, kwargs, who)
        if has_aux:
            out, aux = split_aux(out, who)
        out_leaves, out_def = tree_flatten(out)
        if holomorphic:
            for o in out_leaves:
                check_complex_output(o, who, True)
        blocks = []
        for o in out_leaves:
            oshape = shape_of(o)
            tangent = o._tangent if forward.owns(o) else zeros_like_value(o)
            columns = leave(tangent, batch)  # (total,) + oshape
            row, start = [], 0
            for ishape in in_shapes:
                stop = start + _size(ishape)
                part = _rows(columns, start, stop, (batch.size,))  # (n_in,) + oshape
                moved = transpose(part, axes=tuple(range(1, len(oshape) + 1)) + (0,))
                row.append(reshape(moved, shape=oshape + ishape))
                start = stop
            blocks.append(row)
        jac = unwatched(_jacobian_tree(blocks, out_def, in_def, single, where), watch)
        return (jac, unwatched(result_of(forward, aux), watch)) if has_aux else jac

    return jac_fun


def _check_real_inputs(leaves, who):
    """Forward mode pushes one real direction per input; a complex input has two."""
    for v in leaves:
        if is_complex(v):
            raise NotDifferentiableError(
                f"{who}: an input is complex; jacfwd pushes real directions only. Use jacrev "
                f"for a real-valued function, or holomorphic=True for a holomorphic one "
                f"(docs/complex.md)"
            )


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, holomorphic: bool = False) -> Callable:
    """The Hessian of a scalar function: forward mode over reverse mode.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.hessian(lambda x: fnp.sum(x ** 3))(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    check_callable(fun, "hessian")
    return jacfwd(jacrev(fun, argnums, holomorphic=holomorphic), argnums, holomorphic=holomorphic)


def hvp(fun: Callable, primals: Sequence, tangents: Sequence) -> Any:
    """The Hessian-vector product of a scalar function, without forming the Hessian.

    Forward mode over reverse: the derivative of the gradient along ``tangents``.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.hvp(lambda x: fnp.sum(x ** 3), (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
    array([6., 0.])
    """
    check_callable(fun, "hvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise ArgumentTypeError(
            f"hvp of {fun_name(fun)}: primals and tangents must be tuples, one entry per "
            f"argument, e.g. hvp(f, (x,), (v,)); got {type(primals).__name__} and "
            f"{type(tangents).__name__}"
        )
    primals, tangents = tuple(primals), tuple(tangents)
    gradient = grad(fun, argnums=tuple(range(len(primals))))
    out = jvp(gradient, primals, tangents)[1]
    return out[0] if len(primals) == 1 else out
