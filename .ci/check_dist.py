"""What the built wheel and sdist must hold: CI builds them (``python -m build``) and runs this.

    python .ci/check_dist.py dist/

The wheel: every module and subpackage of ``src/funcgrad`` (compared with the source
tree, so a new subpackage cannot be left out), ``py.typed``, the explorer's page assets,
the ``funcgrad`` command's entry point and the license; the sdist: the same sources plus
the tests, docs, README and pyproject.toml. Exits non-zero naming what is missing.
"""

import pathlib
import sys
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def source_files():
    """Every file of the package as the wheel names it (``funcgrad/...``)."""
    src = ROOT / "src"
    return {
        str(p.relative_to(src))
        for p in (src / "funcgrad").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def main(folder):
    folder = pathlib.Path(folder)
    wheels, sdists = list(folder.glob("*.whl")), list(folder.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        sys.exit(f"expected one wheel and one sdist in {folder}; found {wheels + sdists}")
    want = source_files()
    problems = []
    for needed in (
        "funcgrad/py.typed",
        "funcgrad/io/page/explorer.html",
        "funcgrad/io/page/explorer.js",
        "funcgrad/io/page/explorer.css",
        "funcgrad/cli/__init__.py",
    ):
        if needed not in want:
            problems.append(f"the source tree lacks {needed}")
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
        meta = {n.split("/", 1)[1]: n for n in names if ".dist-info/" in n}
        problems += [f"wheel lacks {f}" for f in sorted(want - names)]
        entry = wheel.read(meta["entry_points.txt"]).decode() if "entry_points.txt" in meta else ""
        if "funcgrad = funcgrad.cli:main" not in entry:
            problems.append("wheel lacks the funcgrad command's entry point")
        if not any(k.startswith("licenses/") or k == "LICENSE" for k in meta):
            problems.append("wheel lacks the license")
    with tarfile.open(sdists[0]) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        held = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
        problems += [f"sdist lacks src/{f}" for f in sorted(want) if f"src/{f}" not in held]
        for needed in (
            "pyproject.toml",
            "README.md",
            "LICENSE",
            "tests/conftest.py",
            "docs/index.md",
        ):
            if needed not in held:
                problems.append(f"sdist {top} lacks {needed}")
    if problems:
        sys.exit("\n".join(problems))
    print(
        f"{wheels[0].name}: {len(want)} package files, py.typed, the page assets, the "
        f"entry point; {sdists[0].name}: sources, tests and docs"
    )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dist")
