"""Every script in examples/ runs as a subprocess, at a small size, and exits 0.

A new script is picked up automatically; SMALL gives the arguments that keep
it quick (scripts not listed run with none). Scripts listed in PNG take
``--out DIR`` and must write a real PNG there.
"""

import itertools
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SMALL = {
    "worked_examples.py": ["gates", "chain"],
    "path_semirings.py": ["--layers", "3", "--width", "2"],
    "two_moons.py": ["--points", "30", "--steps", "5", "--hidden", "4"],
    "digits_mlp.py": ["--limit", "120", "--epochs", "2", "--hidden", "8", "--batch", "32"],
    "digits_cnn.py": ["--limit", "120", "--epochs", "2", "--width", "4", "--batch", "32"],
    "newton.py": ["--dim", "2"],
    "custom_primitive.py": ["--points", "20"],
    "rnn_scan.py": ["--length", "60", "--steps", "5", "--hidden", "4"],
    "sparsity.py": ["--grid", "8", "--length", "12"],
    "dask_logistic.py": ["--rows", "40_000", "--chunk", "10_000", "--steps", "4", "--workers", "1"],
}
EXPECT = {
    "worked_examples.py": "backward order (reversed):   L, c, d, b, a",
    "path_semirings.py": "paths s -> t: 8 = 2^3",
    "two_moons.py": "training accuracy",
    "digits_mlp.py": "final test accuracy",
    "digits_cnn.py": "final test accuracy",
    "newton.py": "converged to [1.0, 1.0]",
    "custom_primitive.py": "check_grads: reverse and forward rules agree",
    "rnn_scan.py": "next-value error on 60 unseen steps",
    "sparsity.py": "largest difference from the dense hessian",
    "dask_logistic.py": "rows per second",
}
PNG = {
    "two_moons.py": "two_moons.png",
    "digits_mlp.py": "digits_curves.png",
    "digits_cnn.py": "digits_cnn.png",
    "newton.py": "newton.png",
    "custom_primitive.py": "softplus.png",
    "rnn_scan.py": "rnn_scan.png",
    "sparsity.py": "sparsity.png",
}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))


def run(name, *args, cwd=EXAMPLES):
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def assert_png(path):
    assert path.is_file(), f"{path.name} was not written"
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path.name} is not a PNG"
    assert len(data) > 5000, f"{path.name} is only {len(data)} bytes"


def test_there_are_examples():
    assert {"worked_examples.py", "path_semirings.py", *PNG} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs(name, tmp_path):
    out = tmp_path / "out"
    args = SMALL.get(name, []) + (["--out", str(out)] if name in PNG else [])
    done = run(name, *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if name in EXPECT:
        assert EXPECT[name] in done.stdout
    if name in PNG:
        assert_png(out / PNG[name])


def test_plots_go_to_out_by_default(tmp_path):
    done = run("two_moons.py", *SMALL["two_moons.py"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert_png(tmp_path / "out" / "two_moons.png")


@pytest.mark.parametrize(
    "name,args",
    [
        ("two_moons.py", ["--points", "1"]),
        ("digits_mlp.py", ["--epochs", "0"]),
        ("newton.py", ["--dim", "1"]),
        ("custom_primitive.py", ["--points", "1"]),
    ],
)
def test_new_examples_refuse_bad_sizes_with_status_2(name, args, tmp_path):
    done = run(name, *args, "--out", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr


def _full_run(name, tmp_path, reported):
    """Run example ``name`` at full size: its output and the accuracy it reports after
    ``reported`` (a percentage)."""
    done = run(name, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    return done.stdout, float(re.search(reported + r" ([0-9.]+)%", done.stdout).group(1))


@pytest.mark.slow
def test_two_moons_at_full_size_separates_the_training_set(tmp_path):
    out, accuracy = _full_run("two_moons.py", tmp_path, "training accuracy")
    assert accuracy >= 97.0, out


@pytest.mark.slow
def test_digits_at_full_size_reaches_95_percent_on_the_test_set(tmp_path):
    out, accuracy = _full_run("digits_mlp.py", tmp_path, "final test accuracy")
    assert accuracy >= 95.0, out[-500:]
    assert "compiled plans: 1)" in out  # one batch shape: traced once, replayed


@pytest.mark.slow
def test_the_cnn_at_full_size_reaches_97_percent_on_the_test_set(tmp_path):
    out, accuracy = _full_run("digits_cnn.py", tmp_path, "final test accuracy")
    assert accuracy >= 97.0, out[-500:]


def test_newton_converges_quadratically(tmp_path):
    done = run("newton.py", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    errors = [float(m) for m in re.findall(r"^\s*\d+\s+\S+\s+\S+\s+(\S+)", done.stdout, re.M)]
    small = [e for e in errors if 0 < e < 0.1]
    assert len(small) >= 2 and small[-1] < 1e-8
    assert all(b <= 10 * a * a for a, b in itertools.pairwise(small))  # e_(k+1) <~ C e_k^2


def test_path_example_default_is_the_notes_729_paths():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "path_semirings.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "paths s -> t: 729 = 3^6" in done.stdout
    assert "they agree" in done.stdout


def test_bad_sizes_are_refused_with_status_2():
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "path_semirings.py"), "--layers", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "at least 1" in done.stderr


# A script that hides one module from the example it runs, as on a machine without the extra.
_WITHOUT = """
import importlib.abc, runpy, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == {hidden!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Hide())
sys.argv = [{script!r}] + {args!r}
runpy.run_path({script!r}, run_name="__main__")
"""


@pytest.mark.parametrize("name", sorted(PNG))
def test_each_example_names_its_extra_up_front(name, tmp_path):
    text = (EXAMPLES / name).read_text()
    assert 'pip install -e ".[examples]"' in text.split('"""')[1]  # in its docstring
    script = _WITHOUT.format(
        hidden="matplotlib",
        script=str(EXAMPLES / name),
        args=SMALL.get(name, []) + ["--out", str(tmp_path)],
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert 'needs matplotlib, from the examples extra: pip install -e ".[examples]"' in done.stderr
    assert done.stdout == ""  # said before any work, not after training


def test_progress_bars_stay_out_of_redirected_output(tmp_path):
    done = run("digits_mlp.py", *SMALL["digits_mlp.py"], "--out", str(tmp_path))
    assert done.returncode == 0 and "\r" not in done.stdout + done.stderr
    assert done.stdout.count("epoch ") == 2


@pytest.mark.slow
def test_dask_example_learns_and_names_its_extras_up_front():
    done = run("dask_logistic.py", *SMALL["dask_logistic.py"])
    assert done.returncode == 0, done.stderr
    losses = re.search(r"loss ([0-9.]+) -> ([0-9.]+)", done.stdout)
    assert float(losses.group(2)) < float(losses.group(1)) - 0.05, done.stdout
    script = _WITHOUT.format(
        hidden="distributed",
        script=str(EXAMPLES / "dask_logistic.py"),
        args=SMALL["dask_logistic.py"],
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and done.stdout == ""
    assert "needs distributed, from the dask and examples extras" in done.stderr
