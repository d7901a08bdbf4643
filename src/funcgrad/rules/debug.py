"""The primitive of ``fg.debug.callback``: a call made for its effect, with runtime values.

``debug_callback(*leaves, callback=c)`` calls ``c(*leaves)`` on the values
beneath every trace and gives 0.0, which nothing uses. Its facts make the
transforms keep it where a value-only primitive would be dropped: jit stages
it without calling it (``abstract``) and keeps it in the plan though no output
needs it (``effect``), so the callback runs each time the plan does, with that
call's values; a loop's body keeps it likewise, so it runs every iteration.
vmap calls it once per example. It has no derivative and passes none.

>>> seen = []
>>> debug_callback(2.0, 3.0, callback=lambda *v: seen.append(v))
np.float64(0.0)
>>> seen
[(2.0, 3.0)]
"""

from ..analysis.facts import ALL, declare
from ..core.primitive import Primitive
from ..jit import facts as jit_facts

__all__ = ["debug_callback"]


def _impl(*leaves, callback):
    callback(*leaves)
    return 0.0


# No batch rule: vmap runs a primitive without one example by example, which is what a
# callback should see (rules.arrays.batch_example_by_example).
debug_callback = Primitive(
    "debug_callback",
    _impl,
    vjp=lambda argnums, g, ans, *leaves, **params: [None for _ in argnums],
    jvp=lambda tangents, ans, *leaves, **params: None,
    # on another library's arrays the callback sees them as they are, on their device
    xp=lambda xp, *leaves, callback: _impl(*leaves, callback=callback),
)
declare(debug_callback, flat=ALL)
jit_facts.declare(debug_callback, effect=True, abstract=lambda *leaves, callback: 0.0)
