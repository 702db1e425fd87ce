"""One malformed or out-of-range date from any source costs that record only: it is skipped with a
note naming it and its field, the page's other records are stored and the later sources run."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pytorch_insight.collect import build_sources, run_collection
from pytorch_insight.config import EventsConfig, FeedConfig, ForumConfig
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources import NoProgress
from pytorch_insight.sources.discourse import DiscourseSource
from pytorch_insight.sources.events import EventsSource
from pytorch_insight.sources.feed import FeedSource
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import FakeClock
from tests.fakes.discourse import FakeDiscourse, Post, Topic
from tests.fakes.github import FakeGitHub
from tests.fakes.static import StaticSite
from tests.sources.helpers import http_client, settings_for

WEEK = make_window("2026-04-07", "2026-04-13")
OVERFLOW = "9999-12-31T23:59:59-14:00"  # a valid ISO stamp that overflows on conversion to UTC
ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:b</id><updated>2026-04-10T09:00:00Z</updated>
  <entry><title>A post</title><id>urn:p</id><link href="https://example.org/p"/><updated>2026-04-10T09:00:00Z</updated></entry>
</feed>"""
PAGE = """<html><head><script type="application/ld+json">[
 {"@type": "Event", "name": "Broken", "startDate": "9999-12-31T23:59:59-14:00", "url": "https://example.org/a"},
 {"@type": "Event", "name": "Fine", "startDate": "2026-04-09T16:00:00Z", "url": "https://example.org/b"}
]</script></head></html>"""


def topic(number: int, day: str, **overrides: Any) -> Topic:
    return Topic(
        number, f"topic {number}", [Post("alice", f"2026-04-{day}T10:00:00Z", "<p>x</p>")], overrides=overrides
    )


def test_a_forum_topic_dated_yesterday_is_skipped_and_the_later_sources_run(tmp_path: Path) -> None:
    topics = [topic(1, "08"), topic(2, "09", last_posted_at="yesterday"), topic(3, "10", created_at=OVERFLOW)]
    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    with (
        FakeDiscourse(topics, [(1, "uncategorized", "Uncategorized")]) as forum,
        StaticSite({"/feed.xml": ("application/atom+xml", ATOM), "/events": ("text/html", PAGE)}) as site,
        ExitStack() as stack,
    ):
        client = stack.enter_context(http_client(settings, store, FakeClock(), forum.url, {}))
        plain = stack.enter_context(http_client(settings, store, FakeClock()))
        sources = [
            DiscourseSource(client, ForumConfig(name="dev-discuss", url=forum.url)),
            FeedSource(plain, FeedConfig(name="blog", url=f"{site.url}/feed.xml")),
            EventsSource(plain, EventsConfig(name="events", url=f"{site.url}/events", format="html")),
        ]
        forum_status, blog, events = run_collection(store, sources, WEEK, NoProgress(), "pytorch", {})
    assert forum_status.status is CoverageStatus.PARTIAL
    assert "topic 2" in forum_status.note and "updated" in forum_status.note and "yesterday" in forum_status.note
    assert "topic 3" in forum_status.note and "created" in forum_status.note
    assert [item.title for item in store.iter_items() if item.kind == "forum"] == ["topic 1"]
    assert blog.status is CoverageStatus.OK and blog.items == 1
    assert events.status is CoverageStatus.PARTIAL and events.items == 1 and "Broken" in events.note
    assert store.runs()[-1]["status"] == "partial"


def test_a_github_item_closed_in_year_9999_is_skipped_with_the_rest_of_its_page_stored(tmp_path: Path) -> None:
    rows = [
        {
            "repo": "pytorch/pytorch",
            "number": n,
            "kind": "issue",
            "state": "open",
            "title": f"thing {n}",
            "author": "someone",
            "created": "2026-04-08",
            "labels": [],
            "body": "",
            "comments": [],
            "url": None,
        }
        for n in (1, 2, 3)
    ]
    rows[1]["payload"] = {"closed_at": OVERFLOW, "state": "closed"}
    clock = FakeClock()
    with FakeGitHub(rows, now=clock.now) as server:
        settings = settings_for(tmp_path, GITHUB_API_URL=server.url)
        store = Store.open(settings.db)
        with ExitStack() as stack:
            sources = build_sources(settings, store, stack, ("github",), clock=clock)
            [status] = run_collection(store, sources, WEEK, NoProgress(), "pytorch", {})
    assert status.status is CoverageStatus.PARTIAL
    assert "pytorch/pytorch#2" in status.note and "closed" in status.note
    assert sorted(item.number for item in store.iter_items() if item.kind == "issue") == [1, 3]


def test_a_source_that_fails_in_an_unforeseen_way_fails_alone(tmp_path: Path) -> None:
    class Broken:
        name = "broken"

        def fetch(self, window, emit, progress):  # noqa: ANN001, ANN201
            raise RuntimeError("\x1b]0;owned\x07 a bug")

    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    with (
        StaticSite({"/feed.xml": ("application/atom+xml", ATOM)}) as site,
        http_client(settings, store, FakeClock()) as c,
    ):
        broken, blog = run_collection(
            store,
            [Broken(), FeedSource(c, FeedConfig(name="blog", url=f"{site.url}/feed.xml"))],
            WEEK,
            NoProgress(),
            "p",
            {},
        )
    assert broken.status is CoverageStatus.FAILED and "RuntimeError" in broken.note
    assert blog.status is CoverageStatus.OK
