"""Shared test setup.

The tests mirror the package's folders (tests/dag for funcgrad/dag, ...; every package
of funcgrad has its folder, tests/test_architecture.py checks it) and are one package,
``tests``: the helpers they share (helpers.py, strategies.py, fuzz_files.py) and the registry of test data (opinfo/)
and the tables one folder lends the conformance matrix are imported by their full names
(``from tests.helpers import central``), with no change to ``sys.path``. Tests marked
``slow`` run only with ``-m slow`` (CI runs them after the README's test command).
"""

import pytest

from tests.helpers import torch


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
