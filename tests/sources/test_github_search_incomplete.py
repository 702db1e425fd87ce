"""A search GitHub answers `incomplete_results: true` (it timed out and gave what it had found),
against the local GitHub server: asked again, and what never came is counted, never lost silently."""

from __future__ import annotations

from pathlib import Path

import httpx

from pytorch_insight.model import CoverageStatus
from tests.conftest import FakeClock, collect
from tests.fakes.github import Fault
from tests.sources.test_github_org import WEEK, MakeSettings, Start, profile_settings, row, search_params, stored

# 250 issues created in the week, one every half hour: three pages of one search, nothing closed.
ROWS = [
    row("acme/a", n, created=f"2026-04-{7 + n // 48:02d}T{n // 2 % 24:02d}:{30 * (n % 2):02d}:00Z") for n in range(250)
]
SEARCH = "org:acme created:2026-04-07..2026-04-13"


def pages_asked(server: object) -> list[str]:
    """The page number of each request of the window's created search, in order."""
    return [params.get("page", ["1"])[0] for params in search_params(server) if params["q"] == [SEARCH]]  # type: ignore[arg-type]


def test_the_local_search_times_out_as_github_does(start_github: Start) -> None:
    server = start_github(ROWS)
    server.add_fault(Fault("/search/issues", "incomplete"))
    params = {"q": SEARCH, "sort": "created", "order": "asc", "per_page": 100}
    timed_out = httpx.get(f"{server.url}/search/issues", params=params).json()
    complete = httpx.get(f"{server.url}/search/issues", params=params).json()
    assert set(timed_out) == set(complete) == {"total_count", "incomplete_results", "items"}
    assert timed_out["incomplete_results"] is True and complete["incomplete_results"] is False
    assert complete["total_count"] == 250 and 0 < timed_out["total_count"] < 250  # what it found by then
    assert {item["number"] for item in timed_out["items"]} - {item["number"] for item in ROWS} == set()


def test_an_incomplete_page_is_asked_again_and_nothing_is_lost(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    server = start_github(ROWS)
    server.add_fault(Fault("/search/issues", "incomplete", query=r"(^|&)page=2(&|$)"))
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 250
    assert pages_asked(server) == ["1", "2", "2", "3"]  # the timed-out page again, after a pause
    assert 1.0 in clock.sleeps


def test_a_page_that_stays_incomplete_makes_the_source_partial_with_what_is_missing(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    server = start_github(ROWS)
    server.add_fault(Fault("/search/issues", "incomplete", times=3, query=r"(^|&)page=2(&|$)"))
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect(settings, clock, WEEK)
    missing = 250 - len(stored(store))
    assert missing > 0 and status.status is CoverageStatus.PARTIAL
    # Page 3 is still read, though the timed-out page 2's count and links stopped short of it.
    assert pages_asked(server) == ["1", "2", "2", "2", "3"]
    assert (
        f"org:acme: GitHub's search timed out on page 2 of `{SEARCH}` 3 times (incomplete_results): "
        f"{250 - missing} of its 250 results came, {missing} may be missing"
    ) in status.note
