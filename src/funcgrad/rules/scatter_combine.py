"""Scatters that combine: ``x`` with ``v`` written at an index by a minimum, a maximum or
a product, each repeat of a position in turn (NumPy's ``np.minimum.at``, ``np.maximum.at``,
``np.multiply.at`` on a copy). Their index takes the form of :mod:`funcgrad.rules.gather`'s:
the traced parts as operands, the rest a template, so an index computed under ``jit`` or
``vmap`` (``fg.at(x)[i].max(v)``, ``fg.ops.segment_max``) is one primitive call however
often a position repeats.

    primitive     value                       reverse rule
    -----------   -------------------------   ------------------------------------------
    scatter_max   x, each max'd with v there  g shared evenly among x and the v that tie
                                              with the result at a position (JAX's rule)
    scatter_min   the same with the minimum   the same
    scatter_mul   x times the v written there g times the product for x; for each v, g x
                                              times the other values of its position

A product's rule takes no quotient by ``v``'s own value where that value is 0: the other
values' product is kept apart from a count of zeros, so a zero among them gives the
derivative the product of the rest, as the written-out product would. The index operands
have no derivative.

>>> import numpy as np
>>> i = np.array([0, 0, 2])
>>> scatter_max(np.zeros(3), np.array([4.0, 7.0, -1.0]), i, template=("traced",), mode="raise")
array([7., 0., 0.])
>>> scatter_mul(np.ones(3), np.array([4.0, 7.0, -1.0]), i, template=("traced",), mode="raise")
array([28.,  1., -1.])
"""

import numpy as np

from ..core.primitive import Primitive
from ..core.values import filled_like, shape_of
from ..jit import facts as jit_facts
from . import gather as gather_module
from .arrays import unbroadcast
from .elementwise import add, divide, equal, multiply, where
from .foreign_indexing import combine_rows
from .gather import batch_scatter, gather, index_of, scatter_add
from .row_sums import ufunc_at

__all__ = ["scatter_min", "scatter_max", "scatter_mul"]


def _combining_impl(name, ufunc):
    def impl(x, v, *idx, template, mode):
        out = np.array(x, dtype=np.result_type(x, v), copy=True)
        ufunc_at(ufunc, out, index_of(template, idx, out.shape, mode), v)
        return out

    impl.__name__ = name
    return impl


def _at(template, mode):
    """Keyword arguments for the gathers and scatters at the same index."""
    return {"template": template, "mode": mode}


def _summed_to(c, v):
    """A cotangent of the indexed shape summed to the shape of ``v``."""
    return unbroadcast(c, v) if shape_of(c) != shape_of(v) else c


# -- the extremes: the winners share -------------------------------------------------


def _winners(ans, x, v, idx, template, mode):
    """Where ``x`` holds the result, where each written value does (the indexed shape), and
    per position how many of them do (1 where none does: a NaN came from elsewhere)."""
    at = _at(template, mode)
    x_won = equal(x, ans)
    v_won = equal(v, gather(ans, *idx, **at))
    count = add(
        where(x_won, 1.0, 0.0),
        scatter_add(filled_like(ans, 0.0), where(v_won, 1.0, 0.0), *idx, **at),
    )
    return x_won, v_won, where(equal(count, 0.0), 1.0, count)


def _extreme_vjp(argnums, g, ans, x, v, *idx, template, mode):
    x_won, v_won, count = _winners(ans, x, v, idx, template, mode)
    share = divide(g, count)
    out = {}
    if 0 in argnums:
        out[0] = where(x_won, share, 0.0)
    if 1 in argnums:
        out[1] = _summed_to(where(v_won, gather(share, *idx, **_at(template, mode)), 0.0), v)
    return [out.get(i) for i in argnums]


def _extreme_jvp(tangents, ans, x, v, *idx, template, mode):
    tx, tv = tangents[0], tangents[1]
    if tx is None and tv is None:
        return None
    x_won, v_won, count = _winners(ans, x, v, idx, template, mode)
    t = filled_like(ans, 0.0) if tx is None else where(x_won, tx, 0.0)
    if tv is not None:
        won = where(v_won, tv, 0.0)
        t = add(t, scatter_add(filled_like(ans, 0.0), won, *idx, **_at(template, mode)))
    return divide(t, count)


# -- the product: each value times the others ----------------------------------------


def _others(ans, v, idx, template, mode):
    """Per written value (the indexed shape), the product of the other values written to
    its position, without dividing by a zero: the nonzero values' product and the number
    of zeros are gathered apart."""
    at = _at(template, mode)
    zero = equal(v, 0.0)
    nonzero = where(zero, 1.0, v)
    product = gather(scatter_mul(filled_like(ans, 1.0), nonzero, *idx, **at), *idx, **at)
    zeros = gather(
        scatter_add(filled_like(ans, 0.0), where(zero, 1.0, 0.0), *idx, **at), *idx, **at
    )
    # a zero value: the rest's product if it is the only zero there; any other: the
    # product over it, if no zero is there
    return where(
        zero,
        where(equal(zeros, 1.0), product, 0.0),
        where(equal(zeros, 0.0), divide(product, nonzero), 0.0),
    )


def _product_at(ans, v, idx, template, mode):
    """The product of the values written to each position (1 where none is)."""
    return scatter_mul(filled_like(ans, 1.0), v, *idx, **_at(template, mode))


def _mul_vjp(argnums, g, ans, x, v, *idx, template, mode):
    out = {}
    if 0 in argnums:
        out[0] = multiply(g, _product_at(ans, v, idx, template, mode))
    if 1 in argnums:
        at = _at(template, mode)
        reach = gather(multiply(g, x), *idx, **at)
        out[1] = _summed_to(multiply(reach, _others(ans, v, idx, template, mode)), v)
    return [out.get(i) for i in argnums]


def _mul_jvp(tangents, ans, x, v, *idx, template, mode):
    tx, tv = tangents[0], tangents[1]
    if tx is None and tv is None:
        return None
    t = filled_like(ans, 0.0)
    if tx is not None:
        t = multiply(tx, _product_at(ans, v, idx, template, mode))
    if tv is not None:
        spread = multiply(tv, _others(ans, v, idx, template, mode))
        summed = scatter_add(filled_like(ans, 0.0), spread, *idx, **_at(template, mode))
        t = add(t, multiply(x, summed))
    return t


def _combining_form(name, how):
    """The primitive's form in another library's namespace: the index as rows and
    positions (gather's), each row met with the ones written there by ``how``, the
    standard's function of that name."""

    def form(xp, x, v, *idx, template, mode):
        rows, positions, shape = gather_module._flat_positions(
            xp, *gather_module._place(x), idx, template, mode, name
        )
        if not hasattr(v, "shape"):  # a number: an array on x's device (not the default one)
            v = xp.full((), v, dtype=x.dtype, device=getattr(x, "device", None))
        values = xp.reshape(xp.broadcast_to(v, shape), (rows[0], positions.shape[0], rows[2]))
        out = combine_rows(xp, xp.reshape(x, rows), positions, values, how)
        return xp.reshape(out, tuple(x.shape))

    return form


def _primitive(name, ufunc, vjp, jvp):
    return Primitive(
        name,
        _combining_impl(name, ufunc),
        vjp=vjp,
        jvp=jvp,
        batch=batch_scatter,
        xp=_combining_form(name, ufunc.__name__),
    )


scatter_max = _primitive("scatter_max", np.maximum, _extreme_vjp, _extreme_jvp)
scatter_min = _primitive("scatter_min", np.minimum, _extreme_vjp, _extreme_jvp)
scatter_mul = _primitive("scatter_mul", np.multiply, _mul_vjp, _mul_jvp)
# What jit reads (funcgrad/jit/facts.py): each returns a new array, which a plan may reuse.
jit_facts.declare(scatter_max, scatter_min, scatter_mul, fresh=True)
