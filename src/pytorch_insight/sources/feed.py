"""The blog / announcements feed (RSS or Atom): the posts published, or updated, in the window."""

from __future__ import annotations

import calendar
import time
from datetime import datetime, timezone
from typing import Any

import feedparser

from pytorch_insight.config import FeedConfig
from pytorch_insight.errors import RemoteError
from pytorch_insight.http import HttpClient, RequestStats, Unreachable
from pytorch_insight.model import CoverageStatus, Item, SourceStatus, utc_stamp
from pytorch_insight.sources import Emit, Progress, build_each, skipped_note, unreachable_note
from pytorch_insight.sources.html_text import html_to_text
from pytorch_insight.window import Window


def _moment(entry: Any) -> datetime | None:
    """`published`, else `updated` (feeds such as Atom often carry only the latter)."""
    for key in ("published_parsed", "updated_parsed"):
        # The plain dict lookup: feedparser's own maps a missing `published` to `updated`, with a warning.
        parsed: time.struct_time | None = dict.get(entry, key)
        if parsed:
            try:
                return datetime.fromtimestamp(calendar.timegm(parsed), tz=timezone.utc)
            except (OverflowError, ValueError, OSError):  # a year the platform cannot represent
                return None
    return None


class FeedSource:
    def __init__(self, client: HttpClient, feed: FeedConfig) -> None:
        self.client = client
        self.feed = feed
        self.name = f"blog:{feed.name}"

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        stats = RequestStats()
        try:
            text = self.client.get_text(self.feed.url, stats).data
        except Unreachable as exc:
            note = unreachable_note(exc, f"the url of {self.name} in the profile")
            return SourceStatus(name=self.name, status=CoverageStatus.FAILED, requests=stats.requests, note=note)
        except RemoteError as exc:
            return SourceStatus(name=self.name, status=CoverageStatus.FAILED, requests=stats.requests, note=str(exc))
        parsed = feedparser.parse(text.encode("utf-8"))
        if not parsed.entries and (parsed.bozo or not parsed.version):
            why = parsed.get("bozo_exception") or "no RSS or Atom document"
            return SourceStatus(
                name=self.name,
                status=CoverageStatus.FAILED,
                requests=stats.requests,
                note=f"not a readable feed: {why}",
            )
        skipped: list[str] = []
        items = build_each(
            parsed.entries,
            lambda entry: self._item(entry, window),
            lambda e: str(e.get("link") or e.get("id")),
            skipped,
        )
        emit(items)
        progress.update(self.name, "posts", len(items))
        undated = sum(1 for entry in parsed.entries if _moment(entry) is None)
        notes = [f"{undated} entries without a date were left out"] if undated else []
        notes += skipped_note(skipped, "entry")
        return SourceStatus(
            name=self.name,
            status=CoverageStatus.PARTIAL if notes else CoverageStatus.OK,
            items=len(items),
            requests=stats.requests,
            not_modified=stats.not_modified,
            note="; ".join(notes),
        )

    def _item(self, entry: Any, window: Window) -> Item | None:
        moment = _moment(entry)
        if moment is None or not window.contains(moment):
            return None
        link = entry.get("link") or entry.get("id")
        content = (entry.get("content") or [{}])[0].get("value") or entry.get("summary") or ""
        return Item(
            id=f"blog:{link}",
            source=self.name,
            kind="blog",
            url=link,
            title=html_to_text(entry.get("title")),
            body=html_to_text(content),
            author=entry.get("author"),
            created=utc_stamp(moment),
            labels=[tag.get("term", "") for tag in entry.get("tags") or []],
            raw={
                key: dict.get(entry, key)
                for key in ("id", "link", "title", "author", "published", "updated", "summary")
            },
        )
