"""Sphinx configuration of funcgrad's docs site: ``sphinx-build -W -b html docs build/docs``.

The pages are the Markdown files beside this one (read by MyST); the API
reference is generated from the docstrings, whose ``>>>`` examples are the
doctests pytest runs.
"""

import importlib.metadata

project = "funcgrad"
author = "the funcgrad authors"
release = importlib.metadata.version("funcgrad")
extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode", "myst_parser"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3
html_theme = "furo"
html_title = f"funcgrad {release}"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
# Links from a page to files outside docs/ (examples, the README) are fine on GitHub and
# in a checkout; the site lists the examples on its own page instead.
suppress_warnings = ["myst.xref_missing"]
# explorer-seeds.html, the page fg.explore saves, embedded in expressions-and-orderings.md
html_static_path = ["_static"]


def _skip_numpys_own(app, what, name, obj, skip, options):
    """funcgrad.numpy re-exports NumPy's own constants, dtypes and value-free helpers;
    their pages are NumPy's, so the reference lists them without copying them."""
    module = getattr(obj, "__module__", None) or ""
    if what == "module" and isinstance(module, str) and not module.startswith("funcgrad"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_numpys_own)
