"""The registry: one :class:`~tests.opinfo.record.OpInfo` per public differentiable callable.

Every table of test data lives here, one module per namespace, each row written once:
``numpy_math`` (domains of elementwise math), ``numpy_reductions``, ``numpy_shape``,
``numpy_linalg``, ``numpy_breadth``, ``numpy_fft``, ``scipy_linalg``, ``scipy_stats``,
``complex_inputs``, and ``rules`` (funcgrad's primitives: the domains of the elementwise
ones, the calls of the others, their PyTorch and NumPy equivalents or why there are none).
``from_tables`` makes each namespace row an OpInfo (funcgrad's function, samples inside its
domains, NumPy's or SciPy's function as its reference); ``transforms`` adds the records no
table holds. The tests of each namespace read their table in depth; the conformance matrix
(tests/test_conformance.py) runs every record under every transform, and a public
callable without a record, or a primitive no record reaches, fails it.
"""

from . import from_tables, transforms  # noqa: F401 - each registers its records
from .record import OPS, OpInfo, register

__all__ = ["OPS", "OpInfo", "register"]
