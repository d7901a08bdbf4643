"""Forward mode: values that carry a tangent along with them.

A :class:`Dual` pairs a primal value with its tangent. When a primitive meets
duals of a forward trace, the trace computes the primal result by calling the
primitive on the primal values (so outer traces record their part), and the
tangent of the result from the primitive's forward rules. A primitive with
only reverse rules gets its forward rule by transposition: a reverse rule is
linear in the cotangent, so pulling the tangent back through that linear map
gives the forward rule.
"""

from .arraylike import ArrayLike
from .backprop import add_cotangents, vjp_step
from .errors import MissingRuleError
from .fold import reverse_fold
from .node import VAR, Node, ReverseTrace, new_level
from .order import dfs_order
from .primitive import rule_at
from .rules.arrays import broadcast_to, shape_of, zeros_like_value

__all__ = ["Dual", "ForwardTrace", "jvp_of"]


class Dual(ArrayLike):
    """A primal value with its tangent, belonging to one forward trace."""

    __slots__ = ("_value", "_tangent", "_trace")

    def __init__(self, value, tangent, trace):
        self._value = value
        self._tangent = tangent
        self._trace = trace

    @property
    def value(self):
        return self._value

    @property
    def tangent(self):
        return self._tangent

    def __repr__(self):
        from .show import format_value
        return f"<Dual {format_value(self._value)} tangent {format_value(self._tangent)}>"


class ForwardTrace:
    """A forward-mode trace: every primitive call pushes tangents through."""

    __slots__ = ("level",)

    def __init__(self, level):
        self.level = level

    def process(self, prim, args, params):
        primals = []
        tangents = []
        for a in args:
            if type(a) is Dual and a._trace is self:
                primals.append(a._value)
                tangents.append(a._tangent)
            else:
                primals.append(a)
                tangents.append(None)
        ans = prim(*primals, **params)
        return Dual(ans, jvp_of(prim, tangents, ans, primals, params), self)

    def __repr__(self):
        return f"<forward trace {self.level}>"


def jvp_of(prim, tangents, ans, primals, params):
    """The output tangent of one primitive call, given its argument tangents."""
    if prim.jvp_joint is not None:
        out = prim.jvp_joint(tuple(tangents), ans, *primals, **params)
    else:
        rules = prim.jvps
        out = None
        for i, t in enumerate(tangents):
            if t is None:
                continue
            rule = rule_at(rules, i)
            if rule is not None:
                c = rule(t, ans, *primals, **params)
            else:
                c = _transposed_vjp(prim, i, t, ans, primals, params)
            out = c if out is None else add_cotangents(out, c)
    if out is None:
        return zeros_like_value(ans)
    if shape_of(out) != shape_of(ans):
        out = broadcast_to(out, shape=shape_of(ans))
    return out


def _transposed_vjp(prim, i, t, ans, primals, params):
    """Forward rule for argument ``i`` derived from its reverse rule.

    The reverse rule ``g -> J_i^T g`` is linear, so its own reverse pass with
    seed ``t`` gives ``J_i t``: trace the rule on a fresh cotangent variable,
    then fold back from its output.
    """
    rule = rule_at(prim.vjps, i)
    if rule is None:
        raise MissingRuleError(
            f"primitive '{prim.name}' has no forward-mode rule and no reverse-mode rule for "
            f"argument {i}; define one with fg.defjvp({prim.name}, ...) or fg.defvjp"
        )
    trace = ReverseTrace(new_level())
    g = Node(zeros_like_value(ans), VAR, (), None, "g", trace)
    out = rule(g, ans, *primals, **params)
    if not (type(out) is Node and out._trace is trace):
        return zeros_like_value(primals[i])  # the rule ignores g: a zero map
    grads = reverse_fold(dfs_order((out,)), out, t, vjp_step, add_cotangents,
                         keep=lambda n: n is g)
    return grads.get(g, zeros_like_value(ans))
