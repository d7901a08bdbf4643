"""The core does not import the NumPy layer (checked in a fresh interpreter).

``funcgrad/__init__.py`` re-exports everything, so importing ``funcgrad.dag.node``
the ordinary way runs it and loads ``funcgrad.numpy`` whatever the core does.
The probe therefore registers a bare ``funcgrad`` package (its path, without
running its ``__init__``), imports one core module, exercises it, and reports
whether ``funcgrad.numpy`` was ever loaded.
"""

import subprocess
import sys
import textwrap

import pytest

CORE = [
    "funcgrad.dag.node",
    "funcgrad.dag.order",
    "funcgrad.dag.fold",
    "funcgrad.dag.backprop",
    "funcgrad.dag.semiring",
]

PROBE = textwrap.dedent("""
    import importlib, importlib.util, sys, types
    spec = importlib.util.find_spec("funcgrad")       # finds the package, runs nothing
    if {bare}:
        pkg = types.ModuleType("funcgrad")
        pkg.__path__ = list(spec.submodule_search_locations)
        sys.modules["funcgrad"] = pkg
    importlib.import_module({module!r})
    at_import = "funcgrad.numpy" in sys.modules
    # Use the core too, so imports deferred into functions are caught.
    from funcgrad.dag.leaves import var
    from funcgrad.dag.order import toposort
    from funcgrad.dag.backprop import backprop
    from funcgrad.dag.semiring import sum_product, semirings
    x = var(2.0, name="x")
    f = (x * x + 1.0) * x
    assert backprop(f)[x] == 13.0 and len(toposort(f, method="kahn")) == 5
    assert sum_product(f, None, semirings.count)[x] == 3
    repr(f)
    print(at_import, "funcgrad.numpy" in sys.modules)
""")


def probe(module, bare=True):
    res = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module, bare=bare)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    return res.stdout.split()


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_not_import_funcgrad_numpy(module):
    at_import, after_use = probe(module)
    assert at_import == "False", f"importing {module} loads funcgrad.numpy"
    assert after_use == "False", f"using the core after importing {module} loads funcgrad.numpy"


def test_the_probe_would_notice():
    # Through the package root (which re-exports funcgrad.numpy) the probe sees it.
    assert probe("funcgrad.dag.node", bare=False) == ["True", "True"]


# -- every import points down the layers of docs/architecture.md -------------

import ast  # noqa: E402
import pathlib  # noqa: E402

import funcgrad  # noqa: E402

SRC = pathlib.Path(funcgrad.__file__).parent
LAYERS = [  # bottom first; a package may import only from its own layer or below
    ["core"],  # errors, traces, values, pytrees, Primitive
    ["rules"],  # the primitives and their derivative rules
    ["dag", "kernels"],  # nodes, orderings, folds, backprop, semirings; numba's fast paths
    ["transforms", "jit"],  # reverse, forward, vmap, Jacobians; staging, plans
    ["control"],  # loops, branches, checkpoints, custom rules
    ["analysis"],  # explain, lint, sparsity, paths, check_grads
    [
        "numpy",
        "scipy",
        "nn",
        "optim",
        "at",
        "ops",
        "extend",
        "random",
        "debug",
        "tree",
        "tree_util",
        "lax",
        "runtime",
        "image",
        "dlpack",
        "example_libraries",
        "custom_batching",
        "checkify",
    ],  # what users call
    ["io", "errors"],  # show, files, pickles, the formula parser; every error by name
    ["cli", "__main__"],  # the funcgrad command
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def _module_imports():
    """``{module: {imported funcgrad modules}}`` from every file's top-level and nested imports."""
    found = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(p for p in parts if p != "__init__")
        package = parts[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = list(package)[: len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
                for alias in node.names:
                    full = target + [alias.name]
                    if (
                        SRC.joinpath(*full).with_suffix(".py").exists()
                        or SRC.joinpath(*full, "__init__.py").exists()
                    ):
                        targets.add(".".join(full))
                    elif target:
                        targets.add(".".join(target))
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                names = (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                )
                targets |= {n[len("funcgrad.") :] for n in names if n and n.startswith("funcgrad.")}
        targets |= {t[len("funcgrad.") :] for t, _ in _string_imports(path) if t != "?"}
        found[name] = targets
    return found


def _string_imports(path):
    """``(module, line)`` for each import of funcgrad's own modules by name in ``path``
    (``importlib.import_module("funcgrad....")``, ``optional.load("funcgrad....", ...)``,
    ``__import__``): an import by name is an edge of the graph as any other. A name that is
    not a constant (an f-string) is reported as ``"?"``, so that it cannot hide."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        called = getattr(node, "func", None)
        name = getattr(called, "attr", getattr(called, "id", None))
        if not isinstance(node, ast.Call) or name not in ("import_module", "load", "__import__"):
            continue
        if name == "load" and getattr(getattr(called, "value", None), "id", None) != "optional":
            continue
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            if first.value.startswith("funcgrad."):
                found.append((first.value, node.lineno))
        elif isinstance(first, ast.JoinedStr) and "funcgrad." in ast.unparse(first):
            found.append(("?", node.lineno))
    return found


def test_imports_by_name_are_three_lazy_loads_of_optional_dependencies():
    # numba's kernels (loaded when a large array first needs them), jit's machine code
    # (when a numba plan does) and SciPy's functions for lax: each loaded by name in one
    # place, through core/optional.py's load
    allowed = {
        "funcgrad.kernels.numba_kernels": "kernels/switch.py",
        "funcgrad.jit.backends.numba.native": "jit/backends/numba/__init__.py",
        "funcgrad.scipy": "lax/_scipy.py",  # also for fg.sparse_jacobian
    }
    found = {
        f"{p.relative_to(SRC)}:{line}": name
        for p in SRC.rglob("*.py")
        # the finder that answers the module names of 0.1 (`import funcgrad.node`) is
        # import machinery: importing the module a name moved to is what it is for
        if p.relative_to(SRC) != pathlib.Path("io/legacy_names.py")
        for name, line in _string_imports(p)
    }
    where = {name: spot.split(":")[0] for spot, name in found.items()}
    assert where == allowed, f"imports by name of funcgrad's own modules: {found}"
    assert len(found) == len(allowed), found
    for spot in found:
        text = (SRC / spot.split(":")[0]).read_text().splitlines()[int(spot.split(":")[1]) - 1]
        assert "optional.load(" in text, f"{spot} imports by name without core/optional.py"


def test_optional_load_names_the_extra_to_install():
    from funcgrad.core import optional

    with pytest.raises(ImportError, match=r'needs nothing_here: pip install "funcgrad\[extra\]"'):
        optional.load("funcgrad.no_such_module", "nothing_here", "extra")


def test_the_rules_know_no_fast_path():
    # numba's kernels are registered beside the primitives (funcgrad/kernels), never
    # called from a rule: no rules module imports the registry or the kernels
    imports = _module_imports()
    reaching = {
        m: sorted(t for t in ts if t.startswith(("kernels", "core.fast_paths")))
        for m, ts in imports.items()
        if m.startswith("rules")
    }
    assert not {m: t for m, t in reaching.items() if t}, reaching


# The tables a primitive's definition writes what jit and the analyses read into (as JAX's
# lax writes into the interpreters' tables): each sits in the package that reads it, imports
# only the core, and so stands in the core's layer, where every definition may reach it.
FACT_TABLES = {"analysis.facts", "jit.facts"}


def _layer(module):
    return 0 if module in FACT_TABLES else LAYER_OF[module.split(".")[0]]


def test_the_fact_tables_import_only_the_core():
    imports = _module_imports()
    assert set(imports) >= FACT_TABLES
    for table in FACT_TABLES:
        assert all(t.startswith("core.") for t in imports[table]), (table, imports[table])


def test_every_module_has_a_layer():
    missing = sorted(m for m in _module_imports() if m and m.split(".")[0] not in LAYER_OF)
    assert not missing, (
        f"put these modules in a layer of LAYERS (and docs/architecture.md): {missing}"
    )


def test_imports_only_point_down():
    upward = [
        f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
        for m, targets in _module_imports().items()
        if m
        for t in targets
        if _layer(t) > _layer(m)
    ]
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = {
        m: {t for t in ts if t != m and not m.startswith(t + ".")}
        for m, ts in _module_imports().items()
        if m
    }
    done, active = set(), []

    def visit(m):
        if m in active:
            raise AssertionError("import cycle: " + " -> ".join(active[active.index(m) :] + [m]))
        if m in done or m not in graph:
            return
        active.append(m)
        for t in sorted(graph[m]):
            visit(t)
        active.pop()
        done.add(m)

    for m in sorted(graph):
        visit(m)


def test_no_imports_inside_functions():
    # Imports inside functions dodge cycles; the layers leave none to dodge.
    inner = []
    for path in SRC.rglob("*.py"):
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner += [
                    f"{path.name}:{n.lineno}"
                    for n in ast.walk(fn)
                    if isinstance(n, (ast.Import, ast.ImportFrom))
                ]
    assert not inner, f"imports inside functions: {inner}"


def test_the_top_of_the_package_is_short_and_no_module_is_long():
    top = sorted(p.name for p in SRC.glob("*.py"))
    assert len(top) <= 12, f"{len(top)} modules at the top of funcgrad: {top}"
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 700
    }
    # 700 lines in ruff's format (one item a line in a list too long for one line), about
    # 600 in the compact one the modules were written in.
    assert not long, f"modules over 700 lines: {long}"


# -- a primitive's facts live with the primitive -------------------------------

# Modules whose tables of names are vocabularies (the namespaces users call, the formula
# parser, help pages), not facts about primitives.
_VOCABULARIES = (
    "rules/",
    "numpy/",
    "scipy/",
    "lax/",
    "core/pages.py",
    "io/expr.py",
    "nn/",
    "optim/",
    "random/",
    "__init__.py",
    # the register machine's instructions, named by NumPy's ufuncs (its opcode table)
    "jit/backends/numba/interpreter.py",
    # the Array API standard's function names (array-api-compat's wrappers of PyTorch's)
    "core/namespaces.py",
)


def _primitive_names():
    from funcgrad.io.serialize import builtin_refs

    return {p.name for p in builtin_refs().values()}


def test_no_table_outside_the_rules_names_primitives_by_string():
    names = _primitive_names()
    found = []
    for path in SRC.rglob("*.py"):
        rel = str(path.relative_to(SRC))
        if rel.startswith(_VOCABULARIES):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            strings = []
            if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
                strings = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            elif isinstance(node, ast.Dict):
                strings = [k.value for k in node.keys if isinstance(k, ast.Constant)]
            elif isinstance(node, ast.Compare) and any(
                isinstance(side, ast.Attribute) and side.attr in ("op", "name")
                for side in [node.left, *node.comparators]
            ):
                strings = [c.value for c in node.comparators if isinstance(c, ast.Constant)]
            hits = [s for s in strings if isinstance(s, str) and s in names]
            if len(hits) >= 2 or (hits and isinstance(node, ast.Compare)):
                found.append(f"{rel}:{node.lineno}: {hits}")
    assert not found, (
        "declare these as facts of the primitives (analysis/facts.py, jit/facts.py) instead of "
        "naming them here:\n" + "\n".join(found)
    )


def _jit_imports():
    """Each module of funcgrad.jit (``backends.numba`` for one in a subpackage) and the
    modules of funcgrad.jit it imports, at the top or inside a function, by ``import`` or by
    name (``optional.load("funcgrad.jit.x", ...)``)."""
    folder = SRC / "jit"

    def dotted(path):
        parts = path.relative_to(folder).with_suffix("").parts
        return ".".join(p for p in parts if p != "__init__") or "__init__"

    names = {dotted(p) for p in folder.rglob("*.py")}
    graph = {}
    for path in folder.rglob("*.py"):
        here = dotted(path)
        package = path.relative_to(folder).parts[:-1]
        tree = ast.parse(path.read_text())
        found = {t[len("funcgrad.jit.") :] for t, _ in _string_imports(path) if t != "?"}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = list(package[: len(package) - (node.level - 1)])
                if node.level - 1 > len(package):
                    continue  # above funcgrad.jit
                stem = base + (node.module.split(".") if node.module else [])
                for alias in node.names:
                    full = ".".join(stem + [alias.name])
                    found.add(full if full in names else ".".join(stem))
        graph[here] = {m for m in found if m in names} - {here}
    return graph


def test_jits_modules_import_each_other_in_layers():
    graph = _jit_imports()
    assert (
        "backends.numba.native" in graph["backends.numba"]
    )  # the probe sees the lazy import by name
    state = {}

    def visit(m, path):
        if state.get(m) == "open":
            raise AssertionError(f"funcgrad.jit imports in a circle: {' -> '.join(path + [m])}")
        if state.get(m) == "done":
            return
        state[m] = "open"
        for n in sorted(graph[m]):
            visit(n, path + [m])
        state[m] = "done"

    for m in sorted(graph):
        visit(m, [])
