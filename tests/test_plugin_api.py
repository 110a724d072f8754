"""What a dataset's folder uses of the package is public: no private module (``_io``, ``_html``,
``_cache``, ...) and no private name of a shared module is imported from ``utils/datasets/**`` or the
toy datasets the tests add. Read from the source with :mod:`ast`."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [ROOT / "utils" / "datasets", ROOT / "tests" / "datasets", ROOT / "tests" / "second_dataset",
           ROOT / "tests" / "archive_dataset", ROOT / "tests" / "sharded_dataset"]


def _module_of(path: Path) -> list[str]:
    return list(path.relative_to(ROOT).with_suffix("").parts)


def _import_target(package: list[str], node: ast.ImportFrom) -> list[str]:
    """The parts of the module ``from ... import`` names, relative imports resolved from ``package``."""
    base = package[: len(package) - (node.level - 1)] if node.level else []
    return base + (node.module.split(".") if node.module else [])


def private_imports(path: Path) -> list[str]:
    """``module: name`` of every import in ``path`` that reaches a private module of the package, or a
    private name of a module outside the file's own dataset folder."""
    package = _module_of(path)[:-1]
    folder = package[: package.index("datasets") + 2] if "datasets" in package else package
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = _import_target(package, node)
            if target[:1] != ["utils"] and not node.level:
                continue
            if any(part.startswith("_") for part in target):
                found.append(f"{'.'.join(target)}: {', '.join(alias.name for alias in node.names)}")
                continue
            inside_folder = target[: len(folder)] == folder
            for alias in node.names:
                if alias.name.startswith("_") and not inside_folder:
                    found.append(f"{'.'.join(target)}: {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("utils") and any(part.startswith("_") for part in alias.name.split(".")):
                    found.append(alias.name)
    return found


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a name of a module, not a module of a package
        return False


def folder_imports(path: Path) -> dict[str, set[str]]:
    """The modules of the atlas outside the dataset folders that ``path`` imports, each with the names it
    takes (a module imported whole, ``from utils import scoring``, takes the attributes the file reads)."""
    package = _module_of(path)[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    taken: dict[str, set[str]] = {}
    whole: dict[str, str] = {}  # local name -> module, for modules imported whole
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = ".".join(_import_target(package, node))
            if not target.startswith("utils") or target.startswith("utils.datasets"):
                continue
            for alias in node.names:
                module = f"{target}.{alias.name}"
                if _is_module(module):
                    whole[alias.asname or alias.name] = module
                    taken.setdefault(module, set())
                else:
                    taken.setdefault(target, set()).add(alias.name)
        elif isinstance(node, ast.Import):  # ``import utils.x as x``: a module imported whole, too
            for alias in node.names:
                if alias.name.startswith("utils.") and not alias.name.startswith("utils.datasets"):
                    whole[alias.asname or alias.name] = alias.name
                    taken.setdefault(alias.name, set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in whole:
            taken[whole[node.value.id]].add(node.attr)
    return taken


def documented_api() -> dict[str, str]:
    """Module -> its row's text, from the table of ``book/contributing.md``."""
    guide = (ROOT / "book" / "contributing.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `(utils[\w.]*)` \| (.*) \|$", guide, flags=re.MULTILINE))


def test_the_guide_s_table_is_the_api_the_folders_use() -> None:
    """Every module a folder imports, and every name it takes, is in the guide's table; and every module
    of the table is used by some folder (a row no folder needs is not the plugin API)."""
    documented = documented_api()
    used: dict[str, set[str]] = {}
    for path in FILES:
        for module, names in folder_imports(path).items():
            used.setdefault(module, set()).update(names)
    assert set(used) == set(documented), (set(used) ^ set(documented))
    missing = {module: sorted(name for name in names if f"`{name}`" not in documented[module])
               for module, names in used.items()}
    assert not any(missing.values()), {module: names for module, names in missing.items() if names}


FILES = sorted(
    path for folder in FOLDERS for path in folder.rglob("*.py") if "tests" not in path.relative_to(folder).parts
)


def test_there_are_dataset_files_to_read() -> None:
    assert len(FILES) > 20


@pytest.mark.parametrize("path", FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_dataset_folder_imports_only_the_public_api(path: Path) -> None:
    assert private_imports(path) == []


def test_the_scan_finds_a_private_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "utils" / "datasets" / "toy"
    folder.mkdir(parents=True)
    (folder / "parser.py").write_text(
        "from ...formats._io import require\nfrom ...teaching.exercises import _fail, check_turn_count\n"
        "from .render import _own_helper\nfrom ...formats import iter_json_lines\n"
    )
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert private_imports(folder / "parser.py") == ["utils.formats._io: require", "utils.teaching.exercises: _fail"]


@pytest.mark.parametrize(
    "module", ["utils.formats", "utils.book.render.html", "utils.teaching.checking", "utils.declaration"]
)
def test_the_plugin_modules_document_every_public_name(module: str) -> None:
    imported = importlib.import_module(module)
    names = getattr(imported, "__all__", [name for name in vars(imported) if not name.startswith("_")])
    for name in names:
        value = getattr(imported, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            assert inspect.getdoc(value), f"{module}.{name} has no docstring"
        assert f"{name}" in (imported.__doc__ or "") or inspect.getdoc(value), f"{module}.{name} is not documented"


def test_the_guide_gives_each_record_constructor_its_parameters_in_order() -> None:
    import re

    from utils import records

    guide = (ROOT / "book" / "contributing.md").read_text(encoding="utf-8")
    for record in (records.Evidence, records.Turn, records.Dialogue):
        documented = re.search(rf"^{record.__name__}\((.*?)\)$", guide, re.MULTILINE | re.DOTALL)
        assert documented, f"book/contributing.md gives no signature of {record.__name__}"
        names = re.findall(r"(?:^|,\s*)(\w+):", documented.group(1))
        assert names == list(inspect.signature(record).parameters), record.__name__
        assert record.__doc__ and f"{record.__name__}(" in record.__doc__


#: The data viewer's hooks, found in the folder's ``viewer.py`` (``search_text`` in its ``render.py``), not fields.
VIEWER_HOOKS = {"search_text", "facets", "columns", "search_words", "viewer_rows", "viewer_queries"}


def test_the_declaration_is_split_by_concern() -> None:
    import dataclasses

    from utils.declaration import ChapterFacts, DatasetSource, Loader

    own = {field.name for field in dataclasses.fields(DatasetSource)}
    assert len(own) <= 15, sorted(own)
    assert not own & VIEWER_HOOKS, "viewer hooks are found in the folder's viewer.py, not wired field by field"
    assert {"loader", "chapter"} <= own and "render" not in own and "parse" not in own
    loader = {field.name for field in dataclasses.fields(Loader)}
    assert {"splits", "parse", "parser_version", "label_keys", "card_formats"} <= loader
    assert {"reported", "chapter_splits", "profile"} <= {field.name for field in dataclasses.fields(ChapterFacts)}


def test_a_declaration_reads_its_parts_and_is_replaced_part_by_part() -> None:
    from utils.declaration import Deferred
    from utils.sources import registry

    for source in registry().values():
        declared = source.loader.parse
        assert source.parse is (declared.resolve() if isinstance(declared, Deferred) else declared)
        assert callable(source.parse) and isinstance(source.parser_version, int)
        assert source.reported == source.chapter.reported
        assert callable(source.render)  # render.py of its folder
    source = next(iter(registry().values()))
    changed = source.replace(parser_version=source.parser_version + 1, title="Another")
    assert changed.loader.parser_version == source.parser_version + 1 and changed.title == "Another"
    assert changed.loader.splits is source.loader.splits and source.title != "Another"


def test_a_reference_on_use_is_imported_when_first_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from utils.declaration import Deferred, on_use

    (tmp_path / "folder_on_use").mkdir()
    (tmp_path / "folder_on_use" / "__init__.py").write_text("", encoding="utf-8")
    parser = "VERSION = 3\ndef parse(x):\n    return x * 2\n"
    (tmp_path / "folder_on_use" / "parser.py").write_text(parser, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    reference = on_use("folder_on_use", "parser:parse")
    assert reference == Deferred("folder_on_use.parser", "parse") and "folder_on_use.parser" not in sys.modules
    assert reference(21) == 42 and on_use("folder_on_use", "parser:VERSION").resolve() == 3
    with pytest.raises(ValueError, match="module:name"):
        on_use("folder_on_use", "parse")


def test_viewer_hooks_are_found_in_the_folders_viewer_module() -> None:
    from utils.book import viewer_fields
    from utils.sources import registry

    found = 0
    for source in registry().values():
        module = viewer_fields.viewer_hooks(source.name)
        if module is None:
            continue
        for hook, name in (("facets", "facets"), ("columns", "columns"), ("viewer_rows", "rows")):
            own = [getattr(module, candidate) for candidate in source._hook_names(name) if hasattr(module, candidate)]
            assert getattr(source, hook) is (own[0] if own else None), (source.name, hook)
            found += bool(own)
        assert source.viewer_queries == tuple(getattr(module, "QUERIES", ()))
    assert found >= 10  # every folder of the atlas has a viewer.py with facets and columns


def test_a_folder_of_two_datasets_gives_each_its_own_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dataset named as its folder reads the plain names; the other, its own part in front first."""
    import utils.datasets
    from utils import sources
    from utils.book import viewer_fields

    folder = tmp_path / "pair"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        "from pathlib import Path\n"
        "from utils.declaration import DatasetSource, Loader, on_use\n"
        "def _source(name):\n"
        "    return DatasetSource(name=name, title=name, language='English', format='', homepage='', license='',\n"
        "        citation_key='', folder=Path(__file__).parent,\n"
        "        loader=Loader(splits={}, parse=on_use(__name__, 'parser:parse'), parser_version=1))\n"
        "DATASETS = (_source('pair'), _source('pair_audit'))\n",
        encoding="utf-8",
    )
    (folder / "viewer.py").write_text(
        "def facets(dialogue): return {'shared': []}\n"
        "def columns(dialogue): return {'plain': 1.0}\n"
        "def audit_columns(dialogue): return {'audit': 2.0}\n"
        "def audit_rows(dialogues, rows): return rows\n"
        "QUERIES = (('plain', 'SELECT 1', ()),)\n"
        "AUDIT_QUERIES = (('audit', 'SELECT 2', ()),)\n"
        "SINGLE_LABELS = ('plain',)\n"
        "AUDIT_SINGLE_LABELS = ('audit',)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(utils.datasets, "__path__", [*utils.datasets.__path__, str(tmp_path)])
    sources.discovered.cache_clear()
    try:
        pair, audit = sources.get_source("pair"), sources.get_source("pair_audit")
        assert pair.facets is audit.facets  # shared: a plain name
        assert pair.columns is not None and pair.columns(None) == {"plain": 1.0}  # type: ignore[arg-type]
        assert audit.columns is not None and audit.columns(None) == {"audit": 2.0}  # type: ignore[arg-type]
        assert pair.viewer_rows is None and audit.viewer_rows is not None
        assert [title for title, _, _ in pair.viewer_queries] == ["plain"]
        assert [title for title, _, _ in audit.viewer_queries] == ["audit"]
        assert viewer_fields.single_labels("pair") == ("plain",)
        assert viewer_fields.single_labels("pair_audit") == ("audit",)
        assert pair.search_text is None and pair.search_words is None  # no render.py, no search_words
        assert "utils.datasets.pair.parser" not in sys.modules  # declared, never imported
    finally:
        sources.discovered.cache_clear()
        for name in [name for name in sys.modules if name.startswith("utils.datasets.pair")]:
            del sys.modules[name]


def test_label_vocabularies_are_declared() -> None:
    from utils.sources import registry

    declared = {
        (name, key): source.loader.label_vocabulary(key)
        for name, source in registry().items()
        for key in source.label_keys
    }
    assert any(declared.values()), "no label vocabulary is declared in any card format"


def test_every_attribute_of_a_part_is_a_typed_property_of_the_dataset() -> None:
    """The parts' fields are read through properties with return types (no ``__getattr__``), so the type
    check sees them; a field added to a part without its property fails here."""
    from utils.declaration import _PARTS, DatasetSource

    assert "__getattr__" not in vars(DatasetSource)
    for names in _PARTS.values():
        for name in names:
            member = vars(DatasetSource).get(name)
            assert isinstance(member, property), name
            assert member.fget is not None and member.fget.__annotations__.get("return"), name


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_the_type_check_fails_on_a_misspelt_attribute_of_a_part(tmp_path: Path) -> None:
    """``make lint`` runs mypy with the project's settings: a misspelt forwarded attribute is an error."""
    import subprocess

    checked = tmp_path / "misspelt.py"
    checked.write_text("from utils.sources import get_source\n\n\ndef version() -> int:\n"
                       "    return get_source('x').parser_versoin\n\n\ndef right() -> int:\n"
                       "    return get_source('x').parser_version\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(tmp_path / "cache"), "--follow-imports", "silent", str(checked)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 1, done.stdout
    assert 'has no attribute "parser_versoin"' in done.stdout and done.stdout.count("error:") == 1, done.stdout
