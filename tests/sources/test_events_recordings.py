"""Events as other projects publish them: a conference's sessions as JSON-LD `subEvent`; a calendar
that repeats DTSTART; a stray line, an event without END or an END without BEGIN costing that line
only; a document that is no calendar failing in one short line."""

from __future__ import annotations

from pathlib import Path

from pytorch_insight.config import EventsConfig
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources.events import EventsSource
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import FakeClock
from tests.fakes.static import StaticSite
from tests.sources.helpers import collect_one, http_client, settings_for

WEEK = make_window("2026-04-07", "2026-04-13")
CONFERENCE = """<html><head><script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Event", "name": "PyTorch Day", "startDate": "2026-04-09",
 "endDate": "2026-04-10", "url": "https://example.org/day",
 "subEvent": [
  {"@type": "Event", "name": "Keynote", "startDate": "2026-04-09T09:00:00+02:00", "@id": "https://example.org/day#keynote"},
  {"@type": "EducationEvent", "name": "torch.compile workshop", "startDate": "2026-04-09T14:00:00+02:00",
   "subEvent": {"@type": "Event", "name": "Hands-on lab", "startDate": "2026-04-09T16:00:00+02:00"}}
 ]}
</script></head><body></body></html>"""


def vevent(uid: str, *lines: str) -> str:
    return "\r\n".join(
        ["BEGIN:VEVENT", f"UID:{uid}", f"SUMMARY:{uid}", "DTSTAMP:20260401T000000Z", *lines, "END:VEVENT"]
    )


def calendar(*parts: str) -> str:
    return "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN", *parts, "END:VCALENDAR"]) + "\r\n"


def run(tmp_path: Path, text: str, fmt: str = "ical", content_type: str = "text/calendar"):  # noqa: ANN201
    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    with StaticSite({"/events": (content_type, text)}) as site, http_client(settings, store, FakeClock()) as client:
        status = collect_one(
            store, EventsSource(client, EventsConfig(name="ev", url=f"{site.url}/events", format=fmt)), WEEK
        )
    return {item.title for item in store.iter_items()}, status


def test_a_conference_page_gives_its_sessions_too(tmp_path: Path) -> None:
    titles, status = run(tmp_path, CONFERENCE, "html", "text/html")
    assert status.status is CoverageStatus.OK
    assert titles == {"PyTorch Day", "Keynote", "torch.compile workshop", "Hands-on lab"}


def test_a_repeated_dtstart_keeps_the_event(tmp_path: Path) -> None:
    text = calendar(vevent("twice", "DTSTART:20260409T100000Z", "DTSTART:20260409T100000Z"))
    titles, status = run(tmp_path, text)
    assert titles == {"twice"} and status.status is CoverageStatus.OK


def test_a_malformed_line_costs_that_line_only(tmp_path: Path) -> None:
    text = calendar(
        "this line was printed by a script",
        vevent("first", "DTSTART:20260408T100000Z"),
        "BEGIN:VEVENT\r\nUID:open\r\nSUMMARY:open\r\nDTSTART:20260409T100000Z",  # never ends
        vevent("third", "DTSTART:20260410T100000Z"),
        "END:VTODO",
        vevent("broken start", "DTSTART:2026041XT100000Z"),
    )
    titles, status = run(tmp_path, text)
    assert titles == {"first", "open", "third"}
    assert status.status is CoverageStatus.PARTIAL
    assert "line 4" in status.note and "END:VTODO" in status.note and "broken start" in status.note


def test_a_document_that_is_no_calendar_fails_in_one_short_line(tmp_path: Path) -> None:
    for text in (
        "<html><body>We moved our calendar</body></html>",
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n" * 50,
    ):
        titles, status = run(tmp_path, text)
        assert "\n" not in status.note and len(status.note) < 400, status.note
        assert status.status in (CoverageStatus.FAILED, CoverageStatus.PARTIAL)
