"""Which items belong to a window (`Item.active_in`, the rule `items_in_window` applies), and
item times normalised to UTC so they compare correctly."""

from __future__ import annotations

from typing import Any

import pytest

from pytorch_insight.model import Comment, Item
from pytorch_insight.window import make_window

WEEK = make_window("2026-04-07", "2026-04-13")
BEFORE, IN, AFTER = "2026-03-02T10:00:00Z", "2026-04-09T10:00:00Z", "2026-05-02T10:00:00Z"


def item(kind: str, **fields: Any) -> Item:
    return Item(id=f"{kind}:x", source=kind, kind=kind, **fields)


@pytest.mark.parametrize("kind", ["issue", "pull_request", "rfc"])
def test_github_items_keep_their_rule_an_update_is_not_activity(kind: str) -> None:
    assert not item(kind, created=BEFORE, updated=IN).active_in(WEEK)
    assert not item(kind, created=BEFORE, updated=IN, comments=[Comment(date=IN)]).active_in(WEEK)
    assert item(kind, created=IN).active_in(WEEK)
    assert item(kind, created=BEFORE, closed=IN).active_in(WEEK)
    assert item(kind, created=BEFORE, merged=IN).active_in(WEEK)


@pytest.mark.parametrize("kind", ["commit", "blog"])
def test_commits_and_posts_count_by_their_date(kind: str) -> None:
    assert item(kind, created=IN).active_in(WEEK)
    assert not item(kind, created=BEFORE, updated=IN).active_in(WEEK)


@pytest.mark.parametrize("kind", ["forum", "slack"])
def test_discussions_count_by_their_last_activity_and_replies(kind: str) -> None:
    assert item(kind, created=BEFORE, updated=IN).active_in(WEEK)
    assert item(kind, created=BEFORE, updated=AFTER, comments=[Comment(date=IN)]).active_in(WEEK)
    assert not item(kind, created=BEFORE, updated=AFTER, comments=[Comment(date=BEFORE)]).active_in(WEEK)


def test_events_count_when_held_or_announced() -> None:
    assert item("event", created=IN).active_in(WEEK)
    assert item("event", created=AFTER, announced=IN).active_in(WEEK)
    assert not item("event", created=AFTER, announced=BEFORE).active_in(WEEK)
    assert not item("event", created=AFTER, updated=IN).active_in(WEEK)


def test_times_with_offsets_become_utc() -> None:
    late = item(
        "issue",
        created="2026-04-07T01:30:00+02:00",
        updated="2026-04-13T23:30:00-05:00",
        closed="2026-04-09T10:00:00",  # no zone: taken as UTC
        merged="2026-04-09T10:00:00+00:00",
        comments=[Comment(date="2026-04-08T09:00:00+09:00"), Comment(date="someday")],
    )
    assert (late.created, late.updated, late.closed, late.merged) == (
        "2026-04-06T23:30:00Z",
        "2026-04-14T04:30:00Z",
        "2026-04-09T10:00:00Z",
        "2026-04-09T10:00:00Z",
    )
    assert [comment.date for comment in late.comments] == ["2026-04-08T00:00:00Z", "someday"]
    kept = item("issue", created="2026-04-08", updated="2026-04-08T10:00:00.250Z")
    assert (kept.created, kept.updated) == ("2026-04-08", "2026-04-08T10:00:00.250Z")


def test_an_offset_decides_the_day() -> None:
    """01:30 on the 7th in Paris is the 6th in UTC: outside a window that starts on the 7th."""
    assert not item("issue", created="2026-04-07T01:30:00+02:00").active_in(WEEK)
    assert item("issue", created="2026-04-13T23:30:00-01:00").active_in(make_window("2026-04-14", "2026-04-20"))
