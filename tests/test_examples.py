"""Every script in examples/ runs as a subprocess, at a small size, and exits 0.

A new script is picked up automatically; SMALL gives the arguments that keep
it quick (scripts not listed run with none).
"""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
SMALL = {
    "worked_examples.py": ["gates", "chain"],
    "path_semirings.py": ["--layers", "3", "--width", "2"],
}
EXPECT = {
    "worked_examples.py": "backward order (reversed):   L, c, d, b, a",
    "path_semirings.py": "paths s -> t: 8 = 2^3",
}
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))


def test_there_are_examples():
    assert {"worked_examples.py", "path_semirings.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs(name):
    done = subprocess.run([sys.executable, str(EXAMPLES / name)] + SMALL.get(name, []),
                          capture_output=True, text=True, timeout=300, cwd=EXAMPLES)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if name in EXPECT:
        assert EXPECT[name] in done.stdout


def test_path_example_default_is_the_notes_729_paths():
    done = subprocess.run([sys.executable, str(EXAMPLES / "path_semirings.py")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "paths s -> t: 729 = 3^6" in done.stdout
    assert "they agree" in done.stdout


def test_bad_sizes_are_refused_with_status_2():
    done = subprocess.run([sys.executable, str(EXAMPLES / "path_semirings.py"), "--layers", "0"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "at least 1" in done.stderr
