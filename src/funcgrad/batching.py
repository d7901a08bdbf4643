"""Batching (vmap): run a function on a whole batch at once, as if on one example.

A :class:`Batched` value carries a batch of examples along a leading axis that
the function never sees. When a primitive meets batched values, the batch
trace rewrites the call for the whole batch: elementwise primitives align the
batch axis and broadcast, structural ones shift their axis arguments past it,
``matmul`` treats it as a broadcast batch dimension. A primitive without a
batching rule is applied example by example and the results stacked, which is
slow but always right.

Jacobians and Hessians use this to push every basis vector through a single
forward or reverse pass instead of one pass each.

A batching rule has the shape ``rule(size, prim, values, batched, params)``:
``values`` are the arguments one level down (a batched one has the batch of
``size`` examples on its leading axis), ``batched`` says which are, and the
rule returns the result with the batch on its leading axis, computed with
funcgrad's primitives so that outer traces still see it. Every primitive
carries its rule beside its others, as ``Primitive(..., batch=rule)``.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> fg.vmap(lambda x: fnp.sum(x * x))(np.array([[1.0, 2.0], [3.0, 4.0]]))
array([ 5., 25.])
"""


from .arraylike import ArrayLike
from .errors import ShapeError
from .rules import elementwise
from .rules.arrays import batch_example_by_example, broadcast_to, transpose
from .traces import Trace, new_level
from .tree import tree_flatten, tree_unflatten
from .values import shape_of

__all__ = ["Batched", "BatchTrace", "vmap", "leave"]


class Batched(ArrayLike):
    """A batch of values stacked along a leading axis, belonging to one batch trace."""

    __slots__ = ("_value", "_trace")

    def __init__(self, value, trace):
        self._value = value
        self._trace = trace

    # Each example has its own answer, so comparisons give a batched mask.
    def __lt__(self, other): return elementwise.less(self, other)
    def __le__(self, other): return elementwise.less_equal(self, other)
    def __gt__(self, other): return elementwise.greater(self, other)
    def __ge__(self, other): return elementwise.greater_equal(self, other)
    def __eq__(self, other): return elementwise.equal(self, other)
    def __ne__(self, other): return elementwise.not_equal(self, other)
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(
            "a batched value has no single truth value: under vmap each example may "
            "branch differently; use funcgrad.numpy.where instead of if/while"
        )

    def __repr__(self):
        return f"<Batched {self._trace.size} x {shape_of(self)}>"


class BatchTrace(Trace):
    """A batching trace: ``size`` examples along the leading axis of every Batched value.

    Its values are opaque (one stands for ``size`` values) and own one leading
    axis that the function under vmap does not see.
    """

    __slots__ = ("size",)
    box_type = Batched
    opaque = True
    batch_axes = 1

    def __init__(self, level, size):
        super().__init__(level)
        self.size = size

    def process(self, prim, args, params):
        values = []
        batched = []
        for a in args:
            mine = type(a) is Batched and a._trace is self
            values.append(a._value if mine else a)
            batched.append(mine)
        rule = prim.batch or batch_example_by_example
        return Batched(rule(self.size, prim, values, batched, params), self)

    def __repr__(self):
        return f"<batch trace {self.level} of {self.size}>"


# ---------------------------------------------------------------- vmap

def vmap(fun, in_axes=0):
    """Map ``fun`` over a leading (or ``in_axes``) axis of its arguments, in one pass.

    ``in_axes`` is an int, ``None`` (not mapped) or a tuple with one of those
    per positional argument. Outputs carry the batch on their leading axis.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> W = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> fg.vmap(lambda x: W @ x)(np.array([[1.0, 1.0], [2.0, 3.0]]))
    array([[1., 2.],
           [2., 6.]])
    >>> fg.vmap(fg.grad(lambda x: fnp.sum(x ** 3)))(np.array([[1.0, 2.0]]))
    array([[ 3., 12.]])
    """
    def batched_fun(*args):
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        if len(axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(axes)} entries for {len(args)} arguments")
        sizes = set()
        for a, ax in zip(args, axes):
            if ax is not None:
                for leaf in tree_flatten(a)[0]:
                    shape = shape_of(leaf)
                    if not shape:
                        raise ShapeError("vmap: a mapped argument is a scalar; it needs an axis to map over")
                    sizes.add(shape[ax])
        if len(sizes) != 1:
            raise ShapeError(
                f"vmap: mapped axes must all have one size; got sizes {sorted(sizes)}"
                if sizes else "vmap: no argument is mapped (every in_axes entry is None)")
        size = sizes.pop()
        trace = BatchTrace(new_level(), size)

        def enter(leaf, ax):
            nd = len(shape_of(leaf))
            moved = leaf if ax % nd == 0 else transpose(
                leaf, axes=(ax % nd,) + tuple(i for i in range(nd) if i != ax % nd))
            return Batched(moved, trace)

        wrapped = [a if ax is None else tree_unflatten(tree_flatten(a)[1],
                                                      [enter(l, ax) for l in tree_flatten(a)[0]])
                   for a, ax in zip(args, axes)]
        leaves, treedef = tree_flatten(fun(*wrapped))
        return tree_unflatten(treedef, [leave(l, trace) for l in leaves])

    return batched_fun


def leave(x, trace):
    """An output of a batched function as an array with the batch axis first."""
    if trace.owns(x):
        return x._value
    return broadcast_to(x, shape=(trace.size,) + shape_of(x))
