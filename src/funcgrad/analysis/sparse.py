"""Sparse Jacobians and Hessians: one derivative pass per colour, not per column.

With the pattern from the boolean fold (:mod:`funcgrad.analysis.sparsity`) and a
colouring of its columns (:mod:`funcgrad.analysis.coloring`), the columns of one colour
share no row, so a single forward pass along the sum of their unit vectors
gives all of them at once: ``J @ S`` for the 0/1 seed matrix ``S`` (columns x
colours), computed as a batch of jvps under vmap, then each entry read off
from its row and its column's colour. A Hessian takes Hessian-vector products
along a star colouring's seeds, reading each entry ``H[i, j]`` at row ``i``
of colour ``c(j)`` when ``j`` is the only neighbour of ``i`` with that colour,
else at row ``j`` of colour ``c(i)``, which the star colouring guarantees.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> def f(x):                                      # a tridiagonal map of R^n
...     inner = x[:-2] - 2.0 * x[1:-1] + x[2:]
...     return fnp.concatenate([x[:1], inner + fnp.sin(x[1:-1]), x[-1:]])
>>> J = fg.sparse_jacobian(f, np.linspace(0.0, 1.0, 6))
>>> J.shape, J.nnz
((6, 6), 14)
>>> np.allclose(J.toarray(), fg.jacfwd(f)(np.linspace(0.0, 1.0, 6)))
True
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.errors import ShapeError
from ..core.values import raw
from ..transforms.arguments import argnums_tuple, distinct, fun_name
from ..transforms.batching import vmap
from ..transforms.forward import jvp
from ..transforms.jacobians import hvp
from ..transforms.ravel import ravel_pytree
from .coloring import column_coloring, star_coloring
from .sparsity import hessian_sparsity, jacobian_sparsity

__all__ = ["sparse_jacobian", "sparse_hessian", "seed_matrix"]


def seed_matrix(colors):
    """The 0/1 matrix (columns x colours) whose column ``c`` sums the unit vectors of colour ``c``.

    >>> seed_matrix(np.array([0, 1, 0]))
    array([[1., 0.],
           [0., 1.],
           [1., 0.]])
    """
    n = len(colors)
    seeds = np.zeros((n, int(colors.max()) + 1 if n else 0))
    seeds[np.arange(n), colors] = 1.0
    return seeds


def _flat_call(fun, args, nums):
    """``fun`` as a map from one flat vector (the leaves of ``args[nums]``, raveled in the
    order of the pattern's columns) to one flat vector (its output's leaves), and that vector."""
    flat, unravel = ravel_pytree(tuple(args[i] for i in nums))

    def flat_fun(x):
        full = list(args)
        for i, part in zip(nums, unravel(x)):
            full[i] = part
        return ravel_pytree(fun(*full))[0]

    return flat_fun, np.asarray(raw(flat), dtype=float)


def _compressed(product, seeds):
    """``product(s)`` for every seed column ``s``, as one vmapped batch: (colours, rows)."""
    if seeds.shape[1] == 0:
        return None
    return np.asarray(raw(vmap(product)(np.ascontiguousarray(seeds.T))))


def sparse_jacobian(fun: Callable, *args: Any, argnums: int = 0, pattern: Any = None) -> Any:
    """The Jacobian of ``fun`` as a ``scipy.sparse`` CSR matrix, one jvp per column colour.

    Rows and columns are raveled as in :func:`fg.jacobian_sparsity
    <funcgrad.analysis.sparsity.jacobian_sparsity>`; ``pattern`` reuses a pattern computed
    before (say, at the first step of a Newton iteration). Entries of the pattern
    that happen to be zero at this point are stored as zeros.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> fg.sparse_jacobian(lambda x: x[1:] ** 2 - x[:-1], np.array([1.0, 2.0, 3.0])).toarray()
    array([[-1.,  4.,  0.],
           [ 0., -1.,  6.]])
    """
    nums, _ = argnums_tuple(argnums, len(args), f"sparse_jacobian of {fun_name(fun)}")
    nums, _ = distinct(nums)  # each argument once, as jacobian_sparsity's columns
    if pattern is None:
        pattern = jacobian_sparsity(fun, *args, argnums=argnums)
    pattern = sp.csr_array(pattern, dtype=bool)
    flat_fun, x0 = _flat_call(fun, args, nums)
    if pattern.shape[1] != x0.size:
        raise ShapeError(
            f"sparse_jacobian: the pattern has {pattern.shape[1]} columns but the "
            f"inputs have {x0.size} elements; compute it with fg.jacobian_sparsity "
            f"on the same arguments"
        )
    colors = column_coloring(pattern)
    compressed = _compressed(lambda s: jvp(flat_fun, (x0,), (s,))[1], seed_matrix(colors))
    rows, cols = pattern.nonzero()
    values = compressed[colors[cols], rows] if compressed is not None else np.zeros(0)
    return sp.csr_array((values, (rows, cols)), shape=pattern.shape)


def sparse_hessian(fun: Callable, *args: Any, argnums: int = 0, pattern: Any = None) -> Any:
    """The Hessian of a scalar ``fun`` as a ``scipy.sparse`` CSR matrix, one Hessian-vector
    product per colour of a star colouring.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> def energy(u):                              # a 1-D Laplacian energy
    ...     return 0.5 * fnp.sum((u[1:] - u[:-1]) ** 2) + fnp.sum(u ** 4)
    >>> H = fg.sparse_hessian(energy, np.ones(5))
    >>> H.toarray()
    array([[13., -1.,  0.,  0.,  0.],
           [-1., 14., -1.,  0.,  0.],
           [ 0., -1., 14., -1.,  0.],
           [ 0.,  0., -1., 14., -1.],
           [ 0.,  0.,  0., -1., 13.]])
    """
    nums, _ = argnums_tuple(argnums, len(args), f"sparse_hessian of {fun_name(fun)}")
    nums, _ = distinct(nums)
    if pattern is None:
        pattern = hessian_sparsity(fun, *args, argnums=argnums)
    pattern = sp.csr_array(pattern, dtype=bool)
    flat_fun, x0 = _flat_call(fun, args, nums)
    if pattern.shape != (x0.size, x0.size):
        raise ShapeError(
            f"sparse_hessian: the pattern has shape {pattern.shape} but the inputs "
            f"have {x0.size} elements; compute it with fg.hessian_sparsity on the "
            f"same arguments"
        )
    pattern = (pattern + pattern.T).tocsr()
    colors = star_coloring(pattern)

    def scalar(x):
        return flat_fun(x)[0]

    compressed = _compressed(lambda s: hvp(scalar, (x0,), (s,)), seed_matrix(colors))
    rows, cols = pattern.nonzero()
    if compressed is None:
        return sp.csr_array(pattern.shape)
    # How many neighbours of each row share each colour decides where an entry is read.
    off = rows != cols
    counts = np.zeros((x0.size, compressed.shape[0]), dtype=np.int64)
    np.add.at(counts, (rows[off], colors[cols[off]]), 1)
    direct = (rows == cols) | (counts[rows, colors[cols]] == 1)
    values = np.where(direct, compressed[colors[cols], rows], compressed[colors[rows], cols])
    return sp.csr_array((values, (rows, cols)), shape=pattern.shape)
