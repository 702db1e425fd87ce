"""Events beyond the simple case: a BOM before a real calendar, recurring events (RRULE, EXDATE,
moved occurrences) in the window, schema.org Event subtypes, events announced in the window, and
ids that need no URL so an export imports again whole."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from pytorch_insight.config import EventsConfig
from pytorch_insight.jsonl import export_items, import_file
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources.events import EventsSource, is_event_type
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.fakes.static import StaticSite
from tests.sources.test_feed_and_events import ical_of, run

FORTNIGHT = make_window("2026-04-07", "2026-04-20")

# The shape Google Calendar publishes: a VTIMEZONE, local times, CREATED / DTSTAMP / LAST-MODIFIED.
RECURRING = """BEGIN:VCALENDAR
PRODID:-//Google Inc//Google Calendar 70.9054//EN
VERSION:2.0
CALSCALE:GREGORIAN
METHOD:PUBLISH
X-WR-CALNAME:PyTorch Community
X-WR-TIMEZONE:Europe/Paris
BEGIN:VTIMEZONE
TZID:Europe/Paris
X-LIC-LOCATION:Europe/Paris
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE
BEGIN:VEVENT
DTSTART;TZID=Europe/Paris:20260303T170000
DTEND;TZID=Europe/Paris:20260303T180000
RRULE:FREQ=WEEKLY;BYDAY=TU
DTSTAMP:20260415T080000Z
UID:office-hours@pytorch.test
CREATED:20260220T090000Z
LAST-MODIFIED:20260220T090000Z
DESCRIPTION:Weekly compiler office hours.
LOCATION:Online
SUMMARY:Compiler office hours
END:VEVENT
BEGIN:VEVENT
DTSTART;TZID=Europe/Paris:20260416T170000
DTEND;TZID=Europe/Paris:20260416T180000
RECURRENCE-ID;TZID=Europe/Paris:20260414T170000
DTSTAMP:20260415T080000Z
UID:office-hours@pytorch.test
CREATED:20260220T090000Z
LAST-MODIFIED:20260410T090000Z
LOCATION:Online
SUMMARY:Compiler office hours (moved to Thursday)
END:VEVENT
BEGIN:VEVENT
DTSTART;VALUE=DATE:20260101
DTEND;VALUE=DATE:20260102
RRULE:FREQ=WEEKLY;BYDAY=TH
EXDATE;VALUE=DATE:20260416
DTSTAMP:20260415T080000Z
UID:release-triage@pytorch.test
CREATED:20251215T090000Z
SUMMARY:Release triage
END:VEVENT
BEGIN:VEVENT
DTSTART;TZID=Europe/Paris:20260107T160000
DTEND;TZID=Europe/Paris:20260107T170000
RRULE:FREQ=MONTHLY;BYDAY=1WE;UNTIL=20260331T000000Z
DTSTAMP:20260415T080000Z
UID:maintainers-sync@pytorch.test
CREATED:20251215T090000Z
SUMMARY:Maintainers sync (ended in March)
END:VEVENT
BEGIN:VEVENT
DTSTART;TZID=Europe/Paris:20260505T180000
DTEND;TZID=Europe/Paris:20260505T190000
RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6
DTSTAMP:20260415T080000Z
UID:distributed-reading-group@pytorch.test
CREATED:20260410T120000Z
SUMMARY:Distributed reading group
END:VEVENT
BEGIN:VEVENT
DTSTART:20260910T070000Z
DTEND:20260911T160000Z
DTSTAMP:20260415T080000Z
UID:conference-na@pytorch.test
CREATED:20260408T120000Z
SUMMARY:PyTorch Conference North America
END:VEVENT
BEGIN:VEVENT
DTSTART:20260601T070000Z
DTSTAMP:20260415T080000Z
UID:summit@pytorch.test
SUMMARY:Summit (listed long ago; the calendar was exported in the window)
END:VEVENT
END:VCALENDAR
""".replace("\n", "\r\n")

SUBTYPES_PAGE = """<!doctype html><html><head><title>Community events</title>
<script type="application/ld+json">[
 {"@context": "https://schema.org", "@type": "EducationEvent", "name": "Intro to torch.compile workshop",
  "startDate": "2026-04-08T15:00:00+02:00", "location": {"@type": "VirtualLocation", "name": "Online"}},
 {"@context": "https://schema.org", "@type": ["BusinessEvent", "Thing"], "name": "Vendor day",
  "startDate": "2026-04-09T09:00:00Z"},
 {"@context": "https://schema.org", "@type": "https://schema.org/SocialEvent", "name": "Contributor meetup",
  "@id": "https://example.test/events#meetup", "startDate": "2026-04-10T18:00:00Z"},
 {"@context": "https://schema.org", "@type": "schema:ExhibitionEvent", "name": "Poster session",
  "startDate": "2026-04-11T10:00:00Z"},
 {"@context": "https://schema.org", "@type": "Festival", "name": "Open source festival",
  "startDate": "2026-04-12", "endDate": "2026-04-13"},
 {"@context": "https://schema.org", "@type": "MusicEvent", "name": "After-party",
  "startDate": "2026-04-12T21:00:00Z"},
 {"@context": "https://schema.org", "@type": "EducationEvent", "name": "Next month's workshop",
  "startDate": "2026-05-20T15:00:00Z"},
 {"@context": "https://schema.org", "@type": "EventReservation", "name": "A booking, not an event",
  "startDate": "2026-04-09T09:00:00Z"},
 {"@context": "https://schema.org", "@type": "Organization", "name": "PyTorch Foundation"}
]</script></head><body><h1>Community events</h1></body></html>"""


def collect_calendar(tmp_path: Path, text: str, fmt: str = "ical", name: str = "community"):  # noqa: ANN201
    path = "/events.ics" if fmt == "ical" else "/events/"
    content_type = "text/calendar; charset=utf-8" if fmt == "ical" else "text/html; charset=utf-8"
    with StaticSite({path: (content_type, text)}) as site:
        return run(
            tmp_path,
            lambda c: EventsSource(c, EventsConfig(name=name, url=f"{site.url}{path}", format=fmt)),
            FORTNIGHT,
        )


def test_a_real_calendar_behind_a_byte_order_mark(tmp_path: Path, shared_rows: list[dict[str, Any]]) -> None:
    calendar = ical_of(shared_rows)
    plain, _ = collect_calendar(tmp_path / "plain", calendar)
    store, status = collect_calendar(tmp_path / "bom", "\ufeff" + calendar)
    assert status.status is CoverageStatus.OK, status.note
    assert sorted(item.id for item in store.iter_items()) == sorted(item.id for item in plain.iter_items())
    assert status.items == 3


def test_recurring_events_have_their_occurrences_in_the_window(tmp_path: Path) -> None:
    store, status = collect_calendar(tmp_path, RECURRING)
    assert status.status is CoverageStatus.OK, status.note
    found = sorted((item.created, item.title, item.id) for item in store.iter_items())
    assert found == [
        (
            "2026-04-07T15:00:00Z",  # 17:00 in Paris, summer time
            "Compiler office hours",
            "event:community/office-hours@pytorch.test/2026-04-07T15:00:00Z",
        ),
        (
            "2026-04-09T00:00:00Z",  # the all-day series; the 16th is an EXDATE
            "Release triage",
            "event:community/release-triage@pytorch.test/2026-04-09T00:00:00Z",
        ),
        (
            "2026-04-16T15:00:00Z",  # the 14th's occurrence, moved (RECURRENCE-ID)
            "Compiler office hours (moved to Thursday)",
            "event:community/office-hours@pytorch.test/2026-04-14T15:00:00Z",
        ),
        (
            "2026-05-05T16:00:00Z",  # a series announced in the window: its first date
            "Distributed reading group",
            "event:community/distributed-reading-group@pytorch.test/2026-05-05T16:00:00Z",
        ),
        (
            "2026-09-10T07:00:00Z",  # announced (CREATED) in the window, held later
            "PyTorch Conference North America",
            "event:community/conference-na@pytorch.test",
        ),
    ]
    office = store.get_items(["event:community/office-hours@pytorch.test/2026-04-07T15:00:00Z"])
    assert "2026-04-07T15:00:00Z – 2026-04-07T16:00:00Z" in next(iter(office.values())).body


def test_events_announced_in_the_window_belong_to_it(tmp_path: Path) -> None:
    store, _ = collect_calendar(tmp_path, RECURRING)
    [conference] = store.get_items(["event:community/conference-na@pytorch.test"]).values()
    assert conference.model_extra["announced"] == "2026-04-08T12:00:00Z"
    assert conference.active_in(FORTNIGHT) and not conference.active_in(make_window("2026-04-13", "2026-04-20"))
    assert all(item.active_in(FORTNIGHT) for item in store.iter_items())


def test_schema_org_event_subtypes_and_type_lists(tmp_path: Path) -> None:
    store, status = collect_calendar(tmp_path, SUBTYPES_PAGE, fmt="html", name="site")
    assert status.status is CoverageStatus.OK, status.note
    found = sorted((item.created, item.title) for item in store.iter_items())
    assert found == [
        ("2026-04-08T13:00:00Z", "Intro to torch.compile workshop"),
        ("2026-04-09T09:00:00Z", "Vendor day"),
        ("2026-04-10T18:00:00Z", "Contributor meetup"),
        ("2026-04-11T10:00:00Z", "Poster session"),
        ("2026-04-12T00:00:00Z", "Open source festival"),
        ("2026-04-12T21:00:00Z", "After-party"),
    ]
    assert "event:site/https://example.test/events#meetup" in {item.id for item in store.iter_items()}
    assert "event:site/Vendor day@2026-04-09T09:00:00Z" in {item.id for item in store.iter_items()}


def test_event_type_names() -> None:
    assert all(
        map(is_event_type, ["Event", "MusicEvent", "Festival", ["Thing", "SaleEvent"], "http://schema.org/Event"])
    )
    assert not any(map(is_event_type, ["EventReservation", "Organization", None, ["Place"], 7]))


def test_events_without_a_url_survive_export_and_import(tmp_path: Path, shared_rows: list[dict[str, Any]]) -> None:
    calendar = "\r\n".join(line for line in ical_of(shared_rows).split("\r\n") if not line.startswith("URL:"))
    store, _ = collect_calendar(tmp_path / "ical", calendar, name="conference")
    page, _ = collect_calendar(tmp_path / "page", SUBTYPES_PAGE, fmt="html", name="site")
    collected = [*store.iter_items(), *page.iter_items()]
    assert len(collected) == 9 and all(item.url is None for item in collected)
    out = io.StringIO()
    export_items(collected, out)
    path = tmp_path / "events.jsonl"
    path.write_text(out.getvalue())
    again = Store.open(str(tmp_path / "again.db"))
    result = import_file(again, path)
    assert (result.imported, result.errors) == (9, [])
    assert sorted(item.id for item in again.iter_items()) == sorted(item.id for item in collected)
    assert {item.id: item.model_extra.get("announced") for item in again.iter_items()} == {
        item.id: item.model_extra.get("announced") for item in collected
    }
