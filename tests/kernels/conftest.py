"""The fixture the kernels' tests share."""

import pytest

import funcgrad as fg
from funcgrad.kernels import switch as kernel_switch


@pytest.fixture
def switch():
    """``switch(on)`` turns numba's kernels on or off for the test; they are restored after."""
    was = kernel_switch.SWITCH["on"]
    yield lambda on: fg.config.update("funcgrad_numba_kernels", on)
    kernel_switch.SWITCH["on"] = was
