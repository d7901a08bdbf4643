"""docs/architecture.md against the code: every package and every module is on its map,
every module is short enough to read in one sitting, and comments say why, not how long
(timings go stale; they live in benchmarks/RESULTS.md)."""

import pathlib
import re

import funcgrad

SRC = pathlib.Path(funcgrad.__file__).parent
DOC = pathlib.Path(__file__).parents[1] / "docs" / "architecture.md"
LONGEST = 600


def _layout():
    """The text block under "The layout, bottom first": ``{package: names listed}``, a
    package's entry running from its ``name/`` to the next package's."""
    text = DOC.read_text()
    block = text[text.index("## The layout, bottom first") :]
    block = block[block.index("```text") : block.index("```\n", block.index("```text") + 7)]
    listed = {}
    package = ""
    for line in block.splitlines()[2:]:
        head = re.match(r"\s{2}([\w/]+/)(?=\s)", line + " ")
        if head:
            package = head.group(1).rstrip("/")
            line = line[head.end() :]
        listed.setdefault(package, set()).update(re.findall(r"[\w.]+", line))
    return listed


def _packages():
    return sorted(
        str(p.parent.relative_to(SRC)) for p in SRC.rglob("__init__.py") if p.parent != SRC
    )


def test_every_package_is_on_the_map():
    listed = _layout()
    missing = [p for p in _packages() if p not in listed]
    assert not missing, f"packages docs/architecture.md does not name: {missing}"


def test_every_module_is_named_under_its_package():
    listed = _layout()
    missing = []
    # a package of one module per thing (a distribution) names the pattern, not each
    by_pattern = {p for p, names in listed.items() if {"one", "module", "per"} <= names}
    for path in SRC.rglob("*.py"):
        where = path.relative_to(SRC)
        if where.name == "__init__.py" or len(where.parts) == 1:
            continue  # a package's own __init__; the top modules are listed by name below
        package, name = str(where.parent), where.stem
        if package in by_pattern and not name.startswith("_"):
            continue
        if name.lstrip("_") not in listed.get(package, set()) and name not in listed.get(
            package, set()
        ):
            missing.append(str(where))
    top = {p.stem for p in SRC.glob("*.py")} - {"__init__", "__main__"}
    named_top = set().union(*_layout().values())
    missing += [f"{t}.py" for t in sorted(top) if f"{t}.py" not in named_top]
    assert not missing, f"modules docs/architecture.md does not name: {sorted(missing)}"


def test_no_module_is_over_a_sittings_read():
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > LONGEST
    }
    assert not long, f"modules over {LONGEST} lines: {long}"
    assert f"none is over {LONGEST} lines" in DOC.read_text()


# a number of milliseconds, microseconds or seconds: a measurement, which goes stale
_TIMING = re.compile(r"\d(?:\.\d+)? ?(?:ms|us|µs)\b|\d+(?:\.\d+)? s\b")


def test_source_quotes_no_timings():
    found = [
        f"{p.relative_to(SRC)}:{k}"
        for p in SRC.rglob("*.py")
        for k, line in enumerate(p.read_text().splitlines(), 1)
        if _TIMING.search(line) and not line.lstrip().startswith(">>>")
    ]
    assert not found, f"timings in the source (put them in benchmarks/RESULTS.md): {found}"


def test_no_backend_name_is_compared_outside_the_registry():
    # jit's backends are objects of one protocol (jit/backends/); nothing else asks a name
    compared = re.compile(r"""[!=]= ?["'](?:numba|python|torch\.compile)["']""")
    found = [
        f"{p.relative_to(SRC)}:{k}"
        for p in (SRC / "jit").rglob("*.py")
        if "backends" not in p.parts
        for k, line in enumerate(p.read_text().splitlines(), 1)
        if compared.search(line)
    ]
    found += [
        f"{p.relative_to(SRC)}:{k}"
        for p in (SRC / "control").rglob("*.py")
        for k, line in enumerate(p.read_text().splitlines(), 1)
        if compared.search(line)
    ]
    assert not found, f"backend names compared outside jit/backends/: {found}"


TESTS = pathlib.Path(__file__).parent


def test_the_tests_mirror_the_packages_and_edit_no_import_path():
    top_packages = sorted(p.parent.name for p in SRC.glob("*/__init__.py"))
    missing = [p for p in top_packages if not (TESTS / p).is_dir()]
    assert not missing, f"packages without a tests/ folder: {missing}"
    edits = [
        f"{p.relative_to(TESTS)}:{k}"
        for p in TESTS.rglob("*.py")
        for k, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"sys\.path\.(insert|append)|sys\.path \+?=", line)
    ]
    assert not edits, f"tests that edit sys.path: {edits}"
