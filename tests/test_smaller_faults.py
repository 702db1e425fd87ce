"""The smaller faults: one batch holding an item twice keeps both threads; a number given as a
string is the same item; an explicit id cannot overwrite another item; bodies are cut before any
stage reads them and empty headings cost nothing; the GitHub client asks for GitHub's media type."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytorch_insight.config import Settings, load_settings
from pytorch_insight.jsonl import import_lines, item_from_line
from pytorch_insight.pipeline import assess
from pytorch_insight.store import Store
from pytorch_insight.text import BODY_LIMIT, parse_body
from tests.conftest import FakeClock, collect
from tests.fakes.github import FakeGitHub
from tests.test_github_source import WEEK, row


def line(number: Any, **extra: Any) -> str:
    base = {
        "repo": "o/r",
        "number": number,
        "kind": "issue",
        "title": f"t{number}",
        "created": "2026-04-08",
        "url": f"https://github.com/o/r/issues/{number}",
    }
    return json.dumps({**base, **extra})


def comment(body: str) -> dict[str, str]:
    return {"author": "a", "date": "2026-04-09", "kind": "comment", "body": body}


def test_an_item_twice_in_one_batch_keeps_both_threads(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "x.db"))
    import_lines(store, [line(1, comments=[comment("first")]), line(1, comments=[comment("second")])])
    [item] = store.iter_items()
    assert sorted(c.body for c in item.comments) == ["first", "second"]


def test_a_number_given_as_text_is_the_same_item(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "x.db"))
    result = import_lines(store, [line(5), line("5", title="again")])
    assert result.errors == []
    assert [(item.id, item.number, item.title) for item in store.iter_items()] == [("github:o/r#5", 5, "again")]


def test_an_explicit_id_cannot_overwrite_another_item(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "x.db"))
    result = import_lines(store, [line(1), line(2, id="github:o/r#1", title="impostor")])
    assert [number for number, _ in result.errors] == [2] and "does not match" in result.errors[0][1]
    assert [item.title for item in store.iter_items()] == ["t1"]


def test_bodies_are_cut_before_the_stages_read_them() -> None:
    profile = load_settings(env={}).profile
    huge = json.loads(line(1, body="word " * 2_000_000, comments=[comment("x" * 200_000)]))
    [assessment] = assess([item_from_line(huge)], profile)
    assert len(assessment.item.body) == BODY_LIMIT and len(assessment.item.comments[0].body) == BODY_LIMIT


def test_empty_headings_cost_no_more_than_text() -> None:
    empty, normal = ("# \n" * 30_000)[:BODY_LIMIT], ("word " * 13_000)[:BODY_LIMIT]

    def best(text: str) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            parse_body(text)
            times.append(time.perf_counter() - start)
        return min(times)

    assert parse_body(empty).sections.keys() == {""}
    assert best(empty) < 5 * best(normal) + 0.002


def test_the_github_client_asks_for_githubs_media_type(
    start_github: Callable[..., FakeGitHub], make_settings: Callable[..., Settings], clock: FakeClock
) -> None:
    server = start_github([row(1)])
    collect(make_settings(server.url), clock, WEEK)
    assert server.accepts and set(server.accepts) == {"application/vnd.github+json"}
