"""jit's native backend: a plan's block functions compiled to machine code by numba.

``fg.jit(f, backend="numba")`` builds the same plan as the Python backend,
always cut into blocks (:mod:`funcgrad.plans`), with code numba can type:
NumPy's ufuncs called directly, ``out=`` passed by position, no ``del``.
Each distinct block is compiled by ``numba.njit`` at its first call, for the
types it is called with. A block numba cannot compile (a primitive whose
implementation is Python code: a gather, a sort, a call with parameters)
stays Python, so a plan always runs, natively where it can. The driver that
calls the blocks is Python.

Results agree with the Python backend to rounding, not bit for bit: numba
calls the C library's ``tanh``, ``exp`` and the rest where NumPy has its own
implementations, and may fuse a multiply and an add. Division follows NumPy
(``error_model="numpy"``): ``1.0 / 0.0`` is ``inf``, never an exception.

numba is an extra (``pip install "funcgrad[native]"``); this module is loaded
only when a plan asks for it.
"""

import warnings

import numba

__all__ = ["compile_blocks", "native_blocks"]


def compile_blocks(namespace, names):
    """Make each function ``names`` names in ``namespace`` compile itself natively at its
    first call, falling back to its Python code for good if numba cannot compile it."""
    for name in names:
        namespace[name] = _first_call(namespace, name, namespace[name])


def _first_call(namespace, name, python):
    compiled = numba.njit(error_model="numpy")(python)

    def first_call(*args):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                out = compiled(*args)
        except Exception:     # numba's typing and lowering errors are of many classes
            namespace[name] = python
            return python(*args)
        namespace[name] = compiled      # the driver's next call goes straight to it
        return out

    return first_call


def native_blocks(namespace, names):
    """The names among ``names`` whose functions now run compiled code."""
    return [n for n in names if isinstance(namespace[n], numba.core.registry.CPUDispatcher)]
