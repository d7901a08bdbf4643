"""JAX's runtime names, on the one device funcgrad computes on: the host's CPU.

JAX programs ask for devices, move arrays to them, name scopes and set
configuration flags. funcgrad computes with NumPy (or the array library the
values belong to) where the values are, so these do what they mean on a
machine with one CPU device: ``device_put`` and ``device_get`` turn a tree's
leaves into arrays (traced values pass through), ``devices()`` lists one
device, ``named_scope`` and ``named_call`` change no result, ``config.update``
takes the flags funcgrad has a meaning for and refuses the others by name.

>>> import numpy as np
>>> import funcgrad as fg
>>> fg.device_put({"w": 1.0, "b": [2, 3]})     # a list is a tree, as in JAX
{'b': [array(2), array(3)], 'w': array(1.)}
>>> fg.devices(), fg.default_backend(), fg.device_count()
([CpuDevice(id=0)], 'cpu', 1)
>>> isinstance(np.ones(2), fg.Array), isinstance(1.0, fg.Array)
(True, False)
"""

from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import numpy as np

from .core import heap, promotion
from .core.errors import ArgumentError, ArgumentTypeError
from .core.namespaces import is_foreign
from .core.traces import Box
from .core.tree import tree_map
from .dag import finite
from .jit import jitted
from .kernels import switch as kernel_switch
from .transforms.batching import vmap

__all__ = [
    "Array",
    "Device",
    "device_put",
    "device_get",
    "devices",
    "local_devices",
    "default_backend",
    "device_count",
    "local_device_count",
    "process_index",
    "process_count",
    "named_scope",
    "named_call",
    "ensure_compile_time_eval",
    "config",
    "pmap",
]


class _ArrayType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, (np.ndarray, np.generic, Box)) or is_foreign(obj)


class Array(metaclass=_ArrayType):
    """What ``jax.Array`` is in annotations and ``isinstance`` checks: a NumPy array or
    scalar, another library's array, or a traced value (not a Python number or list).

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> isinstance(np.ones(2), fg.Array), isinstance(np.float32(1.0), fg.Array), isinstance([1.0], fg.Array)
    (True, True, False)
    """


class Device:
    """The one device: the host's CPU.

    >>> import funcgrad as fg
    >>> fg.devices()[0].platform, fg.devices()[0].id
    ('cpu', 0)
    """

    id = 0
    platform = "cpu"
    device_kind = "cpu"
    process_index = 0

    def __repr__(self):
        return "CpuDevice(id=0)"


_CPU = Device()


def devices(backend: str | None = None) -> list:
    """The devices funcgrad computes on: the CPU.

    >>> from funcgrad import devices
    >>> devices()[0].platform
    'cpu'
    """
    if backend not in (None, "cpu"):
        raise ArgumentError(
            f"devices: funcgrad computes on the CPU; there is no {backend!r} "
            f"backend (arrays of CuPy or PyTorch stay on their own devices)"
        )
    return [_CPU]


local_devices = devices


def default_backend() -> str:
    """The backend funcgrad computes on.

    >>> from funcgrad import default_backend
    >>> default_backend()
    'cpu'
    """
    return "cpu"


def device_count(backend: str | None = None) -> int:
    """How many devices there are: one.

    >>> from funcgrad import device_count
    >>> device_count()
    1
    """
    return len(devices(backend))


local_device_count = device_count


def process_index() -> int:
    """This process's number among the processes: the only one.

    >>> from funcgrad import process_index
    >>> process_index()
    0
    """
    return 0


def process_count() -> int:
    """How many processes compute: one.

    >>> from funcgrad import process_count
    >>> process_count()
    1
    """
    return 1


def _as_array(leaf):
    if isinstance(leaf, Box) or is_foreign(leaf):
        return leaf  # a traced value, or an array of another library, stays
    return np.asarray(leaf)


def device_put(x: Any, device: Any = None, *, donate: bool = False, may_alias: Any = None) -> Any:
    """``x`` with each leaf an array (Python numbers and lists become NumPy arrays; traced
    values and other libraries' arrays pass through); ``device`` must be the CPU.

    >>> import numpy as np
    >>> from funcgrad import device_put
    >>> device_put((1.0, np.float32(2.0)))
    (array(1.), array(2., dtype=float32))
    """
    if device is not None and device is not _CPU and not hasattr(device, "memory_kind"):
        raise ArgumentError(
            f"device_put: the only device is the CPU (fg.devices()[0]); got {device!r:.60}"
        )
    return tree_map(_as_array, x)


def device_get(x: Any) -> Any:
    """``x`` with each leaf a NumPy array (as :func:`device_put`).

    >>> from funcgrad import device_get
    >>> device_get({"loss": 0.5})
    {'loss': array(0.5)}
    """
    return tree_map(_as_array, x)


@contextmanager
def named_scope(name: str):
    """A named block (JAX's profiler names); it changes no result.

    >>> import numpy as np
    >>> from funcgrad import named_scope
    >>> with named_scope("layer1"):
    ...     np.tanh(0.0)
    np.float64(0.0)
    """
    if not isinstance(name, str):
        raise ArgumentTypeError(f"named_scope: the name must be a string; got {name!r:.40}")
    yield


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """``fun`` itself: the name only labels JAX's profiles.

    >>> import numpy as np
    >>> from funcgrad import named_call
    >>> named_call(np.sin, name="sine")(0.0)
    np.float64(0.0)
    """
    if not callable(fun):
        raise ArgumentTypeError(f"named_call needs a function; got {fun!r:.40}")
    return fun


@contextmanager
def ensure_compile_time_eval():
    """A block whose operations on constants compute at once: in funcgrad they always do
    (only traced values are staged), so it changes nothing.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import ensure_compile_time_eval
    >>> def f(x):
    ...     with ensure_compile_time_eval():
    ...         scale = np.sqrt(4.0)          # a constant: computed now, in either case
    ...     return x * scale
    >>> fg.jit(f)(3.0)
    np.float64(6.0)
    """
    yield


class _Config:
    """``fg.config.update(name, value)`` for JAX's flags that have a meaning here:

    - ``jax_enable_x64``: funcgrad computes in float64 already (True); False, JAX's
      float32 default, is refused: cast your inputs with ``x.astype(np.float32)``;
    - ``jax_debug_nans`` / ``jax_debug_infs``: ``fg.debug_nans()`` everywhere;
    - ``jax_disable_jit``: ``fg.disable_jit()`` everywhere;
    - ``jax_platform_name`` / ``jax_platforms``: ``"cpu"``;
    - ``funcgrad_keep_freed_memory``: whether glibc keeps a step's freed arrays for the
      next step (True by default; see :mod:`funcgrad.core.heap`);
    - ``funcgrad_numpy_dtype_promotion`` (or JAX's name, ``jax_numpy_dtype_promotion``):
      ``"standard"``, NumPy's promotions, or ``"strict"``, a PromotionError at each
      implicit promotion a user's operation makes (see :mod:`funcgrad.core.promotion`);
    - ``funcgrad_numba_kernels``: whether the impls of GELU, the softmax, max pooling's
      cotangent and an embedding's cotangent hand large arrays to numba's kernels where
      numba is installed (True there by default, the same bits; see
      :mod:`funcgrad.kernels.switch`).

    >>> import funcgrad as fg
    >>> fg.config.update("jax_enable_x64", True)
    >>> fg.config.jax_enable_x64
    True
    """

    _FLAGS = (
        "jax_enable_x64",
        "jax_debug_nans",
        "jax_debug_infs",
        "jax_disable_jit",
        "jax_platform_name",
        "jax_platforms",
        "funcgrad_keep_freed_memory",
        "funcgrad_numba_kernels",
        "funcgrad_numpy_dtype_promotion",
        "jax_numpy_dtype_promotion",
    )

    def __init__(self):
        self._disabled_jit = False

    def update(self, name: str, value: Any) -> None:
        if name == "jax_enable_x64":
            if not value:
                raise ArgumentError(
                    "config.update('jax_enable_x64', False): funcgrad computes "
                    "in the inputs' precision, float64 by default; give it "
                    "float32 inputs (x.astype(np.float32)) for single precision"
                )
        elif name in ("jax_debug_nans", "jax_debug_infs"):
            finite.EVERYWHERE["on"] = bool(value)
        elif name == "jax_disable_jit":
            if bool(value) != self._disabled_jit:
                jitted._switch["disabled"] += 1 if value else -1
                self._disabled_jit = bool(value)
        elif name == "funcgrad_keep_freed_memory":
            heap.keep_freed_memory(bool(value))
        elif name == "funcgrad_numba_kernels":
            kernel_switch.turn(bool(value))
        elif name in ("funcgrad_numpy_dtype_promotion", "jax_numpy_dtype_promotion"):
            promotion.set_mode(value)
        elif name in ("jax_platform_name", "jax_platforms"):
            if str(value).split(",")[0] != "cpu":
                raise ArgumentError(
                    f"config.update({name!r}, {value!r}): funcgrad computes on the CPU only"
                )
        else:
            raise ArgumentError(
                f"config.update: funcgrad has no flag {name!r}; it takes {', '.join(self._FLAGS)}"
            )

    def __getattr__(self, name):
        if name == "jax_enable_x64":
            return True
        if name in ("jax_debug_nans", "jax_debug_infs"):
            return finite.EVERYWHERE["on"]
        if name == "jax_disable_jit":
            return self._disabled_jit
        if name in ("jax_platform_name", "jax_platforms"):
            return "cpu"
        if name == "funcgrad_keep_freed_memory":
            return heap.KEPT["on"]
        if name == "funcgrad_numba_kernels":
            return kernel_switch.SWITCH["on"]
        if name in ("funcgrad_numpy_dtype_promotion", "jax_numpy_dtype_promotion"):
            return promotion.mode()
        raise AttributeError(f"config has no flag {name!r}; it has {', '.join(self._FLAGS)}")


config = _Config()


def pmap(
    fun: Callable,
    axis_name: Any = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    static_broadcasted_argnums: Any = (),
    devices: Any = None,
    backend: str | None = None,
    axis_size: int | None = None,
    donate_argnums: Any = (),
    global_arg_shapes: Any = None,
) -> Callable:
    """JAX's ``pmap`` on one CPU: the examples along ``in_axes`` that JAX spreads over
    devices are computed together, as ``fg.jit(fg.vmap(fun, in_axes, out_axes,
    axis_name))`` (so ``lax.psum`` and the other collectives over ``axis_name`` work);
    ``static_broadcasted_argnums`` are jit's static arguments, passed whole to each example.

    >>> import numpy as np
    >>> import funcgrad as fg
    >>> from funcgrad import lax
    >>> fg.pmap(lambda x: x / lax.psum(x, "d"), axis_name="d")(np.array([1.0, 3.0]))
    array([0.25, 0.75])
    """
    if not callable(fun):
        raise ArgumentTypeError(f"pmap needs a function; got {fun!r:.40}")
    if backend not in (None, "cpu"):
        raise ArgumentError(f"pmap: funcgrad computes on the CPU; there is no {backend!r} backend")
    statics = (
        (static_broadcasted_argnums,)
        if isinstance(static_broadcasted_argnums, int)
        else tuple(static_broadcasted_argnums)
    )

    def mapped(*args):
        dynamic = [i for i in range(len(args)) if i not in statics]
        axes = in_axes
        if isinstance(in_axes, (tuple, list)) and len(in_axes) == len(args) and statics:
            axes = tuple(in_axes[i] for i in dynamic)

        def on_dynamic(*values):
            full = list(args)
            for i, v in zip(dynamic, values):
                full[i] = v
            return fun(*full)

        return vmap(
            on_dynamic, in_axes=axes, out_axes=out_axes, axis_name=axis_name, axis_size=axis_size
        )(*[args[i] for i in dynamic])

    return jitted.jit(mapped, static_argnums=statics)
