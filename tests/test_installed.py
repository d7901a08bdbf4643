"""CI runs the suite a second time against the built wheel installed alone in a fresh
venv (``FUNCGRAD_TEST_INSTALLED=1``, .ci/run): there funcgrad must come from that
venv's site-packages, not from this checkout's ``src``, or the run tests nothing new."""

import importlib.metadata
import os
import pathlib
import re

import funcgrad

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"


def test_the_package_under_test_is_the_one_ci_means():
    here = pathlib.Path(funcgrad.__file__).resolve()
    if os.environ.get("FUNCGRAD_TEST_INSTALLED") == "1":
        assert SRC not in here.parents, f"the wheel's run imported {here}"
        assert "site-packages" in here.parts
        assert (here.parent / "py.typed").exists()
        assert (here.parent / "io" / "page" / "explorer.js").exists()
    else:
        assert here.exists()


def test_the_version_is_one_number_everywhere():
    """``funcgrad.__version__``, the installed metadata (from pyproject.toml) and the
    newest release CHANGELOG.md dates all name the same version."""
    assert funcgrad.__version__ == importlib.metadata.version("funcgrad")
    changelog = (SRC.parent / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert releases and releases[0] == funcgrad.__version__
