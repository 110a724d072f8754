"""The presentation layer and the one reported-versus-reproduced comparison."""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd
import pytest

from utils.book import tables
from utils.reported import Reproduced, all_reported, assert_held, compare, failures, quantity_label


def test_compare_statuses_follow_provenance_and_tolerance() -> None:
    computed = {
        ("sessions", "answered"): Reproduced(838, ("official",)),
        ("sessions", "not_answered"): Reproduced(433, ("demo sample",)),
    }
    table = compare("jwhr", computed)
    assert list(table["status"]) == ["held", "not checked: demo sample"]
    off_by_one = compare("jwhr", {("sessions", "answered"): Reproduced(837, ("official",))})
    assert list(off_by_one["status"]) == ["failed", "quoted only"]
    assert len(failures(off_by_one)) == 1
    with pytest.raises(AssertionError, match="answered sessions: reported 838"):
        assert_held(off_by_one)
    within = compare("jwhr", {("sessions", "answered"): Reproduced(837, ("official",), tolerance=1)})
    assert within["status"].iloc[0] == "held"


def test_compare_not_loaded_partial_and_noted_rows() -> None:
    table = compare(
        "jwhr",
        {
            ("sessions", "answered"): Reproduced(None, ()),
            ("sessions", "not_answered"): Reproduced(5, ("partial", "official")),
        },
    )
    assert list(table["status"]) == ["not checked: split not loaded", "not checked: partial"]
    assert math.isnan(table["reproduced"].iloc[0])
    noted = compare("jwhr", {("sessions", "answered"): Reproduced(838, ("official",), note="definition unpublished")})
    assert noted["status"].iloc[0] == "not checked: definition unpublished"
    # no value, for a reason other than a missing split (BEGIN: official files and demo samples mixed)
    mixed = Reproduced(None, ("demo sample", "official"), not_computed="2 of the 6 files are demo samples")
    assert compare("jwhr", {("sessions", "answered"): mixed})["status"].iloc[0] == (
        "not checked: 2 of the 6 files are demo samples"
    )


def test_compare_refuses_a_computed_value_with_no_reported_number() -> None:
    with pytest.raises(KeyError, match="sesions"):
        compare("jwhr", {("sesions", "answered"): Reproduced(1, ("official",))})


def test_every_reported_number_has_a_reader_label_without_underscores() -> None:
    for item in all_reported():
        assert "_" not in quantity_label(item.name).replace("know_chance", ""), item.name


def test_table_formats_counts_shares_and_empty_cells() -> None:
    frame = pd.DataFrame(
        {"sessions": [838.0, 433.0], "share": [0.041667, np.nan], "name": ["<b>x</b>", "y"]},
        index=["answered", "not_answered"],
    )
    html = tables.table(frame, index="split", integers=["sessions"], percents={"share": 1}).to_html()
    assert ">838<" in html and "838.0" not in html
    assert ">4.2<" in html and "share (%)" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "NaN" not in html and "nan" not in html
    assert "– no value" in html


def test_table_thousands_separator_and_booleans() -> None:
    html = tables.table(pd.DataFrame({"n": [18430], "full": [False]}), integers=["n"]).to_html()
    assert ">18,430<" in html and ">no<" in html


def test_comparison_links_sources_and_uses_the_source_precision() -> None:
    table = compare("wow", {("knowledge_chance", "valid_seen"): Reproduced(0.0262519, ("demo sample",), 2e-4)})
    html = tables.comparison(table).to_html()
    key = table.set_index(["name", "split"]).loc[("knowledge_chance", "valid_seen"), "citation_key"]
    assert f'href="../book/bibliography.html#cite-{key}"' in html
    assert ">0.02625<" in html  # the reproduced value shown with the reported value's 5 decimals
    assert "± 0.00020" in html
    assert "18,430" in html and "18430.0" not in html
    assert "quoted only" in html


def test_checks_line_counts_held_and_unchecked() -> None:
    held = compare("jwhr", {("sessions", "answered"): Reproduced(838, ("official",))})
    demo = compare("jwhr", {("sessions", "not_answered"): Reproduced(3, ("demo sample",))})
    assert tables.checks_line(held) == "1 check held on the full official files."
    assert tables.checks_line(demo) == "1 number not checked (demo sample)."
    assert tables.checks_line(held, demo) == (
        "1 check held on the full official files; 1 number not checked (demo sample)."
    )
    # a reader's copy that differs: the chapter says so in a sentence instead of stopping
    failed = compare("jwhr", {("sessions", "answered"): Reproduced(1, ("user copy",))})
    assert tables.checks_line(failed, held) == (
        "1 check held on the full official files; 1 check did not hold: these files differ from the official "
        "ones (jwhr/answered sessions: reported 838, here 1)."
    )


def test_comparison_names_parlai_teachers_and_notes_only_when_present() -> None:
    wow = tables.comparison(compare("wow")).to_html()
    assert "ParlAI teacher" in wow and "basic_apprentice_dialog" in wow.replace("<wbr>", "")
    assert "knowledge selection by chance (know_chance): " in wow  # the row's note, under the table
    jwhr = tables.comparison(compare("jwhr")).to_html()
    assert "ParlAI teacher" not in jwhr


def test_table_links_only_web_urls_and_escapes_the_text() -> None:
    frame = pd.DataFrame(
        {"title": ["<i>A</i>", "B"], "homepage": ["https://example.org/a?b=1&c=2", "javascript:alert(1)"]}
    )
    html = tables.table(frame, labels={"title": "Dataset"}, links={"title": "homepage"}).to_html()
    assert '<a href="https://example.org/a?b=1&amp;c=2"' in html and "&lt;i&gt;A&lt;/i&gt;" in html
    assert "javascript:" not in html and ">B<" in html
    assert "homepage" not in html  # the URL column is shown only when labelled


def test_declared_table_takes_headers_and_units_from_the_declaration() -> None:
    columns = {
        "turns": tables.Column("Wizard turns", tables.COUNT),
        "share": tables.Column("Share", tables.PERCENT, 1),
        "mean": tables.Column("Mean", tables.DECIMAL, 2),
        "other": tables.Column("Never shown here"),
    }
    frame = pd.DataFrame({"turns": [1234.0], "share": [0.125], "mean": [1.0 / 3], "extra": ["x"]}, index=["a"])
    html = tables.declared_table(frame, columns, index="Row").to_html()
    assert ">Wizard turns<" in html and ">Share (%)<" in html and ">Mean<" in html
    assert ">1,234<" in html and ">12.5<" in html and ">0.33<" in html
    assert "extra" not in html and "Never shown" not in html  # only the declared columns the frame has
    chosen = tables.declared_table(frame, columns, ["share"]).to_html()
    assert ">Share (%)<" in chosen and "Wizard turns" not in chosen


def test_reproduced_holds_only_values_computed_on_the_official_files() -> None:
    computed = {
        ("sessions", "answered"): Reproduced(838, ("official",)),
        ("sessions", "not_answered"): Reproduced(3, ("demo sample",)),
    }
    shown = tables.comparison(compare("jwhr", computed)).data.set_index("Split")
    assert shown.loc["answered", "Reproduced"] == "838"
    assert shown.loc["not_answered", "Reproduced"] == "not reproduced: demo sample"
    demo_column = "On the demo sample (not the dataset)"  # beside it, headed as the demo sample
    assert shown.loc["not_answered", demo_column] == "3"
    assert shown.loc["answered", demo_column] == ""
    partial = compare("wow", {("knowledge_chance", "valid_seen"): Reproduced(0.03, ("official", "partial"), 2e-4)})
    row = tables.comparison(partial).data.set_index(["Split", "Quantity"]).loc[
        ("valid_seen", "knowledge selection by chance (know_chance)")
    ]
    assert row["Reproduced"] == "not reproduced: partial copy"
    assert row["On the partial copy (not the whole dataset)"] == "0.03000"
    official_only = tables.comparison(compare("jwhr", {("sessions", "answered"): Reproduced(838, ("official",))}))
    assert not [c for c in official_only.data.columns if c.startswith("On the ")]  # no empty column


def test_a_table_that_scrolls_is_focusable_and_named_by_its_caption() -> None:
    """axe-core: a scrollable region must be reachable by keyboard (scrollable-region-focusable)."""
    shown = tables.table(pd.DataFrame({"a": [1]}), caption='Sizes "loaded" <here>').to_html()
    label = "Sizes &quot;loaded&quot; &lt;here&gt;"
    assert f'<div class="atlas-table-scroll" tabindex="0" role="region" aria-label="{label}">' in shown
    assert 'aria-label="Table"' in tables.table(pd.DataFrame({"a": [1]})).to_html()


def test_a_median_of_counts_reads_as_a_count_or_a_half_never_with_a_zero_decimal() -> None:
    from utils.book.tables import EMPTY, median_count

    assert [median_count(v) for v in (2.0, 3, 2.5, 1234.0, float("nan"))] == ["2", "3", "2.5", "1,234", EMPTY]


def test_a_table_of_many_columns_is_set_smaller_and_a_narrow_one_is_not() -> None:
    wide = tables.table(pd.DataFrame([dict.fromkeys("abcdefghi", 1)]))
    narrow = tables.table(pd.DataFrame([dict.fromkeys("abc", 1)]))
    assert 'class="atlas-pub-table atlas-wide-table"' in wide._repr_html_()
    assert 'class="atlas-pub-table"' in narrow._repr_html_()


def test_a_long_path_or_identifier_in_a_cell_may_break_and_a_short_word_stays_whole() -> None:
    shown = tables.table(
        pd.DataFrame({"path": ["faithdial-audit/GPT2/gpt2_processed_wow.csv"], "split": ["valid_seen"]})
    ).to_html()
    assert (
        '<span class="atlas-long-word">faithdial-audit/<wbr>GPT2/<wbr>gpt2_<wbr>processed_<wbr>wow.csv</span>' in shown
    )
    assert ">valid_seen<" in shown  # short: no break, no span
    hostile = tables.breakable(html.escape("<script>alert('x')</script>/aaaaaaaaaaaaaaaaaaaa"))
    assert "<script" not in hostile and "&lt;script&gt;" in hostile


def test_a_table_too_wide_for_the_page_s_column_is_set_smaller_whatever_its_columns() -> None:
    # seven columns of long words: even their narrowest layout runs past the page's column
    words = ["conversational", "attributable", "hallucinated", "faithfulness", "Wikipedia's", "retrieval", "selection"]
    wide = tables.table(pd.DataFrame([{f"c{i}": f"{word} {word}" for i, word in enumerate(words)}]))
    short = tables.table(pd.DataFrame([{f"c{i}": "a b" for i in range(7)}]))
    assert 'class="atlas-pub-table atlas-wide-table"' in wide.to_html()
    assert 'class="atlas-pub-table"' in short.to_html()
    # one rule for the reported-versus-reproduced tables too
    assert "atlas-wide-table atlas-comparison" in tables.comparison(compare("wow")).to_html()
    assert 'class="atlas-pub-table atlas-comparison"' in tables.comparison(compare("jwhr")).to_html()


def test_a_soft_hyphen_in_a_header_is_a_place_to_break() -> None:
    headers = {f"c{i}": "Hallu\u00adcination\u00adhallu\u00adcination" for i in range(7)}
    assert "atlas-wide-table" not in tables.table(pd.DataFrame([dict.fromkeys(headers, 1)]), labels=headers).to_html()


def test_an_unbroken_column_counts_whole_when_the_table_s_width_is_judged() -> None:
    titles = pd.DataFrame([{"title": "巻線形三相誘導電動機" * 5, "b": "x", "c": "y"}])
    assert "atlas-wide-table" not in tables.table(titles).to_html()  # Japanese breaks between characters
    assert "atlas-wide-table" in tables.table(titles, unbroken=["title"]).to_html()
