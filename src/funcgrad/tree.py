"""JAX's ``jax.tree``: the pytree functions by their short names (``fg.tree.map``).

>>> import funcgrad as fg
>>> fg.tree.map(lambda x: x + 1.0, {"a": 1.0, "b": [2.0]})
{'a': 2.0, 'b': [3.0]}
>>> fg.tree.leaves({"b": 2.0, "a": 1.0}), fg.tree.reduce(max, [3.0, (1.0, 5.0)])
([1.0, 2.0], 5.0)
"""

from .core.tree import tree_all as all
from .core.tree import tree_flatten as flatten
from .core.tree import tree_leaves as leaves
from .core.tree import tree_map as map
from .core.tree import tree_reduce as reduce
from .core.tree import tree_structure as structure
from .core.tree import tree_unflatten as unflatten
from .core.tree_paths import tree_flatten_with_path as flatten_with_path
from .core.tree_paths import tree_leaves_with_path as leaves_with_path
from .core.tree_paths import tree_map_with_path as map_with_path
from .core.tree_paths import tree_transpose as transpose

__all__ = [
    "map",
    "leaves",
    "flatten",
    "unflatten",
    "structure",
    "reduce",
    "all",
    "transpose",
    "map_with_path",
    "leaves_with_path",
    "flatten_with_path",
]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
