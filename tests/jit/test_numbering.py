"""A record's nodes by creation number (funcgrad/jit/numbering.py), aliases among them:
each checked against a walk of the graph by its objects."""

import numpy as np

import funcgrad.numpy as fnp
from funcgrad.core.traces import new_level
from funcgrad.dag.node import VAR
from funcgrad.jit.numbering import Locator, needed_steps, without_aliases
from funcgrad.jit.staging import Staged, StagingTrace
from funcgrad.transforms.staged_reverse import fresh_input


def _record():
    """x, an alias of x, an alias of that, and steps reading each; a step nothing reads."""
    trace = StagingTrace(new_level(), record=True)
    with trace.recording() as made:
        x = Staged(np.ones(3), VAR, (), None, "x", trace)
        a = fresh_input(x)
        b = fresh_input(a)
        made.aliases.extend([a, b])
        y = fnp.sin(a) * 2.0
        unused = fnp.cos(x)
        z = y + b
    return made, x, (a, b), (y, unused, z)


def test_a_record_less_its_aliases_keeps_every_other_step_in_order():
    made, _, aliases, _ = _record()
    steps = list(made[1:])
    prims = [s._prim for s in steps]
    kept, kept_prims = without_aliases(steps, prims, aliases)
    want = [s for s in steps if all(s is not a for a in aliases)]
    assert len(kept) == len(want) and all(k is w for k, w in zip(kept, want))
    assert kept_prims == [s._prim for s in want]


def test_the_locator_finds_an_alias_where_its_operand_is():
    made, x, (a, b), (y, *_) = _record()
    for nodes in (list(made), [n for n in made if n is not a and n is not b]):
        locate = Locator(nodes)
        locate.point(a, x)
        locate.point(b, a)  # an alias of an alias: where the first is found
        found = locate([x, a, b, y]).tolist()
        assert found == [0, 0, 0, next(i for i, n in enumerate(nodes) if n is y)]


def test_the_steps_an_output_needs_reach_through_aliases():
    made, _, aliases, (y, unused, z) = _record()
    steps, _ = without_aliases(list(made[1:]), [s._prim for s in made[1:]], aliases)
    kept = needed_steps(steps, [z], aliases)
    assert all(k is not unused for k in kept)
    assert kept[-1] is z and any(k is y for k in kept)
    # a step read only through an alias is kept: the sine reads x through the alias
    assert [k._prim.name for k in kept] == ["sin", "multiply", "add"]
