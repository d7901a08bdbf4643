"""The funcgrad command: demo output, grad against hand-computed values, and every error.

Most tests call ``cli.main(argv)`` in-process (fast, output captured by
capsys); a few run the installed entry points as subprocesses to check the
real exit status and that no traceback ever reaches the user.
"""

import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from funcgrad.cli import commands as cli
from funcgrad.io.expr import FUNCTIONS, build, parse


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def partials(out):
    """{'x': value, ...} from the 'df/dx = value' lines."""
    return {m[1]: float(m[2]) for m in re.finditer(r"^df/d(\w+) = (\S+)$", out, re.M)}


def value(out):
    return float(re.search(r"^value  (\S+)$", out, re.M)[1])


# ---------------------------------------------------------------- demo


def test_demo_prints_every_worked_example_with_known_values(capsys):
    code, out, err = run(capsys, "demo")
    assert code == 0 and err == ""
    # (x + y) z at (-2, 5, -4): q = x + y = 3, f = qz = -12; df/dz = q = 3, df/dx = df/dy = z = -4
    assert "df/dx = -4.0, df/dy = -4.0, df/dz = 3.0" in out
    # the chain L = a*b + c at (2, -3, 10): dL/da = b = -3, dL/db = a = 2; dfs order and its reverse
    assert "forward order (dfs):         a, b, d, c, L" in out
    assert "backward order (reversed):   L, c, d, b, a" in out
    # micrograd's README prints these for the same expression
    assert "g = 24.7041   dg/da = 138.8338   dg/db = 645.5773" in out
    # the note: 3 choices at each of 6 layers: 3^6 = 729 paths over 3 + 5*9 + 3 = 51 edges
    assert "20 nodes, 51 edges" in out and "paths s -> t: 729 = 3^6" in out
    assert "checked by enumerating all 729 paths: they agree" in out
    assert "MISMATCH" not in out
    for section in ("shared", "network", "max gate", "closed form"):
        assert section in out


def test_demo_sections_can_be_chosen_and_unknown_ones_are_refused(capsys):
    code, out, _ = run(capsys, "demo", "chain")
    assert code == 0 and out.startswith("== the scalar chain") and "729" not in out
    code, out, err = run(capsys, "demo", "nope")
    assert code == 2 and "no demo section 'nope'" in err and "chain" in err


# ---------------------------------------------------------------- grad: values

CASES = [
    # (expr, point, value, partials), each worked by hand in the comment
    # f = (x + y) z: df/dx = df/dy = z, df/dz = x + y
    ("(x + y) * z", {"x": -2, "y": 5, "z": -4}, -12.0, {"x": -4.0, "y": -4.0, "z": 3.0}),
    # f = x^3 - 2x: f' = 3x^2 - 2 = 10 at x = 2
    ("x**3 - 2*x", {"x": 2}, 4.0, {"x": 10.0}),
    # f = x / y: df/dx = 1/y = 0.25, df/dy = -x / y^2 = -3/16
    ("x / y", {"x": 3, "y": 4}, 0.75, {"x": 0.25, "y": -0.1875}),
    # -x**2 is -(x**2), as in Python: f' = -2x = -6
    ("-x**2", {"x": 3}, -9.0, {"x": -6.0}),
    # 2**-x = 2^(-x): f' = -ln2 2^(-x) at x = 1
    ("2**-x", {"x": 1}, 0.5, {"x": -0.5 * math.log(2)}),
    # right-associative: 2**3**x = 2^(3^x) = 2^3 = 8 at x = 1; f' = 8 ln2 * 3 ln3
    ("2**3**x", {"x": 1}, 8.0, {"x": 8 * math.log(2) * 3 * math.log(3)}),
    # the router gate: maximum sends everything to the larger input
    ("maximum(x, y) * 2", {"x": 1, "y": 3}, 6.0, {"x": 0.0, "y": 2.0}),
    # relu(x) + sigmoid(0) at x = -1: relu is flat there; sigmoid(0) = 1/2
    ("relu(x) + sigmoid(y)", {"x": -1, "y": 0}, 0.5, {"x": 0.0, "y": 0.25}),
    # the shared example at x = 1: c = 1 + e, f' = (1/(2 sqrt c) - sin c) * 2x(1 + e^(x^2))
    (
        "sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))",
        {"x": 1},
        math.sqrt(1 + math.e) + math.cos(1 + math.e),
        {"x": (0.5 / math.sqrt(1 + math.e) - math.sin(1 + math.e)) * 2 * (1 + math.e)},
    ),
    # sin(pi x) at x = 1/2: value 1, derivative pi cos(pi/2) = 0
    ("sin(pi*x)", {"x": 0.5}, 1.0, {"x": 0.0}),
    # log, tanh and abs: d/dx log x = 1/x, d tanh = 1 - tanh^2, d|y| = sign y
    (
        "log(x) + tanh(z) + abs(y)",
        {"x": 2, "y": -3, "z": 0},
        math.log(2) + 3,
        {"x": 0.5, "y": -1.0, "z": 1.0},
    ),
]


@pytest.mark.parametrize("expr, point, expected, grads", CASES, ids=[c[0] for c in CASES])
def test_grad_matches_values_worked_by_hand(capsys, expr, point, expected, grads):
    argv = ["grad", expr] + [a for k, v in point.items() for a in ("--at", f"{k}={v}")]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert value(out) == pytest.approx(expected, rel=1e-9)
    got = partials(out)
    assert got.keys() == grads.keys()
    for k in grads:
        assert got[k] == pytest.approx(grads[k], rel=1e-9, abs=1e-12)


def test_grad_prints_listing_and_both_orders(capsys):
    code, out, _ = run(capsys, "grad", "(x + y) * z", "--at", "x=-2", "--at", "y=5", "--at", "z=-4")
    assert code == 0
    assert "%2  x + y        add(%0, %1)       -->    3.0  grad -4.0" in out
    assert "forward order (dfs):  x, y, [x + y], z, [(x + y) * z]" in out
    assert "backward order:       [(x + y) * z], z, [x + y], y, x" in out


def test_grad_builds_equal_subexpressions_once(capsys):
    # sqrt(c) + cos(c) with c = x**2 + exp(x**2) written out twice: 8 nodes, not 13
    code, out, _ = run(
        capsys, "grad", "sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))", "--at", "x=1"
    )
    assert code == 0 and "(8 nodes;" in out
    assert "sqrt(%4)" in out and "cos(%4)" in out


def test_kahn_order_is_a_valid_order_and_gives_the_same_gradients(capsys):
    expr = "a*b + relu(b - a) * (a + b) / c"
    point = ["--at", "a=1.5", "--at", "b=-0.5", "--at", "c=2"]
    _, dfs, _ = run(capsys, "grad", expr, *point)
    code, kahn, _ = run(capsys, "grad", expr, "--order", "kahn", *point)
    assert code == 0 and "forward order (kahn):" in kahn
    assert partials(dfs) == partials(kahn)


def test_an_expression_starting_with_minus_is_not_taken_for_an_option(capsys):
    code, out, _ = run(capsys, "grad", "--at", "x=2", "-x*3")
    assert code == 0 and partials(out) == {"x": -3.0}


def test_deep_nesting_needs_no_recursion(capsys):
    depth = 5000  # far past Python's recursion limit
    expr = "(" * depth + "x" + " + 1)" * depth
    code, out, _ = run(capsys, "grad", expr, "--at", "x=0")
    assert code == 0 and value(out) == depth and partials(out) == {"x": 1.0}


def test_non_finite_values_are_explained(capsys):
    code, out, _ = run(capsys, "grad", "log(x)", "--at", "x=-1")
    assert code == 0 and "value  nan" in out and "outside log's domain" in out


# ---------------------------------------------------------------- grad: errors


def caret_span(err, text):
    """The [start, end) the carets mark under the echoed formula."""
    lines = err.splitlines()
    i = next(k for k, line in enumerate(lines) if line == "  " + text)
    marks = lines[i + 1]
    start = marks.index("^") - 2
    return start, start + marks.count("^")


ERRORS = [
    # (expr, extra args, message fragment, the text the carets must sit under)
    ("__import__('os').system('ls')", [], "unknown function '__import__'", "__import__"),
    ("x.__class__", ["--at", "x=1"], "unexpected character '.'", "."),
    ("exec('1')", [], "unknown function 'exec'", "exec"),
    ("2 * (x + 1", ["--at", "x=1"], "never closed", "("),
    ("x + 1)", ["--at", "x=1"], "no matching '('", ")"),
    ("x +* 2", ["--at", "x=1"], "expected a number, a name or '('", "*"),
    ("x y", ["--at", "x=1", "--at", "y=1"], "expected an operator", "y"),
    ("2x", ["--at", "x=1"], "a number runs into a name", "2x"),
    ("x ^ 2", ["--at", "x=1"], "unexpected character '^'", "^"),
    ("exp(x, x)", ["--at", "x=1"], "exp() takes 1 argument, got 2", "exp(x, x)"),
    ("max(x, 1)", ["--at", "x=1"], "unknown function 'max'", "max"),
    ("x * y + z", ["--at", "x=1"], "no value for 'y', 'z'", "y"),
    ("exp + 1", [], "'exp' is a function", "exp"),
    ("x -", ["--at", "x=1"], "ends where an operand is expected", ""),
]


@pytest.mark.parametrize("expr, extra, message, under", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_formulas_exit_2_with_a_caret_under_the_offending_part(
    capsys, expr, extra, message, under
):
    code, out, err = run(capsys, "grad", expr, *extra)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    start, end = caret_span(err, expr)
    if under:
        assert expr[start:end] == under
    else:  # the end of the text: one caret just past it
        assert (start, end) == (len(expr), len(expr) + 1)


def test_hints_suggest_the_fix(capsys):
    _, _, err = run(capsys, "grad", "max(x, 1)", "--at", "x=1")
    assert "did you mean maximum?" in err
    _, _, err = run(capsys, "grad", "x*y", "--at", "x=1")
    assert "--at y=1.0" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["grad", "x", "--at", "x=abc"], "'abc' is not a number"),
        (["grad", "x", "--at", "x"], "expected NAME=VALUE"),
        (["grad", "x", "--at", "x=1", "--at", "x=2"], "given twice"),
        (["grad", "x", "--at", "x=1", "--at", "w=2"], "no variable 'w'"),
        (["grad"], "grad needs EXPR"),
        (["grad", "x", "--order", "bfs", "--at", "x=1"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_command_lines_exit_2(capsys, argv, message):
    code, _out, err = run(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_the_parser_never_evaluates_python(tmp_path, monkeypatch):
    # If any of these were evaluated, a file would appear; every one is a parse error instead.
    marker = tmp_path / "pwned"
    attempts = [
        f"__import__('pathlib').Path('{marker}').touch()",
        f"open('{marker}', 'w')",
        "globals()",
        "x if x else x",
        "lambda: 1",
        "[x for x in ()]",
        "x; import os",
        "eval('1')",
        "getattr(x, 'y')",
    ]
    monkeypatch.setattr("builtins.eval", None)  # and the parser must not need eval at all
    monkeypatch.setattr("builtins.exec", None)
    for text in attempts:
        with pytest.raises(ValueError):
            build(text, {"x": 1.0})
    assert not marker.exists()


def test_every_whitelisted_function_is_callable_by_name():
    for name, (_, arity) in FUNCTIONS.items():
        args = ", ".join(["x"] * arity)
        e = build(f"{name}({args})", {"x": 0.5})
        assert e.output.op is not None and parse(f"{name}({args})")[1] == name


# ---------------------------------------------------------------- files and entry points


def test_dot_file_has_values_gradients_and_backward_steps(capsys, tmp_path):
    path = tmp_path / "f.dot"
    code, out, _ = run(capsys, "grad", "x*y + x", "--at", "x=2", "--at", "y=3", "--dot", str(path))
    assert code == 0 and f"wrote {path}" in out
    src = path.read_text()
    assert src.startswith("digraph funcgrad {") and src.count("->") == 4
    assert "grad 4.0" in src and "backward step 0" in src and "x*y + x" in src


def test_svg_without_graphviz_names_the_missing_program(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot here
    code, _, err = run(capsys, "grad", "x*x", "--at", "x=1", "--svg", str(tmp_path / "f.svg"))
    assert code == 1 and "'dot' program" in err and "apt-get install graphviz" in err


def test_unwritable_output_exits_1(capsys, tmp_path):
    code, _, err = run(capsys, "grad", "x", "--at", "x=1", "--dot", str(tmp_path / "no" / "f.dot"))
    assert code == 1 and "cannot write" in err


@pytest.mark.skipif(not __import__("shutil").which("dot"), reason="needs Graphviz's dot")
def test_svg_is_drawn_for_real(capsys, tmp_path):
    path = tmp_path / "f.svg"
    code, _, _ = run(
        capsys,
        "grad",
        "sqrt(x**2 + exp(x**2)) + cos(x**2 + exp(x**2))",
        "--at",
        "x=1",
        "--svg",
        str(path),
    )
    assert code == 0
    ns = {"svg": "http://www.w3.org/2000/svg"}
    root = ET.parse(path).getroot()
    assert len(root.findall(".//svg:g[@class='node']", ns)) == 8  # shared nodes drawn once
    assert len(root.findall(".//svg:g[@class='edge']", ns)) == 9


@pytest.mark.parametrize("launcher", [["funcgrad"], [sys.executable, "-m", "funcgrad"]])
def test_entry_points_exit_codes_and_no_traceback(launcher):
    if launcher == ["funcgrad"] and not __import__("shutil").which("funcgrad"):
        pytest.skip("the console script is not on PATH (package not installed)")
    ok = subprocess.run(launcher + ["grad", "x*x", "--at", "x=3"], capture_output=True, text=True)
    assert ok.returncode == 0 and "df/dx = 6.0" in ok.stdout
    bad = subprocess.run(launcher + ["grad", "__import__('os')"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "^" in bad.stderr
    demo = subprocess.run(
        launcher + ["demo"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    assert demo.returncode == 0 and "729" in demo.stdout and demo.stderr == ""


# ---------------------------------------------------------------- a newcomer's first commands


def test_version_is_the_installed_one(capsys):
    import importlib.metadata

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"funcgrad {importlib.metadata.version('funcgrad')}"


def test_tan_and_the_constant_e(capsys):
    code, out, _ = run(capsys, "grad", "tan(x) + e**x", "--at", "x=0.5")
    assert code == 0
    assert value(out) == pytest.approx(math.tan(0.5) + math.exp(0.5), rel=1e-9)
    assert partials(out)["x"] == pytest.approx(1 / math.cos(0.5) ** 2 + math.exp(0.5), rel=1e-9)
    code, _, err = run(capsys, "grad", "e * x", "--at", "x=1", "--at", "e=2")
    assert code == 2 and "'e' is a constant" in err


def test_a_nan_point_is_named_as_the_cause(capsys):
    code, out, _ = run(capsys, "grad", "log(x)", "--at", "x=nan")
    assert code == 0 and "x = nan at this point" in out and "None" not in out


def test_an_unquoted_formula_gets_the_hint_to_quote_it(capsys):
    code, _, err = run(capsys, "grad", "x", "*", "y", "--at", "x=1")
    assert code == 2 and "quote it in the shell" in err


def test_a_drawing_is_written_in_the_format_its_name_says(capsys, tmp_path):
    code, _, err = run(capsys, "grad", "x*x", "--at", "x=2", "--svg", str(tmp_path / "a.png"))
    assert code == 2 and "--png" in err and not (tmp_path / "a.png").exists()
    code, _, _ = run(
        capsys,
        "grad",
        "x*x",
        "--at",
        "x=2",
        "--png",
        str(tmp_path / "a.png"),
        "--draw",
        str(tmp_path / "b.svg"),
    )
    assert code == 0
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")
    assert ET.parse(tmp_path / "b.svg").getroot().tag.endswith("svg")
    code, _, err = run(capsys, "grad", "x*x", "--at", "x=2", "--draw", str(tmp_path / "c.bmp"))
    assert code == 2 and "cannot tell the format" in err


def test_explain_says_where_a_nan_gradient_began(capsys):
    code, out, _ = run(capsys, "explain", "sqrt(x) * log(y)", "--at", "x=0", "--at", "y=1")
    assert code == 0
    assert "d output / d x is nan" in out and "sqrt(x)" in out and "fix:" in out
    assert "d output / d y is 0" in out
    code, out, _ = run(capsys, "explain", "x * y", "--at", "x=1", "--at", "y=2")
    assert code == 0 and "finite and nonzero" in out
    code, _, err = run(capsys, "explain", "2 * pi")
    assert code == 2 and "no variables" in err
