"""funcgrad.numpy's shape, joining and indexing functions: one case per name (or form).

A case is a call written once for any module, the shapes it runs on, its PyTorch twin
and whether it batches; integer-valued functions and constructors have tables of their
own. tests/numpy/test_numpy_shape.py tests every case in depth; the registry
(tests/opinfo/__init__.py) makes each an OpInfo for the conformance matrix.
"""

from collections import namedtuple

import numpy as np

from tests.helpers import torch

Case = namedtuple("Case", "fun shapes torch vmap", defaults=(None, True))

M2 = [((2, 3),), ((1, 4),), ((3, 1),)]  # one 2-D operand, size-1 axes included
M3 = [((2, 3, 2),), ((1, 2, 1),), ((2, 1, 3),)]
V1 = [((3,),), ((1,),), ((4,),)]
ANY = [((3,),), ((2, 3),), ((1, 2, 1),)]
I3 = np.array([[0, 1, 2], [2, 1, 0]])


def _weighted(m, parts):
    """Pieces joined back with distinct weights, so a misplaced gradient shows."""
    return m.concatenate([p * (i + 1.0) for i, p in enumerate(parts)], axis=-1)


def _tpad(t, x, widths, **kw):
    flat = [w for pair in reversed(widths) for w in pair]
    return torch.nn.functional.pad(x, flat, **kw)


CASES = {
    # -- shapes
    "reshape": Case(lambda m, x: m.reshape(x, (-1, 1)), ANY, lambda t, x: x.reshape(-1, 1)),
    "reshape:ints": Case(lambda m, x: m.reshape(x, x.size), M2, lambda t, x: x.reshape(-1)),
    "reshape:F": Case(lambda m, x: m.reshape(x, (x.shape[1], x.shape[0]), order="F"), M2),
    "ravel": Case(lambda m, x: m.ravel(x), M3, lambda t, x: x.reshape(-1)),
    "squeeze": Case(
        lambda m, x: m.squeeze(x), [((1, 3),), ((2, 1, 1),), ((1,),)], lambda t, x: x.squeeze()
    ),
    "squeeze:axis": Case(
        lambda m, x: m.squeeze(x, axis=0), [((1, 3),), ((1, 1, 2),)], lambda t, x: x.squeeze(0)
    ),
    "expand_dims": Case(lambda m, x: m.expand_dims(x, 1), ANY, lambda t, x: x.unsqueeze(1)),
    "expand_dims:tuple": Case(lambda m, x: m.expand_dims(x, (0, -1)), ANY),
    "transpose": Case(lambda m, x: m.transpose(x), M3, lambda t, x: x.permute(2, 1, 0)),
    "transpose:axes": Case(
        lambda m, x: m.transpose(x, (1, 2, 0)), M3, lambda t, x: x.permute(1, 2, 0)
    ),
    "swapaxes": Case(lambda m, x: m.swapaxes(x, 0, -1), M3, lambda t, x: x.transpose(0, -1)),
    "moveaxis": Case(lambda m, x: m.moveaxis(x, 0, -1), M3, lambda t, x: torch.movedim(x, 0, -1)),
    "moveaxis:tuple": Case(
        lambda m, x: m.moveaxis(x, (0, 1), (2, 0)),
        M3,
        lambda t, x: torch.movedim(x, (0, 1), (2, 0)),
    ),
    "broadcast_to": Case(
        lambda m, x: m.broadcast_to(x, (2,) + x.shape),
        ANY,
        lambda t, x: x.broadcast_to((2,) + x.shape),
    ),
    "broadcast_to:size1": Case(lambda m, x: m.broadcast_to(x, (3, 4)), [((1, 4),), ((3, 1),)]),
    "broadcast_arrays": Case(
        lambda m, x, y: _weighted(m, m.broadcast_arrays(x, y)),
        [((2, 1), (3,)), ((1, 3), (2, 1))],
        lambda t, x, y: _weighted(t, torch.broadcast_tensors(x, y)),
    ),
    "atleast_1d": Case(lambda m, x: m.atleast_1d(x), [((),), ((2,),), ((1, 2),)]),
    "atleast_2d": Case(
        lambda m, x: m.atleast_2d(x),
        [((),), ((2,),), ((1, 2, 1),)],
        lambda t, x: torch.atleast_2d(x),
    ),
    "atleast_3d": Case(
        lambda m, x: m.atleast_3d(x), [((),), ((2,),), ((2, 3),)], lambda t, x: torch.atleast_3d(x)
    ),
    "atleast_1d:many": Case(
        lambda m, x, y: _weighted(m, [m.ravel(p) for p in m.atleast_1d(x, y)]), [((), (2,))]
    ),
    "rollaxis": Case(lambda m, x: m.rollaxis(x, 2), M3, lambda t, x: torch.movedim(x, 2, 0)),
    "rollaxis:start": Case(
        lambda m, x: m.rollaxis(x, 0, 3), M3, lambda t, x: torch.movedim(x, 0, 2)
    ),
    "permute_dims": Case(
        lambda m, x: m.permute_dims(x, (1, 2, 0)), M3, lambda t, x: x.permute(1, 2, 0)
    ),
    "matrix_transpose": Case(lambda m, x: m.matrix_transpose(x), M3, lambda t, x: x.mT),
    # -- joining
    "concatenate": Case(
        lambda m, x, y: m.concatenate([x, y, x], axis=1),
        [((2, 3), (2, 1)), ((1, 2), (1, 4))],
        lambda t, x, y: torch.cat([x, y, x], dim=1),
    ),
    "concatenate:None": Case(
        lambda m, x, y: m.concatenate([x, y], axis=None), [((2, 3), (4,)), ((1,), (1, 1))]
    ),
    "stack": Case(
        lambda m, x, y: m.stack([x, y], axis=-1),
        [((2, 3), (2, 3)), ((1,), (1,))],
        lambda t, x, y: torch.stack([x, y], dim=-1),
    ),
    "hstack": Case(
        lambda m, x, y: m.hstack([x, y]),
        [((2,), (3,)), ((2, 1), (2, 3))],
        lambda t, x, y: torch.hstack([x, y]),
    ),
    "vstack": Case(
        lambda m, x, y: m.vstack([x, y]),
        [((3,), (2, 3)), ((1, 2), (1, 2))],
        lambda t, x, y: torch.vstack([x, y]),
    ),
    "dstack": Case(
        lambda m, x, y: m.dstack([x, y]),
        [((3,), (3,)), ((2, 1), (2, 1))],
        lambda t, x, y: torch.dstack([x, y]),
    ),
    "column_stack": Case(
        lambda m, x, y: m.column_stack([x, y]),
        [((3,), (3, 2)), ((1,), (1,))],
        lambda t, x, y: torch.column_stack([x, y]),
    ),
    # -- splitting (pieces weighted and joined back)
    "split": Case(
        lambda m, x: _weighted(m, m.split(x, 2, axis=-1)), [((2, 4),), ((1, 2),), ((6,),)]
    ),
    "split:indices": Case(
        lambda m, x: _weighted(m, m.split(x, [1, 3], axis=-1)), [((2, 4),), ((1, 5),)]
    ),
    "array_split": Case(
        lambda m, x: _weighted(m, m.array_split(x, 3, axis=-1)), [((2, 4),), ((5,),), ((1, 3),)]
    ),
    "hsplit": Case(lambda m, x: _weighted(m, m.hsplit(x, 2)), [((2, 4),), ((4,),)]),
    "vsplit": Case(
        lambda m, x: m.concatenate([p * (i + 1.0) for i, p in enumerate(m.vsplit(x, [1]))]),
        [((2, 3),), ((3, 1),)],
    ),
    "dsplit": Case(lambda m, x: _weighted(m, m.dsplit(x, 2)), [((1, 2, 4),), ((2, 1, 2),)]),
    # -- rearranging
    "tile": Case(
        lambda m, x: m.tile(x, (2, 1, 3)),
        [((3,),), ((1, 2),), ((2, 1),)],
        lambda t, x: torch.tile(x, (2, 1, 3)),
    ),
    "tile:int": Case(lambda m, x: m.tile(x, 2), M2, lambda t, x: torch.tile(x, (2,))),
    "repeat": Case(
        lambda m, x: m.repeat(x, 2), M2, lambda t, x: torch.repeat_interleave(x.reshape(-1), 2)
    ),
    "repeat:each": Case(
        lambda m, x: m.repeat(x, np.arange(x.shape[0]) % 3, axis=0),
        M2,
        lambda t, x: torch.repeat_interleave(x, torch.arange(x.shape[0]) % 3, dim=0),
    ),
    "flip": Case(lambda m, x: m.flip(x), M3, lambda t, x: torch.flip(x, (0, 1, 2))),
    "unstack": Case(
        lambda m, x: _weighted(m, m.unstack(x, axis=1)),
        M3,
        lambda t, x: _weighted(t, torch.unbind(x, 1)),
    ),
    "flip:axes": Case(lambda m, x: m.flip(x, (0, -1)), M3, lambda t, x: torch.flip(x, (0, -1))),
    "fliplr": Case(lambda m, x: m.fliplr(x), M2, lambda t, x: torch.fliplr(x)),
    "flipud": Case(lambda m, x: m.flipud(x), ANY, lambda t, x: torch.flipud(x)),
    "roll": Case(lambda m, x: m.roll(x, 2), M2, lambda t, x: torch.roll(x, 2)),
    "roll:axes": Case(
        lambda m, x: m.roll(x, (1, -1, 2), axis=(0, 1, 0)),
        M2,
        lambda t, x: torch.roll(x, (1, -1, 2), (0, 1, 0)),
    ),
    "rot90": Case(lambda m, x: m.rot90(x), M2, lambda t, x: torch.rot90(x)),
    "rot90:k": Case(
        lambda m, x: m.rot90(x, k=-1, axes=(2, 0)), M3, lambda t, x: torch.rot90(x, -1, (2, 0))
    ),
    "rot90:2": Case(lambda m, x: m.rot90(x, 2), M2, lambda t, x: torch.rot90(x, 2)),
    "pad": Case(
        lambda m, x: m.pad(x, ((1, 0), (2, 1))), M2, lambda t, x: _tpad(t, x, ((1, 0), (2, 1)))
    ),
    "pad:values": Case(
        lambda m, x: m.pad(x, ((1, 2), (0, 1)), constant_values=((1.5, 2.0), (-3.0, 4.0))), M2
    ),
    "pad:edge": Case(
        lambda m, x: m.pad(x, 2, mode="edge"),
        M2 + V1,
        lambda t, x: _tpad(t, x[None], ((2, 2),) * x.dim(), mode="replicate")[0],
    ),
    "pad:reflect": Case(
        lambda m, x: m.pad(x, ((1, 2), (2, 1)), mode="reflect"),
        [((3, 3),), ((4, 3),)],
        lambda t, x: _tpad(t, x[None], ((1, 2), (2, 1)), mode="reflect")[0],
    ),
    "pad:symmetric": Case(lambda m, x: m.pad(x, 3, mode="symmetric"), M2),
    "pad:wrap": Case(lambda m, x: m.pad(x, (1, 4), mode="wrap"), M2 + V1),
    "sort": Case(lambda m, x: m.sort(x), M2 + V1, lambda t, x: torch.sort(x).values),
    "sort:axis0": Case(
        lambda m, x: m.sort(x, axis=0), M3, lambda t, x: torch.sort(x, dim=0).values
    ),
    "sort_complex": Case(
        lambda m, x: m.real(m.sort_complex(x)), M2 + V1, lambda t, x: torch.sort(x).values
    ),
    "sort:None": Case(
        lambda m, x: m.sort(x, axis=None), M2, lambda t, x: torch.sort(x.reshape(-1)).values
    ),
    # -- indexing
    "take": Case(lambda m, x: m.take(x, [0, 0, 2]), M2, lambda t, x: x.reshape(-1)[[0, 0, 2]]),
    "take:axis": Case(lambda m, x: m.take(x, [[0, 0], [-1, 0]], axis=1), M2),
    "take:scalar": Case(lambda m, x: m.take(x, -1, axis=0), M2),
    "take:wrap": Case(lambda m, x: m.take(x, [5, -7], axis=0, mode="wrap"), M2),
    "take_along_axis": Case(
        lambda m, x: m.take_along_axis(x, np.zeros((1, x.shape[1]), int), axis=0),
        M2,
        lambda t, x: torch.take_along_dim(x, torch.zeros((1, x.shape[1]), dtype=torch.long), 0),
    ),
    "take_along_axis:argsort": Case(
        lambda m, x: m.take_along_axis(x, m.argsort(x, axis=1)[:, ::-1], axis=1), M2
    ),
    "take_along_axis:argmax": Case(
        lambda m, x: m.take_along_axis(x, m.argmax(x, axis=0, keepdims=True), axis=0), M3
    ),
    "choose": Case(
        lambda m, x, y: m.choose(I3, [x, y, 2.0 * x]), [((2, 3), (3,)), ((1, 3), (2, 1))]
    ),
    "choose:clip": Case(
        lambda m, x: m.choose(I3 + 1, [x, -x, x * x], mode="clip"), [((2, 3),), ((1, 1),)]
    ),
    "select": Case(
        lambda m, x, y: m.select([x > 0, y < 0], [x, y * 3.0], default=0.5),
        [((2, 3), (3,)), ((1, 1), (2, 1))],
    ),
    "select:traced_default": Case(lambda m, x: m.select([x > 0.5], [x], default=-x), M2),
    "getitem:basic": Case(
        lambda m, x: x[1:, None, ..., ::-2], M3, lambda t, x: x[1:, None, ...].flip(-1)[..., ::2]
    ),
    "getitem:int": Case(lambda m, x: x[-1], ANY, lambda t, x: x[-1]),
    "getitem:advanced": Case(
        lambda m, x: x[[0, -1, 0], 1:], [((2, 3),), ((1, 2),)], lambda t, x: x[[0, -1, 0], 1:]
    ),
    "getitem:repeated": Case(
        lambda m, x: x[np.array([0, 0, 0, 1])], [((2,),), ((3, 2),)], lambda t, x: x[[0, 0, 0, 1]]
    ),
    "getitem:two_arrays": Case(
        lambda m, x: x[[0, 1, 1], [2, 0, 2]],
        [((2, 3),), ((3, 4),)],
        lambda t, x: x[[0, 1, 1], [2, 0, 2]],
    ),
    "getitem:split_arrays": Case(lambda m, x: x[[0, 1], :, [1, 0]], [((2, 3, 2),), ((2, 1, 2),)]),
    "getitem:mask": Case(
        lambda m, x: x[np.arange(x.size).reshape(x.shape) % 2 == 0], M2, vmap=True
    ),
    "linspace:traced_ends": Case(
        lambda m, x, y: m.linspace(x, y, 4, axis=-1),
        [((3,), (3,)), ((2, 1), (3,))],
        lambda t, x, y: x[..., None] + (y - x)[..., None] * torch.arange(4.0) / 3.0,
    ),
    "linspace:open": Case(lambda m, x: m.linspace(x, 2.0, 3, endpoint=False), V1),
    "logspace:traced": Case(lambda m, x: m.logspace(x, 1.0, 3, base=2.0), V1),
    "geomspace:traced": Case(lambda m, x: m.geomspace(m.exp(x), 3.0, 4), V1),
    "getitem:row_mask": Case(lambda m, x: x[np.array([True, False, True])], [((3,),), ((3, 2),)]),
}

# Integer-valued: NumPy's answer on plain and traced values, no gradient.
INT_CASES = {
    "argsort": lambda m, x: m.argsort(x, axis=0),
    "argsort:None": lambda m, x: m.argsort(x, axis=None),
    "argmax": lambda m, x: m.argmax(x),
    "argmax:axis": lambda m, x: m.argmax(x, axis=1, keepdims=True),
    "argmin": lambda m, x: m.argmin(x, axis=-1),
    "argmin:keepdims": lambda m, x: m.argmin(x, keepdims=True),
    "searchsorted": lambda m, x: m.searchsorted(np.array([-0.5, 0.0, 0.5]), x),
    "searchsorted:sorted_x": lambda m, x: m.searchsorted(m.sort(m.ravel(x)), 0.1, side="right"),
    "nonzero": lambda m, x: m.nonzero(x > 0),
    "flatnonzero": lambda m, x: m.flatnonzero(x > 0),
    "argwhere": lambda m, x: m.argwhere(x > 0),
    "lexsort": lambda m, x: m.lexsort((x[0], x[1] > 0)),
}
NO_VMAP_INT = {"nonzero", "flatnonzero", "argwhere", "lexsort"}

CONSTRUCTORS = {
    "array": lambda m: m.array([[1, 2], [3, 4]], dtype=float, ndmin=3),
    "asarray": lambda m: m.asarray([1.0, 2.0], dtype=np.float32),
    "zeros": lambda m: m.zeros((2, 3)),
    "ones": lambda m: m.ones(3, dtype=int),
    "empty": lambda m: m.empty((2, 0)),
    "full": lambda m: m.full((2, 2), 7.5),
    "eye": lambda m: m.eye(3, k=1),
    "identity": lambda m: m.identity(2),
    "arange": lambda m: m.arange(1.0, 2.0, 0.25),
    "linspace": lambda m: m.linspace(0.0, 1.0, 7),
    "logspace": lambda m: m.logspace(0.0, 2.0, 3),
    "geomspace": lambda m: m.geomspace(1.0, 8.0, 4),
    "tri": lambda m: m.tri(3, 4, k=-1),
    "meshgrid": lambda m: m.meshgrid(np.arange(3.0), np.arange(2.0), indexing="ij"),
    "indices": lambda m: m.indices((2, 3)),
    "zeros_like": lambda m: m.zeros_like(np.arange(3)),
    "ones_like": lambda m: m.ones_like(np.ones((2, 1)), dtype=np.float32),
    "empty_like": lambda m: m.empty_like(np.ones((2, 1))).shape,
    "full_like": lambda m: m.full_like(np.arange(3.0), 2.5),
    "random": lambda m: m.random.default_rng(3).normal(size=3),
}


def _base(name):
    return name.split(":")[0]


def _args(shapes, seed):
    rng = np.random.default_rng(seed)
    return tuple(
        float(rng.standard_normal()) if s == () else rng.standard_normal(s) for s in shapes
    )


def _numpy(case, args):
    return case.fun(np, *[np.asarray(a) if isinstance(a, float) else a for a in args])
