"""The numba backend: the Python plan, with what numba can type compiled to machine code.

A plan of Python floats, or of small arrays of one shape, becomes a program for one
register machine numba compiles once (:mod:`funcgrad.jit.backends.numba.machine`); in any other plan,
each chain of elementwise steps on arrays is one loop over their elements
(:mod:`funcgrad.jit.backends.numba.fusion`), blocks of typable steps and the bodies of loops are
compiled to machine code, and a few primitives call numba's kernels
(:mod:`funcgrad.kernels`). :mod:`funcgrad.jit.backends.numba.native`, which imports numba, is loaded on
the first plan.
"""

from ....core import optional
from ..python import PythonBackend

__all__ = ["NumbaBackend"]


class NumbaBackend(PythonBackend):
    name = "numba"
    about = "native code for the blocks numba can compile"
    needs = "numba"
    extra = "native"

    def machine_code(self):
        return optional.load("funcgrad.jit.backends.numba.native", "numba", "native")
