"""The reference counts that let a fold's cotangent and a rule's fresh weight be written in
place (funcgrad/core/references.py): the two sites' calibrations, and an interpreter
without counts, where nothing is written in place."""

import importlib
import sys

import numpy as np

import funcgrad as fg
from funcgrad.core import references
from funcgrad.dag import backprop
from funcgrad.rules import elementwise


def test_each_sites_calibration_tells_a_temporary_from_a_held_array():
    held = np.ones(3)
    assert backprop._FOLD_REFERENCES > 0 and elementwise._TEMPORARY > 0
    g, x = np.ones(3), np.ones(3)
    # pullback writes a weight made for its call and never one the caller holds
    elementwise.pullback(g, held, x)
    np.testing.assert_array_equal(held, np.ones(3))
    assert np.array_equal(elementwise.pullback(g, np.full(3, 2.0), x), np.full(3, 2.0))


def test_without_counts_nothing_is_written_in_place(monkeypatch):
    monkeypatch.delattr(sys, "getrefcount")
    try:
        importlib.reload(references)
        assert references.count(np.empty(1)) == sys.maxsize
        assert references.calibrate(lambda: 1) == 0
        monkeypatch.setattr(elementwise, "_TEMPORARY", elementwise._temporary_references())
        monkeypatch.setattr(backprop, "_FOLD_REFERENCES", backprop._fold_references())
        assert elementwise._TEMPORARY == 0 and backprop._FOLD_REFERENCES == 0
        x = np.linspace(-1.0, 1.0, 7)
        want = np.where(x > 0, 2 * x, 0.0)  # relu's step times the cotangent, not in place
        np.testing.assert_array_equal(fg.grad(lambda v: (fg.nn.relu(v) * v).sum())(x), want)
    finally:
        monkeypatch.undo()
        importlib.reload(references)
    assert references.count is sys.getrefcount
