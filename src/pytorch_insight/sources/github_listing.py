"""Plain GitHub listings the source pages through: issues updated since a moment, comments, and
what a page's links say about the pages left."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pytorch_insight.http import HttpClient, Page, RequestStats
from pytorch_insight.model import Comment, Item
from pytorch_insight.sources.github_search import PER_PAGE
from pytorch_insight.window import Window, github_time


def fetch_updated_since(
    client: HttpClient, stats: RequestStats, repo: str, window: Window
) -> Iterator[list[dict[str, Any]]]:
    """Pages of every issue and PR updated since the window began (authoritative, no search cap)."""
    params = {
        "state": "all",
        "since": github_time(window.start),
        "sort": "updated",
        "direction": "asc",
        "per_page": PER_PAGE,
    }
    for page in client.iter_pages(f"/repos/{repo}/issues", stats, params=params):
        yield page.data


def comment_from_payload(payload: dict[str, Any]) -> Comment:
    return Comment(
        id=payload.get("id"),
        author=(payload.get("user") or {}).get("login"),
        date=payload.get("created_at"),
        kind="comment",
        body=payload.get("body") or "",
    )


def issue_comment_count(item: Item) -> int:
    """Comments we hold that GitHub counts in the issue's `comments` field (not reviews)."""
    return sum(1 for comment in item.comments if comment.kind == "comment")


def pages_left(page: Page) -> int | None:
    """How many pages follow this one, from its `Link: rel="last"` (None when it does not say)."""
    if "next" not in page.links:
        return 0
    last = _page_number(page.links["last"]) if "last" in page.links else None
    current = _page_number(page.url) or 1
    return None if last is None else max(0, last - current)


def _page_number(url: str) -> int | None:
    values = parse_qs(urlsplit(url).query).get("page")
    return int(values[-1]) if values and values[-1].isdigit() else None
