"""A name on a value: ``checkpoint_name``, the identity that marks a value for checkpoint
policies (``fg.checkpoint_policies.save_only_these_names`` and its siblings).

It is a primitive of its own, so a policy sees the name among the calls of a
checkpointed function, and every transform passes it through: its derivative
is the identity, its batching is itself. It lives with the rules, so saved
graphs that hold it load again.

>>> checkpoint_name(2.0, name="h")
np.float64(2.0)
"""

from ..analysis.facts import declare
from ..core.primitive import Primitive

__all__ = ["checkpoint_name"]


def _batch(size, prim, values, batched, params):
    return prim(values[0], **params)


checkpoint_name = Primitive(
    "checkpoint_name",
    lambda x, name: x,
    vjp=(lambda g, ans, x, name: g,),
    jvp=(lambda t, ans, x, name: t,),
    batch=_batch,
)
declare(checkpoint_name, linear="each", structure="elementwise")
