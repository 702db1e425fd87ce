"""Every claim of the focus list on the real weeks is traced to the source words that support it:
each fact's sentence is in its item's text, each link's quote in the linking item, each fix state
in the state the data holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytorch_insight.model import Item
from pytorch_insight.report.model import Evidence
from pytorch_insight.text import prose
from tests.conftest import DATA
from tests.report.fixtures import report_of_week

WEEKS = [
    ("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-07", "2026-04-13"),
    ("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-14", "2026-04-20"),
    ("pytorch-2026-03-16_2026-03-22.jsonl", "2026-03-16", "2026-03-22"),
]


def flat(text: str) -> str:
    return " ".join(text.split())


def supported(evidence: Evidence, item: Item) -> bool:
    quote = flat(evidence.quote).removesuffix("…")
    if quote.startswith("label: "):
        return quote.removeprefix("label: ") in item.labels
    if quote.startswith("environment: "):
        return quote.removeprefix("environment: ") in (item.body or "")
    if quote.startswith("timeline: "):  # "timeline: cross-referenced by o/r#N, state: S"
        ref, state = quote.removeprefix("timeline: cross-referenced by ").split(", state: ")
        return any(
            f"{r.get('repo')}#{r.get('number')}" == ref and r.get("state") == state
            for r in (item.model_extra or {}).get("timeline_refs", [])
        )
    if quote.startswith("comment: "):  # "comment: <author>: <their words>" or "comment: <words>"
        said = quote.removeprefix("comment: ")
        author, _, words = said.partition(": ")
        words = words.strip("“”").removesuffix("…")
        by_author = any(c.author == author and words in flat(c.body or "") for c in item.comments)
        # Words quoted without their author: somewhere in the thread, whoever said them.
        return by_author or any(said.strip("“”").lstrip("…") in flat(c.body or "") for c in item.comments)
    if quote.startswith("state: "):
        return quote.removeprefix("state: ").split(" (")[0] == (item.state or "unknown")
    if '"' in quote:  # a link: `<how> in <where>: "<the words>"`
        quote = flat(quote.split('"', 1)[1].rsplit('"', 1)[0]).removesuffix("…")
    text = flat(f"{item.title}\n{item.body or ''}")
    # "…" inside a quote marks text cut away (a log between its lead-in and its error line): each
    # part is the source's own words, in the source's order.
    return in_order(quote, text) or in_order(quote, flat(f"{item.title}\n{prose(item.body or '')}"))


def in_order(quote: str, text: str) -> bool:
    at = 0
    for part in filter(None, (part.strip() for part in quote.split("…"))):
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


@pytest.mark.parametrize(("data", "since", "until"), WEEKS)
def test_every_focus_claim_rests_on_the_sources(data: str, since: str, until: str) -> None:
    report, items = report_of_week(data, since, until)
    by_id = {item.id: item for item in items}
    assert report.focus
    claims = 0
    for entry in report.focus:
        priority_facts = [e for e in entry.evidence if e.item in by_id and not e.quote.startswith("state: ")]
        if entry.priority == "high":  # a high priority always rests on at least one stated fact
            assert priority_facts, entry.ref
        for evidence in entry.evidence:
            claims += 1
            assert evidence.item in by_id, (entry.ref, evidence)
            assert supported(evidence, by_id[evidence.item]), (entry.ref, evidence)
    assert claims >= 2 * len(report.focus)


def test_the_copied_weeks_are_there() -> None:
    assert all((DATA / "raw" / data).is_file() for data, _, _ in WEEKS), Path(DATA)
