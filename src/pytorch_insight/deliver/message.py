"""What a chat message says about a report, in any platform's shape: title, totals, overview, the
top items with their priority and link, and the link to the full report. `shrinking` gives ever
smaller versions of it, so each platform sends the largest one that fits its limits."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pytorch_insight.report.i18n import PRIORITY_MARK, Catalogue
from pytorch_insight.report.model import Report
from pytorch_insight.report.write import report_stem
from pytorch_insight.text import safe_url, shorten

# The message's own words, in the report's language.
WORDS = {
    "top": {"zh": "重点条目", "en": "Top items"},
    "full": {"zh": "查看完整报告", "en": "Full report"},
    "more": {"zh": "其余 {count} 条见完整报告", "en": "{count} more in the full report"},
    "high": {"zh": "高优先级 {count} 条", "en": "{count} high priority"},
}
# Overview lengths tried, longest first, when a message is too large for its platform.
OVERVIEW_STEPS = (2400, 900, 300, 0)
TITLE_LIMIT = 200
LINE_LIMIT = 280


@dataclass(frozen=True)
class Entry:
    priority: str  # high / medium / low
    label: str  # the priority in the report's language, with its colour mark
    ref: str
    title: str
    url: str | None
    line: str  # the one-line conclusion


@dataclass(frozen=True)
class Digest:
    lang: str
    title: str
    window: str
    totals: str
    overview: str
    entries: tuple[Entry, ...]
    omitted: int  # focus items left out of the message
    high: int
    link: str | None

    def word(self, key: str, **params: object) -> str:
        return WORDS[key][self.lang].format(**params)

    @property
    def heading(self) -> str:
        return shorten(f"{self.title} {self.window}", TITLE_LIMIT)


def report_link(report: Report, site_url: str | None, default_reader: str) -> str | None:
    """The report's HTML page on the published site (the folder `report --out` writes)."""
    if not site_url:
        return None
    return safe_url(f"{site_url.rstrip('/')}/{report_stem(report, default_reader)}.html")


def digest_of(report: Report, items: int, link: str | None) -> Digest:
    t = Catalogue(report.lang)
    entries = tuple(
        Entry(
            priority=entry.priority,
            label=f"{PRIORITY_MARK.get(entry.priority, '')} {t('priority_' + entry.priority)}".strip(),
            ref=entry.ref,
            title=shorten(" ".join(entry.title.split()), TITLE_LIMIT),
            url=safe_url(entry.url),
            line=shorten(" ".join(entry.conclusion.split()), LINE_LIMIT),
        )
        for entry in report.focus[:items]
    )
    paragraphs = (
        [report.overview.narrative] if report.overview.narrative else [theme.text for theme in report.overview.themes]
    )
    return Digest(
        lang=report.lang,
        title=" ".join(report.title.split()),
        window=f"{report.window.since} – {report.window.until}",
        totals=report.overview.totals,
        overview="\n\n".join(" ".join(p.split()) for p in paragraphs if p),
        entries=entries,
        omitted=max(0, len(report.focus) - len(entries)),
        high=report.stats.get("high", 0),
        link=link,
    )


def shrinking(digest: Digest) -> Iterator[Digest]:
    """The digest, then smaller versions: conclusions dropped, the overview shortened, fewer items;
    the last one is the title, the totals and the link."""
    yield digest
    entries = tuple(replace(entry, line="") for entry in digest.entries)
    for limit in OVERVIEW_STEPS:
        yield replace(digest, entries=entries, overview=shorten(digest.overview, limit) if limit else "")
    count = len(entries)
    while count:
        count //= 2
        yield replace(digest, entries=entries[:count], overview="", omitted=digest.omitted + len(entries) - count)


def content_digest(report: Report) -> str:
    """What the report says, without its generation time: the same content gives the same digest."""
    return hashlib.sha256(report.model_dump_json(exclude={"generated_at"}).encode()).hexdigest()
