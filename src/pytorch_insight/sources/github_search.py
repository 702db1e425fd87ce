"""Window-bounded GitHub issue searches, for one repository or a whole organisation.

A search returns at most its first 1,000 results. Results come sorted by creation time, so a
query past the cap is continued from the creation time of the last result it gave (a time-of-day
range: `created:2026-11-26T09:14:02Z..2026-11-26T23:59:59Z`): every page spent is a page of
items and a busy day costs its items / 100 requests. When more than the cap share one second,
that second is split by repository (the dominant one on its own with `repo:`, the rest with
`-repo:`), then by kind, and one repository's kind still past the cap is read from its issue
listing (newest first, down to that second); what even that cannot reach is counted from
`total_count` and named in the notes. Counting a query that is likely past the cap costs a
`per_page=1` probe, never a page of 100 read only for its `total_count`. An organisation is
searched as one scope (`org:pytorch -repo:pytorch/pytorch`), so its cost grows with its active
items, not its repositories (github_plan.py decides which of them are better listed).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from pytorch_insight.config import GitHubProfile
from pytorch_insight.errors import NotFound, RemoteError
from pytorch_insight.http import HttpClient, RequestStats
from pytorch_insight.window import Window, github_time, parse_timestamp

PER_PAGE = 100
SEARCH_CAP = 1000  # GitHub serves at most the first 1,000 results of any search
KINDS = ("is:issue", "is:pr")
API_REPOSITORY = re.compile(r"/repos/([\w.-]+/[\w.-]+)$")
SECOND = timedelta(seconds=1)
# The most pages a repository's listing may take to reach a second its search cannot.
MAX_LISTING_PAGES = 50
Payloads = list[dict[str, Any]]


@dataclass(frozen=True)
class Query:
    """One window search: `field` (created, closed) in the window, for older items (closed) only
    those created before it; `created_from` narrows it to items created at or after that moment,
    `second` to items created in that one second."""

    scope: str
    field: str
    window: Window
    created_from: datetime | None = None
    second: datetime | None = None
    kind: str = ""

    @property
    def text(self) -> str:
        if self.field == "created":
            terms = [self._created_term(self.window.start, self.window.end)]
        else:
            terms = [f"closed:{self.window.since.isoformat()}..{self.window.until.isoformat()}"]
            terms.append(self._created_term(None, self.window.start))
        return " ".join(term for term in (self.scope, *terms, self.kind) if term)

    def _created_term(self, low: datetime | None, end: datetime) -> str:
        """created in [low, end); the plain day forms while nothing narrows them."""
        if self.second is not None:
            return f"created:{github_time(self.second)}..{github_time(self.second)}"
        start = self.created_from or low
        if start is None:
            return f"created:<{end.date().isoformat()}"
        if self.created_from is None:
            return f"created:{start.date().isoformat()}..{(end - SECOND).date().isoformat()}"
        return f"created:{github_time(start)}..{github_time(end - SECOND)}"

    @property
    def single_repository(self) -> str | None:
        terms = self.scope.split()
        return terms[0].removeprefix("repo:") if len(terms) == 1 and terms[0].startswith("repo:") else None

    def only(self, repo: str) -> Query:
        return replace(self, scope=f"repo:{repo}")

    def without(self, repo: str) -> Query:
        """The scope less one repository: dropped from a list of `repo:`s, else excluded."""
        terms = self.scope.split()
        if f"repo:{repo}" in terms:
            terms.remove(f"repo:{repo}")
        else:
            terms.append(f"-repo:{repo}")
        return replace(self, scope=" ".join(terms))

    @property
    def has_scope(self) -> bool:
        return any(not term.startswith("-") for term in self.scope.split())


class WindowSearch:
    """The searches of one scope over one window, past the cap, with what they could not reach
    added to `notes`."""

    def __init__(
        self, client: HttpClient, stats: RequestStats, notes: list[str], cap: int = SEARCH_CAP, label: str = ""
    ) -> None:
        self.client, self.stats, self.notes, self.cap, self.label = client, stats, notes, cap, label

    def all(self, query: Query) -> Iterator[Payloads]:
        """Every result of the query: pages up to the cap, then on from the last creation time.

        When the cap's worth ends inside a burst (half the cap or more created in its last
        second), that second is counted with a `per_page=1` probe: read whole, the query goes on
        from the next second; past the cap, it is split at once (instead of reading the cap's worth
        of it again only to find that out)."""
        seen: set[tuple[str | None, int]] = set()
        while True:
            fetched: Payloads = []
            total = 0
            for count, items in self._pages(query):
                total = count
                fetched += items
                yield _unseen(items, seen)
            if total <= self.cap or not fetched:
                return
            first, last = _created(fetched[0]), _created(fetched[-1])
            if first is None or last is None or (query.created_from is not None and last < query.created_from):
                self._unreachable(query, total, fetched)  # not sorted as asked: no cursor to go on from
                return
            burst = [item for item in fetched if _created(item) == last]
            second = replace(query, second=last)
            count = total if first == last else self._probe(second) if len(burst) >= self.cap // 2 else 0
            if count > self.cap:  # more than the cap share one second: split that second
                for items in self._one_second(second, burst, count):
                    yield _unseen(items, seen)
            if count > self.cap or count == len(burst):
                last += SECOND  # that second is read whole: nothing of it to read again
            query = replace(query, created_from=last)

    def _one_second(self, query: Query, sample: Payloads, total: int) -> Iterator[Payloads]:
        """More than the cap created in one second: the dominant repository (in the sample) on
        its own and the rest without it, each split again while it passes the cap; a single
        repository's issues and pull requests apart."""
        dominant = None
        if query.single_repository is None:
            counts = Counter(name for item in sample if (name := repository_of(item)))
            dominant = counts.most_common(1)[0][0] if counts else None
            if dominant is not None and f"-repo:{dominant}" in query.scope.split():
                dominant = None  # excluded already: the server ignored it, splitting again cannot help
        if dominant is not None:
            mine = [item for item in sample if repository_of(item) == dominant]
            yield from self._fitting(query.only(dominant), mine, _share(total, mine, sample))
            rest = query.without(dominant)
            if rest.has_scope:
                others = [item for item in sample if repository_of(item) != dominant]
                yield from self._fitting(rest, others, _share(total, others, sample))
        elif not query.kind:
            for kind in KINDS:
                mine = [item for item in sample if is_pull_request(item) == (kind == "is:pr")]
                yield from self._fitting(replace(query, kind=kind), mine, _share(total, mine, sample))
        else:
            yield from self._fitting(query, sample, total, split=False)

    def _fitting(self, query: Query, sample: Payloads, estimate: int, split: bool = True) -> Iterator[Payloads]:
        """A one-second query: all of it when it fits the cap, else split further; one
        repository's kind past the cap is read from its listing. A query the sample says is past
        the cap is counted with a probe first, so no page of it is read only to be read again."""
        can_split = split and (query.single_repository is None or not query.kind)
        total = self._probe(query) if estimate >= self.cap else None
        if total is not None and total > self.cap:
            if can_split:
                yield from self._one_second(query, sample, total)
                return
            if query.single_repository and query.second:
                yield from self._listed(query, total)
                return
        fetched: Payloads = []
        total = 0
        for total, items in self._pages(query):
            if total > self.cap and can_split:
                yield from self._one_second(query, items, total)
                return
            if total > self.cap and query.single_repository and query.second:
                yield items
                yield from self._listed(query, total, items)
                return
            fetched += items
            yield items
        self._unreachable(query, total, fetched)

    def _probe(self, query: Query) -> int:
        page = self.client.get_json("/search/issues", self.stats, params={"q": query.text, "per_page": 1})
        return int(page.data.get("total_count", 0)) if isinstance(page.data, dict) else 0

    def _listed(self, query: Query, total: int, reached: Payloads | None = None) -> Iterator[Payloads]:
        """One repository's items of one second and kind, past the cap even so: its issue listing,
        newest first, down to that second (the listing has no cap). Bounded: a backfill of an old
        window in a busy repository would page through everything since; then the search's
        capped pages are read for what the listing did not reach."""
        repo, second = query.single_repository, query.second
        assert repo is not None and second is not None  # only called for such a query
        params = {"state": "all", "sort": "created", "direction": "desc", "per_page": PER_PAGE}
        pulls = query.kind == "is:pr"
        found = {item.get("number"): item for item in reached or []}
        pages = self.client.iter_pages(f"/repos/{repo}/issues", self.stats, params=params)
        for number, page in enumerate(pages, 1):
            items = [item for item in page.data if isinstance(item, dict)]
            kept = [item for item in items if _created(item) == second and ("pull_request" in item) == pulls]
            found.update((item.get("number"), item) for item in kept)
            yield kept
            oldest = _created(items[-1]) if items else None
            if oldest is None or oldest < second:
                return
            if number >= MAX_LISTING_PAGES:
                break
        if not reached:
            for _, items in self._pages(query):
                found.update((item.get("number"), item) for item in items)
                yield items
        self._unreachable(query, total, list(found.values()))

    def _pages(self, query: Query) -> Iterator[tuple[int, Payloads]]:
        """(total_count, items) per page; an unknown repository or organisation is NotFound."""
        params = {"q": query.text, "sort": "created", "order": "asc", "per_page": PER_PAGE}
        pages = self.client.iter_pages("/search/issues", self.stats, params=params)
        try:
            first = next(pages)
        except RemoteError as error:
            if error.status == 422 and "cannot be searched" in str(error):
                raise NotFound(f"{self.label or query.scope} cannot be searched", 404) from None
            raise
        if first.data.get("incomplete_results"):
            self.notes.append(f"{self.label or query.scope}: GitHub marked the {query.field} search incomplete")
        total = int(first.data.get("total_count", 0))
        yield total, first.data.get("items", [])
        for page in pages:
            yield total, page.data.get("items", [])

    def _unreachable(self, query: Query, total: int, fetched: Payloads) -> None:
        """Named and counted: the scope, how many of how many, when, in which repositories."""
        missing = total - len(fetched)
        if missing <= 0:
            return
        kind = {"is:issue": " issues", "is:pr": " pull requests"}.get(query.kind, " items")
        when = f"created at {github_time(query.second)}" if query.second else "created in the window"
        if query.field == "closed":
            when = f"closed in the window and {when.replace(' in the window', ' before it')}"
        repos = sorted({name for item in fetched if (name := repository_of(item))})
        self.notes.append(
            f"{self.label or query.scope}: {missing} of {total}{kind} {when} in {', '.join(repos) or query.scope} "
            f"cannot be reached: search serves the first {self.cap} and they share one second"
        )


def _share(total: int, part: Payloads, sample: Payloads) -> int:
    """`total` scaled by the part of the sample a narrower query keeps: its likely count."""
    return total * len(part) // max(1, len(sample))


def _created(payload: dict[str, Any]) -> datetime | None:
    return parse_timestamp(payload.get("created_at"))


def _unseen(items: Payloads, seen: set[tuple[str | None, int]]) -> Payloads:
    """The items not yielded before: a query continued from a creation time gives that second's
    items again."""
    fresh = []
    for item in items:
        key = (repository_of(item), item.get("number", -1))
        if key not in seen:
            seen.add(key)
            fresh.append(item)
    return fresh


def window_searches(
    client: HttpClient,
    stats: RequestStats,
    scope: str,
    window: Window,
    notes: list[str],
    cap: int = SEARCH_CAP,
    label: str | None = None,
) -> Iterator[Payloads]:
    """Everything active in the window: created in it, or created before and closed (or merged) in it."""
    search = WindowSearch(client, stats, notes, cap, label or scope)
    yield from search.all(Query(scope, "created", window))
    yield from search.all(Query(scope, "closed", window))


@dataclass(frozen=True)
class OrgScope:
    """One organisation of the profile: what its search asks for and which results it keeps.

    Repositories collected one by one (`repositories`) and excluded ones are left out of the
    query, so they cost nothing; with `include_repos` naming some of its repositories, only those
    are searched. The results are filtered again, since a query is only GitHub's reading of it."""

    org: str
    include: frozenset[str]
    exclude: frozenset[str]

    @classmethod
    def of(cls, org: str, github: GitHubProfile) -> OrgScope:
        def mine(names: list[str]) -> frozenset[str]:
            return frozenset(name.lower() for name in names if name.split("/")[0].lower() == org.lower())

        return cls(org, mine(github.include_repos), mine(github.exclude_repos) | mine(github.repositories))

    @property
    def empty(self) -> bool:
        """Every repository it was narrowed to is collected one by one: nothing left to search."""
        return bool(self.include) and not self.include - self.exclude

    @property
    def query(self) -> str:
        if self.include:
            return " ".join(f"repo:{name}" for name in sorted(self.include - self.exclude))
        return " ".join([f"org:{self.org}", *(f"-repo:{name}" for name in sorted(self.exclude))])

    def wants(self, repo: str | None) -> bool:
        if repo is None or repo.split("/")[0].lower() != self.org.lower() or repo.lower() in self.exclude:
            return False
        return not self.include or repo.lower() in self.include


def repository_of(payload: dict[str, Any]) -> str | None:
    """owner/name of an issue payload: its `repository`, else its API `repository_url`."""
    repository = payload.get("repository")
    if isinstance(repository, dict) and isinstance(repository.get("full_name"), str):
        return repository["full_name"]
    url = payload.get("repository_url")
    found = API_REPOSITORY.search(url) if isinstance(url, str) else None
    return found.group(1) if found else None


def is_pull_request(payload: dict[str, Any]) -> bool:
    """Whether an issue payload is a pull request. Old issues (2012-2014, as the search API still
    returns them) carry a `pull_request` object whose URLs are all null: the key alone says nothing."""
    pull = payload.get("pull_request")
    return isinstance(pull, dict) and any(pull.get(key) for key in ("url", "html_url", "diff_url", "merged_at"))
