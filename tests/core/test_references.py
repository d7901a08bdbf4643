"""The reference counts that let a rule's fresh weight be written in place (the one site
that reads them: rules/elementwise.py's pullback, through funcgrad/core/references.py):
its calibration, both branches (a weight the call made is written, one the caller holds
is not), and an interpreter without counts, where nothing is written in place. (The
fold's own additions in place need no counts: funcgrad/dag/fold.py's accumulate.)"""

import importlib
import sys

import numpy as np

import funcgrad as fg
from funcgrad.core import references
from funcgrad.rules import elementwise


def test_each_sites_calibration_tells_a_temporary_from_a_held_array():
    held = np.ones(3)
    assert elementwise._TEMPORARY > 0
    g, x = np.ones(3), np.ones(3)
    # pullback writes a weight made for its call and never one the caller holds
    elementwise.pullback(g, held, x)
    np.testing.assert_array_equal(held, np.ones(3))
    assert np.array_equal(elementwise.pullback(g, np.full(3, 2.0), x), np.full(3, 2.0))


def test_both_branches_the_weight_made_for_the_call_takes_the_product(monkeypatch):
    # the branch is seen by the product's out=: the fresh weight itself, or a new array
    seen = []
    multiply = np.multiply

    class Spy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def multiply(a, b, out=None):
            seen.append(out is b)
            return multiply(a, b, out=out)

    monkeypatch.setattr(elementwise, "np", Spy())
    g, x, held = np.full(3, 3.0), np.ones(3), np.full(3, 2.0)
    np.testing.assert_array_equal(elementwise.pullback(g, np.full(3, 2.0), x), np.full(3, 6.0))
    np.testing.assert_array_equal(elementwise.pullback(g, held, x), np.full(3, 6.0))
    np.testing.assert_array_equal(held, np.full(3, 2.0))
    assert seen[:1] == [True] and True not in seen[1:]


def test_without_counts_nothing_is_written_in_place(monkeypatch):
    monkeypatch.delattr(sys, "getrefcount")
    try:
        importlib.reload(references)
        assert references.count(np.empty(1)) == sys.maxsize
        assert references.calibrate(lambda: 1) == 0
        monkeypatch.setattr(elementwise, "_TEMPORARY", elementwise._temporary_references())
        assert elementwise._TEMPORARY == 0
        x = np.linspace(-1.0, 1.0, 7)
        want = np.where(x > 0, 2 * x, 0.0)  # relu's step times the cotangent, not in place
        np.testing.assert_array_equal(fg.grad(lambda v: (fg.nn.relu(v) * v).sum())(x), want)
    finally:
        monkeypatch.undo()
        importlib.reload(references)
    assert references.count is sys.getrefcount
