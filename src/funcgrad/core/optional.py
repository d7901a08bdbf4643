"""funcgrad's modules that import an optional dependency, loaded where they are first used.

The base install (NumPy, pyrsistent, toolz) runs every transform; a few modules speed it up
or reach further with a library it lacks: numba's kernels, jit's machine code (both need
numba, the ``native`` extra), and SciPy's functions for :mod:`funcgrad.lax`. Each is loaded
by name through :func:`load`, the one place funcgrad imports its own modules by name, so
that importing funcgrad never imports them (tests/test_layering.py counts these calls as
imports, and allows three).

>>> load("funcgrad.kernels.switch", "nothing", "test").__name__
'funcgrad.kernels.switch'
"""

import importlib

__all__ = ["load"]


def load(module, needs, extra):
    """funcgrad's ``module``, which imports ``needs`` (installed by funcgrad's ``extra``):
    imported on first use; an ImportError that names the extra where ``needs`` is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f'{module} needs {needs}: pip install "funcgrad[{extra}]" ({e})') from e
