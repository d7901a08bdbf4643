"""Pausing Python's cyclic garbage collector while a fold runs.

A funcgrad graph holds no reference cycles (a node points only at older
nodes), so reference counting frees it. During a fold over a large graph the
cyclic collector would only traverse the whole graph again and again while the
fold allocates, freeing nothing (a fold of 10^5 nodes runs 1.6-2.3x slower:
benchmarks/gc_pause.py). Walks of a graph and folds of large ones (more than
``funcgrad.dag.fold.PAUSE_ABOVE`` nodes) therefore pause it, and the last one to
finish restores it; pauses nest and are safe across threads. The pause holds for the whole process, so small folds, which
gain nothing from it, leave the collector on for the other threads.
"""

import gc
import threading

__all__ = ["gc_paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


class _Pause:
    """The context manager ``gc_paused()`` returns (a class: cheaper to enter than a
    generator, which matters for the many small folds of a training loop)."""

    __slots__ = ()

    def __enter__(self):
        global _depth, _was_enabled
        with _lock:
            if _depth == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _depth += 1

    def __exit__(self, *exc):
        global _depth
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


_PAUSE = _Pause()


def gc_paused():
    """A context manager pausing the cyclic collector; pauses nest."""
    return _PAUSE
