"""Primitives by reference: the ``(module, name)`` pair a file or a pickle stores for each
node's primitive, and the primitive a reference names when it is read back.

A reference names a primitive by the module that defines it and its name there.
Reading one never imports what it names (untrusted input imports nothing): it is found
among funcgrad's own rule modules, the modules already imported, and the primitives
passed in; a module's name before funcgrad 0.2 moved it is read under its new one
(:mod:`funcgrad.io.legacy_names`).

>>> import funcgrad as fg
>>> from funcgrad.rules.elementwise import tanh
>>> op_ref(tanh)
('funcgrad.rules.elementwise', 'tanh')
>>> resolve_op(op_ref(tanh)) is tanh
True
"""

import ast
import importlib
import inspect
import pickle
import pkgutil
import sys
import threading

from .. import rules
from ..core.errors import FuncgradError
from ..core.primitive import Primitive
from ..dag.node import CONST, VAR, Leaf
from .legacy_names import current_name

__all__ = ["SerializationError", "op_ref", "resolve_op", "builtin_refs", "moved_primitive"]


class SerializationError(FuncgradError, pickle.PicklingError):
    """A node, a primitive or a stream that cannot be written or read.

    >>> import funcgrad as fg
    >>> fg.loads(b"not a funcgrad file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    funcgrad.errors.SerializationError: fg.loads: not a valid funcgrad file: ...
    """


# -- primitives by reference --------------------------------------------------

_LEAF_REFS = {VAR: "var", CONST: "const"}
_LEAVES = {"var": VAR, "const": CONST}
_refs: dict = {}  # id(maker) -> (maker, reference), found once each
_builtin_refs = None  # id -> (primitive, ref), built once from funcgrad.rules
_resolved: dict = {}  # ref -> primitive, on loading
_lock = threading.Lock()


def _defined_names(module):
    """The names a module binds at top level by assignment or ``def`` (not by import)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return None
    names = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return names


def _builtin_table():
    """Every primitive of ``funcgrad.rules``, by the module that defines it."""
    global _builtin_refs
    if _builtin_refs is None:
        found = {}
        for modname in _rule_modules() + [rules.__name__]:
            try:
                module = importlib.import_module(modname)
            except ImportError:  # an extra's rules (SciPy's) without the extra installed
                continue
            defined = _defined_names(module)
            for attr, obj in sorted(vars(module).items()):
                if (
                    isinstance(obj, Primitive)
                    and id(obj) not in found
                    and (defined is None or attr in defined)
                ):
                    found[id(obj)] = (obj, (modname, attr))
        _builtin_refs = found
    return _builtin_refs


def _rule_modules():
    return sorted(m.name for m in pkgutil.iter_modules(rules.__path__, rules.__name__ + "."))


def _lookup(modname, qualname):
    """The object a reference names, found in a module already imported (funcgrad's own rule
    modules excepted): loading a file or a pickle never imports what it names."""
    if type(modname) is not str or type(qualname) is not str:
        raise SerializationError(
            f"a primitive reference must be two names; got {modname!r}, {qualname!r}"
        )
    modname = current_name(modname)  # a module's name before funcgrad 0.2 moved it
    module = sys.modules.get(modname)
    if module is None and modname in _rule_modules():
        module = importlib.import_module(modname)  # funcgrad's own (SciPy's: its extra)
    if module is None:
        raise SerializationError(
            f"cannot load primitive {qualname!r} of module {modname!r}, which is not "
            f"imported; funcgrad never imports a module a file names: import it yourself "
            f"before loading if you trust it, or pass the primitive: fg.loads(data, "
            f"primitives=[...])"
        )
    obj = module
    for part in qualname.split("."):
        if not part.isidentifier() or part.startswith("__"):
            raise SerializationError(f"not a primitive's name: {qualname!r}")
        obj = getattr(obj, part)
    return obj


def _find_ref(prim):
    hit = _builtin_table().get(id(prim))
    if hit is not None and hit[0] is prim:
        return hit[1]
    impl = prim.impl
    modname = getattr(impl, "__module__", None)
    qualname = getattr(impl, "__qualname__", None)
    if modname and qualname and "<" not in qualname:  # @fg.primitive def f: impl's own name
        try:
            if _lookup(modname, qualname) is prim:
                return (modname, qualname)
        except (ImportError, AttributeError):
            pass
    module = sys.modules.get(modname) if modname else None
    if module is not None:  # any module-level name bound to it
        for attr, obj in sorted(vars(module).items()):
            if obj is prim:
                return (modname, attr)
    where = f" (its implementation comes from module {modname!r})" if modname else ""
    raise SerializationError(
        f"cannot pickle a node made by primitive {prim.name!r}{where}: funcgrad writes "
        f"primitives by reference (module and name), and this primitive object is not a "
        f"module-level name of an importable module; define it at module level, e.g. "
        f"`@fg.primitive\\ndef {prim.name}(x): ...` in a module, and build the graph with it"
    )


def op_ref(prim):
    """What a stream says for a node's maker: ``'var'``, ``'const'`` or ``(module, name)``.

    >>> import funcgrad as fg
    >>> op_ref(fg.numpy.sin(fg.var(1.0))._prim), op_ref((fg.var(1.0) * 2.0)._prim)
    (('funcgrad.rules.elementwise', 'sin'), ('funcgrad.rules.elementwise', 'multiply'))
    """
    hit = _refs.get(id(prim))
    if hit is not None and hit[0] is prim:
        return hit[1]
    with _lock:
        ref = _LEAF_REFS[prim] if type(prim) is Leaf else _find_ref(prim)
        _refs[id(prim)] = (prim, ref)  # primitives found by name live as long as their module
    return ref


def resolve_op(ref):
    """The leaf maker or primitive a stream's ``op`` field names (the inverse of :func:`op_ref`)."""
    maker = _resolved.get(ref) if type(ref) in (str, tuple) else None
    if maker is not None:
        return maker
    if type(ref) is str:
        maker = _LEAVES.get(ref)
        if maker is None:
            raise SerializationError(
                f"unknown leaf kind {ref!r} in a funcgrad stream; expected 'var' or 'const'"
            )
    else:
        try:
            modname, qualname = ref
            maker = _lookup(modname, qualname)
        except (ImportError, AttributeError, TypeError, ValueError) as err:
            raise SerializationError(
                f"cannot load primitive {ref!r}: {err}; import or define it under that module "
                f"and name before loading"
            ) from err
        if not isinstance(maker, Primitive):
            raise SerializationError(
                f"{modname}.{qualname} is a {type(maker).__name__}, not a funcgrad primitive; "
                f"the stream was written when that name was a primitive"
            )
    _resolved[ref] = maker
    return maker


def builtin_refs():
    """``{reference: primitive}`` for every primitive of ``funcgrad.rules``."""
    return {ref: prim for prim, ref in _builtin_table().values()}


def moved_primitive(modname, name):
    """funcgrad's primitive that a file names by a rules module it has since moved out of
    (``matmul`` of ``funcgrad.rules.products``, which still imports it), or None.

    >>> moved_primitive("funcgrad.rules.products", "matmul").name
    'matmul'
    >>> moved_primitive("funcgrad.rules.products", "np") is None     # not a primitive
    True
    """
    modname = current_name(modname)
    if modname not in _rule_modules() or not name.isidentifier():
        return None
    try:
        obj = getattr(importlib.import_module(modname), name, None)
    except ImportError:  # an extra's rules (SciPy's) without the extra installed
        return None
    return obj if isinstance(obj, Primitive) and id(obj) in _builtin_table() else None


# -- the node format: reduce_node, registered with copyreg ---------------------
