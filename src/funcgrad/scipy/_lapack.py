"""Operands as SciPy hands them to LAPACK, which has no float16 routine: float16 as
float32, so a traced call gives SciPy's result type where NumPy's linalg refuses float16.

>>> import numpy as np
>>> lapack_operands(np.ones(2, np.float16))[0].dtype
dtype('float32')
"""

import numpy as np

from ..core.values import dtype_of
from ..numpy._helpers import as_array
from ..rules.ufuncs import astype

__all__ = ["lapack_operands"]


def lapack_operands(*arrays):
    """The operands, float16 ones as float32 (LAPACK's nearest type, as SciPy casts them)."""
    return tuple(
        astype(x, dtype=np.float32) if dtype_of(x) == np.float16 else as_array(x) for x in arrays
    )
