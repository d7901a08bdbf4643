"""The core does not import the NumPy layer (checked in a fresh interpreter).

``funcgrad/__init__.py`` re-exports everything, so importing ``funcgrad.node``
the ordinary way runs it and loads ``funcgrad.numpy`` whatever the core does.
The probe therefore registers a bare ``funcgrad`` package (its path, without
running its ``__init__``), imports one core module, exercises it, and reports
whether ``funcgrad.numpy`` was ever loaded.
"""

import subprocess
import sys
import textwrap

import pytest

CORE = ["funcgrad.node", "funcgrad.order", "funcgrad.fold", "funcgrad.backprop",
        "funcgrad.semiring"]

PROBE = textwrap.dedent("""
    import importlib, importlib.util, sys, types
    spec = importlib.util.find_spec("funcgrad")       # finds the package, runs nothing
    if {bare}:
        pkg = types.ModuleType("funcgrad")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["funcgrad"] = pkg
    importlib.import_module({module!r})
    at_import = "funcgrad.numpy" in sys.modules
    # Use the core too, so imports deferred into functions are caught.
    from funcgrad.node import var
    from funcgrad.order import toposort
    from funcgrad.backprop import backprop
    from funcgrad.semiring import sum_product, semirings
    x = var(2.0, name="x")
    f = (x * x + 1.0) * x
    assert backprop(f)[x] == 13.0 and len(toposort(f, method="kahn")) == 5
    assert sum_product(f, None, semirings.count)[x] == 3
    repr(f)
    print(at_import, "funcgrad.numpy" in sys.modules)
""")


def probe(module, bare=True):
    res = subprocess.run([sys.executable, "-c", PROBE.format(module=module, bare=bare)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_not_import_funcgrad_numpy(module):
    at_import, after_use = probe(module)
    assert at_import == "False", f"importing {module} loads funcgrad.numpy"
    assert after_use == "False", f"using the core after importing {module} loads funcgrad.numpy"


def test_the_probe_would_notice():
    # Through the package root (which re-exports funcgrad.numpy) the probe sees it.
    assert probe("funcgrad.node", bare=False) == ["True", "True"]
