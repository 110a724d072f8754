"""Untrusted text stays text: dataset strings built to inject HTML or script render inert everywhere.

Every demo dialogue of every dataset is copied with an injection string put into every string it
holds (turn text, speaker, topic, ids, evidence text and titles, label values, every string in
``raw`` and ``meta``, plus an extra key named by the payload), once appended to the original value
and once replacing it. The copy goes through each renderer in :mod:`utils.book.render` (with its boolean
options both ways), the widgets (:func:`utils.book.widgets.browse` and the dataset viewers), a chapter's
view (its pinned dialogues, and the renderings it writes for the data viewer) and the provenance
banner. The output is parsed with :mod:`html.parser` and must hold:

* no element outside the renderers' own vocabulary (no ``script``, ``img``, ``svg``, ``iframe`` ...;
  the only ``script`` allowed is a chapter view's ``type="application/json"`` data block);
* no event-handler attribute, and every ``href``/``src`` is an in-page anchor or plain http(s);
* properly nested tags (an injected ``</div>`` would close the renderer's element early);
* no comment or declaration, and the payload itself readable as text in the page.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import itertools
import json
from collections.abc import Callable, Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from utils.book.render import stylesheet
from utils.loading import DEMO, OFFICIAL, PARTIAL, USER_COPY, Provenance, parse_file
from utils.records import Dialogue
from utils.sources import dataset_names, get_source, split_names

#: The injection strings (each must come out as text). ``PWN`` marks them in failure messages.
INJECTIONS = [
    '<script>alert("PWN1")</script>',
    "<img src=x onerror=alert('PWN2')>",
    '"><svg onload=alert("PWN3")>',
    "'><iframe src=javascript:alert('PWN4')></iframe>",
    "</div></div></li></ul></details></section><script>alert('PWN5')</script>",
    "javascript:alert('PWN6')",
    '" onmouseover="alert(\'PWN7\')" data-x="',
    "' onfocus='alert(\"PWN8\")' autofocus x='",
    "<a href=\"javascript:alert('PWN9')\">click PWN9</a>",
    "</textarea></style></script><b onclick=alert('PWN10')>bold</b>",
    "<!-- PWN11 --><script>alert(11)</script>",
    "&lt;script&gt;alert('PWN12')&lt;/script&gt;",
    "]]><![CDATA[<script>alert('PWN13')</script>]]>",
    "<style>*{display:none}</style>PWN14",
    "\u2028\u2029</script><script>alert('PWN15')</script>",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgnUFdOMTYnKTwvc2NyaXB0Pg==",
    "<math><mi xlink:href=\"javascript:alert('PWN17')\">x</mi></math>",
    "<ScRiPt>alert('PWN18')</sCrIpT>",
    "javascript:alert('PWN19')//https://ja.wikipedia.org/wiki/X",
    '<div class="atlas-turn" style="position:fixed;inset:0">PWN20</div>',
    "{{constructor.constructor('alert(\"PWN21\")')()}} ${alert('PWN21')}",
    "<details open ontoggle=alert('PWN22')>",
]

#: Every element a renderer, widget or chapter view of the atlas may produce.
ALLOWED_TAGS = {
    "a", "blockquote", "br", "button", "code", "del", "details", "div", "em", "figcaption", "figure", "h3", "h4",
    "input", "ins",
    "label", "li", "mark", "ol", "option", "p", "section", "select", "small", "span", "strong", "style",
    "summary", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul", "script",
}  # fmt: skip
#: Every attribute they may set (anything else, such as ``onerror`` or a name made of a broken-out
#: quote, came from the data).
ALLOWED_ATTRIBUTES = {
    "aria-keyshortcuts", "aria-label", "aria-live", "autocomplete", "class", "colspan", "data-index", "data-split",
    "data-viewer-page", "hidden", "href", "id", "lang", "open", "placeholder", "readonly", "rel", "role", "rowspan",
    "start", "tabindex", "target", "title", "type",
}  # fmt: skip
VOID = {"br", "input", "img", "hr", "meta", "link", "wbr", "col", "source", "area", "base", "embed", "param"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "srcset", "poster", "background"}

# -- checking HTML -------------------------------------------------------------------------------------


class _Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.stack: list[str] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in_script = False

    def _start(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raw = self.get_starttag_text() or tag
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"element <{tag}> from {raw[:80]!r}")
        names = {name for name, _ in attrs}
        if tag == "script" and dict(attrs).get("type") != "application/json":
            self.problems.append(f"executable script element {raw[:80]!r}")
        for name, value in attrs:
            if name not in ALLOWED_ATTRIBUTES:
                self.problems.append(f"attribute {name}= in {raw[:80]!r}")
            if name in URL_ATTRIBUTES and not _safe_url(value or ""):
                self.problems.append(f"unsafe {name}={value!r}")
            if name == "style":
                self.problems.append(f"inline style in {raw[:80]!r}")
        if len(names) != len(attrs):
            self.problems.append(f"duplicated attribute in {raw[:80]!r}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)
        self._in_script = tag in ("script", "style")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if not self._in_script:
            self.text.append(data)
        elif self.stack and self.stack[-1] == "style":
            self.styles.append(data)
        else:
            self.scripts.append(data)

    def handle_comment(self, data: str) -> None:
        self.problems.append(f"comment <!--{data[:60]}-->")

    def handle_decl(self, decl: str) -> None:
        self.problems.append(f"declaration <!{decl[:60]}>")

    def unknown_decl(self, data: str) -> None:
        self.problems.append(f"declaration <![{data[:60]}>")

    def handle_pi(self, data: str) -> None:
        self.problems.append(f"processing instruction <?{data[:60]}>")


def _safe_url(value: str) -> bool:
    """An in-page anchor, plain http(s), or a link up the book's own tree (a chapter view's link to its
    viewer page, ``../book/viewer/<dataset>.html#...``): no scheme such as ``javascript:``."""
    compact = "".join(ch for ch in value if ch > " ").lower()
    return compact.startswith(("#", "http://", "https://")) or (
        compact.startswith("../book/") and ":" not in compact.split("#", 1)[0]
    )


def audit(html: str, where: str) -> _Audit:
    """Parse ``html`` and fail with every problem found, its JSON data block included."""
    parser = _Audit()
    parser.feed(html)
    parser.close()
    if parser.stack:
        parser.problems.append(f"unclosed elements {parser.stack}")
    assert not parser.problems, f"{where}: " + "; ".join(parser.problems[:5])
    for block in parser.styles:  # the only CSS allowed is the atlas's own stylesheet
        assert f"<style>{block}</style>" == stylesheet(), f"{where}: a style element not from the atlas"
    for block in parser.scripts:
        assert "</script" not in block.lower(), f"{where}: the JSON data block could be closed early"
        # the splits a compact view shows: plain data, shown by the viewer with textContent only
        splits = json.loads(block)["viewer"]
        assert all(isinstance(value, str) for split in splits for value in split.values()), where
    return parser


def text_of(parser: _Audit) -> str:
    return "".join(parser.text)


# -- hostile dialogues ----------------------------------------------------------------------------------

_FIXED = {"role", "dataset", "split"}  # normalised values the loader guarantees, not dataset text


def _poison(value: Any, payload: str, mode: str) -> Any:
    if isinstance(value, str):
        return value + payload if mode == "append" else payload
    if isinstance(value, list):
        return [_poison(item, payload, mode) for item in value]
    if isinstance(value, dict):
        poisoned = {key: _poison(item, payload, mode) for key, item in value.items()}
        poisoned.setdefault(payload, [payload])
        return poisoned
    return value


def hostile(dialogue: Dialogue, payload: str, mode: str) -> Dialogue:
    """A deep copy of ``dialogue`` with ``payload`` in every string (keys kept, one key added)."""

    def poison_fields(record: Any) -> Any:
        changes = {}
        for f in dataclasses.fields(record):
            value = getattr(record, f.name)
            if f.name in _FIXED or f.name in {"turns", "evidence"}:
                continue
            if f.name == "labels":
                changes[f.name] = {k: [_poison(v, payload, mode) for v in vs] for k, vs in value.items()} | {
                    payload: [payload]
                }
            elif value is not None:
                changes[f.name] = _poison(value, payload, mode)
            elif f.name in {"topic", "title"}:
                changes[f.name] = payload
        return dataclasses.replace(record, **changes)

    turns = [
        dataclasses.replace(poison_fields(turn), evidence=[poison_fields(item) for item in turn.evidence])
        for turn in dialogue.turns
    ]
    return dataclasses.replace(poison_fields(dialogue), turns=turns)


def _demo_dialogues(dataset: str) -> list[Dialogue]:
    dialogues: list[Dialogue] = []
    for split, files in get_source(dataset).splits.items():
        demo = get_source(dataset).demo_dir / files[0].path
        if demo.is_file():
            dialogues.extend(parse_file(dataset, demo, split))
    return dialogues


def _renderer(dataset: str) -> Callable[..., str]:
    return get_source(dataset).render


def _option_sets(render: Callable[..., str]) -> Iterator[dict[str, Any]]:
    """Every combination of the renderer's boolean options (and a hostile ``note`` where accepted)."""
    parameters = inspect.signature(render).parameters
    flags = [name for name, p in parameters.items() if isinstance(p.default, bool)]
    for values in itertools.product([True, False], repeat=len(flags)):
        options: dict[str, Any] = dict(zip(flags, values, strict=True))
        if "note" in parameters:
            options["note"] = INJECTIONS[0]
        yield options


DATASETS = dataset_names()

# -- the tests -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", DATASETS)
def test_renderers_keep_injected_text_inert(dataset: str) -> None:
    render = _renderer(dataset)
    dialogues = _demo_dialogues(dataset)
    assert dialogues, f"no demo sample for {dataset}"
    checked = 0
    option_sets = list(_option_sets(render))
    for options in option_sets:
        for dialogue in dialogues:
            audit(str(render(dialogue, **options)), f"{dataset} {dialogue.id} unmodified {options}")
    # Each injection meets every dialogue; the option combinations take turns (all are covered).
    for number, (payload, mode) in enumerate(itertools.product(INJECTIONS, ["append", "replace"])):
        options = option_sets[number % len(option_sets)]
        for dialogue in dialogues:
            where = f"{dataset} dialogue {dialogue.id!r} {mode} {payload!r} {options}"
            parser = audit(str(render(hostile(dialogue, payload, mode), **options)), where)
            assert payload in text_of(parser), f"{where}: the payload does not show as text"
            checked += 1
    assert checked >= len(INJECTIONS) * 2


@pytest.mark.parametrize("dataset", DATASETS)
def test_browse_widget_keeps_injected_text_inert(dataset: str) -> None:
    from utils.book.widgets import browse

    dialogues = _demo_dialogues(dataset)[:2]
    assert dialogues, f"no demo sample for {dataset}"
    for payload in INJECTIONS:
        browser = browse([hostile(d, payload, "append") for d in dialogues])
        audit(browser.view.value, f"browse {dataset} {payload!r}")
        browser.search.value = payload  # the search box echoes nothing into HTML
        audit(browser.view.value, f"browse {dataset} after searching {payload!r}")
        audit(browser.status.value, f"browse status {dataset} {payload!r}")
        browser.search.value = "PWN-no-such-text"
        audit(browser.view.value + browser.status.value, f"browse {dataset} no match")


def _html_widget_values(widget: Any) -> Iterator[str]:
    import ipywidgets as widgets

    if isinstance(widget, widgets.HTML | widgets.HTMLMath):
        yield widget.value
    for child in getattr(widget, "children", ()):
        yield from _html_widget_values(child)


# WoW and FaithDial chapters page through their dialogues with utils.book.widgets.browse (tested above);
# WISE and JWHR have viewers of their own with dataset-specific controls.
def _widgets_module(dataset: str) -> str:
    # a dataset with controls of its own has its viewer in its folder's widgets module
    return f"utils.datasets.{get_source(dataset).folder.name}.widgets"


VIEWER_DATASETS = [d for d in DATASETS if importlib.util.find_spec(_widgets_module(d)) is not None]


def test_some_dataset_has_a_viewer_of_its_own() -> None:
    assert VIEWER_DATASETS, "no dataset folder has a widgets module: the test below would test nothing"


@pytest.mark.parametrize("dataset", VIEWER_DATASETS)
def test_dataset_viewers_keep_injected_text_inert(dataset: str) -> None:
    viewer = importlib.import_module(_widgets_module(dataset)).viewer
    dialogues = _demo_dialogues(dataset)
    takes_splits = next(iter(inspect.signature(viewer).parameters)) == "splits"
    for payload in INJECTIONS[:8]:
        poisoned = [hostile(d, payload, "append") for d in dialogues]
        splits = {d.split: [x for x in poisoned if x.split == d.split] for d in poisoned}
        for value in _html_widget_values(viewer(splits) if takes_splits else viewer(poisoned)):
            audit(value, f"{dataset} viewer {payload!r}")


class _GlossEverything(Mapping[str, str]):
    """Glosses that translate every text into ``payload`` (a hostile translation file)."""

    def __init__(self, payload: str) -> None:
        self.payload = payload

    def __getitem__(self, key: str) -> str:
        return self.payload

    def __iter__(self) -> Iterator[str]:
        return iter(["any"])

    def __len__(self) -> int:
        return 1


#: Datasets whose renderers take English glosses (the viewer searches them too): those whose folder
#: holds a glosses file.
GLOSSED = {dataset for dataset in DATASETS if get_source(dataset).glosses_path.is_file()}


@pytest.mark.parametrize("dataset", DATASETS)
def test_a_chapter_view_keeps_injected_text_inert(
    dataset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Injections in every field, in the labels the facets come from and in the glosses, through the
    dataset's renderer: the pinned renderings and every rendering written for the data viewer are
    inert, the data block is plain data, and the poisoned labels reach the viewer's rows as values."""
    from utils.book.render.chapter_view import chapter_view, viewer_rows
    from utils.book.viewer_files import VIEWER_DIR_VARIABLE, read_rendering

    monkeypatch.setenv(VIEWER_DIR_VARIABLE, str(tmp_path))  # as during a book build
    dialogues = _demo_dialogues(dataset)[:3]
    assert dialogues, f"no demo sample for {dataset}"
    for payload in INJECTIONS:
        poisoned = [hostile(d, payload, "append") for d in dialogues]
        glosses = {"glosses": _GlossEverything(payload)} if dataset in GLOSSED else {}
        split = poisoned[0].split
        html = chapter_view(
            {split: poisoned}, title=payload, note=payload, pinned={split: [0, 1, 2]}, render=_renderer(dataset),
            split_labels={split: payload}, **glosses,
        )
        parser = audit(str(html), f"chapter view {dataset} {payload!r}")
        assert len(parser.scripts) == 1
        assert payload in text_of(parser)  # the title, as text
        assert json.loads(parser.scripts[0])["viewer"][0]["label"] == payload
        for index in range(len(poisoned)):
            shown = audit(read_rendering(tmp_path / dataset / split, index), f"{dataset} viewer rendering {index}")
            if dataset in GLOSSED:  # the hostile translation is shown (as text)
                assert payload in text_of(shown)
        frame = viewer_rows(poisoned, **glosses).frames["dialogues"]
        labelled = [name for name in frame.columns if frame[name].astype(str).str.contains(payload, regex=False).any()]
        assert labelled, f"{dataset}: the poisoned text does not reach the viewer's rows"


@pytest.mark.parametrize("kind", [OFFICIAL, USER_COPY, PARTIAL, DEMO])
def test_provenance_banner_keeps_injected_text_inert(kind: str) -> None:
    for payload in INJECTIONS:
        provenance = Provenance(
            dataset=DATASETS[0],
            split=split_names(DATASETS[0])[0],
            kind=kind,
            path=Path("/data") / payload.replace("/", "_") / "answered.jsonl",
            checksum="mismatch",
            size_bytes=12345,
            dialogues=3,
            turns=6,
            detail=payload,
        )
        parser = audit(provenance._repr_html_(), f"provenance {kind} {payload!r}")
        assert payload in text_of(parser)


def test_every_injection_is_refused_by_the_checker() -> None:
    """The checker itself: each injection, pasted raw into a renderer-like frame, is caught."""
    caught = 0
    for payload in INJECTIONS:
        for html in (f'<div class="atlas-text">{payload}</div>', f'<div title="{payload}">x</div>'):
            try:
                audit(html, "raw")
            except AssertionError:
                caught += 1
    # Pasted raw, every payload holding a tag breaks the text, and every one holding a double quote
    # breaks out of the attribute; the rest (URLs, templates, escaped text) must stay text anyway.
    expected = sum("<" in payload for payload in INJECTIONS) + sum('"' in payload for payload in INJECTIONS)
    assert caught >= expected


@pytest.mark.parametrize(
    "text",
    ["plain text", "", "tea & biscuits", "<b>", "a > b", "it's", 'say "hi"', "\u202eevil", "x\u2066y\u2069",
     "\u4e2d\u6587\u3002", "caf\u00e9 \U0001f600", "&amp; already", "\u2028line\u2029"],
)
def test_esc_is_markupsafe_escaping_whatever_the_string(text: str) -> None:
    from markupsafe import Markup, escape

    from utils.book.render._html import esc, isolate_bidi

    # a string esc returns as it is must be one that escaping leaves alone
    expected = str(escape(isolate_bidi(text)))
    assert esc(text) == expected
    assert type(esc(text)) is str
    assert esc(Markup(text)) == expected  # a value claiming to be HTML is escaped all the same
