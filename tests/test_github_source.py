"""GitHub collection end to end through the local server: completeness, cost, faults, resume."""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.collect import github_client, run_collection
from pytorch_insight.config import Settings
from pytorch_insight.model import CoverageStatus, Item
from pytorch_insight.sources import NoProgress
from pytorch_insight.sources.github import GitHubSource
from pytorch_insight.store import Store
from pytorch_insight.window import Window, make_window
from tests.conftest import SHARED_WINDOW, FakeClock, collect, pytorch_threads
from tests.fakes.github import FakeGitHub, Fault

Start = Callable[..., FakeGitHub]
MakeSettings = Callable[..., Settings]
WEEK = make_window("2026-04-07", "2026-04-13")


def row(number: int, **fields: Any) -> dict[str, Any]:
    kind = fields.get("kind", "issue")
    base = {
        "repo": "pytorch/pytorch",
        "number": number,
        "kind": kind,
        "state": "open",
        "title": f"thing {number}",
        "author": "someone",
        "created": "2026-04-08",
        "labels": [],
        "body": "",
        "comments": [],
        "url": f"https://github.com/pytorch/pytorch/{'pull' if kind == 'pull_request' else 'issues'}/{number}",
    }
    return {**base, **fields}


def comments(count: int, day: str = "2026-04-09") -> list[dict[str, str]]:
    return [{"author": f"user{i}", "date": day, "kind": "comment", "body": f"comment {i}"} for i in range(count)]


def by_number(store: Store) -> dict[int, Item]:
    return {item.number: item for item in store.iter_items() if item.kind != "commit" and item.number is not None}


def day_after(window: Window) -> float:
    return window.end.timestamp() + 6 * 3600


@pytest.mark.parametrize("path", ["weekly run (updated since)", "backfill (search)"])
def test_the_shared_fortnight_is_collected_completely_and_cheaply(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, shared_rows: list[dict[str, Any]], path: str
) -> None:
    if path.startswith("weekly"):
        clock.current = day_after(SHARED_WINDOW)
    server = start_github(shared_rows)
    store, status = collect(make_settings(server.url), clock)
    stored = by_number(store)
    assert status.status is CoverageStatus.OK, status.note
    assert set(stored) == pytorch_threads(shared_rows)
    for source_row in shared_rows:
        if source_row["repo"] != "pytorch/pytorch":
            continue
        item = stored[source_row["number"]]
        assert (item.title, item.author or None, item.labels) == (
            source_row["title"],
            source_row["author"],
            source_row["labels"],
        )
        assert item.kind == source_row["kind"]
        expected = [c["body"] for c in source_row["comments"] if c["kind"] == "comment"]
        assert [c.body for c in item.comments] == expected
    comment_requests = [p for p, _ in server.log if "/comments" in p]
    file_requests = [p for p, _ in server.log if p.endswith("/files?per_page=100")]
    timeline_requests = [p for p, _ in server.log if p.endswith("/timeline?per_page=100")]
    list_requests = [p for p, _ in server.log if p not in {*comment_requests, *file_requests, *timeline_requests}]
    assert 0 < len(file_requests) <= 20  # only the focus candidates' file lists
    # The first run costs more than it used to: a fifth phase reads the timeline of every focus
    # issue (one request each here, at most the 20 focus candidates), since only the timeline
    # names a fix PR outside the window. The list requests did not grow.
    assert 0 < len(timeline_requests) <= 20
    assert status.requests == len(list_requests) + len(comment_requests) + len(file_requests) + len(timeline_requests)
    with_timeline = [item for item in stored.values() if "timeline_refs" in (item.model_extra or {})]
    assert {item.kind for item in with_timeline} <= {"issue", "rfc"}
    assert len(with_timeline) == len(timeline_requests)
    assert len(list_requests) <= math.ceil(status.items / 50) + (0 if path.startswith("weekly") else 1)
    used_search = any(p.startswith("/search/") for p in list_requests)
    assert used_search == path.startswith("backfill")
    first_run = len(server.log)
    _, again = collect(make_settings(server.url), clock)
    # The timelines are read again (a fix may have landed since), but come back 304: free.
    assert [status for p, status in server.log[first_run:] if p.endswith("/timeline?per_page=100")] == [304] * len(
        timeline_requests
    )
    assert again.requests - again.not_modified <= 0.05 * status.requests
    assert again.items == status.items
    assert {item.id: item.model_extra["timeline_refs"] for item in with_timeline} == {
        item.id: item.model_extra["timeline_refs"]
        for item in by_number(Store.open(make_settings(server.url).db)).values()
        if "timeline_refs" in (item.model_extra or {})
    }


def test_issues_prs_rfcs_and_older_items_closed_in_the_window(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [
        row(1),
        row(2, kind="pull_request", state="closed"),
        row(3, title="[RFC] A new dispatcher"),
        row(4, created="2026-03-01", state="closed", closed="2026-04-10"),
        row(5, created="2026-03-01"),
        row(6, created="2026-04-14"),
    ]
    store, status = collect(make_settings(start_github(rows).url), clock, WEEK)
    stored = by_number(store)
    assert status.status is CoverageStatus.OK
    assert sorted(stored) == [1, 2, 3, 4]
    assert (stored[1].kind, stored[2].kind, stored[3].kind) == ("issue", "pull_request", "rfc")
    assert store.get_payload(stored[2].id)["pull_request"]["merged_at"] is None


def test_the_weekly_run_keeps_items_created_or_closed_in_the_window(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    clock.current = day_after(WEEK)
    rows = [
        row(1),
        row(4, created="2026-03-01", state="closed", closed="2026-04-10"),
        row(5, created="2026-03-01", comments=comments(1, day="2026-04-09")),  # only talked about
        row(6, created="2026-04-14"),
    ]
    server = start_github(rows)
    store, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.OK
    assert sorted(by_number(store)) == [1, 4]
    assert not any(path.startswith("/search/") for path, _ in server.log)


def test_merge_state_the_pytorch_way(start_github: Start, make_settings: MakeSettings, clock: FakeClock) -> None:
    rows = [
        row(10, kind="pull_request", state="closed", labels=["Merged"]),
        row(11, kind="pull_request", state="closed", landed=True),
        row(12, kind="pull_request", state="closed"),
        row(13, kind="pull_request", state="merged"),
    ]
    store, _ = collect(make_settings(start_github(rows).url), clock, WEEK)
    stored = by_number(store)
    assert [stored[n].state for n in (10, 11, 12, 13)] == ["merged", "merged", "closed", "merged"]
    assert stored[10].model_extra["merge_evidence"] == "label Merged"
    assert stored[11].model_extra["merge_evidence"].startswith("landed commit ")
    commits = [item for item in store.iter_items() if item.kind == "commit"]
    assert {rel.target for commit in commits for rel in commit.relations} == {stored[11].id, stored[13].id}
    assert all(commit.relations[0].type == "lands" for commit in commits)


def test_comment_threads_cost_nothing_for_items_without_comments(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n) for n in range(20, 30)] + [row(30, comments=comments(3))]
    server = start_github(rows)
    store, status = collect(make_settings(server.url), clock, WEEK)
    comment_paths = [path for path, _ in server.log if "comments" in path]
    assert comment_paths == ["/repos/pytorch/pytorch/issues/30/comments?per_page=100"]
    assert [c.body for c in by_number(store)[30].comments] == ["comment 0", "comment 1", "comment 2"]
    assert status.status is CoverageStatus.OK


def test_many_threads_use_the_repository_wide_comment_listing(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n, comments=comments(2)) for n in range(40, 70)]
    server = start_github(rows)
    store, _ = collect(make_settings(server.url), clock, WEEK)
    assert [path for path, _ in server.log if "comments" in path] == [
        "/repos/pytorch/pytorch/issues/comments?since=2026-04-07T00%3A00%3A00Z&sort=created&direction=asc&per_page=100"
    ]
    assert all(len(item.comments) == 2 for item in by_number(store).values())


def test_large_searches_are_split_until_they_fit_the_cap(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n, created=f"2026-04-{7 + n % 7:02d}") for n in range(100, 130)]
    server = start_github(rows, search_cap=8)
    settings = make_settings(server.url)
    store = Store.open(settings.db)
    with ExitStack() as stack:
        client = stack.enter_context(github_client(settings, store, clock))
        source = GitHubSource(client, settings.profile, store.get_items, has_token=False, search_cap=8)
        [status] = run_collection(store, [source], WEEK, NoProgress(), "pytorch", {})
    assert status.status is CoverageStatus.OK, status.note
    assert sorted(by_number(store)) == list(range(100, 130))


def test_primary_limit_mid_run_stores_what_it_got_and_a_rerun_fills_the_gaps(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n, comments=comments(1)) for n in range(200, 206)]
    server = start_github(rows, core_limit=1)  # the commits listing, then the limit
    settings = make_settings(server.url)
    # Six discussed threads would fill a quiet week's focus list (and the pick model would raise its
    # likely picks into it), whose timelines cost requests of their own; one request an hour is
    # meant for the comment gaps here.
    settings.profile.ranking.focus_fill = 0
    settings.profile.judgement.picks.weight = 0.0
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.PARTIAL, server.log
    assert "GITHUB_TOKEN" in status.note and "rate limit" in status.note
    assert sorted(by_number(store)) == list(range(200, 206))
    assert sum(len(item.comments) for item in by_number(store).values()) < 6
    clock.current += 3601  # the hour is over: the budget is back
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert all(len(item.comments) == 1 for item in by_number(store).values())


def test_transient_faults_do_not_cost_data(start_github: Start, make_settings: MakeSettings, clock: FakeClock) -> None:
    rows = [row(n, comments=comments(1)) for n in range(300, 303)]
    server = start_github(rows)
    server.add_fault(Fault(path="/search/issues", kind="status", status=502, times=3))
    server.add_fault(Fault(path="/search/issues", kind="secondary", retry_after=30))
    server.add_fault(Fault(path="/commits", kind="delay", delay=0.6))
    server.add_fault(Fault(path="/issues/301/comments", kind="truncate"))
    store, status = collect(make_settings(server.url, timeout=0.3), clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert all(len(item.comments) == 1 for item in by_number(store).values())
    assert 30.0 in clock.sleeps


def test_a_persistent_failure_marks_the_source_partial_and_a_rerun_repairs(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n, comments=comments(1)) for n in range(400, 403)]
    server = start_github(rows)
    server.add_fault(Fault(path="/comments", kind="status", status=500, times=100))
    settings = make_settings(server.url, max_attempts=2)
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.PARTIAL and "500" in status.note
    assert sorted(by_number(store)) == [400, 401, 402]
    server.faults.clear()
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK
    assert all(len(item.comments) == 1 for item in by_number(store).values())


def test_unknown_repository_fails_the_source_cleanly(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    profile = tmp_path / "other.toml"
    profile.write_text('name = "other"\ntitle = { zh = "x", en = "x" }\n[github]\nrepositories = ["nobody/nothing"]\n')
    store, status = collect(make_settings(start_github([row(1)]).url, profile=str(profile)), clock, WEEK)
    assert (status.status, status.note) == (CoverageStatus.FAILED, "nobody/nothing: repository not found (404)")
    assert store.count_items() == 0


def test_a_rejected_token_fails_the_source_and_never_reaches_the_database(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    server = start_github([row(1)], tokens={"ghp_good"})
    settings = make_settings(server.url, token="ghp_wrong_secret")
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.FAILED and "401" in status.note and "GITHUB_TOKEN" in status.note
    store, status = collect(make_settings(server.url, token="ghp_good"), clock, WEEK)
    assert status.status is CoverageStatus.OK
    store.engine.dispose()
    for path in Path(settings.db).parent.glob("insight.db*"):
        assert b"ghp_wrong_secret" not in path.read_bytes() and b"ghp_good" not in path.read_bytes()


@pytest.mark.parametrize("kind", ["primary_no_reset", "primary_message_only"])
def test_a_primary_limit_without_a_reset_time_stops_with_the_token_hint(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, kind: str
) -> None:
    """GitHub's recorded answer (Remaining 0, no reset header) and a bare "API rate limit exceeded"
    message are the primary limit: stop and say so, not retry them as errors."""
    server = start_github([row(n) for n in range(500, 504)])
    server.add_fault(Fault(path="/commits", kind=kind))
    store, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.PARTIAL, status.note
    assert "rate limit" in status.note and "set GITHUB_TOKEN" in status.note
    assert sorted(by_number(store)) == list(range(500, 504))
    commits = [path for path, _ in server.log if "/commits" in path]
    assert len(commits) == 1 and server.log[-1][0] == commits[0]  # one attempt, and nothing after it
    assert clock.sleeps == []


def test_the_token_never_follows_a_next_page_to_another_host(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n) for n in range(600, 730)]  # two pages of a listing
    elsewhere = start_github(rows)
    api = start_github(rows, link_origin=elsewhere.url)
    clock.current = WEEK.end.timestamp() + 86400  # the weekly run: the "updated since" listing
    store, status = collect(make_settings(api.url, token="ghp_secret_value"), clock, WEEK)
    assert elsewhere.log == [] and elsewhere.user_agents == []
    assert status.status is CoverageStatus.PARTIAL
    assert "stopped paging 127.0.0.1/repos/pytorch/pytorch/issues: its next page is on another host" in status.note
    assert len(by_number(store)) == 100


def test_search_pages_are_asked_of_the_api_by_number_whatever_their_links_say(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n) for n in range(600, 730)]  # two pages of search results (an older window)
    elsewhere = start_github(rows)
    api = start_github(rows, link_origin=elsewhere.url)
    store, status = collect(make_settings(api.url, token="ghp_secret_value"), clock, WEEK)
    assert elsewhere.log == [] and elsewhere.user_agents == []
    assert status.status is CoverageStatus.OK, status.note
    assert len(by_number(store)) == 130


def test_a_recent_windows_comment_listing_runs_on_to_the_present_instead_of_refetching_threads(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    # 40 threads, 5 comments each in the week and 5 each two days after it: 400 comments, 4 pages.
    rows = [row(n, comments=comments(5) + comments(5, day="2026-04-15")) for n in range(100, 140)]
    server = start_github(rows)
    clock.current = WEEK.end.timestamp() + 2.5 * 86400  # the weekly run, a little late
    store, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert all(len(item.comments) == 10 for item in by_number(store).values())
    comment_paths = [path.split("?", 1)[0] for path, _ in server.log if "comments" in path]
    assert comment_paths == ["/repos/pytorch/pytorch/issues/comments"] * 4  # no thread fetched on its own


def test_an_older_windows_comment_listing_runs_on_only_while_that_is_cheaper(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    # Months later: 30 threads with comments after the window. Paging on costs 6 pages of later
    # comments on other threads; refetching the 30 threads would cost 30 requests.
    rows = [row(n, comments=comments(4) + comments(1, day="2026-05-20")) for n in range(200, 230)]
    rows += [row(n, created="2026-05-01", comments=comments(20, day="2026-05-02")) for n in range(300, 330)]
    server = start_github(rows)
    store, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert all(len(by_number(store)[n].comments) == 5 for n in range(200, 230))
    comment_paths = [path.split("?", 1)[0] for path, _ in server.log if "comments" in path]
    assert comment_paths == ["/repos/pytorch/pytorch/issues/comments"] * 8


def test_two_threads_of_a_few_comments_take_one_listing_page_not_two_thread_requests(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock
) -> None:
    rows = [row(n, comments=comments(3)) for n in (400, 401)] + [row(n) for n in range(402, 410)]
    server = start_github(rows)
    store, status = collect(make_settings(server.url), clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert all(len(by_number(store)[n].comments) == 3 for n in (400, 401))
    comment_paths = [path.split("?", 1)[0] for path, _ in server.log if "comments" in path]
    assert comment_paths == ["/repos/pytorch/pytorch/issues/comments"]
