"""An array's reference count: whether the one call site that holds it may write into it.

One site reads it: elementwise's pullback (:func:`funcgrad.rules.elementwise.pullback`),
where a weight a rule's partial made for one product can take the product in place (one
array fewer: ReLU's step times its cotangent), while an array a caller, a node or a rule
still holds must not be written. A partial's result cannot say whether it is fresh (a
partial may hand back its operand), so the count is the only witness. (The fold's own
additions in place need no count: it writes only into sums it made,
:func:`funcgrad.dag.fold.accumulate`.) Which count means "held here alone" depends on the
calls the array went through (each frame that binds it adds one), so each site finds
its own once, at import: :func:`calibrate` runs a probe that passes a fresh array through
the same kind of calls and reads :func:`count` where the site reads it.

An interpreter without reference counts (PyPy) reads a count no calibration reaches, and
calibrates to 0: nothing is written in place there.

>>> import numpy as np
>>> def site(a):                      # a call site that reads its argument's count
...     return count(a)
>>> held_here_alone = calibrate(lambda: site(np.empty(1)))
>>> site(np.empty(1)) <= held_here_alone
True
>>> kept = np.empty(1)                # a name outside the call holds this one
>>> site(kept) <= held_here_alone
False
"""

import sys

__all__ = ["count", "calibrate"]

count = getattr(sys, "getrefcount", lambda x: sys.maxsize)


def calibrate(probe):
    """The count ``probe()`` reads for an array only the probe's calls hold; 0 where the
    interpreter keeps no counts."""
    return probe() if hasattr(sys, "getrefcount") else 0
