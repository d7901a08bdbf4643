"""Timing in turns: the calls of one comparison take turns round by round, so that a
machine's drift during the run moves them all alike."""

import os
import statistics
import time


def one_thread():
    """One thread for every library's pool (BLAS, OpenMP, numba); call it before they load."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = "1"


def interleaved(calls, repeats, number=1):
    """Median milliseconds of each of ``calls`` (``{name: call}``), after one warm-up call
    each, over ``repeats`` rounds in which each call runs ``number`` times in a row."""
    for call in calls.values():
        call()
    times = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            for _ in range(number):
                call()
            times[name].append((time.perf_counter() - start) / number)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}
