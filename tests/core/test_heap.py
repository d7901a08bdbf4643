"""jit gives a large trace's memory back to the system once the plan is compiled."""

import numpy as np

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.core import heap
from funcgrad.jit import jitted


def test_a_large_plan_trims_the_heap_and_a_small_one_does_not(monkeypatch):
    calls = []
    monkeypatch.setattr(jitted, "trim_heap", lambda: calls.append(1) or True)
    monkeypatch.setattr(jitted, "TRIM_ABOVE", 50)

    def chain(x, n):
        for _ in range(n):
            x = fnp.tanh(x) * 0.5 + x
        return fnp.sum(x)
    small = fg.jit(fg.grad(lambda x: chain(x, 3)))
    small(np.ones(2))
    assert calls == []
    big = fg.jit(fg.grad(lambda x: chain(x, 40)))
    assert np.allclose(big(np.ones(2)), fg.grad(lambda x: chain(x, 40))(np.ones(2)))
    assert calls == [1]
    big(np.ones(2))                          # a replay compiles nothing
    assert calls == [1]


def test_trim_heap_answers_whether_it_released_memory():
    assert heap.trim_heap() in (True, False)
