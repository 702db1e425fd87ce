"""Discourse through a local server that answers in the recorded real shapes."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pytorch_insight.config import ForumConfig
from pytorch_insight.model import CoverageStatus, Item
from pytorch_insight.sources.discourse import DiscourseSource
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import SAMPLES, FakeClock
from tests.fakes.discourse import FakeDiscourse, Post, Topic
from tests.fakes.server import Reply, Trouble
from tests.sources.helpers import collect_one, http_client, settings_for
from tests.test_fake_contract import shape_mismatches

WEEK = make_window("2026-04-07", "2026-04-13")
CATEGORIES = [(1, "uncategorized", "Uncategorized"), (5, "compiler", "Compiler"), (6, "distributed", "Distributed")]


def posts(*stamps: str, first: str = "<p>Text</p>") -> list[Post]:
    return [Post("alice", stamps[0], first)] + [
        Post(f"user{i}", s, f"<p>reply {i}</p>") for i, s in enumerate(stamps[1:], 1)
    ]


def forum_topics() -> list[Topic]:
    return [
        Topic(1, "Welcome to the forum", posts("2020-01-01T00:00:00Z"), pinned=True),
        Topic(
            2,
            "RFC: a new inductor scheduler",
            posts(
                "2026-04-08T10:00:00Z",
                "2026-04-09T10:00:00Z",
                first='<p>Context in <a href="https://github.com/pytorch/pytorch/issues/4321">the ticket</a>.</p>',
            ),
            category_id=5,
            tags=["rfc"],
            likes=7,
        ),
        Topic(
            3,
            "A long discussion",
            posts(
                "2026-03-01T10:00:00Z", *[f"2026-03-{d:02d}T10:00:00Z" for d in range(2, 23)], "2026-04-10T10:00:00Z"
            ),
            category_id=6,
        ),
        Topic(4, "Old and quiet", posts("2026-02-01T10:00:00Z", "2026-02-02T10:00:00Z"), category_id=5),
        Topic(5, "Started after the window", posts("2026-04-20T10:00:00Z"), category_id=5),
        Topic(6, "Older again", posts("2026-01-01T10:00:00Z"), category_id=5),
    ]


@pytest.fixture
def forum() -> FakeDiscourse:
    with FakeDiscourse(forum_topics(), CATEGORIES, per_page=2) as server:
        yield server


def collect(tmp_path: Path, forum_url: str, categories: list[str] | None = None, clock: FakeClock | None = None):  # noqa: ANN201
    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    config = ForumConfig(name="dev-discuss", url=forum_url, categories=categories or [])
    with http_client(settings, store, clock or FakeClock(), forum_url, {"Accept": "application/json"}) as client:
        status = collect_one(store, DiscourseSource(client, config), WEEK)
    return store, status


def stored(store: Store) -> dict[int, Item]:
    return {int(item.id.rsplit("/", 1)[1]): item for item in store.iter_items()}


def test_topics_active_in_the_window_with_their_replies(tmp_path: Path, forum: FakeDiscourse) -> None:
    store, status = collect(tmp_path, forum.url)
    topics = stored(store)
    assert status.status is CoverageStatus.OK, status.note
    assert sorted(topics) == [2, 3]
    rfc = topics[2]
    assert (rfc.kind, rfc.title, rfc.author, rfc.labels, rfc.reactions) == (
        "forum",
        "RFC: a new inductor scheduler",
        "alice",
        ["rfc"],
        7,
    )
    assert rfc.body == "Context in the ticket (https://github.com/pytorch/pytorch/issues/4321)."
    assert [c.body for c in rfc.comments] == ["reply 1"]
    assert rfc.model_extra["category"] == "Compiler"
    assert [c.date for c in topics[3].comments] == ["2026-04-10T10:00:00Z"]  # only the reply in the window


def test_paging_stops_at_the_window_and_pinned_topics_do_not_stop_it(tmp_path: Path, forum: FakeDiscourse) -> None:
    collect(tmp_path, forum.url)
    latest = [path for path, _ in forum.log if path.startswith("/latest.json")]
    assert len(latest) == 3  # page 0 holds the old pinned topic; page 2 is the first wholly older page


def test_a_second_page_of_posts_only_when_the_window_needs_it(tmp_path: Path, forum: FakeDiscourse) -> None:
    collect(tmp_path, forum.url)
    topic_pages = [path for path, _ in forum.log if path.startswith("/t/")]
    assert "/t/3.json?page=2" in topic_pages  # 23 posts; the window's reply is on page 2
    assert not any(path.startswith("/t/2.json?page") for path in topic_pages)


def test_categories_of_interest(tmp_path: Path, forum: FakeDiscourse) -> None:
    store, _ = collect(tmp_path, forum.url, categories=["compiler"])
    assert sorted(stored(store)) == [2]


def test_a_429_with_retry_after_is_waited_out(tmp_path: Path, forum: FakeDiscourse) -> None:
    clock = FakeClock()
    forum.add_trouble(
        Trouble(
            r"^/t/2\.json$",
            Reply.json(429, {"errors": ["Slow down"], "error_type": "rate_limit"}, **{"Retry-After": "17"}),
        )
    )
    store, status = collect(tmp_path, forum.url, clock=clock)
    assert status.status is CoverageStatus.OK and 2 in stored(store)
    assert clock.sleeps == [17.0]


def test_a_forum_that_is_down_fails_the_source_cleanly(tmp_path: Path) -> None:
    store, status = collect(tmp_path, "http://127.0.0.1:9")
    assert status.status is CoverageStatus.FAILED and "connection failed" in status.note
    assert store.count_items() == 0


@pytest.mark.parametrize(
    ("sample", "path", "pick"),
    [
        ("sourcecred_test_2021__latest_page0.json", "/latest.json", lambda d: d),
        ("sourcecred_test_2021__t_26_page1.json", "/t/3.json", lambda d: d),
        ("sourcecred_test_2021__t_26_page2.json", "/t/3.json?page=2", lambda d: d),
        ("sourcecred_test_2021__categories.json", "/categories.json", lambda d: d),
    ],
)
def test_the_fake_answers_in_the_recorded_shapes(forum: FakeDiscourse, sample: str, path: str, pick) -> None:  # noqa: ANN001
    real = json.loads((SAMPLES / "discourse" / sample).read_text())
    fake = httpx.get(forum.url + path, timeout=5).json()
    real.get("topic_list", {}).pop("more_topics_url", None)
    assert shape_mismatches(pick(real), pick(fake)) == []


def test_an_api_key_goes_in_discourse_headers(tmp_path: Path, forum: FakeDiscourse) -> None:
    from contextlib import ExitStack

    from pytorch_insight.collect import build_sources

    settings = settings_for(tmp_path, DISCOURSE_API_KEY="k-123", DISCOURSE_API_USERNAME="system")
    settings.profile = settings.profile.model_copy(update={"forums": [ForumConfig(name="dev-discuss", url=forum.url)]})
    store = Store.open(settings.db)
    with ExitStack() as stack:
        [source] = build_sources(settings, store, stack, ("forum",), clock=FakeClock())
        collect_one(store, source, WEEK)
    assert all(h.get("Api-Key") == "k-123" and h.get("Api-Username") == "system" for h in forum.headers_seen)
    assert b"k-123" not in Path(settings.db).read_bytes()


def test_one_topic_that_fails_is_noted_and_the_others_are_stored(tmp_path: Path, forum: FakeDiscourse) -> None:
    forum.add_trouble(Trouble(r"^/t/3\.json$", Reply.json(500, {"errors": ["Internal error"]}), times=10))
    store, status = collect(tmp_path, forum.url)
    assert sorted(stored(store)) == [2]
    assert status.status is CoverageStatus.PARTIAL and status.items == 1
    assert status.note.startswith("1 topic could not be read: topic 3 (server error 500 from 127.0.0.1/t/3.json)")


def test_when_every_topic_fails_the_forum_failed(tmp_path: Path, forum: FakeDiscourse) -> None:
    forum.add_trouble(Trouble(r"^/t/\d+\.json$", Reply.json(404, {"errors": ["gone"], "error_type": "not_found"}), 9))
    store, status = collect(tmp_path, forum.url)
    assert (status.status, store.count_items()) == (CoverageStatus.FAILED, 0)
    assert status.note.startswith("2 topics could not be read: topic 3 (not found (404)")


def test_an_older_topic_discussed_in_the_window_belongs_to_it(tmp_path: Path, forum: FakeDiscourse) -> None:
    store, _ = collect(tmp_path, forum.url)
    older = stored(store)[3]  # opened in March, a reply on April 10
    assert older.created == "2026-03-01T10:00:00Z" and older.updated == "2026-04-10T10:00:00Z"
    assert older.active_in(WEEK)
    assert sorted(int(item.id.rsplit("/", 1)[1]) for item in store.iter_items() if item.active_in(WEEK)) == [2, 3]
    assert not older.active_in(make_window("2026-04-14", "2026-04-20"))


def test_times_with_an_offset_are_stored_in_utc(tmp_path: Path) -> None:
    topic = Topic(8, "Late night in Tokyo", posts("2026-04-08T01:30:00+09:00", "2026-04-08T08:59:00+09:00"))
    with FakeDiscourse([topic], CATEGORIES) as server:
        store, _ = collect(tmp_path, server.url)
    item = stored(store)[8]
    assert (item.created, item.updated) == ("2026-04-07T16:30:00Z", "2026-04-07T23:59:00Z")
    assert [comment.date for comment in item.comments] == ["2026-04-07T23:59:00Z"]
    # All of it on April 7 in UTC, though the texts say the 8th.
    assert item.active_in(WEEK) and not item.active_in(make_window("2026-04-08", "2026-04-13"))


def test_the_api_key_never_follows_a_redirect_to_another_host(tmp_path: Path, forum: FakeDiscourse) -> None:
    from contextlib import ExitStack

    from pytorch_insight.collect import build_sources

    settings = settings_for(tmp_path, DISCOURSE_API_KEY="k-123", DISCOURSE_API_USERNAME="system")
    settings.profile = settings.profile.model_copy(update={"forums": [ForumConfig(name="dev-discuss", url=forum.url)]})
    store = Store.open(settings.db)
    with FakeDiscourse(forum_topics(), CATEGORIES, per_page=2) as elsewhere, ExitStack() as stack:
        forum.add_trouble(Trouble(r"^/latest\.json$", Reply(302, b"", {"Location": f"{elsewhere.url}/latest.json"})))
        [source] = build_sources(settings, store, stack, ("forum",), clock=FakeClock())
        collect_one(store, source, WEEK)
    assert elsewhere.headers_seen and forum.headers_seen
    assert not any("Api-Key" in h or "Api-Username" in h for h in elsewhere.headers_seen)
    assert all(h.get("Api-Key") == "k-123" for h in forum.headers_seen)
