"""Function transforms in JAX's shape: grad, vjp, jvp, Jacobians, Hessians.

Each call of a transformed function opens a trace of its own, with a level
above every trace already open. Reverse transforms wrap the differentiated
arguments as graph variables, run the function (building the same immutable
DAG a hand-built expression is), and fold back over it. Forward transforms
wrap them as duals. Because a primitive always records its call in the
innermost trace first and computes the value by calling itself on the
unwrapped arguments, transforms nest to any depth, and an inner derivative
never sees an outer one's perturbation.

Traces are local to the call that opens them, so threads differentiating at
once never share state.
"""

import functools
import numbers

import numpy as np

from ._gc import gc_paused
from .backprop import add_cotangents, vjp_step
from .errors import NotDifferentiableError, ShapeError
from .finite import check_values, checked_vjp_step, checking
from .fold import reverse_fold_seeds
from .batching import Batched, BatchTrace, leave
from .forward import Dual, ForwardTrace
from .node import EXPRESSIONS, VAR, Node, ReverseTrace, new_level
from .order import dfs_order
from .primitive import Box, Primitive
from .rules.arrays import getitem, raw, reshape, shape_of, transpose, zeros_like_value
from .tree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacrev", "jacfwd", "jacobian", "hessian",
           "hvp", "elementwise_grad", "stop_gradient", "trace", "linearize_rev"]


# ------------------------------------------------------------------ checking

def _fun_name(fun):
    if isinstance(fun, Primitive):
        return fun.name
    return getattr(fun, "__name__", None) or type(fun).__name__


def _diff_leaf(x, who, where):
    """A leaf made ready to differentiate: ints promoted, non-numbers refused."""
    if isinstance(x, Box):
        return x
    if isinstance(x, bool) or isinstance(x, np.bool_):
        raise NotDifferentiableError(f"{who}: {where} is the bool {x!r}, which has no derivative")
    if isinstance(x, complex):
        raise NotDifferentiableError(
            f"{who}: {where} is complex ({x!r}); funcgrad differentiates real floats only")
    if isinstance(x, int):
        return float(x)
    if isinstance(x, float):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        kind = x.dtype.kind
        if kind == "f":
            return x
        if kind in "iu":
            raise NotDifferentiableError(
                f"{who}: {where} is an integer array ({x.dtype}); gradients need floats: "
                f"pass it as x.astype(float)"
            )
        if kind == "c":
            raise NotDifferentiableError(
                f"{who}: {where} is complex; funcgrad differentiates real floats only"
            )
        raise NotDifferentiableError(f"{who}: {where} is an array of dtype {x.dtype}, not numbers")
    if isinstance(x, numbers.Real):
        return float(x)
    raise NotDifferentiableError(
        f"{who}: {where} is {type(x).__name__} {x!r}, which cannot be differentiated; "
        f"pass numbers or float arrays (or fix it with functools.partial)"
    )


def _argnums_tuple(argnums, nargs, who):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    if not nums:
        raise ValueError(f"{who}: argnums is empty; name at least one argument to differentiate")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f"{who}: argnums must be ints; got {a!r}")
        if not -nargs <= a < nargs:
            raise ValueError(
                f"{who}: argnums={argnums!r} is out of range for a call with {nargs} "
                f"positional argument{'s' if nargs != 1 else ''}"
            )
    return tuple(a % nargs for a in nums), single


# ------------------------------------------------------------------ reverse mode

def _wrap_inputs(args, argnums, box, who):
    """``args`` with the differentiated ones boxed leaf by leaf; also the boxes per argnum."""
    args = list(args)
    boxes = []
    for i in argnums:
        leaves, treedef = tree_flatten(args[i])
        wrapped = [box(_diff_leaf(v, who, f"argument {i}"), k) for k, v in enumerate(leaves)]
        boxes.append((wrapped, treedef))
        args[i] = tree_unflatten(treedef, wrapped)
    return args, boxes


def _unbox(x, trace):
    return x._value if type(x) is Node and x._trace is trace else x


def linearize_rev(fun, args, argnums, who, kwargs=None):
    """Trace ``fun`` in a new reverse trace; return ``(trace, inputs, out)``."""
    trace = ReverseTrace(new_level())
    args, inputs = _wrap_inputs(args, argnums, lambda v, k: Node(v, VAR, (), None, None, trace), who)
    out = fun(*args, **(kwargs or {}))
    return trace, inputs, out


def _pull_back(trace, out_leaves, cotangents, inputs):
    """Cotangents of the inputs, given the cotangents of the output leaves."""
    seeds = {}
    for o, ct in zip(out_leaves, cotangents):
        if type(o) is Node and o._trace is trace and ct is not None:
            seeds[o] = add_cotangents(seeds[o], ct) if o in seeds else ct
    result = []
    if seeds:
        wanted = {n for nodes, _ in inputs for n in nodes}
        check = checking()
        with gc_paused():
            order = dfs_order(tuple(seeds))
            if check:
                check_values(order)
            grads = reverse_fold_seeds(order, seeds, checked_vjp_step if check else vjp_step,
                                       add_cotangents, keep=wanted.__contains__)
    else:
        grads = {}
    for nodes, treedef in inputs:
        result.append(tree_unflatten(
            treedef, [_like(grads[n], n._value) if n in grads else zeros_like_value(n._value)
                      for n in nodes]))
    return result


def _like(g, x):
    """A gradient in the form of its input: a Python float for a Python float."""
    if type(x) is float and type(g) is not float and not isinstance(g, Box) and np.ndim(g) == 0:
        return float(g)
    return g


def vjp(fun, *primals, has_aux=False):
    """``(out, vjp_fn)``: the value of ``fun`` and its vector-Jacobian product.

    ``vjp_fn(cotangent)`` takes a cotangent shaped like ``out`` and returns a
    tuple with one cotangent per primal. The graph is traced once; ``vjp_fn``
    can be called any number of times.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> out, f_vjp = fg.vjp(lambda x: fnp.sin(x) * 2.0, np.array([0.0, np.pi]))
    >>> f_vjp(np.array([1.0, 1.0]))
    (array([ 2., -2.]),)
    """
    who = f"vjp of {_fun_name(fun)}"
    if not primals:
        raise TypeError(f"{who}: give at least one primal to differentiate at")
    trace, inputs, out = linearize_rev(fun, primals, tuple(range(len(primals))), who)
    if has_aux:
        out, aux = _split_aux(out, who)
    out_leaves, out_def = tree_flatten(out)
    value = tree_unflatten(out_def, [_unbox(o, trace) for o in out_leaves])

    def vjp_fn(cotangent):
        ct_leaves, ct_def = tree_flatten(cotangent)
        if ct_def != out_def:
            raise ShapeError(f"{who}: the cotangent has structure {ct_def!r}, but the output has {out_def!r}")
        for o, ct in zip(out_leaves, ct_leaves):
            if shape_of(ct) != shape_of(o):
                raise ShapeError(
                    f"{who}: a cotangent has shape {shape_of(ct)} where the output has "
                    f"shape {shape_of(o)}; they must match"
                )
        return tuple(_pull_back(trace, out_leaves, ct_leaves, inputs))

    if has_aux:
        return value, vjp_fn, tree_map(lambda a: _unbox(a, trace), aux)
    return value, vjp_fn


def _split_aux(out, who):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{who}: has_aux=True needs the function to return a pair (output, aux)")
    return out[0], out[1]


def value_and_grad(fun, argnums=0, has_aux=False):
    """A function giving ``(value, grad)`` of a scalar function; ``((value, aux), grad)`` with aux.

    >>> import funcgrad as fg
    >>> fg.value_and_grad(lambda x, y: x * y, argnums=(0, 1))(3.0, 4.0)
    (12.0, (4.0, 3.0))
    """
    @functools.wraps(fun)
    def value_and_grad_fun(*args, **kwargs):
        who = f"grad of {_fun_name(fun)}"
        nums, single = _argnums_tuple(argnums, len(args), who)
        trace, inputs, out = linearize_rev(fun, args, nums, who, kwargs)
        if has_aux:
            out, aux = _split_aux(out, who)
            aux = tree_map(lambda a: _unbox(a, trace), aux)
        if isinstance(out, (tuple, list, dict)) or shape_of(out) != ():
            what = f"shape {shape_of(out)}" if not isinstance(out, (tuple, list, dict)) else f"a {type(out).__name__}"
            raise ShapeError(
                f"{who}: grad needs a scalar output, but the function returned {what}; "
                f"use jacrev or vjp for non-scalar outputs"
            )
        value = _unbox(out, trace)
        grads = _pull_back(trace, (out,), (1.0,), inputs)   # the output is a scalar
        g = grads[0] if single else tuple(grads)
        return ((value, aux) if has_aux else value), g

    return value_and_grad_fun


def grad(fun, argnums=0, has_aux=False):
    """The gradient of a scalar function with respect to argument(s) ``argnums``.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.grad(fnp.tanh)(0.0)
    1.0
    >>> fg.grad(fg.grad(lambda x: x ** 3))(2.0)
    12.0
    """
    vg = value_and_grad(fun, argnums, has_aux)

    @functools.wraps(fun)
    def grad_fun(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_fun


def elementwise_grad(fun, argnums=0):
    """The vjp of ``fun`` with a ones cotangent: the derivative of an elementwise function.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.elementwise_grad(fnp.sin)(np.array([0.0, np.pi]))
    array([ 1., -1.])
    """
    @functools.wraps(fun)
    def egrad_fun(*args, **kwargs):
        who = f"elementwise_grad of {_fun_name(fun)}"
        nums, single = _argnums_tuple(argnums, len(args), who)
        trace, inputs, out = linearize_rev(fun, args, nums, who, kwargs)
        leaves, _ = tree_flatten(out)
        ones = [np.ones(shape_of(o)) if shape_of(o) else 1.0 for o in leaves]
        grads = _pull_back(trace, leaves, ones, inputs)
        return grads[0] if single else tuple(grads)

    return egrad_fun


# ------------------------------------------------------------------ forward mode

def jvp(fun, primals, tangents):
    """``(out, tangent_out)``: ``fun`` at ``primals`` and its derivative along ``tangents``.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.jvp(fnp.sin, (0.0,), (2.0,))
    (0.0, 2.0)
    """
    who = f"jvp of {_fun_name(fun)}"
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"{who}: primals and tangents must be tuples, e.g. jvp(f, (x,), (t,))")
    p_leaves, p_def = tree_flatten(tuple(primals))
    t_leaves, t_def = tree_flatten(tuple(tangents))
    if p_def != t_def:
        raise ShapeError(f"{who}: tangents have structure {t_def!r}, but primals have {p_def!r}")
    for k, (p, t) in enumerate(zip(p_leaves, t_leaves)):
        if shape_of(p) != shape_of(t):
            raise ShapeError(f"{who}: tangent {k} has shape {shape_of(t)}, but its primal has {shape_of(p)}")
    trace = ForwardTrace(new_level())
    duals = [Dual(_diff_leaf(p, who, f"primal {k}"), _diff_leaf(t, who, f"tangent {k}"), trace)
             for k, (p, t) in enumerate(zip(p_leaves, t_leaves))]
    out = fun(*tree_unflatten(p_def, duals))
    o_leaves, o_def = tree_flatten(out)
    primal_out = [o._value if type(o) is Dual and o._trace is trace else o for o in o_leaves]
    tangent_out = [o._tangent if type(o) is Dual and o._trace is trace else zeros_like_value(o)
                   for o in o_leaves]
    return tree_unflatten(o_def, primal_out), tree_unflatten(o_def, tangent_out)


def hvp(fun, primals, tangents):
    """The Hessian-vector product of a scalar function, without forming the Hessian.

    Forward mode over reverse: the derivative of the gradient along ``tangents``.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.hvp(lambda x: fnp.sum(x ** 3), (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
    array([6., 0.])
    """
    primals, tangents = tuple(primals), tuple(tangents)
    gradient = grad(fun, argnums=tuple(range(len(primals))))
    out = jvp(gradient, primals, tangents)[1]
    return out[0] if len(primals) == 1 else out


# ------------------------------------------------------------------ Jacobians

def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _one_hot(shape, j):
    if not shape:
        return 1.0
    e = np.zeros(shape)
    e.flat[j] = 1.0
    return e


def _basis_batch(shapes):
    """One-hot directions over several leaves at once: per leaf, an array of
    shape ``(total,) + shape`` whose rows for that leaf's elements are the unit
    vectors and whose other rows are zero."""
    total = sum(_size(s) for s in shapes)
    blocks, start = [], 0
    for shape in shapes:
        n = _size(shape)
        block = np.zeros((total, n))
        block[start:start + n] = np.eye(n)
        blocks.append(block.reshape((total,) + shape))
        start += n
    return total, blocks


def _rows(batch, start, stop, shape):
    """Rows ``start:stop`` of a batch-first array (plain or traced), differentiably."""
    return getitem(batch, index=slice(start, stop)) if (start, stop) != (0, shape[0]) else batch


def _jacobian_tree(blocks, out_def, in_def, single):
    """``blocks[o][i]`` arranged as the output tree of input trees (JAX's layout)."""
    per_out = []
    for row in blocks:
        in_tree = tree_unflatten(in_def, row)
        per_out.append(in_tree[0] if single else in_tree)
    return tree_unflatten(out_def, per_out)


def jacrev(fun, argnums=0):
    """The full Jacobian by reverse mode, shape ``out.shape + in.shape``.

    The function is traced once, then folded back once with every output
    direction at the same time (a batch of cotangents).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> fg.jacrev(lambda x: x ** 2)(np.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    """
    @functools.wraps(fun)
    def jac_fun(*args, **kwargs):
        who = f"jacrev of {_fun_name(fun)}"
        nums, single = _argnums_tuple(argnums, len(args), who)
        trace, inputs, out = linearize_rev(fun, args, nums, who, kwargs)
        out_leaves, out_def = tree_flatten(out)
        out_shapes = [shape_of(o) for o in out_leaves]
        in_nodes = [n for nodes, _ in inputs for n in nodes]
        in_def = tree_flatten(tuple(tree_unflatten(td, nodes) for nodes, td in inputs))[1]
        total, directions = _basis_batch(out_shapes)
        if total == 0:
            return _jacobian_tree([[np.zeros(s + shape_of(n._value)) for n in in_nodes]
                                   for s in out_shapes], out_def, in_def, single)
        batch = BatchTrace(new_level(), total)
        pulled = _pull_back(trace, out_leaves, [Batched(d, batch) for d in directions], inputs)
        cotangents = [leave(ct, batch) for ct in tree_flatten(tuple(pulled))[0]]
        blocks, start = [], 0
        for oshape in out_shapes:
            stop = start + _size(oshape)
            blocks.append([reshape(_rows(ct, start, stop, (total,)), shape=oshape + shape_of(n._value))
                           for ct, n in zip(cotangents, in_nodes)])
            start = stop
        return _jacobian_tree(blocks, out_def, in_def, single)

    return jac_fun


jacobian = jacrev


def jacfwd(fun, argnums=0):
    """The full Jacobian by forward mode, every input direction in one pass.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.jacfwd(lambda x: fnp.exp(x) * 2.0)(np.array([0.0, 1.0]))
    array([[2.        , 0.        ],
           [0.        , 5.43656366]])
    """
    @functools.wraps(fun)
    def jac_fun(*args, **kwargs):
        who = f"jacfwd of {_fun_name(fun)}"
        nums, single = _argnums_tuple(argnums, len(args), who)
        diff = tuple(tree_map(lambda v, i=i: _diff_leaf(v, who, f"argument {i}"), args[i]) for i in nums)
        in_leaves, in_def = tree_flatten(diff)
        in_shapes = [shape_of(v) for v in in_leaves]
        total, directions = _basis_batch(in_shapes)
        batch = BatchTrace(new_level(), max(total, 1))
        forward = ForwardTrace(new_level())
        duals = [Dual(v, Batched(d if total else np.zeros((1,) + s), batch), forward)
                 for v, d, s in zip(in_leaves, directions, in_shapes)]
        call_args = list(args)
        for i, d in zip(nums, tree_unflatten(in_def, duals)):
            call_args[i] = d
        out_leaves, out_def = tree_flatten(fun(*call_args, **kwargs))
        blocks = []
        for o in out_leaves:
            oshape = shape_of(o)
            tangent = o._tangent if type(o) is Dual and o._trace is forward else zeros_like_value(o)
            columns = leave(tangent, batch)                      # (total,) + oshape
            row, start = [], 0
            for ishape in in_shapes:
                stop = start + _size(ishape)
                part = _rows(columns, start, stop, (batch.size,))   # (n_in,) + oshape
                moved = transpose(part, axes=tuple(range(1, len(oshape) + 1)) + (0,))
                row.append(reshape(moved, shape=oshape + ishape))
                start = stop
            blocks.append(row)
        return _jacobian_tree(blocks, out_def, in_def, single)

    return jac_fun


def hessian(fun, argnums=0):
    """The Hessian of a scalar function: forward mode over reverse mode.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.hessian(lambda x: fnp.sum(x ** 3))(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    return jacfwd(jacrev(fun, argnums), argnums)


# ------------------------------------------------------------------ helpers

def stop_gradient(x):
    """``x`` with every trace removed: every transform sees a constant.

    >>> import funcgrad as fg
    >>> fg.grad(lambda x: x * fg.stop_gradient(x))(3.0)
    3.0
    """
    return tree_map(raw, x)


def trace(fun, *args):
    """Run ``fun`` on leaves made from ``args`` and return its output node(s).

    The leaves are ``fg.var`` nodes named after the function's parameters, so
    the graph of any function can be explored like a hand-built expression.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> def f(x, y):
    ...     return fnp.sin(x) * y
    >>> out = fg.trace(f, 0.0, 2.0)
    >>> print(fg.show(out))
    %0  x  var                -->  0.0
    %1     sin(%0)            -->  0.0
    %2  y  var                -->  2.0
    %3     multiply(%1, %2)   -->  0.0
    """
    import inspect
    try:
        names = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        names = []
    who = f"trace of {_fun_name(fun)}"
    wrapped = []
    for i, a in enumerate(args):
        base = names[i] if i < len(names) else f"arg{i}"
        leaves, treedef = tree_flatten(a)
        nodes = [Node(_diff_leaf(v, who, f"argument {i}"), VAR, (), None,
                      base if len(leaves) == 1 else f"{base}[{k}]", EXPRESSIONS)
                 for k, v in enumerate(leaves)]
        wrapped.append(tree_unflatten(treedef, nodes))
    return fun(*wrapped)
