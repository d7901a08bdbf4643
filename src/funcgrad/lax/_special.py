"""lax's special functions: SciPy's (through :mod:`funcgrad.scipy.special`, loaded on
first use, so the rest of lax works without SciPy), in the operand's dtype as lax
gives them: ``lax.lgamma`` of float16 is float16 (JAX computes a special function in a
wider type and rounds it back), where SciPy's ``gammaln`` gives float64.

>>> import numpy as np
>>> from funcgrad import lax
>>> lax.lgamma(np.array([0.5, 4.0], np.float16))
array([0.5723, 1.792 ], dtype=float16)
"""

import importlib.util
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..core.results import weak
from ..core.values import dtype_of, numeric_kind
from ..nn import erf as _erf
from ._scipy import scipy_part

__all__ = [
    "erf",
    "erfc",
    "erf_inv",
    "lgamma",
    "digamma",
    "igamma",
    "igammac",
    "betainc",
    "polygamma",
    "zeta",
    "bessel_i0e",
    "bessel_i1e",
]


def like_operands(out: Any, *operands: Any) -> Any:
    """``out`` in the dtype of its floating operands, as lax gives it (Python numbers are
    weak, traced by jit or not: they change nothing; integer operands leave ``out`` as
    computed).

    >>> import numpy as np
    >>> like_operands(np.ones(2), np.ones(2, np.float32), 2.0).dtype
    dtype('float32')
    """
    dtypes = [dtype_of(x) for x in operands if not weak(x)]  # (a traced Python number too)
    if not dtypes:
        return out
    want = np.result_type(*dtypes)
    if numeric_kind(want) not in "fc" or dtype_of(out) == want:
        return out
    return fnp.astype(out, want)


def erf(x: Any) -> Any:
    """The error function.

    >>> import numpy as np
    >>> from funcgrad.lax import erf
    >>> erf(np.array([0.0, 1.0], np.float32))
    array([0.       , 0.8427008], dtype=float32)
    """
    return like_operands(_erf(x), x)


def erfc(x: Any) -> Any:
    """``1 - erf(x)``, to full relative precision in the tail (SciPy's ``erfc``: 1 - erf
    rounds to 0 from x ~ 6 and loses digits well before; without SciPy installed, that
    difference, accurate to about 1e-16 absolute).

    >>> from funcgrad.lax import erfc
    >>> float(erfc(0.0)), float(erfc(7.25))
    (1.0, 1.1466900814815008e-24)
    """
    if importlib.util.find_spec("scipy") is None:
        return like_operands(1.0 - _erf(x), x)
    return like_operands(_special("erfc")(x), x)


def _special(name):
    """A function of :mod:`funcgrad.scipy.special`, which needs SciPy (loaded on first use:
    the rest of lax works without it)."""
    return getattr(scipy_part().special, name)


def lgamma(x: Any) -> Any:
    """The log of the absolute value of Gamma(x) (SciPy's ``gammaln``; at -inf XLA's +inf).

    >>> import numpy as np
    >>> from funcgrad.lax import lgamma
    >>> lgamma(np.array([0.5, 4.0]))
    array([0.57236494, 1.79175947])
    >>> import funcgrad as fg
    >>> fg.grad(lgamma)(4.0)    # digamma(4)
    np.float64(1.2561176684318003)
    """
    out = _special("gammaln")(x)
    # XLA's (and C's lgamma's) value at -inf is +inf, SciPy's -inf: |out| there, whose
    # derivative stays digamma's nan
    return like_operands(fnp.where(fnp.isneginf(x), fnp.abs(out), out), x)


def digamma(x: Any) -> Any:
    """The derivative of ``lgamma`` (SciPy's ``digamma``; nan at 0, as XLA's at every pole).

    >>> import numpy as np
    >>> from funcgrad.lax import digamma
    >>> digamma(np.array([1.0, 4.0]))
    array([-0.57721566,  1.25611767])
    """
    # a pole at 0 as at the negative integers: XLA's nan there (SciPy's -inf and inf at 0
    # and -0.0), read at -1, whose derivative is XLA's inf at 0 as well
    return like_operands(_special("digamma")(fnp.where(x == 0, x - 1.0, x)), x)


def erf_inv(x: Any) -> Any:
    """The inverse of ``erf``.

    >>> import numpy as np
    >>> from funcgrad.lax import erf_inv
    >>> erf_inv(np.array([0.0, 0.5]))
    array([0.        , 0.47693628])
    """
    return like_operands(_special("erfinv")(x), x)


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function (SciPy's ``gammainc``).

    >>> import numpy as np
    >>> from funcgrad.lax import igamma
    >>> igamma(2.0, np.array([1.0, 3.0]))
    array([0.26424112, 0.80085173])
    """
    return like_operands(_special("gammainc")(a, x), a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function (SciPy's ``gammaincc``).

    >>> import numpy as np
    >>> from funcgrad.lax import igammac
    >>> igammac(2.0, np.array([1.0, 3.0]))
    array([0.73575888, 0.19914827])
    """
    return like_operands(_special("gammaincc")(a, x), a, x)


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function.

    >>> import numpy as np
    >>> from funcgrad.lax import betainc
    >>> betainc(2.0, 3.0, np.array([0.2, 0.5]))
    array([0.1808, 0.6875])
    """
    return like_operands(_special("betainc")(a, b, x), a, b, x)


def polygamma(m: Any, x: Any) -> Any:
    """The ``m``-th derivative of ``digamma``.

    >>> import numpy as np
    >>> from funcgrad.lax import polygamma
    >>> polygamma(1, np.array([1.0, 2.0]))
    array([1.64493407, 0.64493407])
    """
    return like_operands(_special("polygamma")(m, x), m, x)


def zeta(x: Any, q: Any) -> Any:
    """Hurwitz's zeta function.

    >>> import numpy as np
    >>> from funcgrad.lax import zeta
    >>> zeta(2.0, np.array([1.0, 2.0]))
    array([1.64493407, 0.64493407])
    """
    return like_operands(_special("zeta")(x, q), x, q)


def bessel_i0e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 0.

    >>> import numpy as np
    >>> from funcgrad.lax import bessel_i0e
    >>> bessel_i0e(np.array([0.0, 1.0]))
    array([1.        , 0.46575961])
    """
    return like_operands(_special("i0e")(x), x)


def bessel_i1e(x: Any) -> Any:
    """The exponentially scaled modified Bessel function of order 1.

    >>> import numpy as np
    >>> from funcgrad.lax import bessel_i1e
    >>> bessel_i1e(np.array([0.0, 1.0]))
    array([0.        , 0.20791042])
    """
    return like_operands(_special("i1e")(x), x)
