"""What the reports republish from the sources: no control characters or bidirectional overrides
(they rewrite what a reader sees: U+202E turns "gpj.exe" around), no titles of 100,000
characters, and no credentials (a token pasted in an issue is replaced by [redacted])."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import html5lib
import pytest

from pytorch_insight.model import Comment, Item
from pytorch_insight.report.model import Report
from pytorch_insight.report.render import render_html, render_markdown
from pytorch_insight.report.write import write_report
from tests.report.fixtures import fixed_report, report_of, week

# What must not reach a reader: C0/C1 controls but tab and newline, bidirectional marks, embeddings,
# overrides and isolates.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
TITLE_LIMIT = 300
CONTROLS = "\x00\x07\x1b[31m\x7f\x85\x9b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"
LONG_TITLE = "Segfault in torch.compile " + "very " * 20_000 + "long"  # 100,026 characters
TOKENS = [
    "ghp_" + "A1b2C3d4E5" * 4,
    "github_pat_11ABCDEFG0" + "x" * 60,
    "gho_" + "Z9" * 18,
    "ghs_" + "k7" * 18,
    "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
    "sk-proj-" + "Qw3rTy" * 8,
]


def hostile_report(lang: str = "en") -> Report:
    items = week()
    bug = items[0]
    items[0] = bug.model_copy(
        update={
            "title": f"torch.compile\x1b[2J gives wrong\u202e results\x00 for SDPA, token {TOKENS[0]}",
            "body": bug.body.replace("The root cause", f"The\u2066 root\x07 cause (see Bearer {TOKENS[5]})"),
            "author": "al\u202eice",
            "comments": [
                Comment(id=1, author="eellison", date="2026-04-09T10:00:00Z", body=f"Confirmed; {TOKENS[4]} leaked.")
            ],
        }
    )
    items.append(
        Item(
            id="github:pytorch/pytorch#1006",
            source="github",
            kind="issue",
            repo="pytorch/pytorch",
            number=1006,
            url="https://github.com/pytorch/pytorch/issues/1006",
            title=LONG_TITLE,
            body=f"A segfault on H100 with every model.{CONTROLS} Tokens: {TOKENS[1]} and {TOKENS[2]}, {TOKENS[3]}.",
            author="mallory",
            state="open",
            created="2026-04-08T12:00:00Z",
            labels=["module: crash", "high priority"],
        )
    )
    return report_of(items, lang)


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    report = hostile_report()
    return {"md": render_markdown(report), "html": render_html(report), "json": report.model_dump_json(indent=2)}


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_no_control_character_or_bidi_override_reaches_a_report(outputs: dict[str, str], fmt: str) -> None:
    found = {f"U+{ord(char):04X}" for char in CONTROL.findall(outputs[fmt])}
    assert not found
    assert "gives wrong results for SDPA" in outputs[fmt]  # the words stay
    assert "alice" in outputs[fmt]


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_no_token_reaches_a_report(outputs: dict[str, str], fmt: str) -> None:
    assert not [token for token in TOKENS if token in outputs[fmt]]
    assert re.search(r"\\?\[redacted\\?\]", outputs[fmt])  # escaped in Markdown


def test_the_html_page_with_hostile_text_is_still_valid(outputs: dict[str, str]) -> None:
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(outputs["html"])


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_long_title_is_shortened_wherever_it_is_printed(outputs: dict[str, str], fmt: str) -> None:
    printed = re.findall(r"Segfault in torch\.compile [very ]+(?:long|…)", outputs[fmt])
    assert len(printed) >= 4  # focus heading, activity table, accounting table, contributor line
    assert all(len(title) <= TITLE_LIMIT and title.endswith("…") for title in printed)
    assert len(outputs[fmt]) < 60_000


def test_the_json_document_keeps_the_full_title_as_data(outputs: dict[str, str]) -> None:
    items = json.loads(outputs["json"])["items"]
    assert LONG_TITLE in [item["title"] for item in items]


def test_the_archive_prints_clean_short_titles(tmp_path: Path) -> None:
    report = fixed_report("en")
    report.title = f"Weekly\u202e {LONG_TITLE}\x1b {TOKENS[0]}"  # as a foreign or older JSON file may hold
    (tmp_path / "2026-03-30_2026-04-05.en.json").write_text(report.model_dump_json(), encoding="utf-8")
    write_report(fixed_report("en"), tmp_path)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    feed = (tmp_path / "feed.xml").read_text(encoding="utf-8")
    for text in (index, feed):
        assert not CONTROL.search(text) and TOKENS[0] not in text
        assert "very " * 100 not in text and "Weekly Segfault in torch.compile very" in text
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(index)
    ElementTree.fromstring(feed.encode("utf-8"))
