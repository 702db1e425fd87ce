"""Window-bounded GitHub issue searches, for one repository or a whole organisation.

A search returns at most its first 1,000 results, so a query whose `total_count` passes the cap
is split: the window into halves down to single days, then a day into issues and pull requests.
An organisation is searched as one scope (`org:pytorch -repo:pytorch/pytorch`), so its cost
grows with the number of its active items, not of its repositories.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytorch_insight.config import GitHubProfile
from pytorch_insight.errors import NotFound, RemoteError
from pytorch_insight.http import HttpClient, RequestStats
from pytorch_insight.window import Window

PER_PAGE = 100
SEARCH_CAP = 1000  # GitHub serves at most the first 1,000 results of any search
KINDS = ("is:issue", "is:pr")
API_REPOSITORY = re.compile(r"/repos/([\w.-]+/[\w.-]+)$")


def fetch_search(
    client: HttpClient,
    stats: RequestStats,
    scope: str,
    field_name: str,
    window: Window,
    notes: list[str],
    cap: int = SEARCH_CAP,
    extra: str = "",
    label: str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Pages of the issues/PRs of `scope` whose `field_name` date (created, closed) is in the window."""
    label = label or scope
    dates = f"{field_name}:{window.since.isoformat()}..{window.until.isoformat()}"
    query = " ".join(part for part in (scope, dates, extra) if part)
    params = {"q": query, "sort": "created", "order": "asc", "per_page": PER_PAGE}
    pages = client.iter_pages("/search/issues", stats, params=params)
    try:
        first = next(pages)
    except RemoteError as error:
        if error.status == 422 and "cannot be searched" in str(error):
            raise NotFound(f"{label} cannot be searched", 404) from None
        raise
    total = first.data.get("total_count", 0)
    if total > cap and window.since < window.until:
        for half in window.split():
            yield from fetch_search(client, stats, scope, field_name, half, notes, cap, extra, label)
        return
    if total > cap and not any(kind in extra for kind in KINDS):
        for kind in KINDS:
            yield from fetch_search(
                client, stats, scope, field_name, window, notes, cap, f"{extra} {kind}".strip(), label
            )
        return
    if total > cap:
        notes.append(
            f"{label}: more than {cap} items {field_name} on {window.since}; only the first {cap} are reachable"
        )
    if first.data.get("incomplete_results"):
        notes.append(f"{label}: GitHub marked the {field_name} search incomplete")
    yield first.data.get("items", [])
    for page in pages:
        yield page.data.get("items", [])


def window_searches(
    client: HttpClient,
    stats: RequestStats,
    scope: str,
    window: Window,
    notes: list[str],
    cap: int = SEARCH_CAP,
    label: str | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """Everything active in the window: created in it, or created before and closed (or merged) in it."""
    yield from fetch_search(client, stats, scope, "created", window, notes, cap, label=label)
    before = f"created:<{window.since.isoformat()}"
    yield from fetch_search(client, stats, scope, "closed", window, notes, cap, extra=before, label=label)


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
