"""fg.debug.print and fg.debug.callback: the values of each call, under every transform."""

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp


def _f(x):
    fg.debug.print("x={}", x)
    return fnp.sum(fnp.sin(x) * x)


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_eager_and_under_grad_and_jvp_it_prints_the_primal_values(capsys):
    x = np.array([1.0, 2.0])
    _f(x)
    fg.grad(_f)(x)
    fg.jvp(_f, (x,), (np.ones(2),))
    assert _lines(capsys) == ["x=[1. 2.]"] * 3


def test_under_jit_it_prints_each_call_with_that_calls_values(capsys):
    g = fg.jit(fg.value_and_grad(_f))
    for v in (1.0, 2.0, 3.0):
        value, grad = g(np.array([v, -v]))
        assert value == _f(np.array([v, -v])) and np.allclose(grad, fg.grad(_f)(np.array([v, -v])))
    # one line per jitted call, then the eager check's two (value and grad) per call
    assert _lines(capsys) == [line for v in ("1.", "2.", "3.") for line in [f"x=[ {v} -{v}]"] * 3]
    assert g.cache_size() == 1


def test_under_jit_the_lines_are_those_of_the_calls(capsys):
    g = fg.jit(_f)
    g(np.array([1.0, 2.0]))
    g(np.array([5.0, 6.0]))
    assert _lines(capsys) == ["x=[1. 2.]", "x=[5. 6.]"]


def test_under_vmap_once_per_example_in_order(capsys):
    xs = np.array([[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(fg.vmap(_f)(xs), [_f(x) for x in xs])
    fg.jit(fg.vmap(_f))(xs)
    assert _lines(capsys) == ["x=[1.]", "x=[2.]", "x=[3.]"] * 3


@pytest.mark.parametrize("jit", [False, True])
def test_in_a_loop_body_at_every_iteration(capsys, jit):
    def body(i, c):
        fg.debug.print("{} {}", i, c)
        return c * 2.0

    run = lambda c: fg.fori_loop(0, 3, body, c)
    assert (fg.jit(run) if jit else run)(1.0) == 8.0
    assert _lines(capsys) == ["0 1.0", "1 2.0", "2 4.0"]


def test_in_scan_while_loop_and_cond(capsys):
    fg.scan(lambda c, x: (fg.debug.print("x={}", x) or c + x, c), 0.0, np.arange(2.0))
    fg.while_loop(lambda c: c < 3.0, lambda c: (fg.debug.print("c={}", c), c + 2.0)[1], 0.0)
    fg.cond(True, lambda v: (fg.debug.print("t={}", v), v)[1], lambda v: v, 5.0)
    assert _lines(capsys) == ["x=0.0", "x=1.0", "c=0.0", "c=2.0", "t=5.0"]


def test_callback_gets_pytrees_and_keywords_and_changes_nothing():
    seen = []

    def f(params):
        fg.debug.callback(
            lambda p, scale=None: seen.append((sorted(p), scale)), params, scale=params["b"]
        )
        return params["w"] * params["b"]

    p = {"w": 2.0, "b": 3.0}
    assert fg.jit(fg.grad(f))(p) == fg.grad(f)(p)
    assert seen == [(["b", "w"], 3.0)] * 2


def test_bad_arguments_are_named():
    with pytest.raises(fg.FuncgradError, match="needs a function"):
        fg.debug.callback(3, 1.0)
    with pytest.raises(fg.FuncgradError, match="format must be a string"):
        fg.debug.print(3, 1.0)
