"""The names modules had before funcgrad 0.2 put them in packages, still importable.

Pickles written before name ``funcgrad.serialize``'s loaders (and primitives
by their module, ``funcgrad.scanloop`` for one); code written before imports
``funcgrad.node``. A finder on ``sys.meta_path`` answers each old name with
the module under its new name, imported on first use, so both keep working,
except the five old names that are now the package's functions (``show``,
``explain``, ``backprop``, ``primitive``, ``remat``): a pickle's primitives are
looked up through :func:`current_name`, which maps those too.

>>> import importlib
>>> importlib.import_module("funcgrad.serialize").__name__
'funcgrad.io.serialize'
>>> current_name("funcgrad.scanloop")
'funcgrad.control.scan_primitive'
"""

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "RENAMED", "current_name", "install"]

MOVED = {   # old module under funcgrad -> where it lives now
    "errors": "core.errors", "traces": "core.traces", "namespaces": "core.namespaces",
    "values": "core.values", "tree": "core.tree", "tree_paths": "core.tree_paths",
    "_gc": "core.collector", "primitive": "core.primitive", "pages": "core.pages",
    "arraylike": "dag.arraylike", "node": "dag.node", "nodemap": "dag.nodemap",
    "order": "dag.order", "fold": "dag.fold", "backprop": "dag.backprop",
    "semiring": "dag.semiring", "finite": "dag.finite",
    "reverse": "transforms.reverse", "forward": "transforms.forward",
    "batching": "transforms.batching", "jacobians": "transforms.jacobians",
    "ravel": "transforms.ravel",
    "staging": "jit.staging", "plans": "jit.plans", "steptable": "jit.steptable",
    "machine": "jit.machine", "native": "jit.native",
    "body": "control.body", "scanloop": "control.scan_primitive",
    "whileloop": "control.while_primitive", "remat": "control.checkpoint",
    "loops": "control.loops", "branches": "control.branches", "custom": "control.custom_rules",
    "linear": "control.linear_maps", "implicit": "control.fixed_points",
    "explain": "analysis.explain", "sparsity": "analysis.sparsity",
    "coloring": "analysis.coloring", "paths": "analysis.paths", "check": "analysis.check",
    "sparse": "analysis.sparse",
    "show": "io.show", "serialize": "io.serialize", "tablefile": "io.files",
    "expr": "io.expr", "demo": "cli.demo",
}


RENAMED = {   # modules renamed inside a package
    "funcgrad.rules.shape": "funcgrad.rules.sorting",
    "funcgrad.io.tablefile": "funcgrad.io.files",
    "funcgrad.io.tablecolumns": "funcgrad.io.file_columns",
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


# Old module names that are now functions of the package (fg.show, fg.backprop, ...):
# importing the module under that name would put it in place of the function.
_SHADOWED = {"primitive", "backprop", "remat", "explain", "show"}


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name and loads it as the module under the new one."""

    def find_spec(self, fullname, path, target=None):
        if (current_name(fullname) == fullname
                or fullname.split(".")[1] in _SHADOWED):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module(current_name(spec.name))

    def exec_module(self, module):
        """Nothing to run: the module was imported under its new name."""


def install():
    """Puts the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
