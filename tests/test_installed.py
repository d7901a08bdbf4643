"""CI runs the suite a second time against the built wheel installed alone in a fresh
venv (``FUNCGRAD_TEST_INSTALLED=1``, .ci/run): there funcgrad must come from that
venv's site-packages, not from this checkout's ``src``, or the run tests nothing new."""

import os
import pathlib

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
