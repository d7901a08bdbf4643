"""help() works on every public name: a real signature and a docstring with an example.

The examples themselves run as doctests (pytest --doctest-modules collects them,
the primitives' pages included, from the module that exports them).
"""

import importlib
import inspect
import pathlib

import pytest

import funcgrad

MODULES = [
    "funcgrad",
    "funcgrad.numpy",
    "funcgrad.numpy.linalg",
    "funcgrad.numpy.fft",
    "funcgrad.scipy.special",
    "funcgrad.scipy.linalg",
    "funcgrad.scipy.stats",
    "funcgrad.scipy.signal",
    "funcgrad.scipy.integrate",
    "funcgrad.nn",
    "funcgrad.optim",
]


def public_functions():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.ismodule(obj) or isinstance(obj, type) or not callable(obj):
                continue  # submodules, classes (exceptions, NamedTuples), constants
            if not (getattr(obj, "__module__", "") or "").startswith("funcgrad"):
                continue  # NumPy's own helpers, re-exported as NumPy has them
            yield pytest.param(obj, id=f"{module_name}.{name}")


@pytest.mark.parametrize("fun", list(public_functions()))
def test_help_shows_a_real_signature_and_an_example(fun):
    signature = inspect.signature(fun)
    assert str(signature) not in ("(*args, **params)", "(*args, **kwargs)"), signature
    doc = inspect.getdoc(fun) or ""
    assert doc and doc != inspect.getdoc(funcgrad.Primitive), "the generic Primitive docstring"
    assert ">>>" in doc, "no example"


def test_help_renders_a_primitive_as_its_function():
    import pydoc

    import funcgrad.numpy as fnp

    page = pydoc.render_doc(fnp.arctan2, renderer=pydoc.plaintext)
    assert "arctan2(x1, x2, /)" in page and "Derivative:" in page and ">>>" in page


def test_the_package_ships_its_type_hints():
    assert (pathlib.Path(funcgrad.__file__).parent / "py.typed").is_file()
    hints = inspect.get_annotations(funcgrad.grad)
    assert hints["return"] == "Callable" or hints["return"].__name__ == "Callable"
