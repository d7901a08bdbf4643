"""The ``funcgrad`` command (:mod:`.commands`) and the examples it demonstrates (:mod:`.demo`)."""

from .commands import main

__all__ = ["main"]
