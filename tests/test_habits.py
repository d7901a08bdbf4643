"""Habits users bring from PyTorch, micrograd, NumPy and JAX meet an error that names the
funcgrad way, never a wrong number: ``loss.backward()``, ``g[x] = v``, ``f"{x:.3f}"`` on a
traced value, ``buffer[i] = x``, a value kept past ``jit``'s trace; and ``fg.vmap`` keeps
the function's name and doc, as ``functools.wraps`` would."""

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

TRANSFORMS = {
    "grad": lambda f: fg.grad(lambda x: fnp.sum(f(x)))(np.ones(2)),
    "jit": lambda f: fg.jit(f)(np.ones(2)),
    "vmap": lambda f: fg.vmap(f)(np.ones((3, 2))),
    "jvp": lambda f: fg.jvp(f, (np.ones(2),), (np.ones(2),)),
}


@pytest.mark.parametrize("name", ["backward", "grad", "data", "zero_grad"])
def test_pytorchs_attributes_name_the_funcgrad_way(name):
    w = fg.var(2.0, name="w")
    with pytest.raises(fg.ImmutableError, match=r"fg\.backprop|fg\.grad|w\.value") as caught:
        attr = getattr(w * w, name)  # an attribute raises when read, a method when called
        attr()
    assert isinstance(caught.value, AttributeError)  # except AttributeError: still catches it


def test_a_gradient_map_is_not_changed_in_place():
    x = fg.var(3.0, name="x")
    g = fg.backprop(x * x)
    with pytest.raises(fg.ImmutableError, match=r"g\.set"):
        g[x] = 0.0
    with pytest.raises(fg.ImmutableError, match=r"g\.discard"):
        del g[x]
    assert g[x] == 6.0 and g.set(x, 1.0)[x] == 1.0 and g[x] == 6.0


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_a_format_spec_on_a_traced_value_says_how_to_print_it(transform):
    def f(x):
        return x * float(len(f"{x[0]:.3f}"))

    with pytest.raises(fg.ConversionError, match=r"fg\.debug\.print"):
        TRANSFORMS[transform](f)


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_a_plain_format_of_a_traced_value_still_shows_it(transform):
    shown = []

    def f(x):
        shown.append(f"{x}")
        return x * 2.0

    TRANSFORMS[transform](f)
    assert shown and all(s for s in shown)


def test_a_hand_built_node_formats_its_number():
    x = fg.var(2.0, name="x")
    assert f"{x * 1.5:.2f}" == "3.00"
    assert f"{fg.var(np.array([1.0, 2.0])):}" != ""


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_writing_a_traced_value_into_a_numpy_buffer_is_never_silent(transform):
    def f(x):
        buffer = np.zeros(2)
        buffer[0] = x[0]
        return x * fnp.sum(buffer)

    with pytest.raises(ValueError) as caught:
        TRANSFORMS[transform](f)
    cause = caught.value.__cause__
    assert isinstance(cause, fg.ConversionError) and "fg.at(buffer)" in str(cause)


def test_writing_plain_numbers_into_a_buffer_inside_a_transform_still_works():
    def f(x):
        buffer = np.zeros(2)
        buffer[0] = 3.0
        return fnp.sum(x * buffer)

    assert np.allclose(fg.grad(f)(np.ones(2)), [3.0, 0.0])
    assert fg.jit(f)(np.ones(2)) == 3.0


def test_a_value_that_leaked_from_jit_is_refused_where_it_is_used():
    kept = []

    @fg.jit
    def double(x):
        kept.append(x)
        return x * 2.0

    assert double(np.ones(2)).tolist() == [2.0, 2.0]
    for use in (lambda v: v + 1.0, lambda v: fnp.sin(v), lambda v: fg.jit(lambda a: a + v)(1.0)):
        with pytest.raises(fg.LeakError, match="leaked") as caught:
            use(kept[0])
        assert isinstance(caught.value, TypeError)
    for convert in (np.asarray, lambda v: float(v.sum())):
        with pytest.raises(fg.LeakError, match="leaked"):
            convert(kept[0])
    assert double(np.full(2, 3.0)).tolist() == [6.0, 6.0]  # the plan itself is untouched


def test_a_value_kept_inside_one_trace_is_fine_while_it_lasts():
    def f(x):
        inner = []
        fg.jit(lambda a: inner.append(a) or a)(x)  # kept, but only read through the result
        return x * 2.0

    assert fg.jit(f)(1.5) == 3.0


def test_vmap_keeps_the_functions_name_and_doc():
    def score(x):
        """The score of one example."""
        return x * 2.0

    batched = fg.vmap(score)
    assert batched.__name__ == "score" and batched.__doc__ == score.__doc__
    assert batched.__wrapped__ is score


def test_an_old_module_name_read_as_an_attribute_warns_and_answers_the_new_module(monkeypatch):
    # (an earlier `import funcgrad.serialize` leaves the old name bound on the package, as
    # any import of a submodule does: read it fresh)
    monkeypatch.delitem(vars(fg), "serialize", raising=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        module = fg.serialize
    assert module.__name__.startswith("funcgrad.") and hasattr(module, "to_table")
    moved = [w for w in seen if "moved to funcgrad.io.serialize" in str(w.message)]
    assert moved and issubclass(moved[0].category, DeprecationWarning)
    assert moved[0].filename == __file__  # the warning points at the reader's line
    with pytest.raises(AttributeError):
        fg.no_such_module  # noqa: B018
