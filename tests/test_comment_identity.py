"""A comment's identity does not depend on which path brought it: the shared fortnight imported
(comments without GitHub ids, dated by day) and collected from GitHub (ids, exact times), in
either order, holds each comment once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.config import Settings
from pytorch_insight.jsonl import import_file
from pytorch_insight.model import Comment, merge_comments
from pytorch_insight.store import Store
from tests.conftest import RAW_WEEKS, FakeClock, collect
from tests.fakes.github import FakeGitHub
from tests.test_github_source import WEEK


@pytest.mark.parametrize("order", ["import, then collect", "collect, then import"])
def test_imported_and_fetched_comments_merge(
    start_github: Callable[..., FakeGitHub],
    make_settings: Callable[..., Settings],
    clock: FakeClock,
    shared_rows: list[dict[str, Any]],
    order: str,
) -> None:
    settings = make_settings(start_github(shared_rows).url)
    if order.startswith("import"):
        import_file(Store.open(settings.db), RAW_WEEKS)
        store, _ = collect(settings, clock)
    else:
        store, _ = collect(settings, clock)
        import_file(store, RAW_WEEKS)
    stored = {item.id: item for item in store.iter_items()}
    expected = {
        f"github:{row['repo']}#{row['number']}": len(row["comments"]) for row in shared_rows if row.get("number")
    }
    counts = {item_id: len(stored[item_id].comments) for item_id in expected}
    assert sum(counts.values()) == sum(expected.values())
    assert counts == expected
    if order.startswith("collect"):  # the imported copy keeps what only the fetched one knew
        fetched = [c for i in stored.values() if i.repo == "pytorch/pytorch" for c in i.comments if c.kind == "comment"]
        assert fetched and all(c.native_id is not None and "T" in (c.date or "") for c in fetched)


def test_equal_comments_of_one_copy_stay_two_and_each_meets_its_own_copy() -> None:
    imported = [Comment(author="bob", date="2026-04-09", body="@pytorchbot merge") for _ in range(2)]
    fetched = [
        Comment(id=11, author="bob", date="2026-04-09T12:00:00Z", body="@pytorchbot merge"),
        Comment(id=12, author="bob", date="2026-04-09T12:01:00Z", body="@pytorchbot  merge\n"),
    ]
    for old, new in ((imported, fetched), (fetched, imported)):
        merged = merge_comments(old, new)
        assert [(c.native_id, c.date) for c in merged] == [
            ("11", "2026-04-09T12:00:00Z"),
            ("12", "2026-04-09T12:01:00Z"),
        ]
    other_day = Comment(author="bob", date="2026-04-10", body="@pytorchbot merge")
    assert len(merge_comments(fetched, [other_day])) == 3


def test_a_partly_imported_thread_completed_by_collection_holds_each_comment_once(
    start_github: Callable[..., FakeGitHub],
    make_settings: Callable[..., Settings],
    clock: FakeClock,
    tmp_path: Path,
) -> None:
    said = [{"author": f"user{i}", "date": "2026-04-09", "kind": "comment", "body": f"comment {i}"} for i in range(3)]
    row = {
        "repo": "pytorch/pytorch",
        "number": 7,
        "kind": "issue",
        "state": "open",
        "title": "t",
        "author": "a",
        "created": "2026-04-08",
        "labels": [],
        "body": "",
        "comments": said,
        "url": "https://github.com/pytorch/pytorch/issues/7",
    }
    settings = make_settings(start_github([row]).url)
    partial = tmp_path / "partial.jsonl"
    partial.write_text(json.dumps({**row, "comments": said[:1]}) + "\n")  # a transcription that kept one
    import_file(Store.open(settings.db), partial)
    store, _ = collect(settings, clock, WEEK)
    [item] = [item for item in store.iter_items() if item.number == 7]
    assert [c.body for c in item.comments] == ["comment 0", "comment 1", "comment 2"]
