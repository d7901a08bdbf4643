"""The ``funcgrad`` command (:mod:`.commands`) and the examples it demonstrates (:mod:`.demo`)."""

from .commands import main

__all__ = ["main"]


def __dir__():  # what tab completion offers: the public names
    return list(__all__)
