"""Partials that select: an argument a primitive passes on unchanged in some places and
drops elsewhere (relu's ``x``, where ``x > 0``; ``where``'s two branches).

Such a partial is 1 where the argument passes and 0 elsewhere, and that weight is what the
semiring folds and the analyses read. Its rules do not multiply by it: they select. The
cotangent reaches the argument where it passes and 0 reaches it elsewhere, as JAX's
``select`` and PyTorch's relu give. An infinite or NaN cotangent where the argument is
dropped (``log(relu(x))`` at ``x < 0``: log's cotangent of a 0 is inf) therefore gives 0,
where ``g * 0`` would be NaN.

>>> import numpy as np
>>> import funcgrad as fg, funcgrad.numpy as fnp
>>> with np.errstate(divide="ignore"):                    # log(0) is -inf
...     fg.grad(lambda x: fnp.log(fg.nn.relu(x)))(-1.0)
np.float64(0.0)
>>> with np.errstate(divide="ignore"):
...     fg.grad(lambda x: fnp.log(fnp.where(x > 0, x, 0.0)))(-1.0)
np.float64(0.0)
"""

__all__ = ["Selection", "RuledPartials"]


class Selection:
    """A selecting partial of an elementwise primitive (:func:`funcgrad.extend.elementwise`):
    ``weight(ans, *args)`` is its value, 1 where the argument passes and 0 elsewhere;
    ``select(g, ans, *args)`` is ``g`` where it passes and 0 elsewhere (None: nowhere),
    the argument's cotangent for the output's cotangent ``g`` and its tangent's share of
    the output's tangent alike.

    >>> import numpy as np
    >>> import funcgrad as fg, funcgrad.numpy as fnp
    >>> from funcgrad import extend
    >>> keep_positive = extend.elementwise(
    ...     "keep_positive",
    ...     lambda x: np.where(x > 0, x, 0.0),
    ...     extend.Selection(lambda ans, x: fnp.where(x > 0, 1.0, 0.0),
    ...                      lambda g, ans, x: fnp.where(x > 0, g, 0.0)))
    >>> with np.errstate(divide="ignore"):
    ...     fg.grad(lambda x: fnp.sum(fnp.log(keep_positive(x))))(np.array([-1.0, 2.0]))
    array([0. , 0.5])
    """

    __slots__ = ("weight", "select")

    def __init__(self, weight, select):
        self.weight = weight
        self.select = select

    def __call__(self, ans, *xs):
        return self.weight(ans, *xs)

    def __repr__(self):
        return f"Selection({self.weight!r}, {self.select!r})"


class RuledPartials(tuple):
    """The partials of a primitive among which a :class:`Selection` or a zero partial
    stands: backprop's hand-written path, which multiplies each cotangent by its partial,
    leaves such a primitive to its rules (a select; no cotangent at all for a zero
    partial), and the one check of that path is the tuple's type."""

    __slots__ = ()
