"""Shared test setup.

The tests mirror the package's folders (tests/dag for funcgrad/dag, ...); the
helpers they share (helpers.py, strategies.py, registry.py, fuzz_files.py) sit
here, and some tables of one folder feed the conformance matrix, so every
test folder is importable by module name. Tests marked ``slow`` run only with
``-m slow`` (CI runs them after the README's test command).
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
for entry in sorted(os.scandir(HERE), key=lambda e: e.name, reverse=True):
    if entry.is_dir() and not entry.name.startswith((".", "_", "data")):
        sys.path.insert(0, entry.path)
sys.path.insert(0, HERE)

from helpers import torch  # noqa: E402 (helpers is importable once HERE is on the path)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a long run (large graphs, many files); CI runs these with -m slow"
    )


@pytest.fixture
def torch_refuses_numpy(monkeypatch):
    """A PyTorch CPU tensor converts to NumPy quietly through ``__array__`` (a CUDA one
    refuses): here it refuses, so a conversion funcgrad makes fails on the CPU too. Test
    modules of other libraries' arrays ask for it with ``pytestmark``."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("a torch tensor was converted to a NumPy array")

    if torch is not None:
        monkeypatch.setattr(torch.Tensor, "__array__", refuse)
