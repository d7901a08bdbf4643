"""One flat vector for a whole pytree, and the function that rebuilds it.

Optimizers written for vectors (SciPy's ``minimize``, a hand-written Newton
step) then work on models stored as dicts, lists and tuples of arrays. Both
directions are differentiable: raveling concatenates the flattened leaves,
unraveling slices and reshapes them.

>>> import numpy as np
>>> import funcgrad as fg
>>> params = {"b": 0.5, "w": np.array([[1.0, 2.0], [3.0, 4.0]])}
>>> flat, unravel = fg.ravel_pytree(params)
>>> flat
array([0.5, 1. , 2. , 3. , 4. ])
>>> unravel(flat * 2)["w"]
array([[2., 4.],
       [6., 8.]])
>>> fg.grad(lambda v: unravel(v)["w"][1, 0] * unravel(v)["b"])(flat)
array([3. , 0. , 0. , 0.5, 0. ])
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import ArgumentError
from ..core.tree import tree_flatten, tree_unflatten
from ..core.values import raw, shape_of
from ..rules.arrays import concatenate, getitem, reshape

__all__ = ["ravel_pytree"]


def ravel_pytree(tree: Any) -> tuple[Any, Callable]:
    """``(flat, unravel)``: the leaves of ``tree`` flattened and joined into one 1-D
    array, and a function mapping such an array back to a tree of that structure
    (leaves of the original shapes and dtypes; Python floats stay floats).

    >>> import numpy as np
    >>> from funcgrad import ravel_pytree
    >>> flat, unravel = ravel_pytree({"w": np.array([[1.0, 2.0]]), "b": 3.0})
    >>> flat
    array([3., 1., 2.])
    >>> unravel(flat * 10)
    {'b': 30.0, 'w': array([[10., 20.]])}
    """
    leaves, treedef = tree_flatten(tree)
    shapes = [shape_of(leaf) for leaf in leaves]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    scalars = [type(raw(leaf)) is float for leaf in leaves]
    parts = [reshape(leaf, shape=(-1,)) for leaf in leaves]
    flat = (
        np.zeros(0) if not parts else parts[0] if len(parts) == 1 else concatenate(*parts, axis=0)
    )
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    total = int(offsets[-1])

    def unravel(vector):
        if shape_of(vector) != (total,):
            raise ArgumentError(
                f"unravel: expected a vector of shape ({total},), the size of the "
                f"pytree it came from; got shape {shape_of(vector)}"
            )
        out = []
        for start, stop, shape, scalar in zip(offsets[:-1], offsets[1:], shapes, scalars):
            piece = reshape(getitem(vector, index=slice(int(start), int(stop))), shape=shape)
            out.append(piece if not scalar or not isinstance(piece, np.ndarray) else float(piece))
        return tree_unflatten(treedef, out)

    return flat, unravel
