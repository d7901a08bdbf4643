"""What every transform shares: checking the arguments it is given, handing results
back, and stop_gradient.

The transforms themselves live with their traces: reverse mode (``grad``,
``value_and_grad``, ``vjp``, ``elementwise_grad``, ``trace``) in
:mod:`funcgrad.transforms.reverse`, forward mode (``jvp``) in :mod:`funcgrad.transforms.forward`,
``vmap`` in :mod:`funcgrad.transforms.batching`, ``jit`` in :mod:`funcgrad.jit.staging`, and
the Jacobians and Hessians they compose into in :mod:`funcgrad.transforms.jacobians`.
Each call of a transformed function opens a trace of its own (see
:mod:`funcgrad.core.traces`), local to that call, so threads differentiating at
once never share state.
"""

import contextlib
import dataclasses
import inspect
import math
import numbers
from typing import Any

import numpy as np

from ..core.errors import (
    ArgumentError,
    ArgumentTypeError,
    ConversionError,
    FuncgradError,
    NotDifferentiableError,
    ShapeError,
)
from ..core.fp_warnings import at_users_line
from ..core.namespaces import KNOWN_NAMESPACES, dtype_kind, is_foreign, library_of, namespace_of
from ..core.primitive import Primitive, numpy_answer
from ..core.traces import Box, note_cut
from ..core.tree import tree_leaves, tree_map
from ..core.values import dtype_of, is_complex, numeric_kind, raw, shape_of
from ..rules.cuts import stop_gradient as cut

__all__ = [
    "fun_name",
    "check_callable",
    "call_user",
    "diff_leaf",
    "int_argument",
    "argnums_tuple",
    "distinct",
    "check_scalar_output",
    "check_complex_output",
    "check_holomorphic_inputs",
    "split_aux",
    "result_of",
    "stop_gradient",
]


def fun_name(fun):
    if isinstance(fun, Primitive):
        return fun.name
    return getattr(fun, "__name__", None) or type(fun).__name__


def check_callable(fun, who, what="the function"):
    """``fun``, or an ArgumentTypeError if it cannot be called (``fg.grad(5)`` is refused
    where it is written, as JAX refuses it, not at the first call)."""
    if not callable(fun):
        raise ArgumentTypeError(
            f"{who}: {what} must be callable; got {type(fun).__name__} {fun!r:.40}: pass the "
            f"function itself, e.g. fg.grad(f), not fg.grad(f(x))"
        )
    return fun


def call_user(fun, args, kwargs, who, form=None):
    """``fun(*args, **kwargs)`` for a transform. A TypeError from calling ``fun`` with
    arguments it does not take, or from a list of numbers given where an array was meant
    (each number becomes a leaf of its own), is raised again as an ArgumentTypeError
    that says so; ``form`` says how a loop or branch calls its ``fun`` (whose arguments
    are then funcgrad's own, never a user's list). A primitive or public function handed
    over as ``fun`` itself (``fg.grad(fnp.sin)``) answers as it would the user's own call
    of it: NumPy's scalars (see :func:`~funcgrad.core.primitive.strong`)."""
    try:
        with at_users_line():  # NumPy's warnings from the rules name this call's line
            out = fun(*args, **(kwargs or {}))
    except TypeError as e:
        _explain_call_error(e, fun, args, kwargs or {}, who, form)
        raise
    if isinstance(fun, Primitive) or getattr(fun, "returns_numpy_scalars", False):
        return tree_map(numpy_answer, out)
    return out


def _explain_call_error(e, fun, args, kwargs, who, form):
    if not isinstance(e, FuncgradError):
        try:
            inspect.signature(fun).bind(*args, **kwargs)
        except TypeError as mismatch:
            n = len(args)
            called = f"{n} positional argument{'s' if n != 1 else ''}"
            if kwargs:
                called += f" and keyword{'s' if len(kwargs) > 1 else ''} {', '.join(kwargs)}"
            fix = form or "call the transformed function with the arguments the function takes"
            raise ArgumentTypeError(
                f"{who}: {fun_name(fun)} cannot be called with {called} ({mismatch}); {fix}"
            ) from None
        except ValueError:  # no signature to read (a builtin)
            pass
    if form is not None:  # a loop's body or a branch: its arguments are funcgrad's
        return
    said = str(e)
    for i, a in enumerate(args):
        kind = type(a).__name__
        named = (
            f"'{kind}'" in said
            or isinstance(e, ConversionError)
            or ("sequence" in said and kind in ("list", "tuple"))
        )
        if not named:
            continue
        if a is None:
            raise ArgumentTypeError(
                f"{who}: argument {i} is None, on which the function failed ({_briefly(e)}); "
                f"pass a number or an array"
            ) from e
        if (
            type(a) in (list, tuple, dict)
            and a
            and all(isinstance(v, Box) and shape_of(v) == () for v in tree_leaves(a))
        ):
            raise ArgumentTypeError(
                f"{who}: argument {i} is a {kind} of {len(a)} numbers, which a "
                f"transform takes as a pytree with one scalar leaf per number, so the function "
                f"failed on it ({_briefly(e)}); pass an array instead: np.array([...])"
            ) from e


def _briefly(e):
    """A user's TypeError in a few words (funcgrad's own are long: their class says it)."""
    return type(e).__name__ if isinstance(e, FuncgradError) else f"{type(e).__name__}: {e!s:.80}"


def diff_leaf(x, who, where):
    """A leaf made ready to differentiate: ints promoted, non-numbers refused."""
    kind = type(x)
    if kind is np.ndarray and x.dtype.kind in "fc":  # the commonest leaves, read first
        return x
    if kind in KNOWN_NAMESPACES:  # a library's array type met before: its float dtypes known
        try:
            if (kind, x.dtype) in _FLOATING:
                return x
        except TypeError:  # a dtype that cannot be hashed: read as below
            pass
    if isinstance(x, Box):  # traced by jit, vmap or a loop: refused as its value would be
        value = raw(x)
        if isinstance(value, (np.ndarray, np.generic)) or is_foreign(value):
            kind = dtype_kind(value)
            if kind not in "fc":
                diff_leaf(value, who, where)  # the same refusal, naming the dtype
        return x
    if is_foreign(x):  # another library's array, differentiated in its own namespace
        if dtype_kind(x) in "fc":
            with contextlib.suppress(TypeError):  # (a dtype that cannot be hashed)
                _FLOATING.add((kind, x.dtype))
            return x
        if namespace_of((x,)).isdtype(x.dtype, "real floating"):  # ml_dtypes: kind V
            raise NotDifferentiableError(
                f"{who}: {where} is a {library_of(x)} array of dtype {x.dtype}, a float NumPy "
                f"has no twin for, so funcgrad's rules cannot keep it: use float16 or float32"
            )
        raise NotDifferentiableError(
            f"{who}: {where} is a {library_of(x)} array of dtype {x.dtype}; gradients need "
            f"floats: convert it to a floating dtype first"
        )
    if isinstance(x, (bool, np.bool_)):
        raise NotDifferentiableError(f"{who}: {where} is the bool {x!r}, which has no derivative")
    if isinstance(x, int):
        return float(x)
    # A Python number stays Python's (weak, NEP 50); NumPy's scalars keep their dtype (a
    # float64 one is strong: it makes a float32 array float64, as it does eagerly).
    if isinstance(x, (float, complex)):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        kind = numeric_kind(x.dtype)
        if kind in "fc":
            return x
        if kind in "iu" and type(x) is not np.ndarray:  # np.int64(3): 3.0, as NumPy promotes it
            return np.float64(x)
        if kind in "iu":
            raise NotDifferentiableError(
                f"{who}: {where} is an integer array ({x.dtype}); gradients need floats: "
                f"pass it as x.astype(float)"
            )
        raise NotDifferentiableError(f"{who}: {where} is an array of dtype {x.dtype}, not numbers")
    if isinstance(x, numbers.Real):
        return float(x)
    if isinstance(x, numbers.Complex):
        return complex(x)
    if dataclasses.is_dataclass(x) or (hasattr(x, "__dict__") and not callable(x)):
        raise NotDifferentiableError(
            f"{who}: {where} is {type(x).__name__} {x!r:.60}, which funcgrad does not know as "
            f"a container; register its class as a pytree: @fg.register_dataclass above "
            f"@dataclass, or fg.register_pytree_node(cls, flatten, unflatten)"
        )
    raise NotDifferentiableError(
        f"{who}: {where} is {type(x).__name__} {x!r}, which cannot be differentiated; "
        f"pass numbers or float arrays (or fix it with functools.partial)"
    )


_FLOATING: set = set()  # (another library's array type, a float dtype of it)


def int_argument(value, who, kind, bounds, low, high=None):
    """``value`` as a Python int from ``low`` to ``high`` (None: no upper bound); else an
    ArgumentTypeError saying ``who: kind; got <type> <value>`` or an ArgumentError saying
    ``who: bounds; got <value>``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{who}: {kind}; got {type(value).__name__} {value!r:.40}")
    if value < low or (high is not None and value > high):
        raise ArgumentError(f"{who}: {bounds}; got {value}")
    return int(value)


def argnums_tuple(argnums, nargs, who):
    single = isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool)
    if single:
        nums = (int(argnums),)
    elif isinstance(argnums, (tuple, list)):
        nums = tuple(int(a) if isinstance(a, np.integer) else a for a in argnums)
    else:
        raise ArgumentTypeError(
            f"{who}: argnums must be an int or a tuple of ints; got "
            f"{type(argnums).__name__} {argnums!r:.40}: e.g. argnums=(0, 1)"
        )
    if not nums:
        raise ArgumentError(f"{who}: argnums is empty; name at least one argument to differentiate")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise ArgumentTypeError(f"{who}: argnums must be ints; got {a!r}: e.g. argnums=(0, 1)")
        if not -nargs <= a < nargs:
            raise ArgumentError(
                f"{who}: argnums={argnums!r} is out of range for a call with {nargs} "
                f"positional argument{'s' if nargs != 1 else ''}"
            )
    return tuple(a % nargs for a in nums), single


def distinct(nums):
    """``nums`` without repeats, and where each of ``nums`` sits among them: the arguments
    are differentiated once each, and ``argnums=(0, 0)`` still gives two results."""
    unique = tuple(dict.fromkeys(nums))
    return unique, tuple(unique.index(i) for i in nums)


def check_scalar_output(out, who, holomorphic=False):
    """The output of a function ``grad`` differentiates: one float, else a clear error."""
    if type(raw(out)) is float:  # the common case, and always fine
        return
    if isinstance(out, (tuple, list, dict)):
        got = type(out).__name__
        if isinstance(out, (tuple, list)) and len(out) == 2:
            raise ShapeError(
                f"{who}: grad needs a scalar output, but the function returned a "
                f"{got} of 2; if it returns (loss, aux), pass has_aux=True (grad "
                f"then returns (gradient, aux)); for non-scalar outputs use jacrev "
                f"or vjp"
            )
        raise ShapeError(
            f"{who}: grad needs a scalar output, but the function returned a "
            f"{got}; use jacrev or vjp for non-scalar outputs"
        )
    v = raw(out)
    dtype = getattr(v, "dtype", None)
    kind = dtype_kind(v) if is_foreign(v) else "" if dtype is None else numeric_kind(dtype)
    if (
        isinstance(v, (bool, np.bool_))
        or kind in ("b", "U", "S", "O", "V")
        or (not isinstance(v, (float, int, complex, np.ndarray, np.generic)) and not is_foreign(v))
    ):
        hint = " (did the function forget to return?)" if v is None else ""
        raise NotDifferentiableError(
            f"{who}: grad needs a float output, but the function returned "
            f"{type(v).__name__} {v!r:.60}{hint}; return a float, e.g. fnp.sum(...)"
        )
    if isinstance(v, int) or kind in ("i", "u"):
        raise NotDifferentiableError(
            f"{who}: grad needs a float output, but the function returned the "
            f"integer {v!r:.60}; integers have no derivative"
        )
    shape = shape_of(out)
    if math.prod(shape) != 1:  # one element, of shape () or (1,) or (1, 1), ...
        raise ShapeError(
            f"{who}: grad needs a scalar output, but the function returned shape "
            f"{shape}; use jacrev or vjp for non-scalar outputs"
        )
    check_complex_output(out, who, holomorphic)


def check_complex_output(out, who, holomorphic):
    """A complex output is differentiated only as a holomorphic function, when asked to.

    The gradient of a real-valued function is defined for complex inputs; a
    complex output has two real parts, and which one to differentiate is the
    user's choice, never a silent one."""
    complex_out = is_complex(out)
    if complex_out and not holomorphic:
        raise NotDifferentiableError(
            f"{who}: the output is complex ({dtype_of(out)}), and a complex output "
            f"has no gradient of its own; differentiate fnp.real(...) or fnp.abs(...) of it, or "
            f"pass holomorphic=True if the function is holomorphic (see docs/complex.md)"
        )
    if holomorphic and not complex_out:
        raise NotDifferentiableError(
            f"{who}: holomorphic=True needs a complex output; got {dtype_of(out)}"
        )


def check_holomorphic_inputs(leaves, who):
    """holomorphic=True differentiates complex inputs only (a real one cannot vary
    along the imaginary axis a holomorphic derivative needs)."""
    for v in leaves:
        if not is_complex(v):
            raise NotDifferentiableError(
                f"{who}: holomorphic=True needs complex inputs; got {dtype_of(v)}: "
                f"pass it as x.astype(complex)"
            )


def split_aux(out, who):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise ArgumentTypeError(
            f"{who}: has_aux=True needs the function to return a pair (output, aux)"
        )
    return out[0], out[1]


def result_of(trace, tree):
    """A transform's result: ``tree`` with ``trace``'s boxes taken off and Python floats
    made NumPy float64 scalars (so results have ``.item()``, as NumPy's and JAX's do)."""
    if isinstance(tree, Box):
        return numpy_answer(trace.unbox(tree))
    return tree_map(lambda v: numpy_answer(trace.unbox(v)), tree)


def stop_gradient(x: Any) -> Any:
    """``x`` as a constant to every derivative, and unchanged to every other transform.

    Under ``grad``, ``jvp`` and their relatives the leaves of ``x`` are cut off
    from the variables; under ``vmap`` each example keeps its own value and
    under ``jit`` every call its own (see :mod:`funcgrad.rules.cuts`).

    >>> import funcgrad as fg
    >>> fg.grad(lambda x: x * fg.stop_gradient(x))(3.0)
    np.float64(3.0)
    """
    return tree_map(_cut, x)


def _cut(v):
    note_cut("stop_gradient", v)
    return cut(v)
