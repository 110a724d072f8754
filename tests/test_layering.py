"""The package's layering runs one way: no import circle among the modules of ``utils``.

Read from the source with :mod:`ast`, without importing anything. An edge A -> B is an import in A
of B (or of a name B defines): at the top of the module, inside a module-level ``if``/``try`` or, for
the circle test, inside a function too (an import deferred to a call is still an import, and so is
a declaration's ``on_use(__name__, "module:name")``, imported when first used); never one under
``if TYPE_CHECKING:`` (annotations only). Importing ``a.b.c`` also runs ``a`` and ``a.b``, so
those count too. For the layering of the registry and the folders, the registry's discovery, which
imports every dataset folder by name at run time (``importlib``), is an edge from the module that
calls ``pkgutil.iter_modules`` to each folder.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "utils"
#: The package whose sub-packages (the dataset folders) the registry's discovery imports.
DISCOVERED = "datasets"
def module_files(root: Path, package: str) -> dict[str, Path]:
    """Module name -> file, for every module of ``package`` under ``root``."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if "tests" in parts:  # a dataset folder's tests are not part of the package's layering
            continue
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return any(isinstance(node, ast.Name | ast.Attribute) and "TYPE_CHECKING" in ast.unparse(node)
               for node in ast.walk(test))


#: Statements whose body a deferred import may sit in.
_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.For, ast.While)


def _imports(tree: ast.Module, *, deferred: bool) -> list[ast.Import | ast.ImportFrom]:
    """The module's imports outside ``TYPE_CHECKING``; with ``deferred``, those in functions too."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif deferred and isinstance(node, _BLOCKS):
                visit(node.body)
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(tree.body)
    return found


def _on_use_references(tree: ast.Module) -> list[str]:
    """The ``"module:name"`` references of every ``on_use(__name__, "...")`` call in the module."""
    return [
        node.args[1].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "on_use"
        and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
    ]


def import_graph(root: Path, package: str, *, deferred: bool = False, discovery: bool = True) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports (see the module's docstring): at its top level,
    or anywhere with ``deferred``; with ``discovery``, the registry's imports of the folders too."""
    modules = module_files(root, package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets: set[str] = set()
        for node in _imports(tree, deferred=deferred):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                targets.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
        if deferred:  # a declaration's on_use(__name__, "module:name") imports that module when first used
            package = name if is_package else name.rpartition(".")[0]
            targets.update(f"{package}.{reference.split(':', 1)[0]}" for reference in _on_use_references(tree))
        if discovery and "iter_modules" in ast.unparse(tree):  # discovery: imports each folder it finds
            targets.update(
                other
                for other, file in modules.items()
                if file.name == "__init__.py" and other.rpartition(".")[0] == f"{package}.{DISCOVERED}"
            )
        edges = set()
        for target in targets:
            parts = target.split(".")
            for end in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
                prefix = ".".join(parts[:end])
                if prefix in modules and prefix != name and not name.startswith(prefix + "."):
                    edges.add(prefix)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_import_circle_among_the_package_modules() -> None:
    """Every import counts, deferred ones too: ``loading`` importing ``summary`` in a method while
    ``summary`` imported ``loading`` was a circle."""
    found = cycles(import_graph(ROOT, PACKAGE, deferred=True, discovery=False))
    assert not found, "import circles among utils modules (each line one circle):\n" + "\n".join(map(str, found))


def test_the_registry_imports_the_folders_and_no_folder_imports_the_registry() -> None:
    """The registry (``utils.sources``) imports every folder when it discovers them; a folder's
    modules import the schema (``utils.declaration``) and the helpers below it, never the registry.
    Checked on the run-time graph: deferred imports and the discovery together, where the folders'
    own ``reported.py`` once reached the registry through ``utils.reported`` (25 modules in one knot)."""
    graph = import_graph(ROOT, PACKAGE, deferred=True)
    folders = [name for name in graph if name.startswith(f"{PACKAGE}.{DISCOVERED}.")]
    assert folders and not [name for name in folders if f"{PACKAGE}.sources" in graph[name]]
    found = cycles(graph)
    assert not found, "circles through the registry's discovery (each line one):\n" + "\n".join(map(str, found))


def test_the_records_import_nothing_of_the_atlas() -> None:
    """The lowest layer: what a parser builds knows no loader, declaration or configuration."""
    assert import_graph(ROOT, PACKAGE, deferred=True)["utils.records"] == set()


def test_the_schema_imports_nothing_above_it() -> None:
    graph = import_graph(ROOT, PACKAGE)
    assert graph["utils.declaration"] <= {"utils.errors", "utils.text", "utils"}, graph["utils.declaration"]
    assert import_graph(ROOT, PACKAGE, deferred=True)["utils.declaration"] <= {"utils.errors", "utils.text", "utils"}
    assert graph["utils.datasets"] == set(), "the folders' package imports nothing: the registry imports it"


#: The package's concerns from the bottom up (issue 49): the data core (the package's own modules), the
#: book's presentation, teaching, the dataset folders (which use the three below them) and the command
#: line. A module imports only from its own concern and those below it.
CONCERNS = ("core", "book", "teaching", "datasets", "cli")
#: The imports that run up on purpose: the registry's discovery of the folders, and ``python -m utils``.
UP_BY_DESIGN = {("utils.sources", "utils.datasets"), ("utils.__main__", "utils.cli")}


def concern_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in CONCERNS else "core"


def up_pointing(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The imports of ``graph`` from a module to a concern above its own (the package itself excluded:
    importing ``utils.x`` runs ``utils``, which the core owns)."""
    rank = {concern: level for level, concern in enumerate(CONCERNS)}
    return sorted(
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if target.count(".") and rank[concern_of(target)] > rank[concern_of(module)]
    )


def test_the_concerns_run_one_way() -> None:
    """Every import counts, deferred ones too; the core never reaches the book, teaching or the command
    line, and the book never reaches teaching (the cross-dataset chapter's grounding F1 once came from
    the exercise checkers: it is :func:`utils.metrics.selected_evidence_f1`, one definition for both)."""
    found = [edge for edge in up_pointing(import_graph(ROOT, PACKAGE, deferred=True, discovery=False))
             if edge not in UP_BY_DESIGN]
    assert not found, "imports that point up the concerns (module -> what it imports):\n" + "\n".join(map(str, found))


def test_an_import_up_the_concerns_is_found(tmp_path: Path) -> None:
    for name, text in {"utils/__init__.py": "", "utils/loading.py": "def f():\n    from .book import tables\n",
                       "utils/book/__init__.py": "", "utils/book/tables.py": "from ..loading import f\n"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path, "utils", deferred=True, discovery=False)
    assert ("utils.loading", "utils.book.tables") in up_pointing(graph)
    assert ("utils.book.tables", "utils.loading") not in up_pointing(graph)


@pytest.mark.parametrize(
    ("files", "circle"),
    [
        ({"a.py": "from . import b\n", "b.py": "from .a import x\n"}, ["pkg.a", "pkg.b"]),
        ({"a.py": "from .b import y\n", "b.py": "if TYPE_CHECKING:\n    from .a import x\n"}, None),
        ({"a.py": "def f():\n    from .b import y\n", "b.py": "from .a import x\n"}, ["pkg.a", "pkg.b"]),
        (
            {"sub/__init__.py": "from ..a import x\n", "sub/c.py": "", "a.py": "from .sub.c import z\n"},
            ["pkg.a", "pkg.sub"],
        ),
        ({"a.py": "import pkgutil\npkgutil.iter_modules([])\n", "datasets/x/__init__.py": "from ...a import y\n"},
         ["pkg.a", "pkg.datasets.x"]),
        (  # a declaration's reference imported on first use is an import too
            {"a.py": "import pkgutil\npkgutil.iter_modules([])\n",
             "datasets/x/__init__.py": "P = on_use(__name__, 'parser:parse')\n",
             "datasets/x/parser.py": "from ...a import z\n"},
            ["pkg.a", "pkg.datasets.x", "pkg.datasets.x.parser"],
        ),
        (  # the knot of 2026: a folder's declaration reaches, through a call, a module that asks the registry
            {"a.py": "import pkgutil\npkgutil.iter_modules([])\n",
             "datasets/x/__init__.py": "def hook():\n    from .stats import y\n",
             "datasets/x/stats.py": "from ...b import z\n",
             "b.py": "def query():\n    from .a import w\n"},
            ["pkg.a", "pkg.b", "pkg.datasets.x", "pkg.datasets.x.stats"],
        ),
    ],
)
def test_the_circle_finder_finds_circles_and_only_those(
    tmp_path: Path, files: dict[str, str], circle: list[str] | None
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    for name, text in files.items():
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text)
    found = cycles(import_graph(tmp_path, "pkg", deferred=True))
    assert found == ([circle] if circle else [])
