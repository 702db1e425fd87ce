"""How an organisation's window is read: the path chosen by the rate budget, the busiest
repository listed on its own, counts probed with one item a page, a busy day past the cap."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from pytorch_insight.http import RateBudget
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources.github_plan import OrgRepository, weigh_options
from tests.conftest import FakeClock, collect
from tests.sources.test_github_org import (
    WEEK,
    MakeSettings,
    Start,
    collect_capped,
    profile_settings,
    row,
    search_queries,
    stored,
)

MORNING_AFTER = datetime(2026, 4, 14, 6, 0, tzinfo=timezone.utc).timestamp()


def requests(server: object, prefix: str) -> list[dict[str, list[str]]]:
    """The query parameters of every request whose path starts with `prefix`."""
    return [parse_qs(urlsplit(path).query) for path, _ in server.log if urlsplit(path).path.startswith(prefix)]  # type: ignore[attr-defined]


def test_a_busy_day_past_the_cap_is_read_by_time_of_day_without_crowding_out_other_repositories(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    # 30 PRs of acme/a over one day and 6 issues of three other repositories between them: 36 in
    # a day, past the cap of 10; an older window, so the organisation is searched whole.
    rows = [row("acme/a", n, kind="pull_request", created=f"2026-04-09T{n % 24:02d}:{n:02d}:00Z") for n in range(1, 31)]
    rows += [row(f"acme/{repo}", n, created=f"2026-04-09T{3 * n + 1:02d}:30:00Z") for repo in "bcd" for n in (1, 2)]
    server = start_github(rows, search_cap=10)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect_capped(settings, clock, 10)
    assert status.status is CoverageStatus.OK, status.note
    assert set(stored(store)) == {(row["repo"], row["number"]) for row in rows}
    created = [query for query in search_queries(server) if "closed:" not in query]
    assert all("T" in query.split("created:", 1)[1] for query in created[1:])  # time-of-day ranges
    assert "searched whole" in status.note and "cannot be reached" not in status.note


def test_a_weekly_run_short_of_search_budget_lists_the_dominant_repository_on_its_own(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    clock.current = MORNING_AFTER
    rows = [row("acme/a", n, created=f"2026-04-{7 + n % 7:02d}") for n in range(1, 351)]  # open: weighs most
    rows += [row("acme/b", n, created="2026-04-09") for n in range(1, 21)]
    rows += [row("acme/c", n, created="2026-03-01", state="closed", closed="2026-04-10") for n in range(1, 6)]
    server = start_github(rows, search_limit=4)  # searching all of it (4 + 1 pages) would wait a minute
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert set(stored(store)) == {(row["repo"], row["number"]) for row in rows}
    assert [urlsplit(path).path for path, _ in server.log][:1] == ["/orgs/acme/repos"]
    assert len(requests(server, "/repos/acme/a/issues")) == 4  # its own listing, 100 a page
    assert not requests(server, "/repos/acme/b/issues") and not requests(server, "/repos/acme/c/issues")
    pages = [query for query in search_queries(server) if query.startswith("org:acme -repo:acme/a ")]
    assert len(pages) == 2  # the rest: one created, one closed page
    assert not [seconds for seconds in clock.sleeps if seconds > 1]  # never waited for the search budget
    assert "org:acme: listed a on their own and searched the rest" in status.note


def test_with_search_budget_to_spare_the_weekly_run_searches_the_organisation_whole(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    clock.current = MORNING_AFTER
    rows = [row("acme/a", n, created=f"2026-04-{7 + n % 7:02d}") for n in range(1, 151)]
    rows += [row("acme/b", n, created="2026-04-09") for n in range(1, 21)]
    server = start_github(rows, search_limit=30)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 170
    assert not requests(server, "/repos/acme/a/issues") and not requests(server, "/repos/acme/b/issues")
    assert status.note.startswith("org:acme: searched whole (~170 window items in 2 repositories")


def test_counts_are_probed_with_one_item_a_page(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    clock.current = MORNING_AFTER
    rows = [row("acme/a", n, created=f"2026-04-08T{n:02d}:00:00Z") for n in range(1, 6)]
    server = start_github(rows)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    collect(settings, clock, WEEK)
    searches = requests(server, "/search/issues")
    probes = [params["q"][0] for params in searches if params.get("per_page") == ["1"]]
    assert probes == [
        "org:acme created:2026-04-07..2026-04-13",
        "org:acme closed:2026-04-07..2026-04-13 created:<2026-04-07",
    ]
    assert all(params.get("per_page") in (["1"], ["100"]) for params in searches)


def test_a_burst_past_the_cap_is_read_from_its_newest_end_with_no_request_only_to_count(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    # 12 items before the burst, then 16 of acme/b and 2 of acme/a in one second (cap 10): a query
    # from the burst's second reads its oldest 10, the second's own query newest first the other 8.
    rows = [row("acme/a", n, created=f"2026-04-08T{n:02d}:00:00Z") for n in range(1, 13)]
    rows += [row("acme/b", n, kind="pull_request", created="2026-04-10T03:00:00Z") for n in range(1, 17)]
    rows += [row("acme/a", n, created="2026-04-10T03:00:00Z") for n in (13, 14)]
    server = start_github(rows, search_cap=10)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect_capped(settings, clock, 10)
    assert status.status is CoverageStatus.OK, status.note
    assert set(stored(store)) == {(row["repo"], row["number"]) for row in rows}
    searches = requests(server, "/search/issues")
    assert all(params["per_page"] == ["100"] for params in searches)  # never a page read only for its count
    second = "org:acme created:2026-04-10T03:00:00Z..2026-04-10T03:00:00Z"
    assert [params["order"] for params in searches if params["q"] == [second]] == [["desc"]]
    # The window, on from 10:00 (12 of 30 read), on from the burst, its other end, on after it; closed.
    assert len(searches) == 6 and not requests(server, "/repos/")


def test_the_path_weighs_the_search_wait_against_listing() -> None:
    repositories = [OrgRepository("acme/a", 800), OrgRepository("acme/b", 150), OrgRepository("acme/c", 50)]
    plenty = RateBudget(limit=30, remaining=30, reset=60.0)
    options = weigh_options(repositories, [2500, 500], plenty, now=0.0, latency=0.1)
    assert min(options, key=lambda o: (o.seconds, o.requests)).listed == ()  # 30 searches fit: no listing
    short = RateBudget(limit=30, remaining=10, reset=50.0)
    options = weigh_options(repositories, [2500, 500], short, now=0.0, latency=0.1)
    assert options[0].wait == 50.0
    best = min(options, key=lambda o: (o.seconds, o.requests))
    assert best.listed == ("acme/a",) and best.searches <= 10 and best.wait == 0.0
    slow = weigh_options(repositories, [2500, 500], short, now=0.0, latency=30.0)  # listing costs more than a wait
    assert min(slow, key=lambda o: (o.seconds, o.requests)).listed == ()
