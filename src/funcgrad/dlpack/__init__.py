"""Arrays from other libraries through the DLPack protocol (JAX's ``jax.dlpack``).

funcgrad's own arrays are NumPy's, so :func:`from_dlpack` gives a NumPy array that
shares the producer's memory where NumPy can read it (a CPU buffer) and copies
nothing. A GPU tensor stays where it is: funcgrad differentiates PyTorch, CuPy and
other Array API arrays on their devices as they are (docs/backends.md), so there is
nothing to convert; asking for it raises ``ConversionError`` saying so.

>>> import numpy as np
>>> import funcgrad as fg
>>> shared = fg.dlpack.from_dlpack(np.arange(3.0))
>>> shared, type(shared).__name__
(array([0., 1., 2.]), 'ndarray')
"""

from typing import Any

import numpy as np

from ..core.errors import ConversionError

__all__ = ["from_dlpack"]


def from_dlpack(x: Any, device: Any = None, copy: bool | None = None) -> np.ndarray:
    """``x`` (any object with ``__dlpack__``) as a NumPy array, sharing its memory unless
    ``copy=True``, as ``numpy.from_dlpack``; a device array (a CUDA tensor) is refused by
    name, since funcgrad runs on it where it is.

    >>> import numpy as np
    >>> from funcgrad import dlpack
    >>> dlpack.from_dlpack(np.ones((2, 2), np.float32), copy=True).dtype
    dtype('float32')
    """
    if not hasattr(x, "__dlpack__"):
        raise ConversionError(
            f"from_dlpack: got {type(x).__name__}, which has no __dlpack__; pass an array of "
            f"a library that speaks DLPack (NumPy, PyTorch, CuPy, JAX, ...), or use np.asarray"
        )
    try:
        return np.from_dlpack(x, device=device, copy=copy)
    except (BufferError, RuntimeError, ValueError) as e:
        raise ConversionError(
            f"from_dlpack: NumPy cannot read this {type(x).__name__} in place ({e}); an array "
            f"on a GPU stays there: pass it to funcgrad's functions as it is (they run on its "
            f"device), or move it to the host yourself (.cpu(), .get())"
        ) from None


def __dir__():
    return list(__all__)
