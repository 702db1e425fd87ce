"""Events announced or happening in the window, from an iCalendar feed or from a page that carries
schema.org Event data (JSON-LD), read with real parsers.

Every event gets an id that needs no URL (many calendars have none, or one page URL for all their
events): the source's name plus the iCalendar UID (and the occurrence, for a recurring event), or
plus the JSON-LD ``@id``, else the event's name and start. A recurring event (RRULE) becomes one
item per occurrence in the window, expanded with dateutil (icalendar's own dependency).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

import icalendar
from dateutil.rrule import rruleset, rrulestr

from pytorch_insight.config import EventsConfig
from pytorch_insight.errors import RemoteError
from pytorch_insight.http import HttpClient, RequestStats, Unreachable
from pytorch_insight.model import CoverageStatus, Item, SourceStatus, utc_stamp
from pytorch_insight.sources import MALFORMED, Emit, Progress, malformed_reason, skipped_note, unreachable_note
from pytorch_insight.sources.html_text import html_to_text, json_ld_objects
from pytorch_insight.sources.ical_text import mend_calendar
from pytorch_insight.window import Window, parse_timestamp

# schema.org types that are events without ending in "Event" (MusicEvent, BusinessEvent, ... do).
OTHER_EVENT_TYPES = frozenset({"Festival", "EventSeries"})
# VEVENT properties that occur at most once (RFC 5545, 3.6.1); RRULE, RDATE and EXDATE may repeat.
SINGLE_VALUED = (
    "UID",
    "DTSTART",
    "DTEND",
    "DURATION",
    "CREATED",
    "RECURRENCE-ID",
    "SUMMARY",
    "URL",
    "DESCRIPTION",
    "LOCATION",
)


def _utc(value: Any) -> datetime | None:
    """An iCalendar or JSON-LD time as an aware UTC datetime (a bare date is its midnight)."""
    moment = _aware(value)
    try:
        return moment.astimezone(timezone.utc) if moment else None
    except OverflowError:  # 9999-12-31 in a zone west of UTC: no usable date
        return None


def _aware(value: Any) -> datetime | None:
    """An iCalendar or JSON-LD time as an aware datetime in its own zone; a floating time and a
    bare date (its midnight) are taken as UTC."""
    if value is None:
        return None
    value = getattr(value, "dt", value)
    if isinstance(value, str):
        return parse_timestamp(value)
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime.combine(value, time.min, tzinfo=timezone.utc)
    return None


def _stamp(moment: datetime | None) -> str | None:
    return utc_stamp(moment) if moment else None


def is_event_type(value: Any) -> bool:
    """A schema.org ``@type`` (a name, a URL or a list of them) of Event or one of its subtypes."""
    for kind in value if isinstance(value, list) else [value]:
        name = re.split(r"[/#:]", kind)[-1] if isinstance(kind, str) else ""
        if name.endswith("Event") or name in OTHER_EVENT_TYPES:
            return True
    return False


class EventsSource:
    def __init__(self, client: HttpClient, events: EventsConfig) -> None:
        self.client = client
        self.events = events
        self.name = f"events:{events.name}"
        self.unreadable_rules = 0
        self.skipped: list[str] = []  # events that do not fit an item (a date that is no date)
        self.mended: list[str] = []  # the calendar's malformed lines, skipped or mended

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        stats = RequestStats()
        self.unreadable_rules, self.skipped, self.mended = 0, [], []
        try:
            text = self.client.get_text(self.events.url, stats).data
        except Unreachable as exc:
            return self._failed(stats, unreachable_note(exc, f"the url of {self.name} in the profile"))
        except RemoteError as exc:
            return self._failed(stats, str(exc))
        try:
            found = self._from_ical(text, window) if self.events.format == "ical" else self._from_page(text)
        except ValueError as exc:  # the parsers quote the document: one line of it is enough
            why = (str(exc).strip().splitlines() or ["unreadable"])[0][:200]
            return self._failed(stats, f"cannot read the {self.events.format} events: {why}")
        items = list({item.id: item for item in found if item.active_in(window)}.values())
        emit(items)
        progress.update(self.name, "events", len(items))
        notes = [] if found or self.skipped else ["the source lists no events"]
        if self.unreadable_rules:
            notes.append(
                f"{self.unreadable_rules} recurring events with an unreadable RRULE were read once, at DTSTART"
            )
        notes += self.mended + skipped_note(self.skipped, "event")
        return SourceStatus(
            name=self.name,
            status=CoverageStatus.PARTIAL
            if self.unreadable_rules or self.skipped or self.mended
            else CoverageStatus.OK,
            items=len(items),
            requests=stats.requests,
            not_modified=stats.not_modified,
            note="; ".join(notes),
        )

    def _failed(self, stats: RequestStats, note: str) -> SourceStatus:
        return SourceStatus(name=self.name, status=CoverageStatus.FAILED, requests=stats.requests, note=note)

    # -- iCalendar -----------------------------------------------------------------------------

    def _from_ical(self, text: str, window: Window) -> list[Item]:
        """Every single event, and each occurrence of a recurring one in the window (or, for a
        series announced in the window, its next occurrence)."""
        mended = mend_calendar(text)
        if not mended.components:
            raise ValueError("no BEGIN:VCALENDAR or BEGIN:VEVENT: not an iCalendar document")
        self.mended = mended.note()
        calendars = icalendar.Calendar.from_ical(mended.text, multiple=True)
        events = [_single_valued(event) for calendar in calendars for event in calendar.walk("VEVENT")]
        # Occurrences moved or edited one by one (RECURRENCE-ID) replace the series' own.
        moved = {
            (str(event.get("UID")), _utc(event.get("RECURRENCE-ID")))
            for event in events
            if event.get("RECURRENCE-ID") is not None
        }
        items = []
        for event in events:
            try:
                items.extend(self._event_items(event, window, moved))
            except MALFORMED as exc:  # one odd event never costs the calendar
                self.skipped.append(f"{event.get('UID') or event.get('SUMMARY')} ({malformed_reason(exc)})")
        return items

    def _event_items(
        self, event: icalendar.Event, window: Window, moved: set[tuple[str, datetime | None]]
    ) -> list[Item]:
        """A single event's item, or one per occurrence of a recurring one."""
        uid, start = str(event.get("UID") or ""), _utc(event.get("DTSTART"))
        if start is None and event.get("DTSTART") is not None:  # said, but no date: never dropped silently
            raise ValueError(f"DTSTART: not a usable date: {str(event.get('DTSTART'))[:60]!r}")
        if event.get("RRULE") is None or event.get("RECURRENCE-ID") is not None:
            return [self._ical_item(event, start, _utc(event.get("RECURRENCE-ID")))]
        skipped = {moment for key, moment in moved if key == uid and moment}
        return [
            self._ical_item(event, occurrence, occurrence) for occurrence in self._occurrences(event, window, skipped)
        ]

    def _occurrences(self, event: icalendar.Event, window: Window, skipped: set[datetime]) -> list[datetime]:
        try:
            rules = _rules(event)
        except (ValueError, TypeError, OverflowError):
            self.unreadable_rules += 1
            return [moment] if (moment := _utc(event.get("DTSTART"))) else []
        starts = [moment.astimezone(timezone.utc) for moment in rules.between(window.start, window.end, inc=True)]
        starts = [moment for moment in starts if window.contains(moment) and moment not in skipped]
        if not starts and window.contains(_utc(event.get("CREATED"))):
            upcoming = rules.after(window.end, inc=True)  # announced in the window: its first date ahead
            starts = [upcoming.astimezone(timezone.utc)] if upcoming else []
        return starts

    def _ical_item(self, event: icalendar.Event, start: datetime | None, occurrence: datetime | None) -> Item:
        end = start + _duration(event) if start else None
        announced = _utc(event.get("CREATED"))  # not DTSTAMP: published calendars set it to the export time
        url = str(event.get("URL") or "") or None
        summary = str(event.get("SUMMARY") or "")
        key = str(event.get("UID") or "") or f"{summary}@{_stamp(start)}"
        if occurrence is not None:
            key = f"{key}/{_stamp(occurrence)}"
        details = [str(event.get("DESCRIPTION") or "").strip(), _when(start, end), str(event.get("LOCATION") or "")]
        return self._item(
            key,
            url,
            summary,
            "\n".join(d for d in details if d),
            start,
            announced,
            {"ical": event.to_ical().decode("utf-8", "replace")},
        )

    # -- schema.org JSON-LD ----------------------------------------------------------------------

    def _from_page(self, html: str) -> list[Item]:
        items = []
        for node in _with_sub_events(json_ld_objects(html)):
            if not is_event_type(node.get("@type")):
                continue
            try:
                items.append(self._page_item(node))
            except MALFORMED as exc:  # one odd event never costs the page
                self.skipped.append(f"{node.get('@id') or node.get('name')} ({malformed_reason(exc)})")
        return items

    def _page_item(self, node: dict[str, Any]) -> Item:
        start, end = _utc(node.get("startDate")), _utc(node.get("endDate"))
        if start is None and node.get("startDate"):  # said, but no date: not an event to drop silently
            raise ValueError(f"startDate: not a usable date: {str(node.get('startDate'))[:60]!r}")
        location = node.get("location")
        where = location.get("name", "") if isinstance(location, dict) else str(location or "")
        url = node.get("url") if isinstance(node.get("url"), str) else None
        name = str(node.get("name") or "")
        details = [html_to_text(node.get("description")), _when(start, end), where]
        return self._item(
            str(node.get("@id") or f"{name}@{_stamp(start)}"),
            url,
            name,
            "\n".join(d for d in details if d),
            start,
            None,  # schema.org has no announcement date for an event
            node,
        )

    def _item(
        self,
        key: str,
        url: str | None,
        title: str,
        body: str,
        start: datetime | None,
        announced: datetime | None,
        raw: dict[str, Any],
    ) -> Item:
        return Item(
            id=f"event:{self.events.name}/{key}",
            source=self.name,
            kind="event",
            repo=self.events.name,
            url=url,
            title=title,
            body=body,
            created=_stamp(start or announced),
            announced=_stamp(announced),
            raw=raw,
        )


def _with_sub_events(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's objects and, after each, the events it holds as `subEvent` (a conference's
    sessions, a festival's talks), at any depth; each object once."""
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        subs = node.get("subEvent")
        stack.extend(reversed([sub for sub in _listed(subs) if isinstance(sub, dict)]))
    return found


def _single_valued(event: icalendar.Event) -> icalendar.Event:
    """The event with each property RFC 5545 allows once taken once: a calendar that repeats
    DTSTART (a real export did) gives a list, which would read as no start at all."""
    for name in SINGLE_VALUED:
        value = event.get(name)
        if isinstance(value, list) and value:
            event[name] = value[0]
    return event


def _rules(event: icalendar.Event) -> rruleset:
    """The event's RRULE, RDATE and EXDATE as one dateutil rule set, in the zone of its DTSTART
    (so a weekly 10:00 in Paris stays at 10:00 across daylight saving time)."""
    first = _aware(event.get("DTSTART"))
    if first is None:
        raise ValueError("a recurring event without DTSTART")
    rules = rruleset()
    for rule in _listed(event.get("RRULE")):
        rules.rrule(rrulestr(_rule_text(rule), dtstart=first))
    for moment in _dates(event.get("RDATE")):
        rules.rdate(moment)
    for moment in _dates(event.get("EXDATE")):
        rules.exdate(moment)
    return rules


def _rule_text(rule: icalendar.vRecur) -> str:
    """The RRULE as text dateutil accepts next to an aware start: UNTIL in UTC (RFC 5545 allows
    a bare date or a floating time there, which dateutil refuses). A bare date is the whole day."""
    rule = icalendar.vRecur(rule)
    if rule.get("UNTIL"):
        until = rule["UNTIL"][0]
        whole_day = isinstance(until, date) and not isinstance(until, datetime)
        rule["UNTIL"] = [_utc(until + timedelta(days=1)) - timedelta(seconds=1) if whole_day else _utc(until)]
    return rule.to_ical().decode()


def _dates(value: Any) -> list[datetime]:
    """The moments of RDATE / EXDATE properties (a period counts by its start)."""
    moments = []
    for prop in _listed(value):
        for entry in getattr(prop, "dts", []):
            moment = entry.dt[0] if isinstance(entry.dt, tuple) else entry.dt
            if (aware := _aware(moment)) is not None:
                moments.append(aware)
    return moments


def _listed(value: Any) -> list[Any]:
    """A property that may appear once or several times (icalendar gives a list then)."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _duration(event: icalendar.Event) -> timedelta:
    start, end = _utc(event.get("DTSTART")), _utc(event.get("DTEND"))
    if start and end:
        return end - start
    duration = getattr(event.get("DURATION"), "dt", None)
    return duration if isinstance(duration, timedelta) else timedelta(0)


def _when(start: datetime | None, end: datetime | None) -> str:
    if start is None:
        return ""
    return f"{_stamp(start)} – {_stamp(end)}" if end and end != start else _stamp(start) or ""
