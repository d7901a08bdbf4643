"""The names modules had before funcgrad 0.2 put them in packages, still importable.

Pickles written before name ``funcgrad.serialize``'s loaders (and primitives
by their module, ``funcgrad.scanloop`` for one); code written before imports
``funcgrad.node``. A finder on ``sys.meta_path`` answers each old name with
the module under its new name, imported on first use, so both keep working,
except the five old names that are now the package's functions (``show``,
``explain``, ``backprop``, ``primitive``, ``remat``): a pickle's primitives are
looked up through :func:`current_name`, which maps those too.

Code that imports an old name gets a DeprecationWarning at its import line naming
the new one (the old names go in 0.3: docs/api.md, "Deprecations"); loading an old
pickle or file does not warn, as its reader cannot change what it names.

>>> import importlib, warnings
>>> _ = sys.modules.pop("funcgrad.serialize", None)      # as if imported for the first time
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     importlib.import_module("funcgrad.serialize").__name__
'funcgrad.io.serialize'
>>> print(seen[0].message)
funcgrad.serialize moved to funcgrad.io.serialize in funcgrad 0.2; import funcgrad.io.serialize (the old name goes in 0.3)
>>> current_name("funcgrad.scanloop")
'funcgrad.control.scan_primitive'
"""

import dis
import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "RENAMED", "current_name", "install", "moved_attribute"]

MOVED = {  # old module under funcgrad -> where it lives now
    "traces": "core.traces",
    "namespaces": "core.namespaces",
    "values": "core.values",
    "tree": "core.tree",
    "tree_paths": "core.tree_paths",
    "_gc": "core.collector",
    "primitive": "core.primitive",
    "pages": "core.pages",
    "arraylike": "dag.arraylike",
    "node": "dag.node",
    "nodemap": "dag.nodemap",
    "order": "dag.order",
    "fold": "dag.fold",
    "backprop": "dag.backprop",
    "semiring": "dag.semiring",
    "finite": "dag.finite",
    "reverse": "transforms.reverse",
    "forward": "transforms.forward",
    "batching": "transforms.batching",
    "jacobians": "transforms.jacobians",
    "ravel": "transforms.ravel",
    "staging": "jit.staging",
    "plans": "jit.plans",
    "steptable": "jit.steptable",
    "machine": "jit.backends.numba.machine",
    "native": "jit.backends.numba.native",
    "body": "control.body",
    "scanloop": "control.scan_primitive",
    "whileloop": "control.while_primitive",
    "remat": "control.checkpoint",
    "loops": "control.loops",
    "branches": "control.branches",
    "custom": "control.custom_rules",
    "linear": "control.linear_maps",
    "implicit": "control.fixed_points",
    "explain": "analysis.explain",
    "sparsity": "analysis.sparsity",
    "coloring": "analysis.coloring",
    "paths": "analysis.paths",
    "check": "analysis.check",
    "sparse": "analysis.sparse",
    "show": "io.show",
    "serialize": "io.serialize",
    "tablefile": "io.files",
    "expr": "io.expr",
    "demo": "cli.demo",
}


RENAMED = {  # modules renamed inside a package
    "funcgrad.rules.shape": "funcgrad.rules.sorting",
    "funcgrad.io.tablefile": "funcgrad.io.files",
    "funcgrad.io.tablecolumns": "funcgrad.io.file_columns",
    "funcgrad.rules.native_kernels": "funcgrad.kernels.numba_kernels",
    "funcgrad.rules.native_switch": "funcgrad.kernels.switch",
}


def current_name(modname):
    """The module's name today: ``funcgrad.node`` -> ``funcgrad.dag.node``; others as given."""
    if modname in RENAMED:
        return RENAMED[modname]
    head, dot, rest = modname.partition(".")
    if head != "funcgrad" or not rest:
        return modname
    first, dot, tail = rest.partition(".")
    moved = MOVED.get(first)
    return f"funcgrad.{moved}{dot}{tail}" if moved else modname


def moved_attribute(name):
    """``fg.serialize`` and the other old module names read as attributes of the package:
    the module under its new name, with the DeprecationWarning an import of the old name
    gives, at the line that reads it; None for a name that never was a module."""
    new = MOVED.get(name)
    if new is None or name in _SHADOWED:
        return None
    warnings.warn(
        f"funcgrad.{name} moved to funcgrad.{new} in funcgrad 0.2; import funcgrad.{new} "
        f"(the old name goes in 0.3)",
        DeprecationWarning,
        stacklevel=3,
    )
    return importlib.import_module(f"funcgrad.{new}")


# Old module names that are now functions of the package (fg.show, fg.backprop, ...):
# importing the module under that name would put it in place of the function.
_SHADOWED = {"primitive", "backprop", "remat", "explain", "show"}


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name and loads it as the module under the new one."""

    def find_spec(self, fullname, path, target=None):
        if current_name(fullname) == fullname or fullname.split(".")[1] in _SHADOWED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(current_name(spec.name))
        _warn_code_that_imports(spec.name, module.__name__)
        return module

    def exec_module(self, module):
        """Nothing to run: the module was imported under its new name."""


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _warn_code_that_imports(old, new):
    """A DeprecationWarning at the line of code that imports ``old`` (an import statement or
    importlib.import_module); none where a pickle's reader asked for it."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        frame = frame.f_back
    if frame is None:
        return
    if frame.f_code is importlib.import_module.__code__:
        frame = frame.f_back  # the call of import_module is the code's
    elif frame.f_code.co_code[frame.f_lasti] != _IMPORT_NAME:
        return  # not an import statement: pickle's find_class, say
    if frame is None:
        return
    warnings.warn_explicit(
        f"{old} moved to {new} in funcgrad 0.2; import {new} (the old name goes in 0.3)",
        DeprecationWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=frame.f_globals.get("__name__", "<unknown>"),
        registry=frame.f_globals.setdefault("__warningregistry__", {}),
    )


def install():
    """Puts the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
