"""Rule tables, one module per domain: each primitive defined once, its rules beside it.

- :mod:`.elementwise`: the core scalar math, applied elementwise with broadcasting
- :mod:`.ufuncs`: the rest of NumPy's elementwise math
- :mod:`.arrays`: shapes, sums, indexing, joining (all linear), and the helpers
  every table's batching rules share
- :mod:`.reductions`: products, extrema, cumulative sums and products
- :mod:`.shape`: sorting and gathering with an index computed from values
- :mod:`.gather`: gathers and scatters whose index jit or vmap traces
- :mod:`.cuts`: primitives without a derivative (``stop_gradient``, ``zeros_like``)
- :mod:`.products`: matrix products, contractions, diagonals, triangles
- :mod:`.linalg`: inverses, determinants, solves, decompositions, norms
- :mod:`.nn`: softmax, logsumexp and the note's pnls loss

See :mod:`funcgrad.core.primitive` for the form of a primitive and its rules.
"""

__all__: list[str] = []  # an internal package: its modules are imported by name
