"""An organisation collected through the search API, against the local GitHub server."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pytorch_insight.cli import main
from pytorch_insight.collect import github_client, run_collection
from pytorch_insight.config import Settings, load_profile
from pytorch_insight.errors import ConfigError
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.sources import NoProgress, github_search
from pytorch_insight.sources.github import GitHubSource
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import SAMPLES, FakeClock, collect
from tests.fakes.github import FakeGitHub

Start = Callable[..., FakeGitHub]
MakeSettings = Callable[..., Settings]
WEEK = make_window("2026-04-07", "2026-04-13")
PROFILE = 'name = "acme"\ntitle = {{ zh = "Acme", en = "Acme" }}\n[github]\n{github}\n'


def row(repo: str, number: int, **fields: Any) -> dict[str, Any]:
    kind = fields.get("kind", "issue")
    base = {
        "repo": repo,
        "number": number,
        "kind": kind,
        "state": "open",
        "title": f"{repo} thing {number}",
        "author": "someone",
        "created": "2026-04-08",
        "labels": [],
        "body": "",
        "comments": [],
    }
    return {**base, **fields}


def organisation() -> list[dict[str, Any]]:
    """acme/a busy (180 in the week, a third PRs, some merged), acme/b and acme/c small; items
    outside the week; acme/secret and another owner's repository with items in the week."""
    rows = [
        row(
            "acme/a",
            n,
            kind="pull_request" if n % 3 == 0 else "issue",
            state="merged" if n % 6 == 0 else "open",
            created=f"2026-04-{7 + n % 7:02d}",
            comments=[{"author": "x", "date": "2026-04-12", "kind": "comment", "body": "seen"}] if n % 20 == 0 else [],
        )
        for n in range(1, 181)
    ]
    rows += [row("acme/b", n, created="2026-04-09") for n in range(1, 41)]
    rows += [row("acme/c", n, created="2026-03-01", state="closed", closed="2026-04-10") for n in range(1, 6)]
    rows += [row("acme/c", n, created="2026-03-01") for n in range(6, 9)]  # open, older: not active
    rows += [row("acme/c", n, created="2026-04-20") for n in range(9, 11)]  # after the week
    rows += [row("acme/secret", n) for n in range(1, 4)]
    rows += [row("other/x", n) for n in range(1, 4)]
    return rows


def profile_settings(make_settings: MakeSettings, url: str, tmp_path: Path, github: str) -> Settings:
    path = tmp_path / "acme.toml"
    path.write_text(PROFILE.format(github=github), encoding="utf-8")
    return make_settings(url, profile=str(path))


def collect_capped(settings: Settings, clock: FakeClock, cap: int) -> tuple[Store, SourceStatus]:
    """A collection that knows the local server's (smaller) search cap."""
    store = Store.open(settings.db)
    with ExitStack() as stack:
        client = stack.enter_context(github_client(settings, store, clock))
        source = GitHubSource(client, settings.profile, store.get_items, has_token=False, search_cap=cap)
        [status] = run_collection(store, [source], WEEK, NoProgress(), settings.profile.name, {})
    return store, status


def stored(store: Store) -> dict[tuple[str | None, int | None], Item]:
    return {(item.repo, item.number): item for item in store.iter_items()}


def search_params(server: FakeGitHub) -> list[dict[str, list[str]]]:
    return [parse_qs(urlsplit(path).query) for path, _ in server.log if path.startswith("/search/issues")]


def search_queries(server: FakeGitHub) -> list[str]:
    return [params["q"][0] for params in search_params(server)]


def test_an_organisation_is_collected_by_search_with_each_item_in_its_repository(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    rows = organisation()
    server = start_github(rows)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]\nexclude_repos = ["acme/secret"]')
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    items = stored(store)
    expected = {("acme/a", n) for n in range(1, 181)} | {("acme/b", n) for n in range(1, 41)}
    expected |= {("acme/c", n) for n in range(1, 6)}
    assert set(items) == expected
    assert items[("acme/a", 6)].kind == "pull_request" and items[("acme/a", 6)].state == "merged"
    assert items[("acme/a", 3)].kind == "pull_request" and items[("acme/a", 3)].state == "open"
    assert items[("acme/a", 1)].kind == "issue"
    assert items[("acme/a", 6)].id == "github:acme/a#6"
    assert all(len(items[("acme/a", n)].comments) == 1 for n in range(20, 181, 20))
    # No listing per repository, no commits: the searches (two per window, paged by 100) and the
    # threads of the items that have comments, fetched per repository as for any other.
    paths = [urlsplit(path).path for path, _ in server.log]
    searches = [path for path in paths if path == "/search/issues"]
    assert not [path for path in paths if path.startswith("/repos/") and path.endswith(("/issues", "/commits"))]
    assert len(searches) == math.ceil(220 / 100) + math.ceil(5 / 100)
    assert len(searches) <= math.ceil(len(items) / 50)
    assert {path for path in paths if path != "/search/issues"} <= {
        "/repos/acme/a/issues/comments",
        *(f"/repos/acme/a/issues/{n}/comments" for n in range(20, 181, 20)),
        *(f"/repos/acme/{repo}/pulls/{n}/files" for repo in "abc" for n in range(1, 181)),
        *(f"/repos/acme/{repo}/issues/{n}/timeline" for repo in "abc" for n in range(1, 181)),
    }
    queries = search_queries(server)
    assert all(query.startswith("org:acme -repo:acme/secret ") for query in queries)
    assert any(query.endswith("closed:2026-04-07..2026-04-13 created:<2026-04-07") for query in queries)


def test_a_search_over_the_cap_goes_on_from_its_last_creation_time(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    rows = [row("acme/a", n, created=f"2026-04-{7 + n % 7:02d}T{n % 24:02d}:00:00Z") for n in range(1, 43)]
    server = start_github(rows, search_cap=10)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect_capped(settings, clock, 10)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 42
    queries = search_queries(server)
    # No page spent only to read a count: 42 items, 10 a query, each query from the last one's
    # last creation time (that second's items come again), plus the closed search.
    assert len(queries) == 5 + 1
    assert queries[1].startswith("org:acme created:2026-04-08T") and queries[1].endswith("..2026-04-13T23:59:59Z")


def burst(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path, crowd: int
) -> tuple[FakeGitHub, Store, SourceStatus]:
    """4 items of acme/a a day at noon, and `crowd` of acme/b (issues and PRs) created in one second
    of 2026-04-11, collected for acme through a search capped at 10."""
    rows = [row("acme/a", n, created=f"2026-04-{7 + n % 7:02d}") for n in range(1, 29)]
    rows += [
        row("acme/b", n, kind="pull_request" if n % 2 else "issue", created="2026-04-11") for n in range(1, crowd + 1)
    ]
    server = start_github(rows, search_cap=10)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    return (server, *collect_capped(settings, clock, 10))


def test_a_second_past_the_cap_is_read_from_its_other_end(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    # 16 of acme/b and 4 of acme/a created in the same second, past the cap of 10: the query that
    # reached it read its oldest 10, the second's own query newest first gives the rest (and its
    # count on the same page), and the search goes on after that second.
    server, store, status = burst(start_github, make_settings, clock, tmp_path, 16)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 44
    second = "org:acme created:2026-04-11T12:00:00Z..2026-04-11T12:00:00Z"
    orders = [params["order"][0] for params in search_params(server) if params["q"][0] == second]
    assert orders == ["desc"]
    assert not [query for query in search_queries(server) if "repo:" in query or " is:" in query]
    assert "org:acme created:2026-04-11T12:00:01Z..2026-04-13T23:59:59Z" in search_queries(server)


def test_a_repository_that_dominates_one_second_is_searched_on_its_own(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    # 30 of acme/b and 4 of acme/a created in the same second (a bot's burst), past what both ends
    # of a search reach (20): acme/b on its own (by kind), the rest without it.
    server, store, status = burst(start_github, make_settings, clock, tmp_path, 30)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 58
    queries = search_queries(server)
    second = "created:2026-04-11T12:00:00Z..2026-04-11T12:00:00Z"
    assert f"repo:acme/b {second} is:issue" in queries and f"repo:acme/b {second} is:pr" in queries
    assert f"org:acme -repo:acme/b {second}" in queries
    assert sorted({query for query in queries if " is:" in query}) == [
        f"repo:acme/b {second} is:issue",
        f"repo:acme/b {second} is:pr",
    ]
    assert not [path for path, _ in server.log if path.startswith("/repos/acme/b/issues?")]  # no listing needed
    # acme/b's 15 issues: the newest 10 (5 of them read before), then the oldest for the rest.
    orders = [params["order"][0] for params in search_params(server) if params["q"][0].endswith("is:issue")]
    assert orders == ["desc", "asc"]


def test_one_repositorys_second_past_both_ends_is_read_from_its_listing(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    rows = [row("acme/a", n, created="2026-04-09") for n in range(1, 26)]  # 25 open issues in one second
    rows += [row("acme/a", n, created="2026-04-12") for n in range(26, 31)]
    server = start_github(rows, search_cap=10)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect_capped(settings, clock, 10)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 30
    listings = [path for path, _ in server.log if path.startswith("/repos/acme/a/issues?")]
    assert len(listings) == 1 and "sort=created&direction=desc" in listings[0]
    # Both ends showed only open issues: no split by kind or state, which would leave one part as large.
    assert not [query for query in search_queries(server) if " is:" in query]


def test_what_even_the_listing_cannot_reach_is_counted_and_named(
    start_github: Start,
    make_settings: MakeSettings,
    clock: FakeClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(github_search, "MAX_LISTING_PAGES", 1)
    rows = [row("acme/a", n, created="2026-04-09") for n in range(1, 26)]
    # A page of later items before them in the listing (newest first).
    rows += [row("acme/a", n, created=f"2026-04-12T{n % 24:02d}:{n % 60:02d}:00Z") for n in range(26, 131)]
    server = start_github(rows, search_cap=10)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect_capped(settings, clock, 10)
    assert status.status is CoverageStatus.PARTIAL
    assert len([key for key in stored(store) if key[1] < 26]) == 20  # the oldest 10 and the newest 10
    assert (
        "org:acme: 5 of 25 items created at 2026-04-09T12:00:00Z in acme/a cannot be reached: "
        "search serves the first 10 from either end and they share one second"
    ) in status.note


def test_listed_excluded_and_included_repositories(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    server = start_github(organisation())
    github = 'repositories = ["acme/c"]\norgs = ["acme"]\nexclude_repos = ["acme/a", "acme/secret"]'
    store, status = collect(profile_settings(make_settings, server.url, tmp_path, github), clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    repos = {repo for repo, _ in stored(store)}
    assert repos == {"acme/b", "acme/c"}
    org_queries = [query for query in search_queries(server) if query.startswith("org:")]
    assert org_queries and all(
        q.startswith("org:acme -repo:acme/a -repo:acme/c -repo:acme/secret ") for q in org_queries
    )
    # acme/c, listed on its own, is collected as before (its commits too), not by the org search.
    assert any(path.startswith("/repos/acme/c/commits") for path, _ in server.log)

    (tmp_path / "insight.db").unlink()
    server.log.clear()
    github = 'orgs = ["acme"]\ninclude_repos = ["acme/b", "acme/c"]\nexclude_repos = ["acme/c"]'
    store, status = collect(profile_settings(make_settings, server.url, tmp_path, github), clock, WEEK)
    assert {repo for repo, _ in stored(store)} == {"acme/b"}
    assert all(query.startswith("repo:acme/b ") for query in search_queries(server))


def test_the_search_rate_limit_is_waited_for_not_run_into(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    rows = [row("acme/a", n, created=f"2026-04-{7 + n % 7:02d}") for n in range(1, 451)]
    server = start_github(rows, search_limit=2)  # 5 pages of created, 1 of closed: three minutes
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 450
    searches = [status for path, status in server.log if path.startswith("/search/")]
    assert searches == [200] * 6  # never refused: the client read X-RateLimit-Remaining: 0 and waited
    waits = [seconds for seconds in clock.sleeps if seconds > 1]
    assert len(waits) == 2 and all(55 <= seconds <= 61 for seconds in waits)
    assert status.requests == len(server.log)


def test_a_search_limit_resetting_too_late_stops_the_source_partial(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    rows = [row("acme/a", n) for n in range(1, 251)]
    server = start_github(rows, search_limit=2)
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["acme"]')
    settings.http = settings.http.model_copy(update={"max_rate_limit_wait": 10})
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.PARTIAL and "rate limit" in status.note
    assert len(stored(store)) == 200  # the two pages it was allowed are stored
    assert [status for path, status in server.log if path.startswith("/search/")] == [200, 200]


def test_an_unknown_organisation_fails_the_source_cleanly(
    start_github: Start, make_settings: MakeSettings, clock: FakeClock, tmp_path: Path
) -> None:
    server = start_github(organisation())
    settings = profile_settings(make_settings, server.url, tmp_path, 'orgs = ["nobody"]')
    store, status = collect(settings, clock, WEEK)
    assert (status.status, status.note) == (CoverageStatus.FAILED, "org:nobody: organisation not found (404)")
    assert store.count_items() == 0


@pytest.mark.parametrize(
    ("github", "message"),
    [
        ('orgs = ["acme"]\ninclude_repos = ["other/x"]', "'other/x' is not in any of `orgs` (acme)"),
        ('orgs = ["acme"]\nexclude_repos = ["acme"]', "'acme' is not an owner/name repository"),
        ("orgs = []", "needs `repositories` or `orgs`"),
    ],
)
def test_profile_scope_mistakes_fail_at_load(tmp_path: Path, github: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(PROFILE.format(github=github), encoding="utf-8")
    with pytest.raises(ConfigError, match="bad.toml") as error:
        load_profile(str(path))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_the_cli_collects_an_organisation_and_reports_it_by_repository(
    start_github: Start, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = organisation()
    for source_row in rows[:30]:
        source_row["title"] = f"Slow compile of model {source_row['number']}"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_API_URL", start_github(rows).url)
    profile = tmp_path / "acme.toml"
    github = 'orgs = ["acme"]\nexclude_repos = ["acme/secret"]'
    area = '[[areas]]\nid = "compiler"\nname = { zh = "编译", en = "Compiler" }\nkeywords = ["compile"]\n'
    profile.write_text(PROFILE.format(github=github) + area, encoding="utf-8")
    common = (
        "--profile",
        str(profile),
        "--db",
        str(tmp_path / "i.db"),
        "--since",
        "2026-04-07",
        "--until",
        "2026-04-13",
    )

    def cli(*args: str) -> str:
        with pytest.raises(SystemExit) as exit_info:
            main([*args, *common])
            raise SystemExit(0)
        out, err = capsys.readouterr()
        assert exit_info.value.code in (0, None), err
        return out

    cli("collect", "-q", "--source", "github")
    markdown = cli("report", "-q", "--lang", "en", "--out", "-")
    section = markdown.split("### By repository", 1)[1].split("###", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| acme/")]
    assert [line.split(" | ")[:4] for line in lines] == [
        ["| acme/a", "180", "60", "120"],
        ["| acme/b", "40", "0", "40"],
        ["| acme/c", "5", "0", "5"],
    ]
    assert "Compiler (30)" in lines[0]
    assert "acme/secret" not in markdown and "other/x" not in markdown
    page = cli("report", "-q", "--lang", "zh", "--format", "html", "--out", "-")
    assert "<h3>按仓库汇总 (" in page  # the by-repository table, folded under its heading
    row = page.split("<strong>acme/b</strong></td>", 1)[1].split("</tr>", 1)[0]
    assert [cell.split(">", 1)[1] for cell in row.split("</td>")[:3]] == ["40", "0", "40"]
    document = json.loads(cli("report", "-q", "--lang", "en", "--format", "json", "--out", "-"))
    assert [row["repo"] for row in document["coverage"]["repos"]] == ["acme/a", "acme/b", "acme/c"]


def test_the_local_search_answers_an_organisation_query_in_githubs_shape(start_github: Start) -> None:
    recorded = json.loads((SAMPLES / "github-rest" / "search_issues__octokit_2022.json").read_text(encoding="utf-8"))
    server = start_github(organisation())
    query = {"q": "org:acme -repo:acme/a created:2026-04-01..2026-04-30", "per_page": 30, "page": 2}
    response = httpx.get(f"{server.url}/search/issues", params=query, timeout=5)
    body = response.json()
    assert set(body) == set(recorded["body"]) == {"total_count", "incomplete_results", "items"}
    assert body["total_count"] == 40 + 2 + 3 and len(body["items"]) == 15  # acme/b, c and secret; page 2 of 30
    assert {item["repository_url"].rsplit("/repos/", 1)[1] for item in body["items"]} <= {
        "acme/b",
        "acme/c",
        "acme/secret",
    }
    assert set(body["items"][0]) == set(recorded["body"]["items"][0])  # an issue: no closed_by, a score
    assert response.headers["X-RateLimit-Resource"] == "search" and 'rel="prev"' in response.headers["Link"]
