"""Loops as single nodes: ``scan``, ``fori_loop`` and ``while_loop``.

A loop is one primitive whose parameters hold its body as a graph of its own
(:mod:`funcgrad.control.body`), so a loop of a million iterations is one node and its
carries, not a million nodes, in every trace: eager reverse mode records one
node, jit compiles the body once and runs it as a Python loop, whatever the
trip count.

Each transform of a loop is a loop of the transformed body:

- forward mode carries the tangents beside the carries (``jvp_fun``);
- reverse mode runs the loop again keeping the carry before every step (the
  *history*), then a reverse scan that pulls the cotangent back through one
  step at a time (``vjp_fun``), adding up the cotangents of the values the
  body closes over. A ``while_loop`` does the same with the history of the
  trip count it found at run time, so it differentiates in reverse mode
  eagerly and under jit;
- vmap runs the body on the whole batch; a ``while_loop`` whose condition
  differs between examples runs until every example is done, holding the
  finished ones still.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def cumulative(c, x):
...     c = c + x
...     return c, c
>>> fg.scan(cumulative, 0.0, np.arange(1.0, 5.0))
(np.float64(10.0), array([ 1.,  3.,  6., 10.]))
>>> fg.grad(lambda a: fg.fori_loop(0, 3, lambda i, x: x * a, 1.0))(2.0)   # d a^3 / da
np.float64(12.0)
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import ArgumentTypeError, ShapeError
from ..core.primitive import numpy_answer
from ..core.traces import Box
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import dtype_of, shape_of
from ..transforms.arguments import call_user, check_callable, fun_name
from .body import abstract, check_same_leaves
from .checkpoint import checkpoint_budget, counted_while, segmented_while
from .checkpointed_scan import bind_checkpointed_scan
from .online_while import online_while
from .scan_primitive import bind_scan
from .while_primitive import bind_while, while_p

__all__ = ["scan", "fori_loop", "while_loop"]


def scan(
    f: Callable,
    init: Any,
    xs: Any = None,
    length: int | None = None,
    reverse: bool = False,
    unroll: int | bool = 1,
    checkpoints: int | None = None,
) -> tuple[Any, Any]:
    """Loop ``f`` over the leading axis of ``xs``, carrying a state: JAX's ``lax.scan``.

    ``f(carry, x)`` returns ``(carry, y)``; the result is the last carry and
    the ``y`` of every step stacked along a new leading axis. ``carry`` is any
    pytree, which keeps its structure, shapes and dtypes from step to step;
    ``xs`` any pytree of arrays of one length (``None`` with ``length``: no
    inputs). ``reverse=True`` runs from the last step to the first. The loop
    is one node of the graph, in every transform. ``checkpoints=k`` bounds
    the carries reverse mode holds to about ``k``, for a few more runs of the
    body (:func:`funcgrad.checkpoint_plan` prints the plan). ``unroll``, JAX's
    hint of how many steps one iteration of the compiled loop runs, is taken and
    checked, and changes no result: jit compiles a loop whole instead.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> def rnn(h, x):
    ...     h = fnp.tanh(0.5 * h + x)
    ...     return h, h ** 2
    >>> h, ys = fg.scan(rnn, 0.0, np.array([1.0, -1.0, 0.5]))
    >>> ys.shape, fg.grad(lambda h0: fg.scan(rnn, h0, np.ones(3))[0])(0.0).round(4)
    ((3,), np.float64(0.0024))
    """
    who = f"scan of {fun_name(check_callable(f, 'scan', 'f'))}"
    _check_unroll(unroll, who)
    return _scan_tree(f, init, xs, length, reverse, who, checkpoints)


def _check_unroll(unroll, who):
    if unroll is None or isinstance(unroll, bool):
        return
    if not isinstance(unroll, (int, np.integer)) or unroll < 1:
        raise ArgumentTypeError(
            f"{who}: unroll must be a positive int or a bool (JAX's hint, "
            f"which changes no result); got {unroll!r:.40}"
        )


def _scan_tree(f, init, xs, length, reverse, who, checkpoints=None):
    init_leaves, init_def = tree_flatten(init)
    xs_leaves, xs_def = tree_flatten(xs)
    n = _length(xs_leaves, length, who)
    y_def = []

    def flat(*leaves):
        c = tree_unflatten(init_def, leaves[: len(init_leaves)])
        x = tree_unflatten(xs_def, leaves[len(init_leaves) :])
        out = call_user(f, (c, x), None, who, "scan calls f(carry, x) and takes (carry, y) back")
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise ArgumentTypeError(
                f"{who}: the body must return a pair (carry, y); got {type(out).__name__}"
            )
        c_leaves = _carry_out(who, out[0], init, init_def, leaves[: len(init_leaves)])
        y_leaves, y_tree = tree_flatten(out[1])
        y_def.append(y_tree)
        return c_leaves + y_leaves

    checkpoints = checkpoint_budget(checkpoints, who)
    if checkpoints is not None and checkpoints < n:
        out = bind_checkpointed_scan(
            flat, init_leaves, xs_leaves, n, bool(reverse), who, checkpoints
        )
    else:
        out = bind_scan(flat, init_leaves, xs_leaves, n, bool(reverse), who)
    out = [numpy_answer(o) for o in out]  # a Python float comes back as NumPy's, as from grad
    k = len(init_leaves)
    return tree_unflatten(init_def, out[:k]), tree_unflatten(y_def[0], out[k:])


def _length(xs_leaves, length, who):
    lengths = {shape_of(x)[0] if shape_of(x) else None for x in xs_leaves}
    if None in lengths:
        raise ShapeError(f"{who}: every leaf of xs needs a leading axis to loop over; got a scalar")
    if length is not None:
        if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or length < 0:
            raise ArgumentTypeError(f"{who}: length must be a non-negative int; got {length!r}")
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ShapeError(
            f"{who}: xs leaves and length disagree on the number of steps: {sorted(lengths)}"
            if lengths
            else f"{who}: with no xs, give the number of steps as length="
        )
    return lengths.pop()


def _carry_out(who, new, init, init_def, before):
    """The body's new carry as leaves, checked against what went in."""
    leaves, treedef = tree_flatten(new)
    if treedef != init_def:
        raise ShapeError(
            f"{who}: the body returned a carry of structure {treedef!r}, but "
            f"the carry going in has {init_def!r}; a loop's carry keeps its "
            f"structure"
        )
    check_same_leaves(who, "carry", before, leaves, init)
    return leaves


# ---------------------------------------------------------------- fori_loop


def fori_loop(
    lower: int,
    upper: int,
    body_fun: Callable,
    init_val: Any,
    *,
    unroll: int | bool | None = None,
    checkpoints: int | None = None,
) -> Any:
    """``body_fun(i, val)`` for ``i`` from ``lower`` to ``upper - 1``: JAX's ``fori_loop``.

    With Python int bounds it is a scan of ``upper - lower`` steps; with
    traced bounds (under jit) a ``while_loop``. Both differentiate in every
    mode. ``unroll`` is checked and changes nothing, as in :func:`scan`.

    >>> import funcgrad as fg
    >>> fg.fori_loop(0, 5, lambda i, s: s + i, 0)
    10
    >>> fg.grad(lambda x: fg.fori_loop(0, 10, lambda i, y: y * 0.5 + x, 0.0))(1.0).round(6)
    np.float64(1.998047)
    """
    who = f"fori_loop of {fun_name(check_callable(body_fun, 'fori_loop', 'body_fun'))}"
    _check_unroll(unroll, who)
    form = "fori_loop calls body_fun(i, val) and takes the new val back"
    for name, bound in (("lower", lower), ("upper", upper)):
        if not (_static_int(bound) or (isinstance(bound, Box) and dtype_of(bound).kind in "iu")):
            raise ArgumentTypeError(
                f"{who}: {name} must be an int (or a traced integer); got "
                f"{type(bound).__name__} {bound!r:.40}"
            )
    if _static_int(lower) and _static_int(upper):
        lower, upper = int(lower), int(upper)

        def scan_step(carry, _):
            i, val = carry
            return (i + 1, call_user(body_fun, (i, val), None, who, form)), None

        (_, val), _ = _scan_tree(
            scan_step, (lower, init_val), None, max(upper - lower, 0), False, who, checkpoints
        )
        return val

    def cond(carry):
        return carry[0] < upper

    def step(carry):
        i, val = carry
        return i + 1, call_user(body_fun, (i, val), None, who, form)

    return _while_tree(cond, step, (lower, init_val), who, checkpoints)[1]


def _static_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def while_loop(
    cond_fun: Callable, body_fun: Callable, init_val: Any, *, checkpoints: int | None = None
) -> Any:
    """``val = body_fun(val)`` while ``cond_fun(val)``: JAX's ``lax.while_loop``.

    The trip count may depend on the values, and reverse mode still works
    (where JAX's refuses): the backward pass replays the carries the loop went
    through, so it keeps one carry per step it ran. With ``checkpoints=k`` the
    steps are counted in a first pass; a gradient on plain values then holds at
    most ``k`` carries by the binomial schedule, and under ``jit`` or ``vmap``
    about ``k + T / k`` for ``T`` steps, in segments.

    >>> import funcgrad as fg
    >>> fg.while_loop(lambda x: x < 100.0, lambda x: x * 3.0, 1.0)
    np.float64(243.0)
    >>> fg.grad(lambda a: fg.while_loop(lambda x: x < 100.0, lambda x: x * a, 1.0))(3.0)
    np.float64(405.0)
    """
    check_callable(cond_fun, "while_loop", "cond_fun")
    who = f"while_loop of {fun_name(check_callable(body_fun, 'while_loop', 'body_fun'))}"
    return _while_tree(cond_fun, body_fun, init_val, who, checkpoints)


def _while_tree(cond_fun, body_fun, init_val, who, checkpoints=None):
    leaves, treedef = tree_flatten(init_val)

    def test(*c):
        pred = call_user(
            cond_fun,
            (tree_unflatten(treedef, c),),
            None,
            who,
            "while_loop calls cond_fun(val) and body_fun(val)",
        )
        if not isinstance(pred, (Box, bool, int, float, np.bool_, np.number, np.ndarray)):
            raise ArgumentTypeError(
                f"{who}: cond_fun must return one bool; got "
                f"{type(pred).__name__} {pred!r:.40} (did it forget to "
                f"return?)"
            )
        shape, dtype = abstract(pred)
        if shape != () or dtype.kind not in "biuf":
            raise ArgumentTypeError(
                f"{who}: cond_fun must return one bool (shape ()); got {shape} {dtype}"
            )
        return [pred]

    def step(*c):
        new = call_user(
            body_fun,
            (tree_unflatten(treedef, c),),
            None,
            who,
            "while_loop calls cond_fun(val) and body_fun(val)",
        )
        return _carry_out(who, new, init_val, treedef, c)

    if checkpoints is None:
        out = bind_while(while_p, test, step, leaves, who)
    else:
        out = _checkpointed_while(test, step, leaves, checkpoints, who)
    return tree_unflatten(treedef, [numpy_answer(o) for o in out])


def _checkpointed_while(test, step, carry, checkpoints, who):
    """A while loop whose backward pass holds at most ``checkpoints`` carries. Under a gradient
    on plain values it runs once, keeping carries online, and is reversed as a checkpointed
    scan from them (:mod:`funcgrad.control.online_while`); elsewhere (jit, vmap, nested
    derivatives) its steps are counted and it runs as segments of ``ceil(T / checkpoints)``
    steps."""
    checkpoints = checkpoint_budget(checkpoints, who)
    online = online_while(test, step, carry, checkpoints, who)
    if online is not None:
        return online
    counted = counted_while(test, step, carry, who)
    if not isinstance(counted[0], Box):  # nothing traced: nothing to differentiate
        return counted[1:]
    return segmented_while(test, step, carry, checkpoints, who, counted)
