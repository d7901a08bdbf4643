"""funcgrad sets glibc to keep a step's freed arrays for the next step (core/heap.py):
without it, an eager step that frees tens of MiB takes a page fault on every 4 KiB it
touches again in the next step."""

import os
import subprocess
import sys

import pytest

from funcgrad.core import heap

STEPS = r"""
import resource, sys
import numpy as np
import funcgrad as fg
def step():
    arrays = [np.ones(1 << 17) for _ in range(40)]     # 40 arrays of 1 MiB, then freed
    return sum(float(a[0]) for a in arrays)
for _ in range(5):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 20,
      fg.config.funcgrad_keep_freed_memory)
"""


def _faults_per_step(**env):
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("MALLOC_") and k != "FUNCGRAD_KEEP_FREED_MEMORY"
    }
    out = subprocess.run(
        [sys.executable, "-c", STEPS],
        env={**clean, **env},
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return int(out[0]), out[1] == "True"


def test_freed_arrays_are_reused_without_page_faults():
    if heap._glibc() is None or getattr(heap._glibc(), "mallopt", None) is None:
        pytest.skip("only glibc has these thresholds; elsewhere funcgrad leaves malloc alone")
    kept, on = _faults_per_step()
    plain, off = _faults_per_step(FUNCGRAD_KEEP_FREED_MEMORY="0")
    assert on and not off
    assert kept < 100, kept  # the memory stays in the process
    assert plain > 5000, plain  # glibc's defaults: 40 MiB faulted in again


def test_the_environment_can_say_no():
    assert heap.keep_freed_memory_unless_told_not_to({"FUNCGRAD_KEEP_FREED_MEMORY": "0"}) is False
    assert heap.keep_freed_memory_unless_told_not_to({"MALLOC_TOP_PAD_": "0"}) is False


def test_the_config_flag_switches_it():
    import funcgrad as fg

    was = fg.config.funcgrad_keep_freed_memory
    try:
        fg.config.update("funcgrad_keep_freed_memory", False)
        assert fg.config.funcgrad_keep_freed_memory is False
        fg.config.update("funcgrad_keep_freed_memory", True)
        assert fg.config.funcgrad_keep_freed_memory is (heap._glibc() is not None)
    finally:
        fg.config.update("funcgrad_keep_freed_memory", was)


def test_small_pages_turns_numpys_request_off_and_puts_it_back_nested_and_threaded():
    """jit compiles inside small_pages: NumPy's huge-page request is off there, and the
    setting found before is back once the last block ends, however blocks overlap."""
    import threading

    import numpy as np

    multiarray = getattr(np, "_core", np).multiarray
    if not hasattr(multiarray, "_get_madvise_hugepage"):
        pytest.skip("this NumPy has no huge-page switch")
    for before in (True, False):
        multiarray._set_madvise_hugepage(before)
        try:
            with heap.small_pages():
                assert multiarray._get_madvise_hugepage() is False
                with heap.small_pages():
                    assert multiarray._get_madvise_hugepage() is False
                assert multiarray._get_madvise_hugepage() is False
            assert multiarray._get_madvise_hugepage() is before
            inside, go = threading.Event(), threading.Event()

            def other():
                with heap.small_pages():
                    inside.set()
                    go.wait(5)

            t = threading.Thread(target=other)
            with heap.small_pages():
                t.start()
                inside.wait(5)
            assert multiarray._get_madvise_hugepage() is False  # the thread is still inside
            go.set()
            t.join()
            assert multiarray._get_madvise_hugepage() is before
        finally:
            multiarray._set_madvise_hugepage(True)


def test_a_jitted_call_leaves_numpys_huge_page_request_as_it_was():
    import numpy as np

    import funcgrad as fg
    import funcgrad.numpy as fnp

    multiarray = getattr(np, "_core", np).multiarray
    if not hasattr(multiarray, "_get_madvise_hugepage"):
        pytest.skip("this NumPy has no huge-page switch")
    before = multiarray._get_madvise_hugepage()
    f = fg.jit(fg.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2)))
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_array_equal(f(x), fg.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2))(x))
    assert multiarray._get_madvise_hugepage() is before
