"""Statuses that tell the truth: a forum with one failed topic and the others read is partial; a
rate limit on the very first request is partial (the next run goes on); a 401 without a token says
no token was sent; 2012-era issues (a `pull_request` object of nulls) are issues; a topic whose
last post is in the window is kept although the pages read do not show that post."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pytorch_insight.config import ForumConfig, Settings
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources.discourse import DiscourseSource
from pytorch_insight.store import Store
from tests.conftest import SAMPLES, FakeClock, collect
from tests.fakes.discourse import FakeDiscourse, Post, Topic
from tests.fakes.github import FakeGitHub, Fault
from tests.fakes.server import Reply, Trouble
from tests.sources.helpers import collect_one, http_client, settings_for
from tests.sources.test_slack import collect as slack_collect
from tests.sources.test_slack import workspace
from tests.test_github_source import WEEK, row

CATEGORIES = [(1, "uncategorized", "Uncategorized")]
# A 2014 search result of an issue, as recorded: the key is there, every URL in it null.
OLD_ISSUE = next(
    item
    for item in json.loads((SAMPLES / "github-rest" / "search_issues__pygithub_2014_link.json").read_text())["body"][
        "items"
    ]
    if not item["pull_request"]["html_url"]
)


def forum_collect(tmp_path: Path, topics: list[Topic], trouble: Trouble | None = None, has_key: bool = False):  # noqa: ANN201
    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    with FakeDiscourse(topics, CATEGORIES) as forum:
        if trouble:
            forum.add_trouble(trouble)
        with http_client(settings, store, FakeClock(), forum.url, {}) as client:
            source = DiscourseSource(client, ForumConfig(name="dev-discuss", url=forum.url), has_key=has_key)
            return store, collect_one(store, source, WEEK)


def post(day: str) -> Post:
    return Post("alice", f"{day}T10:00:00Z", "<p>x</p>")


def test_one_failed_topic_beside_topics_outside_the_window_is_partial(tmp_path: Path) -> None:
    liked = Topic(
        2, "liked in the window", [post("2026-03-01")], summary_overrides={"bumped_at": "2026-04-09T10:00:00Z"}
    )
    failing = Topic(3, "errors", [post("2026-04-08")])
    forbidden = Reply.json(403, {"errors": ["You are not permitted to view the requested resource."]})
    store, status = forum_collect(tmp_path, [liked, failing], Trouble(r"^/t/3\.json", forbidden, times=5))
    assert status.status is CoverageStatus.PARTIAL, status.note
    assert "topic 3" in status.note and status.items == 0


def test_a_topic_whose_last_post_is_in_the_window_is_kept(tmp_path: Path) -> None:
    # Its last post (deleted since, or hidden) is not on the page; last_posted_at still says so.
    quiet = Topic(
        4,
        "last post deleted",
        [post("2026-03-01")],
        overrides={"last_posted_at": "2026-04-10T08:00:00Z"},
        summary_overrides={"bumped_at": "2026-04-10T08:00:00Z", "last_posted_at": "2026-04-10T08:00:00Z"},
    )
    store, status = forum_collect(tmp_path, [quiet])
    assert status.status is CoverageStatus.OK
    assert [item.title for item in store.iter_items()] == ["last post deleted"]


def test_a_forum_401_without_a_key_says_no_key_was_sent(tmp_path: Path) -> None:
    login = Reply.json(401, {"errors": ["You need to be logged in to do that."], "error_type": "not_logged_in"})
    _, status = forum_collect(tmp_path, [], Trouble(r"^/categories\.json", login))
    assert status.status is CoverageStatus.FAILED
    assert "no DISCOURSE_API_KEY" in status.note and "rejected" not in status.note


def test_a_rate_limit_on_the_very_first_request_is_partial(
    start_github: Callable[..., FakeGitHub], make_settings: Callable[..., Settings], clock: FakeClock
) -> None:
    server = start_github([row(1)])
    server.add_fault(Fault(".", "primary_no_reset"))  # the recorded 2013 answer
    _, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.PARTIAL and status.items == 0
    assert "rate limit" in status.note and "GITHUB_TOKEN" in status.note


def test_a_github_401_without_a_token_says_no_token_was_sent(
    start_github: Callable[..., FakeGitHub], make_settings: Callable[..., Settings], clock: FakeClock
) -> None:
    server = start_github([row(1)])
    body = {"message": "Requires authentication", "documentation_url": "https://docs.github.com/rest"}
    server.add_fault(Fault(".", "status", times=10, status=401, body=body))
    _, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.FAILED
    assert "no token was sent" in status.note and "rejected the token" not in status.note


def test_an_issue_of_2012_with_a_null_pull_request_object_is_an_issue(
    start_github: Callable[..., FakeGitHub], make_settings: Callable[..., Settings], clock: FakeClock
) -> None:
    server = start_github([row(1, payload={"pull_request": OLD_ISSUE["pull_request"]}), row(2, kind="pull_request")])
    store, status = collect(make_settings(server.url), clock, WEEK)
    kinds = {item.number: item.kind for item in store.iter_items() if item.number}
    assert kinds == {1: "issue", 2: "pull_request"}, status.note


def test_a_slack_rate_limit_on_the_first_request_is_partial(tmp_path: Path) -> None:
    with workspace() as slack:
        # Told to wait an hour, more than http.max_rate_limit_wait: the source stops there.
        limited = Reply.json(429, {"ok": False, "error": "ratelimited"}, **{"Retry-After": "3600"})
        slack.add_trouble(Trouble(r"^/conversations\.history$", limited))
        _, status = slack_collect(tmp_path, slack.url, ["C0COMPILE"])
    assert status.status is CoverageStatus.PARTIAL and status.items == 0, status.note
