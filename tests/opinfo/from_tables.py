"""The records of the namespace tables: each row of tests/opinfo's tables as an OpInfo.

A row is written once, in the table of its namespace (its domains, shapes, PyTorch twin);
here it becomes the record the conformance matrix runs: funcgrad's function, samples drawn
inside its domains, NumPy's or SciPy's function as its reference.
"""

import numpy as np
import scipy.linalg
import scipy.stats

import funcgrad.numpy as fnp
import funcgrad.scipy.linalg as fsl
import funcgrad.scipy.stats as fss

from . import (
    numpy_breadth,
    numpy_fft,
    numpy_linalg,
    numpy_math,
    numpy_reductions,
    numpy_shape,
    scipy_linalg,
    scipy_stats,
)
from .record import OPS, register, rng_for


def _math_rows():
    """Elementwise math: a vector sample and a broadcasting one, inside each domain."""
    for name, row in numpy_math.TABLE.items():
        fun = (lambda row: lambda *xs: row.call(fnp, *xs))(row) if row.call else getattr(fnp, name)
        samples = []
        for shapes in (
            [(3,)] * len(row.domains),
            [(2, 3)] + [(3,)] * (len(row.domains) - 1),
            [(2, 1)] + [()] * (len(row.domains) - 1),
        ):
            rng = rng_for(name, len(samples))
            for _ in range(100):
                args = [d(rng, int(np.prod(s))).reshape(s) for d, s in zip(row.domains, shapes)]
                if row.valid is None or row.valid(*args):
                    samples.append(args)
                    break
        register(
            f"numpy.{name}",
            fun,
            *samples,
            torch=row.torch,
            reference=(lambda name: lambda *xs: numpy_math.call(name, np, *xs))(name),
            domains=row.domains,
            group="numpy_math",
        )


def _reduction_rows():
    for name, row in numpy_reductions.ROWS.items():
        samples = []
        for k, shapes in enumerate(row.shapes):
            rng = rng_for(name, k)
            domains = list(row.domains) + [row.domains[-1]] * (len(shapes) - len(row.domains))
            samples.append([d(rng, s) for d, s in zip(domains, shapes)])
        prefix = "scipy.special" if row.scipy else "numpy"
        register(
            f"{prefix}.{name}",
            (lambda row: lambda *xs: row.call(fnp, *xs))(row),
            *samples,
            torch=row.torch,
            reference=(lambda row: lambda *xs: row.call(np, *xs))(row),
            domains=row.domains,
            group="numpy_reductions",
        )
        if row.scipy:
            OPS[-1].tolerances["reference"] = (1e-9, 1e-12, "SciPy's values, to rounding")


def _shape_rows():
    for name, case in numpy_shape.CASES.items():
        samples = [numpy_shape._args(s, k) for k, s in enumerate(case.shapes)]
        register(
            f"numpy.{name}",
            (lambda case: lambda *xs: case.fun(fnp, *xs))(case),
            *samples,
            torch=case.torch,
            reference=(lambda case: lambda *xs: numpy_shape._numpy(case, xs))(case),
            group="numpy_shape",
        )


def _linalg_rows():
    for name, cases in numpy_linalg.CASES.items():
        for k, c in enumerate(cases[:2]):
            register(
                f"numpy.{name}:{c.label or k}", c.f, c.args, reference=c.ref, group="numpy_linalg"
            )


def _breadth_rows():
    shape_from_values = numpy_breadth.SHAPE_FROM_VALUES
    for name, row in numpy_breadth.ROWS.items():
        skip = {}
        if any(np.isnan(a).any() for a in row.args):
            skip["grad"] = (
                "NaN entries, which central differences cannot step: "
                "tests/numpy/test_numpy_breadth.py checks the finite part's derivatives"
            )
        if not row.grad:
            skip["grad"] = "no derivative (integer-valued or piecewise constant in every input)"
        if name in shape_from_values or name.split(":")[0] in shape_from_values - {"vectorize"}:
            skip["jit"] = skip["vmap"] = (
                "refused: the result's shape (or a Python branch) "
                "depends on the values (ConcretizationError)"
            )
        if name.split(":")[0] in numpy_breadth.NO_DIFFERENCES:
            skip["grad"] = (
                "a step of central differences changes which entries are kept, and "
                "so the result's shape; tests/numpy/test_numpy_breadth.py checks the kept "
                "entries' gradients"
            )
        register(
            f"numpy.{name}",
            (lambda row: lambda *xs: row.call(fnp, *xs))(row),
            row.args,
            torch=row.torch,
            reference=(lambda row: lambda *xs: row.call(np, *xs))(row),
            group="numpy_breadth",
            **skip,
        )
        if not row.exact:
            OPS[-1].tolerances["reference"] = (1e-13, 1e-14, "NumPy's values, to rounding")


def _fft_rows():
    for name, case in numpy_fft.CASES.items():
        x = rng_for(name).normal(size=case.shape)
        twin = None if case.torch is None else (lambda case: lambda torch, x: case.torch(x))(case)
        register(
            f"numpy.fft.{name}",
            (lambda case: lambda x: case.fun(fnp, x))(case),
            (x,),
            torch=twin,
            reference=(lambda case: lambda x: case.fun(np, x))(case),
            group="numpy_fft",
        )


def _scipy_rows():
    for name, (call, args, exact) in scipy_linalg.CASES.items():
        register(
            f"scipy.linalg.{name}",
            (lambda call: lambda *xs: call(fsl, *xs))(call),
            args,
            reference=(lambda call: lambda *xs: call(scipy.linalg, *xs))(call),
            group="scipy_linalg",
        )
        if not exact:
            OPS[-1].tolerances["reference"] = (1e-12, 1e-13, "SciPy's values, to rounding")
    for dist, fn, args, diff in scipy_stats.CASES:
        f = getattr(getattr(fss, dist), fn)
        args = [np.asarray(a, dtype=float) for a in args]
        # the differentiated arguments are the op's; the others (counts, shapes) constants
        reference = getattr(getattr(scipy.stats, dist), fn)
        register(
            f"scipy.stats.{dist}.{fn}",
            _with_constants(f, args, diff),
            [args[i] for i in diff],
            reference=_with_constants(reference, args, diff),
            group="scipy_stats",
        )
        OPS[-1].tolerances["reference"] = (1e-10, 1e-12, "SciPy's values, to rounding")


def _with_constants(f, args, diff):
    def call(*xs):
        full = list(args)
        for i, x in zip(diff, xs):
            full[i] = x
        return f(*full)

    return call


_math_rows()
_reduction_rows()
_shape_rows()
_linalg_rows()
_breadth_rows()
_fft_rows()
_scipy_rows()
