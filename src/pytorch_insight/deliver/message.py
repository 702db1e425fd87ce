"""What a chat message says about a report, in any platform's shape: title, totals, overview, the
top items with their priority and link, and the link to the full report. `shrinking` gives ever
smaller versions of it, so each platform sends the largest one that fits its limits.

This is the one document model every platform renders: plain text everywhere, and the only
markup, an overview paragraph's bold lead-in (its area's name), as a field of its own. Each
platform writes that in its own syntax (Slack mrkdwn, Feishu lark_md, DingTalk markdown) and
escapes the text for it; no Markdown of the report reaches a chat as characters."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, replace

from pytorch_insight.report.i18n import PRIORITY_MARK, Catalogue
from pytorch_insight.report.model import Report, Theme
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


# An overview paragraph of the report: "**<area>**: <text>" (i18n `area_paragraph`).
# How an overview paragraph names its area before its text (report/i18n's ov_intro).
LEAD_SEPARATORS = ("：", ": ")


@dataclass(frozen=True)
class Paragraph:
    lead: str  # a bold lead-in (the area's name), or ""
    text: str  # plain text

    def plain(self, lang: str) -> str:
        return f"{self.lead}{'：' if lang == 'zh' else ': '}{self.text}" if self.lead else self.text


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
    overview: tuple[Paragraph, ...]
    entries: tuple[Entry, ...]
    omitted: int  # focus items left out of the message
    high: int
    link: str | None

    def word(self, key: str, **params: object) -> str:
        return WORDS[key][self.lang].format(**params)

    @property
    def heading(self) -> str:
        return shorten(f"{self.title} {self.window}", TITLE_LIMIT)

    @property
    def overview_text(self) -> str:
        """The overview as plain text, paragraphs kept (mail, and text fallbacks)."""
        return "\n\n".join(paragraph.plain(self.lang) for paragraph in self.overview)


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
    if report.overview.narrative:  # a model's prose: paragraphs of plain text
        paragraphs = [Paragraph("", " ".join(p.split())) for p in report.overview.narrative.split("\n\n")]
    else:
        paragraphs = [paragraph_of(theme) for theme in report.overview.themes]
    return Digest(
        lang=report.lang,
        title=" ".join(report.title.split()),
        window=f"{report.window.since} – {report.window.until}",
        totals=report.overview.totals,
        overview=tuple(paragraph for paragraph in paragraphs if paragraph.text or paragraph.lead),
        entries=entries,
        omitted=max(0, len(report.focus) - len(entries)),
        high=report.stats.get("high", 0),
        link=link,
    )


def paragraph_of(theme: Theme) -> Paragraph:
    """An overview paragraph in the document model: its area apart (each platform sets it in bold),
    the rest as plain text."""
    text = " ".join(theme.text.split())
    for separator in LEAD_SEPARATORS:
        if text.startswith(theme.name + separator):
            return Paragraph(theme.name, text[len(theme.name) + len(separator) :])
    return Paragraph("", text)


def shortened(paragraphs: tuple[Paragraph, ...], limit: int) -> tuple[Paragraph, ...]:
    """The first paragraphs within `limit` characters, the last one cut to fit."""
    kept: list[Paragraph] = []
    left = limit
    for paragraph in paragraphs:
        size = len(paragraph.lead) + len(paragraph.text) + 2
        if size <= left:
            kept.append(paragraph)
            left -= size
            continue
        room = left - len(paragraph.lead) - 2
        if room > 20:
            kept.append(Paragraph(paragraph.lead, shorten(paragraph.text, room)))
        break
    return tuple(kept)


def shrinking(digest: Digest) -> Iterator[Digest]:
    """The digest, then smaller versions: conclusions dropped, the overview shortened, fewer items;
    the last one is the title, the totals and the link."""
    yield digest
    entries = tuple(replace(entry, line="") for entry in digest.entries)
    for limit in OVERVIEW_STEPS:
        yield replace(digest, entries=entries, overview=shortened(digest.overview, limit))
    count = len(entries)
    while count:
        count //= 2
        yield replace(digest, entries=entries[:count], overview=(), omitted=digest.omitted + len(entries) - count)


def content_digest(report: Report) -> str:
    """What the report says, without its generation time: the same content gives the same digest."""
    return hashlib.sha256(report.model_dump_json(exclude={"generated_at"}).encode()).hexdigest()
