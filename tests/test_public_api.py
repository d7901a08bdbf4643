"""The public surface: the modules the API page documents, what they show, and their pages.

The public modules are exactly those docs/api.md documents (its ``automodule``
directives). Each defines ``__all__``; ``dir()`` shows those names and nothing
else (tab completion offers no helper); each name has a docstring with a ``>>>``
example (which the doctests run) and is on the API page. Every other module is
internal (docs/api.md, "Public modules") and still defines ``__all__``.
"""

import doctest
import importlib
import inspect
import io
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import funcgrad

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
DIRECTIVE = re.compile(r"^\.\. automodule:: (\S+)\n((?:   :.*\n)*)", re.M)


def _api_page():
    """``{module: excluded member names}`` for each module the API page documents."""
    pages = {}
    for name, options in DIRECTIVE.findall(API_PAGE.read_text()):
        excluded = re.search(r":exclude-members: (.*)", options)
        pages[name] = {n.strip() for n in excluded.group(1).split(",")} if excluded else set()
    return pages


PUBLIC = _api_page()


def _every_module():
    names = ["funcgrad"]
    for info in pkgutil.walk_packages(funcgrad.__path__, "funcgrad."):
        if info.name != "funcgrad.__main__":
            names.append(info.name)
    return names


def _numpys_own(module, name, obj):
    """A name funcgrad.numpy (or its linalg, fft) passes through from NumPy's namesake
    module itself (a dtype, a constant, np.fft.fftfreq)."""
    if not module.__name__.startswith("funcgrad.numpy"):
        return False
    namesake = importlib.import_module(module.__name__.replace("funcgrad.", "", 1))
    return getattr(namesake, name, None) is obj


def _passed_through(module, name, obj):
    """NumPy's own names in funcgrad.numpy; SciPy's samplers (``rvs``) in funcgrad.scipy."""
    scipys = str(getattr(obj, "__module__", "")).startswith("scipy.")
    return _numpys_own(module, name, obj) or (
        module.__name__.startswith("funcgrad.scipy") and scipys and name == "rvs"
    )


def test_the_api_page_documents_the_public_modules_and_only_public_ones():
    assert "funcgrad" in PUBLIC and "funcgrad.numpy" in PUBLIC and "funcgrad.errors" in PUBLIC
    for name in PUBLIC:
        assert not any(part.startswith("_") for part in name.split(".")), name
        importlib.import_module(name)


@pytest.mark.parametrize("name", _every_module())
def test_every_module_says_what_it_exports(name):
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it lacks: {missing}"
    assert len(set(module.__all__)) == len(module.__all__), f"{name}.__all__ repeats a name"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_a_public_module_shows_its_public_names_and_nothing_else(name):
    module = importlib.import_module(name)
    assert sorted(dir(module)) == sorted(module.__all__), (
        f"dir({name}) shows {sorted(set(dir(module)) - set(module.__all__))} beyond __all__"
    )


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_name_has_an_example_and_is_on_the_api_page(name):
    module = importlib.import_module(name)
    excluded = PUBLIC[name]
    lacking, off_page = [], []
    for attr in module.__all__:
        obj = getattr(module, attr)
        if _passed_through(module, attr, obj):
            continue  # NumPy's or SciPy's own object, on their pages (the API page says so)
        if inspect.ismodule(obj):
            assert obj.__name__ in PUBLIC, f"{name}.{attr} is a module the API page lacks"
            continue
        if _passed_through(module, attr, obj):
            continue  # NumPy's or SciPy's own object, on NumPy's pages (the API page says so)
        if ">>>" not in (inspect.getdoc(obj) or ""):
            lacking.append(attr)
        if attr in excluded and not any(
            getattr(importlib.import_module(other), attr, None) is obj
            for other in PUBLIC
            if other != name and attr not in PUBLIC[other]
        ):
            off_page.append(attr)
    assert not lacking, f"{name}: no docstring example for {lacking}"
    assert not off_page, f"{name}: left off the API page: {off_page}"


def test_numpys_own_names_are_named_on_the_api_page():
    import funcgrad.numpy as fnp

    page = API_PAGE.read_text()
    own = [
        n
        for module in (fnp, fnp.linalg, fnp.fft)
        for n in module.__all__
        if _numpys_own(module, n, getattr(module, n))
    ]
    assert own, "funcgrad.numpy passes some of NumPy's own names through"
    missing = [n for n in own if f"`{n}`" not in page]
    assert not missing, f"docs/api.md does not name NumPy's own {missing}"


def test_internal_helpers_are_not_public_names():
    """The helpers the 0.1 modules showed are gone from their dir() (issue 55's list)."""
    import funcgrad as fg

    for module, helpers in [
        (fg.optim, ["np", "math", "operator", "dataclass", "field", "NamedTuple", "tree_map"]),
        (fg.nn, ["np", "sys", "math", "Box", "Page", "write_pages"]),
    ]:
        assert not set(helpers) & set(dir(module))


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_example_runs_alone_under_plain_doctest(name):
    """A public name's examples import what they use and print what they show, checked as
    ``doctest.run_docstring_examples(f, {})`` checks them: no globals, no option flags
    (issue 57, row 9). pytest's own doctest run gives the module's globals instead."""
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(recurse=True)
    failed = []
    for attr in module.__all__:
        obj = getattr(module, attr)
        if inspect.ismodule(obj) or _passed_through(module, attr, obj):
            continue
        for test in finder.find(obj, f"{name}.{attr}", globs={}):
            report = io.StringIO()
            if doctest.DocTestRunner(optionflags=0).run(test, out=report.write).failed:
                failed.append(report.getvalue())
    assert not failed, "\n".join(failed)[:4000]


def test_fg_scipy_is_loaded_on_first_use_as_jax_scipy_is():
    # JAX's programs write jax.scipy.special.logsumexp after `import jax` alone
    code = (
        "import sys, numpy as np, funcgrad as fg\n"
        "assert 'funcgrad.scipy' not in sys.modules\n"
        "print(float(fg.scipy.special.logsumexp(np.zeros(4))), fg.scipy is sys.modules['funcgrad.scipy'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(float(np.log(4.0))), "True"]
