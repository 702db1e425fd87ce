"""Events announced or happening in the window, from an iCalendar feed or from a page that carries
schema.org Event data (JSON-LD), read with real parsers."""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from typing import Any

import icalendar

from pytorch_insight.config import EventsConfig
from pytorch_insight.errors import RemoteError
from pytorch_insight.http import HttpClient, RequestStats
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.sources import Emit, Progress
from pytorch_insight.sources.html_text import html_to_text, json_ld_objects
from pytorch_insight.window import Window, parse_timestamp


def _utc(value: Any) -> datetime | None:
    """An iCalendar or JSON-LD time as an aware UTC datetime (a bare date is its midnight)."""
    if value is None:
        return None
    value = getattr(value, "dt", value)
    if isinstance(value, str):
        return parse_timestamp(value)
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc) if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime.combine(value, time.min, tzinfo=timezone.utc)
    return None


def _stamp(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


class EventsSource:
    def __init__(self, client: HttpClient, events: EventsConfig) -> None:
        self.client = client
        self.events = events
        self.name = f"events:{events.name}"

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        stats = RequestStats()
        try:
            text = self.client.get_text(self.events.url, stats).data
        except RemoteError as exc:
            return SourceStatus(name=self.name, status=CoverageStatus.FAILED, requests=stats.requests, note=str(exc))
        try:
            found = self._from_ical(text) if self.events.format == "ical" else self._from_page(text)
        except ValueError as exc:
            return SourceStatus(
                name=self.name,
                status=CoverageStatus.FAILED,
                requests=stats.requests,
                note=f"cannot read the {self.events.format} events: {exc}",
            )
        items = [item for item in found if _in_window(item, window)]
        emit(items)
        progress.update(self.name, "events", len(items))
        note = "" if found else "the source lists no events"
        return SourceStatus(
            name=self.name,
            status=CoverageStatus.OK,
            items=len(items),
            requests=stats.requests,
            not_modified=stats.not_modified,
            note=note,
        )

    def _from_ical(self, text: str) -> list[Item]:
        calendar = icalendar.Calendar.from_ical(text)
        items = []
        for event in calendar.walk("VEVENT"):
            start, end = _utc(event.get("DTSTART")), _utc(event.get("DTEND"))
            announced = _utc(event.get("CREATED")) or _utc(event.get("DTSTAMP"))
            url = str(event.get("URL") or "") or None
            uid = str(event.get("UID") or url or event.get("SUMMARY"))
            details = [str(event.get("DESCRIPTION") or "").strip(), _when(start, end), str(event.get("LOCATION") or "")]
            items.append(
                self._item(
                    uid,
                    url,
                    str(event.get("SUMMARY") or ""),
                    "\n".join(d for d in details if d),
                    start,
                    announced,
                    event.to_ical().decode("utf-8", "replace"),
                )
            )
        return items

    def _from_page(self, html: str) -> list[Item]:
        items = []
        for node in json_ld_objects(html):
            kinds = node.get("@type")
            if "Event" not in (kinds if isinstance(kinds, list) else [kinds]):
                continue
            start, end = _utc(node.get("startDate")), _utc(node.get("endDate"))
            location = node.get("location")
            where = location.get("name", "") if isinstance(location, dict) else str(location or "")
            url = node.get("url")
            details = [html_to_text(node.get("description")), _when(start, end), where]
            items.append(
                self._item(
                    str(url or node.get("name")),
                    url,
                    str(node.get("name") or ""),
                    "\n".join(d for d in details if d),
                    start,
                    None,
                    node,
                )
            )
        return items

    def _item(
        self,
        key: str,
        url: str | None,
        title: str,
        body: str,
        start: datetime | None,
        announced: datetime | None,
        raw: Any,
    ) -> Item:
        return Item(
            id=f"event:{url or key}",
            source=self.name,
            kind="event",
            repo=self.events.name,
            url=url,
            title=title,
            body=body,
            created=_stamp(start or announced),
            announced=_stamp(announced),
            raw=raw if isinstance(raw, dict) else {"ical": raw},
        )


def _when(start: datetime | None, end: datetime | None) -> str:
    if start is None:
        return ""
    return f"{_stamp(start)} – {_stamp(end)}" if end else _stamp(start) or ""


def _in_window(item: Item, window: Window) -> bool:
    """Happening in the window, or announced in it."""
    extra = item.model_extra or {}
    return window.contains(parse_timestamp(item.created)) or window.contains(parse_timestamp(extra.get("announced")))
