"""What a checkpoint keeps: policies over the primitive calls of its body, and named values.

``fg.checkpoint(f, policy=p)`` asks ``p(prim, *args, **params)`` of each
primitive call in ``f``'s body (``args`` are example values: their shapes and
dtypes are what a policy reads). The values of the calls it answers True for
are kept from the forward pass, and the backward pass uses them instead of
computing them again; everything else is recomputed, as with no policy. The
policies are JAX's (``jax.checkpoint_policies``), less those that offload to
host memory, which a NumPy program does not have:

- ``nothing_saveable``: keep nothing (the default without a policy);
- ``everything_saveable``: keep every value (no recomputation; no saving);
- ``dots_saveable`` (``checkpoint_dots``): keep the results of contractions
  (matmul, dot, einsum, tensordot, ...), recompute the cheap elementwise work;
- ``dots_with_no_batch_dims_saveable``: the same for contractions without a
  batch axis (matrix products of 2-d operands);
- ``save_only_these_names(*names)``: keep the values named with
  ``fg.checkpoint_name(x, name)`` and nothing else;
- ``save_any_names_but_these(*names)``: keep named values, except these names;
- ``save_anything_except_these_names(*names)``: keep everything but these names;
- ``save_from_both_policies(a, b)``: keep what either policy keeps.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def layer(w, x):
...     h = fg.checkpoint_name(x @ w, "pre")
...     return fnp.tanh(h)
>>> saving = fg.checkpoint(layer, policy=fg.checkpoint_policies.save_only_these_names("pre"))
>>> w, x = np.eye(2) * 0.5, np.array([[1.0, -2.0]])
>>> bool(np.allclose(fg.grad(lambda w: fnp.sum(saving(w, x)))(w),
...                  fg.grad(lambda w: fnp.sum(layer(w, x)))(w)))
True
"""

from collections.abc import Callable
from typing import Any

from ..analysis import facts
from ..core.errors import ArgumentTypeError
from ..core.tree import tree_map
from ..core.values import shape_of
from ..rules.names import checkpoint_name as name_p

__all__ = ["checkpoint_name", "name_p", "checkpoint_policies"]


def checkpoint_name(x: Any, name: str) -> Any:
    """``x`` (an array or a pytree of them) unchanged, named ``name`` for checkpoint policies
    (JAX's ``jax.ad_checkpoint.checkpoint_name``).

    >>> import funcgrad as fg
    >>> fg.checkpoint_name(2.0, "h")
    2.0
    """
    if not isinstance(name, str):
        raise ArgumentTypeError(
            f"checkpoint_name: the name must be a string; got {type(name).__name__} {name!r:.40}"
        )
    return tree_map(lambda leaf: name_p(leaf, name=name), x)


def _listed(names):
    return ", ".join(map(repr, names))


def _is_named(prim, params, names):
    return prim is name_p and params.get("name") in names


def _contraction_batch_axes(prim, args, params):
    """The batch axes of a contraction (letters on every operand and the result), or None
    if ``prim`` is not one."""
    if facts.of(prim).structure != "contraction":
        return None
    spec = facts.of(prim).spec
    spec = spec(tuple(shape_of(a) for a in args), params) if spec else None
    if spec is None:
        return ""
    inputs, out = spec
    return "".join(c for c in out if all(c in term for term in inputs))


class checkpoint_policies:
    """JAX's checkpoint policies (less host offloading), as attributes; see the module docstring.

    >>> import funcgrad as fg
    >>> from funcgrad.rules.matmul import matmul
    >>> import numpy as np
    >>> fg.checkpoint_policies.dots_saveable(matmul, np.ones((2, 3)), np.ones((3, 4)))
    True
    >>> fg.checkpoint_policies.dots_with_no_batch_dims_saveable(
    ...     matmul, np.ones((5, 2, 3)), np.ones((5, 3, 4)))
    False
    """

    @staticmethod
    def everything_saveable(prim: Any, *args: Any, **params: Any) -> bool:
        return True

    @staticmethod
    def nothing_saveable(prim: Any, *args: Any, **params: Any) -> bool:
        return False

    @staticmethod
    def dots_saveable(prim: Any, *args: Any, **params: Any) -> bool:
        return facts.of(prim).structure == "contraction"

    checkpoint_dots = dots_saveable

    @staticmethod
    def dots_with_no_batch_dims_saveable(prim: Any, *args: Any, **params: Any) -> bool:
        return _contraction_batch_axes(prim, args, params) == ""

    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable

    @staticmethod
    def save_only_these_names(*names: str) -> Callable:
        wanted = frozenset(names)
        return _Policy(
            f"save_only_these_names({_listed(names)})",
            lambda prim, args, params: _is_named(prim, params, wanted),
        )

    @staticmethod
    def save_any_names_but_these(*names: str) -> Callable:
        refused = frozenset(names)
        return _Policy(
            f"save_any_names_but_these({_listed(names)})",
            lambda prim, args, params: prim is name_p and params.get("name") not in refused,
        )

    @staticmethod
    def save_anything_except_these_names(*names: str) -> Callable:
        refused = frozenset(names)
        return _Policy(
            f"save_anything_except_these_names({_listed(names)})",
            lambda prim, args, params: not _is_named(prim, params, refused),
        )

    @staticmethod
    def save_from_both_policies(first: Callable, second: Callable) -> Callable:
        return _Policy(
            f"save_from_both_policies({first!r}, {second!r})",
            lambda prim, args, params: bool(
                first(prim, *args, **params) or second(prim, *args, **params)
            ),
        )

    def __init__(self):
        raise ArgumentTypeError(
            "fg.checkpoint_policies is a namespace; use "
            "fg.checkpoint_policies.dots_saveable and its siblings"
        )


class _Policy:
    """A policy made from names: equal when made from the same names, so that a checkpoint's
    body keeps one saving form per policy however often the policy is made."""

    __slots__ = ("text", "test")

    def __init__(self, text, test):
        self.text, self.test = text, test

    def __call__(self, prim, *args, **params):
        return self.test(prim, args, params)

    def __eq__(self, other):
        return isinstance(other, _Policy) and other.text == self.text

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"fg.checkpoint_policies.{self.text}"
