"""Custom derivative rules for Python functions: ``custom_jvp`` and ``custom_vjp``.

Decorating a function makes it one primitive of the graph, named after it,
whose rules are the ones you give: a numerically safe derivative, a
straight-through estimator, a clipped gradient. The function itself runs on
plain values, so its own operations are never recorded; the rules are
written with funcgrad's operations, so they differentiate again. The forms
are JAX's:

- ``@custom_jvp`` with ``@f.defjvp def f_jvp(primals, tangents): return out,
  tangent_out``. Reverse mode transposes the rule (it must be linear in the
  tangents), so one rule serves both modes.
- ``@custom_vjp`` with ``f.defvjp(fwd, bwd)``: ``fwd(*args)`` returns
  ``(out, residuals)``, ``bwd(residuals, g)`` a tuple with one cotangent per
  argument (``None`` for zero). Forward mode differentiates ``fwd`` for the
  residuals and transposes ``bwd`` for the output, where JAX refuses.

``nondiff_argnums`` names arguments that are not differentiated (functions,
ints, flags): they come first in the rules' arguments, ``jvp(*nondiff,
primals, tangents)`` and ``bwd(*nondiff, residuals, g)``. A decorated
function must not close over a traced value: pass it as an argument.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> @fg.custom_jvp
... def log1pexp(x):
...     return fnp.logaddexp(0.0, x)
>>> @log1pexp.defjvp
... def log1pexp_jvp(primals, tangents):
...     (x,), (t,) = primals, tangents
...     y = log1pexp(x)
...     return y, t * fnp.exp(x - y)          # the sigmoid, without overflow
>>> fg.grad(log1pexp)(1000.0), fg.grad(log1pexp)(-1000.0), fg.grad(fg.grad(log1pexp))(0.0)
(np.float64(1.0), np.float64(0.0), np.float64(0.25))
"""

import contextlib
import functools
import inspect
import threading

import numpy as np

from ..core.errors import ArgumentTypeError, ShapeError
from ..core.namespaces import is_foreign
from ..core.primitive import Primitive
from ..core.traces import Box, new_level, one_example_at_a_time
from ..core.tree import tree_flatten, tree_map, tree_unflatten
from ..core.values import ones_like_value, raw, shape_of, zeros_like_value
from ..dag.backprop import transpose
from ..dag.node import VAR, Node, ReverseTrace
from ..rules.arrays import concatenate, getitem, reshape
from ..rules.arrays import sum as asum
from ..rules.elementwise import multiply
from ..transforms.forward import Dual, ForwardTrace
from ..transforms.reverse import pull_back
from .body import Parts, abstract, pick, trace_body

__all__ = ["custom_jvp", "custom_vjp", "custom_gradient", "batch_each"]


class _Results:
    """What one call's results look like, learned when its impl first runs: the trees of
    the output and of the residuals, and an example of each output leaf."""

    __slots__ = ("out_def", "res_def", "examples", "single")

    def __repr__(self):
        return "<results>"


class _Custom:
    """What both decorators share: the call, which binds the function's primitive."""

    kind = "custom"

    def __init__(self, fun, nondiff_argnums=()):
        if not callable(fun):
            raise ArgumentTypeError(
                f"fg.{self.kind} decorates a function; got {type(fun).__name__}"
            )
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(sorted(set(nondiff_argnums)))
        self.name = getattr(fun, "__name__", "custom")
        self.who = f"{self.kind} {self.name}"
        self._signature = None
        self.prim = Primitive(
            self.name, self._impl, vjp=self._vjp, jvp=self._jvp, batch=batch_each, xp=self._xp
        )
        self._plain = threading.local()
        self._traced = {}  # what traced() made, by the leaves' layout and the static arguments

    @contextlib.contextmanager
    def _plain_calls(self):
        """Within the block, calling the function runs its body without its rule."""
        plain = self._plain
        plain.depth = getattr(plain, "depth", 0) + 1
        try:
            yield
        finally:
            plain.depth -= 1

    def __call__(self, *args, **kwargs):
        if getattr(self._plain, "depth", 0):
            return self.fun(*args, **kwargs)
        self._check_rules()
        if kwargs:
            if self._signature is None:
                self._signature = inspect.signature(self.fun)
            bound = self._signature.bind(*args, **kwargs)
            if bound.kwargs:
                raise ArgumentTypeError(
                    f"{self.who}: keyword-only arguments cannot be differentiated; "
                    f"pass {sorted(bound.kwargs)} positionally"
                )
            args = bound.args
        static, diff = [], []
        for i, a in enumerate(args):
            if i in self.nondiff_argnums:
                if any(isinstance(v, Box) for v in tree_flatten(a)[0]):
                    raise ArgumentTypeError(
                        f"{self.who}: argument {i} is in nondiff_argnums but is traced (an "
                        f"outer grad, vmap or jit follows it); nondiff_argnums is for "
                        f"functions, ints and flags: pass arrays as ordinary arguments"
                    )
                static.append((i, a))
            else:
                diff.append(a)
        leaves, in_def = tree_flatten(tuple(diff))
        if not any(isinstance(v, Box) for v in leaves):  # nothing to differentiate
            return self._unboxed(self.fun(*args))
        results = _Results()
        out = self.prim(*leaves, static=tuple(static), in_def=in_def, results=results)
        if results.single:
            return out
        n = len(results.examples)
        return tree_unflatten(results.out_def, [pick(out, index=k) for k in range(n)])

    def _unboxed(self, out):
        if any(isinstance(v, Box) for v in tree_flatten(out)[0]):
            raise ArgumentTypeError(
                f"{self.who} closes over a traced value (a variable of an outer grad, vmap or "
                f"jit), so its rule would miss that dependence; pass the value as an argument"
            )
        return out

    def _xp(self, xp, *leaves, **params):
        """The call on another library's arrays: the function itself, whose body runs in
        their namespace as it runs in NumPy's (funcgrad.numpy's functions take either)."""
        return self._impl(*leaves, **params)

    def _args(self, static, in_def, leaves):
        """The full argument list: the differentiated leaves rebuilt, the static put back."""
        args = list(tree_unflatten(in_def, list(leaves)))
        for i, a in static:
            args.insert(i, a)
        return args

    def _learn(self, results, out):
        """Record the output's structure; return its leaves."""
        out_leaves, out_def = tree_flatten(self._unboxed(out))
        results.out_def = out_def
        results.examples = out_leaves
        return out_leaves

    def traced(self, leaves, params):
        """What this primitive's impl runs on leaves like ``leaves`` (the function, or for
        a custom_vjp ``fwd``'s outputs and residuals), traced into a Body without the rule:
        for analyses that read the function's graph (sparsity). Traced once per layout of
        the leaves and static arguments (where those can be compared)."""
        key = (params["in_def"], params["static"], tuple(map(abstract, leaves)))
        try:
            body = self._traced.get(key)
        except TypeError:  # a static argument that cannot be a key: traced each time
            key, body = None, None
        if body is None:

            def flat(*xs):
                return self._result_leaves(self._args(params["static"], params["in_def"], xs))

            with self._plain_calls():
                body, _ = trace_body(flat, list(leaves), self.who)
            if key is not None:
                self._traced[key] = body
        return body

    def __repr__(self):
        return f"<{self.kind} {self.name}>"


def custom_of(prim):
    """The custom_jvp or custom_vjp whose primitive ``prim`` is, or None."""
    owner = getattr(prim.impl, "__self__", None)
    return owner if isinstance(owner, _Custom) else None


def _zeros(results, k):
    return zeros_like_value(results.examples[k])


def _pulled_back(fn, values, argnums, cotangents):
    """Reverse mode of ``fn`` (a list of values -> a list of output leaves) at ``values``:
    the cotangents of ``values[i]`` for ``i`` in ``argnums``, given the outputs'."""
    trace = ReverseTrace(new_level())
    xs = [Node(x, VAR, (), None, None, trace) for x in values]
    wanted = [xs[i] for i in argnums]
    (grads,) = pull_back(trace, fn(xs), cotangents, [(wanted, tree_flatten(wanted)[1])])
    return grads


def _matching(who, rule, what, got, want_def, want, of):
    """The leaves of ``got`` (a rule's result), checked against the structure
    ``want_def`` and the shapes of ``want``."""
    leaves, treedef = tree_flatten(got)
    if treedef != want_def:
        raise ShapeError(
            f"{who}: {rule} returned {what}s of structure {treedef!r} for "
            f"{of}s of structure {want_def!r}; give one per {of} leaf"
        )
    for k, (t, o) in enumerate(zip(leaves, want)):
        if shape_of(t) != shape_of(o):
            raise ShapeError(
                f"{who}: {rule}'s {what} for {of} leaf {k} has shape "
                f"{shape_of(t)}, but the {of} has shape {shape_of(o)}"
            )
    return leaves


class custom_jvp(_Custom):
    """A function with a forward-mode rule of your own (JAX's ``custom_jvp``).

    ``@f.defjvp`` takes ``rule(*nondiff, primals, tangents)``, returning
    ``(out, tangent_out)``; the rule must be linear in ``tangents``, which
    gives reverse mode too. A straight-through estimator:

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> @fg.custom_jvp
    ... def hard_round(x):
    ...     return fnp.round(x)
    >>> @hard_round.defjvp
    ... def _(primals, tangents):
    ...     return hard_round(*primals), tangents[0]
    >>> fg.grad(lambda x: fnp.sum(hard_round(x) * x))(np.array([0.3, 1.6]))   # x + round(x)
    array([0.3, 3.6])
    """

    kind = "custom_jvp"

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.rule = None

    def defjvp(self, rule):
        """Set the forward rule ``rule(*nondiff, primals, tangents) -> (out, tangent_out)``."""
        if not callable(rule):
            raise ArgumentTypeError(
                f"{self.who}.defjvp needs a function; got {type(rule).__name__}"
            )
        self.rule = rule
        return rule

    def defjvps(self, *jvps):
        """One forward rule per differentiated argument, JAX's ``defjvps``: ``jvps[i](t,
        ans, *primals)`` is the output's tangent caused by argument ``i``'s tangent ``t``
        (``None`` in ``jvps``: no derivative in that argument); they are added.

        >>> import funcgrad as fg, funcgrad.numpy as fnp
        >>> @fg.custom_jvp
        ... def f(x, y):
        ...     return fnp.sin(x) * y
        >>> f.defjvps(lambda t, ans, x, y: fnp.cos(x) * t * y, lambda t, ans, x, y: fnp.sin(x) * t)
        >>> round(float(fg.grad(f, argnums=1)(0.5, 2.0)), 6)
        0.479426
        """
        if self.nondiff_argnums:
            raise ArgumentTypeError(f"{self.who}.defjvps takes no nondiff_argnums; use defjvp")
        for k, rule in enumerate(jvps):
            if rule is not None and not callable(rule):
                raise ArgumentTypeError(
                    f"{self.who}.defjvps: rule {k} is a "
                    f"{type(rule).__name__}, not a function or None"
                )

        def rule(primals, tangents):
            if len(jvps) != len(primals):
                raise ArgumentTypeError(
                    f"{self.who}.defjvps has {len(jvps)} rules for "
                    f"{len(primals)} arguments; give one per argument"
                )
            ans = self.fun(*primals)
            out = None
            for jvp_k, t in zip(jvps, tangents):
                if jvp_k is None:
                    continue
                part = jvp_k(t, ans, *primals)
                out = part if out is None else tree_map(lambda a, b: a + b, out, part)
            return ans, tree_map(zeros_like_value, ans) if out is None else out

        self.rule = rule

    def _check_rules(self):
        if self.rule is None:
            raise ArgumentTypeError(
                f"{self.who} has no rule yet: define one with @{self.name}.defjvp"
            )

    def _result_leaves(self, args):
        return tree_flatten(self.fun(*args))[0]

    def _impl(self, *leaves, static, in_def, results):
        out_leaves = self._learn(results, self.fun(*self._args(static, in_def, leaves)))
        results.single = len(out_leaves) == 1 and results.out_def.kind is None
        return out_leaves[0] if results.single else tuple(out_leaves)

    def _run_rule(self, leaves, tangents, static, in_def, results):
        primals = tuple(tree_unflatten(in_def, list(leaves)))
        dots = tuple(tree_unflatten(in_def, list(tangents)))
        got = self.rule(*[a for _, a in static], primals, dots)
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            raise ArgumentTypeError(
                f"{self.who}: the jvp rule must return a pair (out, tangent_out); "
                f"got {type(got).__name__}"
            )
        return _matching(
            self.who, "the jvp rule", "tangent", got[1], results.out_def, results.examples, "output"
        )

    def _jvp(self, tangents, ans, *leaves, static, in_def, results):
        tangents = [zeros_like_value(x) if t is None else t for x, t in zip(leaves, tangents)]
        dots = self._run_rule(leaves, tangents, static, in_def, results)
        return dots[0] if results.single else Parts(dots)

    def _vjp(self, argnums, g, ans, *leaves, static, in_def, results):
        # The rule is linear in the tangents: trace it on tangent variables, fold back.
        return _pulled_back(
            lambda ts: self._run_rule(leaves, ts, static, in_def, results),
            [zeros_like_value(x) for x in leaves],
            argnums,
            [g] if results.single else list(g),
        )


class custom_vjp(_Custom):
    """A function with a reverse-mode rule of your own (JAX's ``custom_vjp``).

    ``f.defvjp(fwd, bwd)``: ``fwd(*args)`` returns ``(out, residuals)``, any
    pytree of the numbers and arrays the backward pass needs; ``bwd(*nondiff,
    residuals, g)`` returns one cotangent per differentiated argument (``None``:
    zero). A function or a string among the residuals serves a plain first
    derivative only: jit, vmap and second derivatives refuse it (as JAX does),
    since jit would freeze it at its traced value.
    Gradient clipping, with the bounds as non-differentiated arguments:

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> from functools import partial
    >>> @partial(fg.custom_vjp, nondiff_argnums=(0, 1))
    ... def clip_gradient(lo, hi, x):
    ...     return x
    >>> clip_gradient.defvjp(lambda lo, hi, x: (x, None),
    ...                      lambda lo, hi, res, g: (fnp.clip(g, lo, hi),))
    >>> fg.grad(lambda x: fnp.sum(clip_gradient(-1.0, 1.0, 3.0 * x)))(np.array([1.0, 2.0]))
    array([3., 3.])
    >>> fg.grad(lambda x: fnp.sum(3.0 * clip_gradient(-1.0, 1.0, x)))(np.array([1.0, 2.0]))
    array([1., 1.])
    """

    kind = "custom_vjp"

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        """Set the rule: ``fwd(*args) -> (out, residuals)``, ``bwd(*nondiff, residuals, g)``."""
        for part, f in (("fwd", fwd), ("bwd", bwd)):
            if not callable(f):
                raise ArgumentTypeError(
                    f"{self.who}.defvjp: {part} must be a function; got {type(f).__name__}"
                )
        self.fwd, self.bwd = fwd, bwd

    def _check_rules(self):
        if self.fwd is None:
            raise ArgumentTypeError(
                f"{self.who} has no rule yet: define one with {self.name}.defvjp(fwd, bwd)"
            )

    def _result_leaves(self, args):
        out, residuals = self.fwd(*args)
        return tree_flatten(out)[0] + tree_flatten(residuals)[0]

    def _impl(self, *leaves, static, in_def, results):
        got = self.fwd(*self._args(static, in_def, leaves))
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            raise ArgumentTypeError(
                f"{self.who}: fwd must return a pair (out, residuals); got {type(got).__name__}"
            )
        out_leaves = self._learn(results, got[0])
        res_leaves, results.res_def = tree_flatten(self._unboxed(got[1]))
        results.single = False  # the residuals travel with the output
        return tuple(out_leaves) + tuple(res_leaves)

    def _vjp(self, argnums, g, ans, *leaves, static, in_def, results):
        n = len(results.examples)
        values = raw(ans)
        n_res = len(values) - n
        if isinstance(ans, Box):
            self._check_residuals(values[n:])
        res = tree_unflatten(results.res_def, [pick(ans, index=n + k) for k in range(n_res)])
        cts = [_zeros(results, k) if gk is None else gk for k, gk in enumerate(list(g)[:n])]
        got = self.bwd(*[a for _, a in static], res, tree_unflatten(results.out_def, cts))
        diff = tree_unflatten(in_def, list(leaves))
        if not isinstance(got, (tuple, list)) or len(got) != len(diff):
            raise ArgumentTypeError(
                f"{self.who}: bwd must return a tuple with one cotangent per differentiated "
                f"argument ({len(diff)}); got {type(got).__name__}"
                f"{f' of {len(got)}' if isinstance(got, (tuple, list)) else ''}"
            )
        filled = tuple(tree_map(zeros_like_value, a) if c is None else c for a, c in zip(diff, got))
        ct_leaves = _matching(self.who, "bwd", "cotangent", filled, in_def, leaves, "argument")
        out = [ct_leaves[i] for i in argnums]
        if any(c is not None for c in list(g)[n:]):
            # Cotangents on the residuals (second order: an outer reverse pass differentiates
            # bwd, which read them) reach the arguments through fwd's own derivative.
            extra = _pulled_back(
                lambda xs: tree_flatten(self.fwd(*self._args(static, in_def, xs))[1])[0],
                leaves,
                argnums,
                list(g)[n:],
            )
            out = [a + b for a, b in zip(out, extra)]
        return out

    def _check_residuals(self, values):
        """Refuse a residual that is not a number or an array where a transform traces it
        (jit, vmap, a second derivative): a function or a string there would be frozen at
        the value it had when traced, or fail inside bwd with a raw error."""
        for k, v in enumerate(map(raw, values)):  # vmap's tuple may hold jit's values
            if isinstance(v, np.ndarray) and v.dtype.kind in "OSU" and v.size:
                v = v.flat[0]  # vmap stacked the examples' residuals
                v = v.item() if isinstance(v, np.generic) else v
            if not _numeric(v):
                kind = "a function" if callable(v) else f"a {type(v).__name__}"
                raise ArgumentTypeError(
                    f"{self.who}: residual leaf {k} of fwd is {kind}; under jit, vmap or a "
                    f"second derivative residuals must be numbers or arrays (JAX's rule "
                    f"too): return the arrays bwd needs (the inputs, say) and compute the "
                    f"rest in bwd, e.g. with fg.vjp there"
                )

    def _jvp(self, tangents, ans, *leaves, static, in_def, results):
        n = len(results.examples)
        tangents = [zeros_like_value(x) if t is None else t for x, t in zip(leaves, tangents)]
        everything = list(range(len(leaves)))

        def along(k):  # g_k -> <bwd(g_k), tangents>, linear: its gradient is J_k @ tangents
            def linear(gk):
                g = Parts([gk if j == k else None for j in range(n)])
                cts = self._vjp(
                    everything, g, ans, *leaves, static=static, in_def=in_def, results=results
                )
                return sum(asum(multiply(c, t)) for c, t in zip(cts, tangents))

            # Traced at ones, not zero: a bwd that iterates until its answer stops moving
            # (a fixed point's adjoint) would stop at once from zero, and its transpose
            # would hold one iteration instead of the converged sum.
            dot = transpose(
                linear, results.examples[k], 1.0, at=ones_like_value(results.examples[k])
            )
            return _zeros(results, k) if dot is None else dot

        # The residuals are fwd's values: their tangents are fwd's own derivative. A fwd
        # that calls the function itself (JAX's idiom) runs it plainly there, so the
        # derivative of its output is that of its body, not this rule again.
        trace = ForwardTrace(new_level())
        duals = [Dual(x, t, trace) for x, t in zip(leaves, tangents)]
        with self._plain_calls():
            res = tree_flatten(self.fwd(*self._args(static, in_def, duals))[1])[0]
        return Parts(
            [along(k) for k in range(n)] + [r._tangent if trace.owns(r) else None for r in res]
        )


def _numeric(v):
    """Whether a plain value is a number or an array of numbers (any library's)."""
    if isinstance(v, (bool, int, float, complex)):
        return True
    if isinstance(v, (np.ndarray, np.generic)):
        return v.dtype.kind in "biufc"
    return is_foreign(v)


def batch_each(size, prim, values, batched, params):
    """vmap of a custom function (or a host call): its primitive on each example (so an
    inner transform still meets the custom rule), each result, or each of a tuple of
    results, stacked."""
    with one_example_at_a_time():
        per_example = [
            prim(*[getitem(v, index=i) if b else v for v, b in zip(values, batched)], **params)
            for i in range(size)
        ]
    if not isinstance(raw(per_example[0]), tuple):
        return _stacked(per_example)
    return tuple(
        _stacked([pick(o, index=k) for o in per_example]) for k in range(len(raw(per_example[0])))
    )


def _stacked(values):
    return concatenate(*[reshape(v, shape=(1,) + shape_of(v)) for v in values], axis=0)


def custom_gradient(fun):
    """JAX's ``custom_gradient``: ``fun(*args)`` returns ``(out, vjp_fn)``, and
    ``vjp_fn(g)`` gives the cotangent of each argument (a tuple; one value for one
    argument). Built on :class:`custom_vjp`: the backward pass runs ``fun`` again on the
    arguments for its ``vjp_fn``, so only arrays are kept between the passes and it
    composes with ``jit``, ``vmap`` and second derivatives as ``custom_vjp`` does.

    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> @fg.custom_gradient
    ... def log1pexp(x):
    ...     e = fnp.exp(x)
    ...     return fnp.log1p(e), lambda g: g * (1.0 - 1.0 / (1.0 + e))
    >>> fg.grad(log1pexp)(0.0), fg.jit(fg.grad(log1pexp))(2.0).round(6)
    (np.float64(0.5), np.float64(0.880797))
    """
    if not callable(fun):
        raise ArgumentTypeError(f"custom_gradient needs a function; got {type(fun).__name__}")
    who = f"custom_gradient of {getattr(fun, '__name__', type(fun).__name__)}"

    def value(*args):
        return _pair(fun(*args), who)[0]

    def fwd(*args):
        return _pair(fun(*args), who)[0], args

    def bwd(args, g):
        cotangents = _pair(fun(*args), who)[1](g)
        return cotangents if isinstance(cotangents, tuple) else (cotangents,)

    functools.update_wrapper(value, fun)
    rule = custom_vjp(value)
    rule.defvjp(fwd, bwd)
    return rule


def _pair(result, who):
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
        raise ArgumentTypeError(
            f"{who}: the function must return (value, vjp_fn), vjp_fn a "
            f"function of the output's cotangent; got "
            f"{type(result).__name__}"
        )
    return result
