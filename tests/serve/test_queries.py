"""The questions the MCP server answers, asked in-process: windows and their errors, paging,
bounds, redaction, item references, and answers that follow the store when it changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from shutil import copyfile
from typing import Any

import pytest

from pytorch_insight.config import load_settings
from pytorch_insight.errors import ConfigError, InsightError, NoItemsError
from pytorch_insight.serve.queries import MAX_PAGE_SIZE, TEXT_LIMIT, Queries
from pytorch_insight.store import Store
from tests.pipeline.helpers import item
from tests.serve.conftest import BOUNDS_COMMENTS, BOUNDS_ID, TOKEN

TODAY = date(2026, 11, 29)


@pytest.fixture
def queries(insight_db: str) -> Iterator[Queries]:
    store = Store.open(insight_db, readonly=True)
    yield Queries(store, load_settings(db=insight_db).profile, lang="en", today=lambda: TODAY)
    store.close()


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def test_the_default_window_is_the_week_that_ends_on_the_last_active_day(
    queries: Queries, latest_week: tuple[str, str]
) -> None:
    since, until = latest_week
    assert queries.search()["window"] == {"since": since, "until": until}
    # one end given: a week from it or to it
    assert queries.search(since="2026-03-16")["window"] == {"since": "2026-03-16", "until": "2026-03-22"}
    assert queries.search(until="2026-03-22")["window"] == {"since": "2026-03-16", "until": "2026-03-22"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"since": "2026-02-30"}, "since must be a date like 2026-04-07, got '2026-02-30'"),
        ({"until": "yesterday"}, "until must be a date like 2026-04-07, got 'yesterday'"),
        ({"since": "2026-04-20", "until": "2026-04-07"}, "since 2026-04-20 is after until 2026-04-07"),
        ({"until": "2026-12-01"}, "until 2026-12-01 is in the future (today is 2026-11-29 UTC)"),
        ({"since": "2026-12-01"}, "since 2026-12-01 is in the future (today is 2026-11-29 UTC)"),
        ({"since": "1969-12-31", "until": "1970-01-02"}, "since 1969-12-31 is too early"),
        ({"since": "2026-01-01", "until": "2026-04-20"}, "longer than 31 days"),
        ({"area": "gpu-magic"}, "unknown area 'gpu-magic' (profile pytorch has: compiler,"),
        ({"kind": "tweet"}, "unknown kind 'tweet' (one of: issue, pull_request,"),
        ({"priority": "urgent"}, "unknown priority 'urgent' (one of: high, medium, low)"),
        ({"page": 0}, "page must be 1 or more"),
        ({"page_size": MAX_PAGE_SIZE + 1}, f"page_size must be between 1 and {MAX_PAGE_SIZE}"),
        ({"text": "x" * 201}, "text is longer than 200 characters"),
    ],
)
def test_bad_arguments_are_one_line_errors(queries: Queries, arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        queries.search(**arguments)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_window_without_items_says_so_and_coverage_still_answers(queries: Queries) -> None:
    with pytest.raises(NoItemsError, match="no items stored for 2026-01-01 – 2026-01-07"):
        queries.search(since="2026-01-01", until="2026-01-07")
    empty = queries.coverage(since="2026-01-01", until="2026-01-07")
    assert empty["sources"] == [] and empty["areas"] == [] and "no collection" in empty["note"]


def test_pages_cover_the_window_once_in_rank_order(queries: Queries) -> None:
    first = queries.search(page_size=7)
    pages = [first] + [queries.search(page=n, page_size=7) for n in range(2, first["pages"] + 1)]
    ids = [row["id"] for page in pages for row in page["items"]]
    assert len(ids) == len(set(ids)) == first["total"]
    assert [row["rank"] for page in pages for row in page["items"]] == sorted(
        row["rank"] for p in pages for row in p["items"]
    )
    assert pages[-1]["next_page"] is None and all(page["next_page"] == n + 2 for n, page in enumerate(pages[:-1]))
    assert queries.search(page=first["pages"] + 1)["items"] == []


def test_item_answers_are_bounded_and_never_carry_a_token(queries: Queries) -> None:
    answer = queries.get_item(BOUNDS_ID)
    body = answer["item"]["body"]
    assert TOKEN not in json.dumps(answer) and "[redacted]" in body
    assert body.startswith("Crash in torch.compile") and len(body) < TEXT_LIMIT + 40
    public = queries.store.get_items([BOUNDS_ID])[BOUNDS_ID].body.replace(TOKEN, "[redacted]")
    assert body == f"{public[:TEXT_LIMIT]}… [{len(public) - TEXT_LIMIT} more characters]"
    comments = answer["comments"]
    assert (comments["total"], comments["pages"], len(comments["items"])) == (BOUNDS_COMMENTS, 2, 20)
    assert all(len(c["body"]) < 1_100 and c["body"].endswith("more characters]") for c in comments["items"])
    second = queries.get_item(BOUNDS_ID, comment_page=2)["comments"]
    assert [c["author"] for c in second["items"]] == [f"user{n}" for n in range(20, BOUNDS_COMMENTS)]
    # the search reads the public text only: a redacted token finds nothing
    assert queries.search(text=TOKEN[:12])["total"] == 0
    assert [row["id"] for row in queries.search(text="VERY long REPORT")["items"]] == [BOUNDS_ID]
    assert all(len(text) <= TEXT_LIMIT + 40 for text in strings(queries.report_json()))


def test_an_item_is_found_by_id_url_and_reference(queries: Queries) -> None:
    lead = queries.search(priority="high")["items"][0]
    number = lead["id"].rsplit("#", 1)[1]
    for reference in (lead["id"], f"#{number}", f"pytorch/pytorch#{number}", f"{lead['url']}/"):
        assert queries.get_item(reference)["item"]["id"] == lead["id"], reference
    with pytest.raises(InsightError, match="no stored item 'github:nobody/nothing#1'"):
        queries.get_item("github:nobody/nothing#1")
    with pytest.raises(ConfigError, match="item must be an id"):
        queries.get_item(" ")


def test_an_item_outside_the_window_has_no_assessment(queries: Queries) -> None:
    march = queries.search(since="2026-03-16", until="2026-03-22", page_size=1)["items"][0]
    outside = queries.get_item(march["id"])  # the default window is the April week
    assert not outside["in_window"] and outside["assessment"] is None and outside["focus"] is None
    inside = queries.get_item(march["id"], since="2026-03-16", until="2026-03-22")
    assert inside["in_window"] and inside["assessment"]["rank"] == march["rank"]


def test_answers_follow_the_store_when_a_collection_writes(
    queries: Queries, insight_db: str, tmp_path: Path, latest_week: tuple[str, str]
) -> None:
    db = str(tmp_path / "copy.db")
    copyfile(insight_db, db)
    reader = Queries(Store.open(db, readonly=True), queries.profile, lang="en", today=lambda: TODAY)
    before = reader.search(author="late-reporter")
    writer = Store.open(db)
    late = item(
        999002, "A hang reported late in the week", author="late-reporter", created=f"{latest_week[1]}T20:00:00Z"
    )
    writer.save_items([late])
    writer.close()
    after = reader.search(author="late-reporter")
    assert before["total"] == 0 and [row["id"] for row in after["items"]] == [late.id]
    assert reader.search()["total"] == queries.search()["total"] + 1
    reader.store.close()


def test_the_window_may_not_end_after_today(queries: Queries) -> None:
    limited = Queries(queries.store, queries.profile, today=lambda: date(2026, 4, 16))
    assert limited.search()["window"] == {"since": "2026-04-10", "until": "2026-04-16"}
    assert limited.search(since="2026-04-14")["window"] == {"since": "2026-04-14", "until": "2026-04-16"}
