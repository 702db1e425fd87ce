"""Markdown and HTML: golden files in both languages, escaping, self-containment, determinism."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ElementTree
from html import unescape
from pathlib import Path

import html5lib
import pytest

from pytorch_insight.model import Comment
from pytorch_insight.pipeline import assess
from pytorch_insight.report.asof import as_of
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.report.render import render_html, render_markdown
from pytorch_insight.report.write import write_report
from tests.pipeline.helpers import item
from tests.report.fixtures import PROFILE, WINDOW, fixed_report, report_of, report_of_ranked, week

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"  # regenerate, then read the diff before committing


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("fmt", "render"), [("md", render_markdown), ("html", render_html)])
def test_golden_reports(lang: str, fmt: str, render) -> None:  # noqa: ANN001 (a render function)
    path = GOLDEN / f"week.{lang}.{fmt}"
    text = render(fixed_report(lang))
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_section_is_there(lang: str) -> None:
    report = fixed_report(lang)
    markdown = render_markdown(report)
    for number in ("1. ", "2. ", "3. ", "4. ", "5. "):
        assert f"\n## {number}" in markdown
    assert report.focus and report.focus[0].deep and report.focus[0].analysis.root_cause
    assert "<details open><summary>" in markdown and "</details>" in markdown
    assert "⭐" in markdown and "🔴" in markdown
    assert "pytorch-insight" in markdown.splitlines()[-1]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_section_says_when_it_has_nothing_to_list(lang: str) -> None:
    """A section heading is never left with nothing under it: a window without items, without any
    author to list, without activity of the profile's teams or without focus items says so."""
    nobody = report_of([], lang)
    outsiders = report_of([item.model_copy(update={"author": "someone-new"}) for item in week()], lang)
    assert not nobody.contributors and not nobody.teams
    assert outsiders.contributors and not outsiders.teams
    every = ("no_activity", "no_contributors", "no_teams", "no_analysis")
    for report, empty in ((nobody, every), (outsiders, ("no_teams",))):
        markdown, html = render_markdown(report), render_html(report)
        for key in every:
            said = Catalogue(lang)(key)
            assert (said in markdown, said in unescape(html)) == (key in empty, key in empty)
        # No heading stands over nothing: the next line that says anything is not a heading of its
        # level or above, nor a table's header row without rows.
        for level, following in re.findall(r"^(#+) .*\n\s*\n(#+ |\|.*\|\n\|[-|]+\|\n\n)", markdown, re.M):
            assert following.startswith("#") and len(following.rstrip(" ")) > len(level)
        assert not re.search(r"<tbody>\s*</tbody>", html)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_item_known_by_its_title_alone_says_its_fields_are_empty_for_want_of_text(lang: str) -> None:
    """An import may list a thread by its title alone: its empty fields say the data holds no text of
    it, not that no sentence of it was recognised."""
    bare = week()[0].model_copy(update={"body": None, "comments": []})
    t = Catalogue(lang)
    for items, shown, hidden in (([bare], "not_described", "not_stated"), ([week()[2]], "not_stated", "not_described")):
        report = report_of(items, lang)
        assert report.focus[0].deep
        markdown, html = render_markdown(report), unescape(render_html(report))
        for text in (markdown, html):
            assert t(shown) in text and t(hidden) not in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_item_whose_only_text_came_after_the_window_says_so(lang: str) -> None:
    """A thread with no description whose comments all came after the report's moment: the data
    does hold comments of it, so its empty fields do not say it holds none."""
    later = Comment(author="sprocket-fan", date="2026-05-02T10:00:00Z", kind="comment", body="The grommet spins loose.")
    bare = week()[0].model_copy(update={"body": None, "comments": [later]})
    report = report_of([as_of(bare, WINDOW.end)], lang)
    t = Catalogue(lang)
    for text in (render_markdown(report), unescape(render_html(report))):
        assert t("not_described_later") in text and t("not_described") not in text


def test_source_markup_is_shown_as_text() -> None:
    html = render_html(fixed_report("en"))
    markdown = render_markdown(fixed_report("en"))
    assert "<script" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert r"\<script\>alert('x')\</script\> \| pipes \| \*stars\*" in markdown


def test_html_is_valid_and_self_contained() -> None:
    html = render_html(fixed_report("zh"))
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)
    assert not re.search(r"<(?:script|img|iframe|link|object|embed)\b", html)
    assert not re.search(r"\b(?:src|srcset)=|@import|url\(", html)
    assert html.count("<svg") == 2
    external = [href for href in re.findall(r'href="([^"]+)"', html) if not href.startswith("https://github.com/")]
    assert external == ["https://events.example/keynote"]  # links to sources only; nothing is loaded


def test_the_same_model_renders_byte_identically() -> None:
    assert render_html(fixed_report("en")) == render_html(fixed_report("en"))
    assert render_markdown(fixed_report("zh")) == render_markdown(fixed_report("zh"))


def test_archive_lists_every_report_and_the_feed_is_atom(tmp_path: Path) -> None:
    write_report(fixed_report("zh"), tmp_path)
    write_report(fixed_report("en"), tmp_path)
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == [
        "2026-04-07_2026-04-13.en.html",
        "2026-04-07_2026-04-13.en.json",
        "2026-04-07_2026-04-13.en.md",
        "2026-04-07_2026-04-13.html",
        "2026-04-07_2026-04-13.json",
        "2026-04-07_2026-04-13.md",
        "feed.xml",
        "index.html",
    ]
    index = (tmp_path / "index.html").read_text()
    assert 'href="2026-04-07_2026-04-13.html"' in index and 'href="2026-04-07_2026-04-13.en.html"' in index
    feed = ElementTree.parse(tmp_path / "feed.xml").getroot()
    atom = "{http://www.w3.org/2005/Atom}"
    assert feed.tag == f"{atom}feed"
    assert [entry.find(f"{atom}link").get("href") for entry in feed.findall(f"{atom}entry")] == [
        "2026-04-07_2026-04-13.html",
        "2026-04-07_2026-04-13.en.html",
    ]


def test_an_activity_table_lists_its_items_by_priority_then_rank() -> None:
    ranked = assess(
        [item(n, f"Tidy the grommet module, part {n}", "Moves code.", kind="pull_request") for n in (1, 2, 3)], PROFILE
    )
    # The rank mixes medium and low by score: a medium item may rank below a low one.
    ranked[-1].priority, ranked[0].priority, ranked[1].priority = "medium", "low", "low"
    rows = report_of_ranked(ranked).activity[0].rows
    assert [r.id for r in rows] == [ranked[2].id, ranked[0].id, ranked[1].id]
    assert [r.priority for r in rows] == ["medium", "low", "low"]
