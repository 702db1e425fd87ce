"""The blog feed (the recorded real RSS, and an Atom feed with `updated` only) and events
(the shared fortnight's real VEVENTs as an iCalendar feed, and a JSON-LD events page)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytorch_insight.config import EventsConfig, FeedConfig
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources.events import EventsSource
from pytorch_insight.sources.feed import FeedSource
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import SAMPLES, FakeClock
from tests.fakes.static import StaticSite
from tests.sources.helpers import collect_one, http_client, settings_for

RSS = (SAMPLES / "rss" / "couchbase_blog_rss2__perceval_2016.xml").read_text(encoding="utf-8")
ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>PyTorch Blog</title><id>urn:test:blog</id><updated>2026-04-10T09:00:00Z</updated>
  <entry><title>PyTorch 2.12 Release</title><id>urn:test:212</id><link href="https://pytorch.org/blog/pytorch-2-12/"/>
    <updated>2026-04-10T09:00:00Z</updated><author><name>PyTorch Team</name></author>
    <summary type="html">&lt;p&gt;We are excited to announce &lt;b&gt;PyTorch 2.12&lt;/b&gt;.&lt;/p&gt;</summary></entry>
  <entry><title>Older post</title><id>urn:test:old</id><link href="https://pytorch.org/blog/old/"/>
    <updated>2026-03-01T09:00:00Z</updated></entry>
</feed>"""
EVENTS_PAGE = """<!doctype html><html><head><title>Events</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
 {"@type": "Event", "name": "PyTorch Docathon", "startDate": "2026-04-09T16:00:00Z", "endDate": "2026-04-11T00:00:00Z",
  "url": "https://pytorch.org/events/docathon", "location": {"@type": "Place", "name": "Online"},
  "description": "<p>Improve the docs together.</p>"},
 {"@type": "Event", "name": "Meetup in May", "startDate": "2026-05-20T16:00:00Z", "url": "https://pytorch.org/events/may"},
 {"@type": "Organization", "name": "PyTorch Foundation"}]}</script></head><body><h1>Events</h1></body></html>"""


def ical_of(rows: list[dict[str, Any]]) -> str:
    """The shared VEVENTs as one calendar; the copies cut long bodies at ~2,000 characters, so a
    cut event is closed again (its description stays cut)."""
    bodies = [row["body"].rstrip() for row in rows if row["kind"] == "event" and row["body"].startswith("BEGIN:VEVENT")]
    closed = [body if body.endswith("END:VEVENT") else body + "\nEND:VEVENT" for body in bodies]
    events = "\r\n".join(body.replace("\n", "\r\n") for body in closed)
    return f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n{events}\r\nEND:VCALENDAR\r\n"


def run(tmp_path: Path, make_source, window):  # noqa: ANN001, ANN201
    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    with http_client(settings, store, FakeClock()) as client:
        status = collect_one(store, make_source(client), window)
    return store, status


def test_rss_posts_in_the_window(tmp_path: Path) -> None:
    with StaticSite({"/feed.xml": ("application/rss+xml", RSS)}) as site:
        store, status = run(
            tmp_path,
            lambda c: FeedSource(c, FeedConfig(name="blog", url=f"{site.url}/feed.xml")),
            make_window("2016-12-02", "2016-12-05"),
        )
    items = sorted(store.iter_items(), key=lambda i: i.created or "")
    assert status.status is CoverageStatus.OK and status.items == 4
    assert [i.title for i in items] == [
        "Houston User Group Visits - October 2016 (Videos)",
        "Kubernetes Monitoring with Heapster, InfluxDB and Grafana",
        "ELT processing with Couchbase and N1QL",
        "Create a URL Shortener with Node.js and Couchbase using N1QL",
    ]
    first = next(
        i
        for i in store.iter_items()
        if i.url
        == "http://blog.couchbase.com/2016/december/create-a-url-shortener-with-nodejs-and-couchbase-using-n1ql"
    )
    assert (first.kind, first.author, first.created) == ("blog", "Nic Raboy", "2016-12-05T16:24:00Z")


def test_an_atom_feed_with_updated_only(tmp_path: Path) -> None:
    with StaticSite({"/atom.xml": ("application/atom+xml", ATOM)}) as site:
        store, status = run(
            tmp_path,
            lambda c: FeedSource(c, FeedConfig(name="blog", url=f"{site.url}/atom.xml")),
            make_window("2026-04-07", "2026-04-13"),
        )
    [post] = list(store.iter_items())
    assert status.status is CoverageStatus.OK
    assert (post.title, post.author, post.created, post.body) == (
        "PyTorch 2.12 Release",
        "PyTorch Team",
        "2026-04-10T09:00:00Z",
        "We are excited to announce PyTorch 2.12.",
    )


def test_a_page_that_is_not_a_feed_fails_the_source(tmp_path: Path) -> None:
    with StaticSite({"/feed.xml": ("text/html", "<html><body>Moved</body></html>")}) as site:
        _, status = run(
            tmp_path,
            lambda c: FeedSource(c, FeedConfig(name="blog", url=f"{site.url}/feed.xml")),
            make_window("2026-04-07", "2026-04-13"),
        )
        _, missing = run(
            tmp_path,
            lambda c: FeedSource(c, FeedConfig(name="blog", url=f"{site.url}/gone.xml")),
            make_window("2026-04-07", "2026-04-13"),
        )
    assert status.status is CoverageStatus.FAILED and "not a readable feed" in status.note
    assert missing.status is CoverageStatus.FAILED and "404" in missing.note


def test_the_real_conference_events_from_an_icalendar_feed(tmp_path: Path, shared_rows: list[dict[str, Any]]) -> None:
    vevents = [row for row in shared_rows if row["kind"] == "event" and row["body"].startswith("BEGIN:VEVENT")]
    with StaticSite({"/events.ics": ("text/calendar", ical_of(shared_rows))}) as site:
        store, status = run(
            tmp_path,
            lambda c: EventsSource(c, EventsConfig(name="conf", url=f"{site.url}/events.ics")),
            make_window("2026-04-07", "2026-04-20"),
        )
    items = {item.url: item for item in store.iter_items()}
    assert status.status is CoverageStatus.OK and len(items) == len(vevents) > 0
    registration = items["http://pytorchconferenceeu2026.sched.com/event/10f78a619b5238ec41fe32b1e00cc76d"]
    assert (registration.kind, registration.title, registration.created) == (
        "event",
        "Registration & Badge Pick-Up",
        "2026-04-07T05:30:00Z",
    )
    assert "Lobby, Paris, France" in registration.body


def test_events_from_a_page_with_schema_org_data(tmp_path: Path) -> None:
    with StaticSite({"/events/": ("text/html", EVENTS_PAGE)}) as site:
        store, status = run(
            tmp_path,
            lambda c: EventsSource(c, EventsConfig(name="site", url=f"{site.url}/events/", format="html")),
            make_window("2026-04-07", "2026-04-13"),
        )
    [event] = list(store.iter_items())
    assert status.status is CoverageStatus.OK
    assert (event.title, event.url, event.created) == (
        "PyTorch Docathon",
        "https://pytorch.org/events/docathon",
        "2026-04-09T16:00:00Z",
    )
    assert event.body.splitlines() == [
        "Improve the docs together.",
        "2026-04-09T16:00:00Z – 2026-04-11T00:00:00Z",
        "Online",
    ]
