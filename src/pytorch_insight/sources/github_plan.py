"""Which way an organisation's window is read, and how it is cut into slices.

Two budgets pay for it: search (30 requests a minute) reads the whole organisation at one
request per 100 active items, however many repositories it has; the core listings (5,000 an
hour) cost at least one request per repository, but never wait. A weekly run whose searches
pass what is left of the search minute waits a whole minute for each 30 more, while listing
its busiest repositories on their own (each nearly 100 active items a page) takes them out of
the search at almost no extra requests. So the plan counts the window cheaply (`per_page=1`
probes read `total_count`), weighs each repository by its open issues and pull requests (the
organisation's repository listing gives them), and picks how many of the busiest to list:
the fewest that let the rest be searched without waiting, unless listing them costs more time
than the wait. An older window cannot be listed (everything updated since would be paged
through), so it is searched whole. The plan's slices are what workers share.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pytorch_insight.http import HttpClient, RateBudget, RequestStats
from pytorch_insight.sources.github_listing import fetch_updated_since
from pytorch_insight.sources.github_search import (
    PER_PAGE,
    SEARCH_CAP,
    OrgScope,
    Payloads,
    Query,
    search_page,
    window_searches,
)
from pytorch_insight.window import Window

# GitHub's search budget resets each minute.
SEARCH_PERIOD_S = 60.0
# An "updated since" listing also returns items only commented on in the window and items
# updated after it: a listing page holds about this share of window items.
LISTING_YIELD = 0.8
# `-repo:` qualifiers a search takes before its query grows unwieldy (GitHub caps queries at
# 256 characters of text and a few operators); past them the organisation is listed whole.
MAX_EXCLUDED = 10


@dataclass(frozen=True)
class OrgRepository:
    name: str
    weight: int  # open issues and pull requests, plus one: an empty repository may still be active


@dataclass(frozen=True)
class Slice:
    """One share of an organisation's window: a repository listed on its own, or the search of
    the organisation less the listed ones. Workers run one slice a task."""

    org: str
    listed: str = ""  # owner/name of a listed repository; empty for the search slice
    query: str = ""  # the search slice's scope

    @property
    def label(self) -> str:
        return f"org:{self.org} {self.listed} listing" if self.listed else f"org:{self.org} search"

    def as_json(self) -> dict[str, Any]:
        return {"org": self.org, "listed": self.listed, "query": self.query}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Slice:
        return cls(str(data["org"]), str(data.get("listed", "")), str(data.get("query", "")))


@dataclass(frozen=True)
class Option:
    """The cost of listing the `listed` repositories and searching the rest."""

    listed: tuple[str, ...]
    listings: int
    searches: int
    wait: float
    seconds: float

    @property
    def requests(self) -> int:
        return self.listings + self.searches


@dataclass(frozen=True)
class OrgPlan:
    slices: tuple[Slice, ...]
    note: str  # which path and why: the coverage note says it

    @property
    def listed(self) -> tuple[str, ...]:
        return tuple(piece.listed for piece in self.slices if piece.listed)

    @property
    def search(self) -> Slice | None:
        return next((piece for piece in self.slices if not piece.listed), None)


def fetch_org_repositories(client: HttpClient, stats: RequestStats, scope: OrgScope) -> list[OrgRepository]:
    """The repositories the scope searches, busiest first; with `include_repos`, those (whose
    weights nothing tells: equal)."""
    if scope.include:
        return [OrgRepository(name, 1) for name in sorted(scope.include - scope.exclude)]
    found = []
    params = {"type": "all", "sort": "full_name", "per_page": PER_PAGE}
    for page in client.iter_pages(f"/orgs/{scope.org}/repos", stats, params=params):
        for repo in page.data if isinstance(page.data, list) else []:
            name = repo.get("full_name") if isinstance(repo, dict) else None
            if isinstance(name, str) and scope.wants(name):
                count = repo.get("open_issues_count")
                found.append(OrgRepository(name, 1 + (count if isinstance(count, int) and count > 0 else 0)))
    return sorted(found, key=lambda repo: (-repo.weight, repo.name))


def probe_count(client: HttpClient, stats: RequestStats, query: Query) -> int:
    """A search's `total_count` for one request of one item, not a page of 100."""
    page = search_page(client, stats, {"q": query.text, "per_page": 1})
    return int(page.data.get("total_count", 0))


def plan_org(client: HttpClient, stats: RequestStats, scope: OrgScope, window: Window, recent: bool) -> OrgPlan:
    """Count the window (two probes), then weigh the ways to read it (see the module)."""
    if not recent:
        note = f"org:{scope.org}: searched whole (an older window's listings would page through every later update)"
        return OrgPlan((Slice(scope.org, query=scope.query),), note)
    started, before = client.clock.now(), stats.requests
    repositories = fetch_org_repositories(client, stats, scope)
    counts = [probe_count(client, stats, Query(scope.query, field, window)) for field in ("created", "closed")]
    latency = (client.clock.now() - started) / max(1, stats.requests - before)
    options = weigh_options(repositories, counts, client.budget("search"), client.clock.now(), latency)
    best = min(options, key=lambda option: (option.seconds, option.requests))
    slices = [Slice(scope.org, listed=name) for name in best.listed]
    if len(best.listed) < len(repositories):
        slices.append(Slice(scope.org, query=search_scope(scope, best.listed)))
    return OrgPlan(tuple(slices), _explain(scope.org, best, options[0], sum(counts), len(repositories)))


def search_scope(scope: OrgScope, listed: Sequence[str]) -> str:
    """The organisation's query less the listed repositories."""
    if scope.include:  # a list of `repo:` terms: drop the listed ones rather than exclude them
        return " ".join(f"repo:{name}" for name in sorted(scope.include - scope.exclude) if name not in listed)
    return " ".join([scope.query, *(f"-repo:{name}" for name in listed)])


def weigh_options(
    repositories: Sequence[OrgRepository],
    counts: Sequence[int],
    budget: RateBudget | None,
    now: float,
    latency: float,
) -> list[Option]:
    """Listing the k busiest repositories and searching the rest, for each k; the first is
    searching all of them. A search wait is what the budget left says it costs; listings never
    wait (a core budget spent would stop both ways alike)."""
    total = sum(repo.weight for repo in repositories) or 1
    limits = [0, *range(1, min(MAX_EXCLUDED, len(repositories)) + 1)]
    if len(repositories) > MAX_EXCLUDED:
        limits.append(len(repositories))
    options = []
    for k in limits:
        listed = repositories[:k]
        share = 1 - sum(repo.weight for repo in listed) / total
        searches = sum(math.ceil(count * share / PER_PAGE) or 1 for count in counts) if k < len(repositories) else 0
        window_items = sum(counts)
        listings = sum(
            max(1, math.ceil(window_items * repo.weight / total / LISTING_YIELD / PER_PAGE)) for repo in listed
        )
        wait = search_wait(searches, budget, now)
        options.append(
            Option(tuple(r.name for r in listed), listings, searches, wait, wait + latency * (listings + searches))
        )
    return options


def search_wait(searches: int, budget: RateBudget | None, now: float) -> float:
    """Seconds spent waiting for search resets to send `searches` more requests."""
    if budget is None or searches <= budget.remaining:
        return 0.0
    minutes = math.ceil((searches - budget.remaining) / max(1, budget.limit))
    return max(0.0, budget.reset - now) + SEARCH_PERIOD_S * (minutes - 1)


def _explain(org: str, best: Option, whole: Option, items: int, repositories: int) -> str:
    estimate = f"~{items} window items in {repositories} repositories"
    if not best.listed:
        waits = f"waits {best.wait:.0f}s for the search budget, still sooner than listing" if best.wait else "fit"
        return f"org:{org}: searched whole ({estimate}: ~{best.searches} searches {waits})"
    if best.searches == 0:
        listed = f"listed each of its {len(best.listed)} repositories"
    else:
        names = ", ".join(name.split("/", 1)[-1] for name in best.listed)
        listed = f"listed {names} on their own and searched the rest (~{best.searches} searches)"
    return (
        f"org:{org}: {listed}, ~{best.listings} listing requests, ~{whole.seconds - best.seconds:.0f}s sooner "
        f"than searching whole ({estimate}: ~{whole.searches} searches wait {whole.wait:.0f}s for the search budget)"
    )


def slice_pages(
    client: HttpClient,
    stats: RequestStats,
    slices: Sequence[Slice],
    window: Window,
    notes: list[str],
    cap: int = SEARCH_CAP,
) -> Iterator[Payloads]:
    """The pages of the slices: a listed repository's "updated since" listing (the caller keeps
    what is active in the window), the search slice's window searches."""
    for piece in slices:
        if piece.listed:
            yield from fetch_updated_since(client, stats, piece.listed, window)
        elif piece.query:
            yield from window_searches(client, stats, piece.query, window, notes, cap, f"org:{piece.org}")
