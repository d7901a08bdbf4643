"""Shared test setup.

The tests mirror the package's folders (tests/dag for funcgrad/dag, ...); the
helpers they share (helpers.py, strategies.py, registry.py, fuzz_files.py) sit
here, and some tables of one folder feed the conformance matrix, so every
test folder is importable by module name. Tests marked ``slow`` run only with
``-m slow`` (CI runs them after the README's test command).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for entry in sorted(os.scandir(HERE), key=lambda e: e.name, reverse=True):
    if entry.is_dir() and not entry.name.startswith((".", "_", "data")):
        sys.path.insert(0, entry.path)
sys.path.insert(0, HERE)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a long run (large graphs, many files); CI runs these with -m slow"
    )
