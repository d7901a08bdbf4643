"""Rule tables, one module per domain: each primitive sits beside its derivatives.

- :mod:`.arrays`: shapes, sums, indexing, joining (all linear)
- :mod:`.elementwise`: the scalar math, applied elementwise with broadcasting
- :mod:`.linalg`: matrix products
- :mod:`.nn`: softmax, logsumexp and the note's pnls loss
"""
