"""Colourings of sparsity patterns: which columns one derivative pass can compute at once.

Columns ``j`` and ``k`` of a Jacobian may share a colour when no row has an
entry in both: then one forward pass along ``e_j + e_k`` gives both columns,
each read off its own rows. A greedy colouring in column order does this in
one sweep (three colours for a tridiagonal matrix, however large).

A symmetric Hessian allows fewer colours: a *star* colouring (every path on
four vertices of the adjacency graph sees at least three colours) lets each
entry ``H[i, j]`` be read either at row ``i`` of colour ``c(j)`` or at row
``j`` of colour ``c(i)`` (Gebremedhin, Manne and Pothen, SIAM Review 2005).

Both take a SciPy sparse pattern and return an integer array, one colour per
column, numbered from 0. They are plain Python loops over the pattern's
neighbours, linear in its entries.

>>> import numpy as np, scipy.sparse as sp
>>> tri = sp.csr_array(np.eye(6) + np.eye(6, k=1) + np.eye(6, k=-1))
>>> column_coloring(tri)
array([0, 1, 2, 0, 1, 2])
>>> star_coloring(tri)
array([0, 1, 0, 2, 0, 1])
"""

import numpy as np
import scipy.sparse as sp

from ..core.errors import ArgumentError

__all__ = ["column_coloring", "star_coloring", "check_star_coloring"]


def _neighbours(adjacency):
    """Per vertex, the list of its neighbours (not itself), from a square sparse pattern."""
    a = sp.csr_array(adjacency, dtype=bool)
    a.sum_duplicates()
    indptr, indices = a.indptr.tolist(), a.indices.tolist()
    return [[k for k in indices[indptr[j] : indptr[j + 1]] if k != j] for j in range(a.shape[0])]


def column_coloring(pattern):
    """A greedy colouring of the columns: two columns sharing a row get different colours.

    >>> from funcgrad.analysis.coloring import column_coloring
    >>> import scipy.sparse as sp
    >>> column_coloring(sp.csr_array([[1, 1, 0], [0, 0, 1]]))
    array([0, 1, 0])
    """
    p = sp.csr_array(pattern, dtype=bool)
    if p.shape[1] == 0:
        return np.zeros(0, dtype=np.int64)
    shared = (p.T @ p).tocsr()  # columns that meet in some row
    colors = [-1] * p.shape[1]
    for j, nbrs in enumerate(_neighbours(shared)):
        taken = {colors[k] for k in nbrs}
        c = 0
        while c in taken:
            c += 1
        colors[j] = c
    return np.asarray(colors, dtype=np.int64)


def star_coloring(pattern):
    """A greedy star colouring of a symmetric pattern's adjacency graph.

    Each vertex takes the smallest colour that makes no path on four vertices,
    all of them coloured, use only two colours. ``counts[x][c]`` keeps how many
    coloured neighbours of ``x`` have colour ``c``, so each test is a lookup.

    >>> from funcgrad.analysis.coloring import star_coloring
    >>> import numpy as np, scipy.sparse as sp
    >>> star_coloring(sp.csr_array(np.ones((3, 3))))
    array([0, 1, 2])
    """
    p = sp.csr_array(pattern, dtype=bool)
    if p.shape[0] != p.shape[1]:
        raise ArgumentError(
            f"star_coloring: the pattern must be square (a Hessian's); got shape {p.shape}"
        )
    nbrs = _neighbours(p + p.T)
    n = p.shape[0]
    colors = [-1] * n
    counts = [{} for _ in range(n)]
    for v in range(n):
        forbidden = set()
        near = counts[v]  # colours of v's coloured neighbours
        for w in nbrs[v]:
            cw = colors[w]
            if cw < 0:
                continue
            forbidden.add(cw)  # a proper colouring
            twice = near[cw] >= 2  # y - v - w - x would repeat (c(w), c(v))
            for x in nbrs[w]:
                cx = colors[x]
                if x == v or cx < 0:
                    continue
                if twice or counts[x].get(cw, 0) >= 2:  # v - w - x - y, c(y) = c(w)
                    forbidden.add(cx)
        c = 0
        while c in forbidden:
            c += 1
        colors[v] = c
        for u in nbrs[v]:
            counts[u][c] = counts[u].get(c, 0) + 1
    return np.asarray(colors, dtype=np.int64)


def check_star_coloring(pattern, colors):
    """Whether ``colors`` is a star colouring of the pattern's graph (by brute force over
    its paths of four vertices: for tests and small graphs).

    >>> from funcgrad.analysis.coloring import check_star_coloring
    >>> import numpy as np, scipy.sparse as sp
    >>> path = sp.csr_array(np.eye(4, k=1) + np.eye(4, k=-1))
    >>> check_star_coloring(path, [0, 1, 0, 1]), check_star_coloring(path, [0, 1, 0, 2])
    (False, True)
    """
    p = sp.csr_array(pattern, dtype=bool)
    nbrs = _neighbours(p + p.T)
    for v, near in enumerate(nbrs):
        for w in near:
            if colors[v] == colors[w]:
                return False
            for x in nbrs[w]:
                if x == v:
                    continue
                for y in nbrs[x]:
                    if y not in (v, w) and colors[v] == colors[x] and colors[w] == colors[y]:
                        return False
    return True


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
