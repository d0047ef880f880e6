"""Each asset's code_version: a hash of the code that builds it, so the UI's stale markers follow real code edits.

The code an asset runs is found by following names from its compute function: a project function or class defined in
defs/ is followed function by function (the wiring modules hold many assets, and an edit to one asset's wiring leaves
the others current); outside defs/ the syntax tree is followed from each name to the top-level statement that binds
it (a function, a class with all its methods, a constant), then to every name that statement uses, in its module or
imported from another project module, and to the statements of a module that bind nothing. Sources are hashed as
syntax trees without docstrings and decorators, so a comment, a docstring, an asset's description or reformatting
changes no version. A method of a resource the function is handed (a parameter annotated with its class) is followed
like a wiring function when the function calls it (`generator.adapter(settings)`), so the generators and embedders
written here are versioned with the assets that use them; a model behind an endpoint is named by its id in the data.
A method called on an object the asset was handed, of a class it never names, is not followed: the classes the graph
passes around are built, and so named, by the code that makes them.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import inspect
import json
import marshal
import os
import socket
import sys
import textwrap
import types
from functools import cache
from importlib.metadata import distributions
from pathlib import Path

import dagster as dg

PACKAGE = "edgar_eval"
_WIRING = f"{PACKAGE}.defs."
# How a table is stored is not part of what an asset computes: editing the store moves no figure, and would otherwise
# mark (and rebuild) every asset. The store's own tests, and the report's byte identity across stores, guard it.
STORAGE = frozenset({f"{PACKAGE}.adapters.parquet_store", f"{PACKAGE}.adapters.files"})


def _without_docstrings(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree, annotate_fields=False, include_attributes=False)


class _Module:
    """A project module's top-level bindings, read from its syntax tree: what each name is bound by, and the
    statements that bind nothing (run whenever the module is)."""

    def __init__(self, name: str) -> None:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        self.name = name
        self.package = name if spec.submodule_search_locations is not None else name.rpartition(".")[0]
        self.bindings: dict[str, list[ast.stmt]] = {}
        self.loose: list[ast.stmt] = []
        self.position: dict[int, int] = {}
        for position, node in enumerate(ast.parse(Path(spec.origin).read_text(encoding="utf-8")).body):
            self.position[id(node)] = position
            bound = _bound_names(node)
            if bound is None:
                self.loose.append(node)
            for bound_name in bound or ():
                self.bindings.setdefault(bound_name, []).append(node)

        self._statements: dict[int, tuple[str, list[tuple[str, str | None]]]] = {}
        self.loose_digest = _digest(ast.Module(body=self.loose, type_ignores=[]))

    def absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        return importlib.util.resolve_name("." * node.level + (node.module or ""), self.package)

    def statement(self, node: ast.stmt) -> tuple[str, list[tuple[str, str | None]]]:
        """A top-level statement's digest and the (module, name) pairs it reaches: names of this module, names
        imported from project modules, `module.attribute`. Read once per statement, whichever asset reaches it."""
        position = self.position[id(node)]
        if position not in self._statements:
            reached: list[tuple[str, str | None]] = []
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom):
                    source = self.absolute(inner)
                    reached.extend((source, alias.name) for alias in inner.names)
                elif isinstance(inner, ast.Import):
                    reached.extend((alias.name, None) for alias in inner.names)
                elif isinstance(inner, ast.Name) and inner.id in self.bindings:
                    reached.extend(_through_imports(self, inner.id))
                elif isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name):
                    imported = _imported_module(self, inner.value.id)
                    if imported is not None and _is_module(imported):
                        reached.append((imported, inner.attr))
            self._statements[position] = (_digest(node), reached)
        return self._statements[position]


def _bound_names(node: ast.stmt) -> list[str] | None:
    """The names a top-level statement binds; None for a statement that binds none (a docstring binds nothing and
    is not code: an empty list)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)]
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return []
    return None


@cache
def _module(name: str) -> _Module:
    return _Module(name)


@cache
def _is_module(name: str) -> bool:
    """Is `name` a module of the project, found from its source files whether or not it is loaded yet? A version must
    not depend on what a process happened to import before computing it (a module a function imports where it uses
    it is loaded by one entry point and not another)."""
    if not name.startswith(PACKAGE):
        return False
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin is not None and spec.origin.endswith(".py")


def _digest(node: ast.AST) -> str:
    return hashlib.sha256(_without_docstrings(node).encode()).hexdigest()


def _symbol_closure(module_name: str, symbol: str | None, units: dict[str, str]) -> None:
    """Add to `units` the top-level statements of `module_name` that bind `symbol` (every statement when None), and
    what they reach: names of the same module, names imported from project modules, `module.attribute`."""
    pending: list[tuple[str, str | None]] = [(module_name, symbol)]
    while pending:
        name, wanted = pending.pop()
        if (
            not name.startswith(PACKAGE)
            or not _is_module(name)
            or name.startswith(_WIRING)
            or name == PACKAGE
            or name in STORAGE
        ):
            continue
        module = _module(name)
        if wanted is None:
            nodes = [node for group in module.bindings.values() for node in group]
        elif _is_module(f"{name}.{wanted}"):  # `from package import submodule`
            pending.append((f"{name}.{wanted}", None))
            continue
        else:
            nodes = module.bindings.get(wanted, [])
        if f"{name}:" not in units:  # the statements that run with the module, whatever is reached of it
            units[f"{name}:"] = module.loose_digest
            nodes = nodes + module.loose
        for node in nodes:
            key = f"{name}:{module.position[id(node)]}"  # the statement's place, not its line: comments move lines
            if key not in units:
                units[key], reached = module.statement(node)
                pending.extend(reached)


def _through_imports(module: _Module, name: str) -> list[tuple[str, str | None]]:
    """A name of the module: itself, or where an import statement brings it from."""
    found: list[tuple[str, str | None]] = [(module.name, name)]
    for node in module.bindings[name]:
        if isinstance(node, ast.ImportFrom):
            source = module.absolute(node)
            found += [(source, alias.name) for alias in node.names if (alias.asname or alias.name) == name]
    return found


def _imported_module(module: _Module, name: str) -> str | None:
    """The project module a top-level name of `module` is bound to by an import, if it is one."""
    for node in module.bindings.get(name, []):
        if isinstance(node, ast.Import):
            return next((alias.name for alias in node.names if (alias.asname or alias.name) == name), None)
        if isinstance(node, ast.ImportFrom):
            source = module.absolute(node)
            for alias in node.names:
                if (alias.asname or alias.name) == name and _is_module(f"{source}.{alias.name}"):
                    return f"{source}.{alias.name}"
    return None


@cache
def _function_digest(function: types.FunctionType) -> str:
    """The function's syntax tree without docstrings and decorators; its compiled code where the source cannot be read
    back as a statement (a lambda inside an expression)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, SyntaxError):
        return hashlib.sha256(marshal.dumps(_positionless(function.__code__))).hexdigest()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.decorator_list = []  # `@dg.asset(description=...)`: what the UI shows, not what the asset computes
    return _digest(tree)


def _positionless(code: types.CodeType) -> types.CodeType:
    """The code without its line numbers, so moving it in its file changes nothing."""
    constants = tuple(_positionless(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=1, co_linetable=b"", co_consts=constants)


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names) | set(code.co_freevars)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _code_names(constant)
    return names


def _resolve(function: types.FunctionType, name: str) -> object | None:
    if function.__closure__:
        for free, cell in zip(function.__code__.co_freevars, function.__closure__, strict=True):
            if free == name:
                try:
                    return cell.cell_contents
                except ValueError:  # a cell not yet filled: a name defined later in the enclosing function
                    return None
    return function.__globals__.get(name)


def _handed(function: types.FunctionType, resources: tuple[type, ...]) -> list[type]:
    """The resource classes a function is handed: those its parameters are annotated with (`embedder:
    EmbedderResource`), and its own class for a method of one. Only their members are followed, so `embedder.adapter()`
    reaches the embedders and not the generators, whose resource has a method of the same name."""
    annotations = [
        annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        for name, annotation in inspect.get_annotations(function).items()
        if name != "return"
    ]
    return [
        resource
        for resource in resources
        if resource.__name__ in annotations or function.__qualname__.startswith(f"{resource.__qualname__}.")
    ]


def reached_code(function: types.FunctionType, resources: tuple[type, ...] = ()) -> dict[str, str]:
    """Each unit of project code the function reaches (a wiring function or class, or a top-level statement of a pure
    module) and its digest. `resources`: classes of the resources assets are handed; a name the function uses that is
    a method or property of one it is handed is followed as if called (`generator.adapter(settings)` reaches the
    generators)."""
    units: dict[str, str] = {}
    functions: list[types.FunctionType] = [function]
    symbols: list[tuple[str, str | None]] = []
    seen: set[int] = set()
    while functions:
        current = functions.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        units[f"{current.__module__}.{current.__qualname__}"] = _function_digest(current)
        wiring = _module(current.__module__)
        handed = _handed(current, resources)
        for name in sorted(_code_names(current.__code__)):
            for resource in handed:
                member = inspect.getattr_static(resource, name, None)
                member = member.fget if isinstance(member, property) else member
                if isinstance(member, types.FunctionType) and member.__module__.startswith(PACKAGE):
                    functions.append(member)
            if name in wiring.bindings:  # a constant imported from a pure module has no __module__ of its own
                symbols.extend(_through_imports(wiring, name)[1:])
            target = _resolve(current, name)
            if callable(target) and hasattr(target, "__wrapped__"):  # functools.cache and the like: the function
                target = inspect.unwrap(target)
            if isinstance(target, types.ModuleType):
                symbols.append((target.__name__, None))  # `module.attribute`: the names are not paired here
                continue
            module = getattr(target, "__module__", None)
            if not isinstance(module, str) or not module.startswith(PACKAGE) or module in STORAGE:
                continue
            if module.startswith(_WIRING) and isinstance(target, types.FunctionType):
                functions.append(target)
            elif module.startswith(_WIRING) and isinstance(target, type):
                units[f"{module}.{target.__qualname__}"] = _digest(
                    ast.parse(textwrap.dedent(inspect.getsource(target)))
                )
            else:
                symbols.append((module, getattr(target, "__name__", name)))
    for module, symbol in symbols:
        _symbol_closure(module, symbol, units)
    return units


def code_version_of(function: types.FunctionType, resources: tuple[type, ...] = ()) -> str:
    digest = hashlib.sha256()
    for unit, unit_digest in sorted(reached_code(function, resources).items()):
        digest.update(f"{unit}\0{unit_digest}\n".encode())
    return digest.hexdigest()[:16]


def with_code_versions(assets: list[dg.AssetsDefinition], resources: tuple[type, ...]) -> list[dg.AssetsDefinition]:
    """The assets with each code_version set to the hash of the code its compute function reaches.

    Following the code of every asset takes seconds (each project module parsed, every statement reached hashed), and
    every process that loads the graph does it: the CLI before each run, the UI, the daemon, each worker. A version is
    a function of the package's source alone, so the versions found are kept in the instance's folder
    (`$DAGSTER_HOME/code_versions/`, in a file named by the hash of every source file of the package) and read back
    while no source file has changed; an edit anywhere in the package names another file."""
    cache = _VersionCache.load()
    versioned = []
    for asset in assets:
        function = asset.op.compute_fn.decorated_fn
        entry = _VersionCache.entry(asset, function, resources)
        version = cache.versions.get(entry) if entry else None
        if version is None:
            version = code_version_of(function, resources)
            if entry:
                cache.versions[entry] = version
                cache.added = True
        versioned.append(
            asset.map_asset_specs(lambda spec, version=version: spec.replace_attributes(code_version=version))
        )
    cache.save()
    return versioned


@cache
def package_source_digest() -> str:
    """The sha256 of every source file of the package, by path: what the code versions are a function of, and what a
    receipt names the code by."""
    digest = hashlib.sha256()
    root = Path(sys.modules[PACKAGE].__file__ or "").parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class _VersionCache:
    """The code versions found under one package source: a JSON file of `module.function|asset|resources` ->
    version in the instance's folder. With no DAGSTER_HOME (the graph built in a test), or a folder that cannot be
    written (a read-only deployment's), the versions are found every time."""

    def __init__(self, path: Path | None, versions: dict[str, str]) -> None:
        self.path, self.versions, self.added = path, versions, False

    @classmethod
    def load(cls) -> _VersionCache:
        home = os.environ.get("DAGSTER_HOME")
        if not home:
            return cls(None, {})
        # the interpreter's tag too: a syntax tree's dump, which the versions hash, can differ between Pythons
        path = Path(home) / "code_versions" / f"{package_source_digest()[:16]}.{sys.implementation.cache_tag}.json"
        try:
            versions = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or cut short by a killed process: found again
            versions = {}
        return cls(path, versions if isinstance(versions, dict) else {})

    @staticmethod
    def entry(asset: dg.AssetsDefinition, function: types.FunctionType, resources: tuple[type, ...]) -> str | None:
        """The cache's name for an asset's version; None for a function outside the package (a test's own asset),
        whose source the package's digest does not cover."""
        if not function.__module__.startswith(f"{PACKAGE}."):  # not edgar_eval_tests: the digest does not cover it
            return None
        keys = ",".join(sorted(key.to_user_string() for key in asset.keys))
        return f"{function.__module__}.{function.__qualname__}|{keys}|{','.join(r.__qualname__ for r in resources)}"

    def save(self) -> None:
        if not self.added or self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f"{self.path.name}.{socket.gethostname()}.{os.getpid()}.tmp")
            partial.write_text(json.dumps(self.versions, sort_keys=True), encoding="utf-8")
            os.replace(partial, self.path)  # whole or not at all: another process may be reading it
            for earlier in self.path.parent.glob("*.json"):  # an earlier source's versions are never read again
                if earlier != self.path:
                    earlier.unlink(missing_ok=True)
        except OSError:
            pass  # a folder that cannot be written: the versions are found again next time


@cache
def installed_packages() -> dict[str, str]:
    """Every installed distribution's version: an upgraded library (pandas, torch, bm25s) can move a figure."""
    return {dist.metadata["Name"]: dist.version for dist in distributions() if dist.metadata["Name"]}
