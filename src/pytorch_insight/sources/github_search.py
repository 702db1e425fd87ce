"""Window-bounded GitHub issue searches, for one repository or a whole organisation.

A search returns at most its first 1,000 results. Results come sorted by creation time, so a
query past the cap is continued from the creation time of the last result it gave (a time-of-day
range: `created:2026-11-26T09:14:02Z..2026-11-26T23:59:59Z`): every page spent is a page of
items and a busy day costs its items / 100 requests. When the cap's worth ends a page or more
into one second, going on from that second would read those items again: the second is read
from its other end instead (`order=desc`; both ends reach twice the cap) and the query goes on
after it. A second past even that is split by what its items show: its dominant repository on
its own (`repo:`) and the rest without it (`-repo:`), then issues and pull requests
(`is:issue`, `is:pr`), then open and closed (`is:open`, `is:closed`); one repository's share
still past both ends is read from its issue listing (newest first, down to that second, which
has no cap). Every narrower query's first page is also its count, so no request is spent only
to count. What even that cannot reach is counted from `total_count` and named in the notes. A
page GitHub marks incomplete (its search timed out: fewer items) is asked again; one that stays
incomplete is noted with the items it lacks. An organisation is searched as one scope
(`org:pytorch -repo:pytorch/pytorch`), so its cost grows with its active items, not its
repositories (github_plan.py decides which of them are better listed).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Generator, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from pytorch_insight.config import GitHubProfile
from pytorch_insight.errors import NotFound, RemoteError
from pytorch_insight.http import HttpClient, Page, RequestStats
from pytorch_insight.window import Window, github_time, parse_timestamp

PER_PAGE = 100
SEARCH_CAP = 1000  # GitHub serves at most the first 1,000 results of any search
KINDS = ("is:issue", "is:pr")
STATES = ("is:open", "is:closed")
API_REPOSITORY = re.compile(r"/repos/([\w.-]+/[\w.-]+)$")
SECOND = timedelta(seconds=1)
# The most pages a repository's listing may take to reach a second its search cannot.
MAX_LISTING_PAGES = 50
# Asks of one search page in all while GitHub marks it incomplete (its search timed out).
INCOMPLETE_ATTEMPTS = 3
Payloads = list[dict[str, Any]]
Key = tuple[str | None, int]


@dataclass(frozen=True)
class Query:
    """One window search: `field` (created, closed) in the window, for older items (closed) only
    those created before it; `created_from` narrows it to items created at or after that moment,
    `second` to items created in that one second, `kind` and `state` to issues or pull requests,
    open or closed ones."""

    scope: str
    field: str
    window: Window
    created_from: datetime | None = None
    second: datetime | None = None
    kind: str = ""
    state: str = ""

    @property
    def text(self) -> str:
        if self.field == "created":
            terms = [self._created_term(self.window.start, self.window.end)]
        else:
            terms = [f"closed:{self.window.since.isoformat()}..{self.window.until.isoformat()}"]
            terms.append(self._created_term(None, self.window.start))
        return " ".join(term for term in (self.scope, *terms, self.kind, self.state) if term)

    @property
    def created_until(self) -> datetime:
        """The end (exclusive) of the creation times the query covers."""
        return self.window.end if self.field == "created" else self.window.start

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

    def keeps(self, payload: dict[str, Any]) -> bool:
        """Whether an item a wider query found belongs to this narrower one: its repository,
        kind and state (the creation time is the caller's)."""
        repo = (repository_of(payload) or "").lower()
        terms = self.scope.lower().split()
        if f"-repo:{repo}" in terms:
            return False
        wanted = [term for term in terms if not term.startswith("-")]
        owner = repo.split("/")[0]
        if wanted and not any(term in (f"repo:{repo}", f"org:{owner}", f"user:{owner}") for term in wanted):
            return False
        if self.kind and is_pull_request(payload) != (self.kind == "is:pr"):
            return False
        return not self.state or payload.get("state") == self.state.removeprefix("is:")


class WindowSearch:
    """The searches of one scope over one window, past the cap, with what they could not reach
    added to `notes`."""

    def __init__(
        self, client: HttpClient, stats: RequestStats, notes: list[str], cap: int = SEARCH_CAP, label: str = ""
    ) -> None:
        self.client, self.stats, self.notes, self.cap, self.label = client, stats, notes, cap, label

    def all(self, query: Query) -> Iterator[Payloads]:
        """Every result of the query: pages up to the cap, then on from the last creation time.

        When the cap's worth ends a page or more into one second (a burst, or a whole cap's worth
        in one second), that second is read on its own from its other end, split if need be, and
        the query goes on from the next second; a few items of the last second are cheaper read
        again than a narrower query's part-filled page."""
        seen: set[Key] = set()
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
            crowded = [item for item in fetched if _created(item) == last]
            if first == last or len(crowded) >= PER_PAGE:
                for items in self._second(replace(query, second=last), crowded):
                    yield _unseen(items, seen)
                last += SECOND  # that second is read whole: nothing of it to read again
                if last >= query.created_until:
                    return
            query = replace(query, created_from=last)

    def _second(self, query: Query, read: Payloads) -> Iterator[Payloads]:
        """Every item of the query's one second, some (`read`) known already. Newest first, then
        oldest first: the two ends reach twice the cap, and each stops once the count is reached.
        Past that, the second is split, or one repository's share read from its listing."""
        known = {_key(item): item for item in read if query.keeps(item)}
        total = yield from self._read(query, "desc", known)
        if self.cap < total <= 2 * self.cap and len(known) < total:
            total = yield from self._read(query, "asc", known)
        if len(known) >= total:
            return
        parts = self._split(query, list(known.values())) if total > self.cap else []
        if parts:
            for part in parts:
                yield from self._second(part, list(known.values()))
        elif total > self.cap and query.single_repository:
            yield from self._listed(query, total, known)
        else:
            self._unreachable(query, total, list(known.values()))

    def _read(self, query: Query, order: str, known: dict[Key, dict[str, Any]]) -> Generator[Payloads, None, int]:
        """Pages of the query in one order until `known` holds its count; only the first page
        (which counts it) when it is past what both ends reach. Returns the count."""
        total = 0
        for total, items in self._pages(query, order):
            yield _learned(items, known)
            if len(known) >= total or total > 2 * self.cap:
                break
        return total

    def _split(self, query: Query, sample: Payloads) -> list[Query]:
        """Narrower queries that together hold the second: its dominant repository (in the items
        read) and the rest; within one repository issues and pull requests, else open and closed
        ones, where the items read show both (read from both ends and all alike, the middle most
        likely is too: a split would leave one part as large, and the listing reads all kinds)."""
        if query.single_repository is None:
            counts = Counter(name for item in sample if (name := repository_of(item)))
            dominant = counts.most_common(1)[0][0] if counts else None
            # One excluded already comes back when the server ignored the exclusion: no help.
            if dominant is not None and f"-repo:{dominant}" not in query.scope.split():
                rest = query.without(dominant)
                return [query.only(dominant), *([rest] if rest.has_scope else [])]
        if not query.kind and len({is_pull_request(item) for item in sample}) > 1:
            return [replace(query, kind=kind) for kind in KINDS]
        if not query.state and len({item.get("state") for item in sample}) > 1:
            return [replace(query, state=state) for state in STATES]
        return []

    def _listed(self, query: Query, total: int, known: dict[Key, dict[str, Any]]) -> Iterator[Payloads]:
        """One repository's items of one second, kind and state, past both ends of the search: its
        issue listing, newest first, down to that second (the listing has no cap). Bounded: a
        backfill of an old window in a busy repository would page through everything since."""
        repo, second = query.single_repository, query.second
        assert repo is not None and second is not None  # only called for such a query
        state = query.state.removeprefix("is:") or "all"
        params = {"state": state, "sort": "created", "direction": "desc", "per_page": PER_PAGE}
        pages = self.client.iter_pages(f"/repos/{repo}/issues", self.stats, params=params)
        for number, page in enumerate(pages, 1):
            items = [item for item in page.data if isinstance(item, dict)]
            kept = [item for item in items if _created(item) == second and query.keeps(item)]
            yield _learned(kept, known)
            oldest = _created(items[-1]) if items else None
            if oldest is None or oldest < second or len(known) >= total or number >= MAX_LISTING_PAGES:
                break
        self._unreachable(query, total, list(known.values()))

    def _pages(self, query: Query, order: str = "asc") -> Iterator[tuple[int, Payloads]]:
        """(total_count, items) per page, by page number up to the cap: a page that stayed
        incomplete may give fewer items, a lower count and links that stop short. Read to its end,
        a query that had one notes how many of its results never came. An unknown repository or
        organisation is NotFound."""
        params: dict[str, Any] = {"q": query.text, "sort": "created", "order": order, "per_page": PER_PAGE}
        total, number, last = 0, 1, 1
        given: set[Key] = set()
        timed_out: list[int] = []
        while number <= last:
            try:
                page = search_page(self.client, self.stats, params if number == 1 else {**params, "page": number})
            except RemoteError as error:
                if number == 1 and error.status == 422 and "cannot be searched" in str(error):
                    raise NotFound(f"{self.label or query.scope} cannot be searched", 404) from None
                raise
            items = [item for item in page.data.get("items", []) if isinstance(item, dict)]
            given.update(_key(item) for item in items)
            if page.data.get("incomplete_results"):
                timed_out.append(number)
            total = max(total, int(page.data.get("total_count", 0)))
            last = math.ceil(min(total, self.cap) / PER_PAGE)
            yield total, items
            number += 1
        expected = min(total, self.cap)
        if timed_out and len(given) < expected:
            pages = ", ".join(str(number) for number in timed_out)
            self.notes.append(
                f"{self.label or query.scope}: GitHub's search timed out on page {pages} of `{query.text}` "
                f"{INCOMPLETE_ATTEMPTS} times (incomplete_results): {len(given)} of its {expected} results came, "
                f"{expected - len(given)} may be missing"
            )

    def _unreachable(self, query: Query, total: int, fetched: Payloads) -> None:
        """Named and counted: the scope, how many of how many, when, in which repositories."""
        missing = total - len(fetched)
        if missing <= 0:
            return
        kind = {"is:issue": " issues", "is:pr": " pull requests"}.get(query.kind, " items")
        kind = f" {query.state.removeprefix('is:')}{kind}" if query.state else kind
        when = f"created at {github_time(query.second)}" if query.second else "created in the window"
        if query.field == "closed":
            when = f"closed in the window and {when.replace(' in the window', ' before it')}"
        repos = sorted({name for item in fetched if (name := repository_of(item))})
        self.notes.append(
            f"{self.label or query.scope}: {missing} of {total}{kind} {when} in {', '.join(repos) or query.scope} "
            f"cannot be reached: search serves the first {self.cap} from either end and they share one second"
        )


def search_page(client: HttpClient, stats: RequestStats, params: dict[str, Any]) -> Page:
    """One page of an issue search, asked again while GitHub marks it incomplete (its search
    timed out and gave what it had found: fewer items, a lower count), pausing a little longer
    each time; the last answer is returned whatever it says."""
    for attempt in range(1, INCOMPLETE_ATTEMPTS + 1):
        page = client.get_json("/search/issues", stats, params=params)
        if not (isinstance(page.data, dict) and page.data.get("incomplete_results")) or attempt == INCOMPLETE_ATTEMPTS:
            break
        client.clock.sleep(float(attempt))
    if not isinstance(page.data, dict):
        raise RemoteError(f"GitHub's search answered {type(page.data).__name__}, not an object")
    return page


def _created(payload: dict[str, Any]) -> datetime | None:
    return parse_timestamp(payload.get("created_at"))


def _key(payload: dict[str, Any]) -> Key:
    return repository_of(payload), payload.get("number", -1)


def _learned(items: Payloads, known: dict[Key, dict[str, Any]]) -> Payloads:
    """The items `known` did not hold yet, now added to it."""
    fresh = [item for item in items if _key(item) not in known]
    known.update((_key(item), item) for item in fresh)
    return fresh


def _unseen(items: Payloads, seen: set[Key]) -> Payloads:
    """The items not yielded before: a query continued from a creation time gives that second's
    items again."""
    fresh = []
    for item in items:
        key = _key(item)
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
