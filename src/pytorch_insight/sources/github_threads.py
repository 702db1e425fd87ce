"""Comment threads of one repository's items: which are missing comments, and the
repository-wide comment listing that completes many of them at once."""

from __future__ import annotations

from pytorch_insight.http import HttpClient, RequestStats
from pytorch_insight.model import Comment, Item, merge_comments
from pytorch_insight.sources import Emit
from pytorch_insight.sources.github_listing import comment_from_payload, issue_comment_count, pages_left
from pytorch_insight.sources.github_search import PER_PAGE
from pytorch_insight.window import Window, github_time, parse_timestamp


def missing_threads(items: dict[int, Item]) -> list[Item]:
    return [item for item in items.values() if (item.comment_count or 0) > issue_comment_count(item)]


def attach(items: dict[int, Item], threads: dict[int, list[Comment]], save: Emit) -> None:
    """Merge fetched comments into the items (in place) and save the changed ones."""
    changed = []
    for number, comments in threads.items():
        item = items[number]
        items[number] = item.model_copy(update={"comments": merge_comments(item.comments, comments)})
        changed.append(items[number])
    save(changed)


def repository_comments(
    client: HttpClient, stats: RequestStats, repo: str, items: dict[int, Item], window: Window, recent: bool, save: Emit
) -> None:
    """The repository's comments since the window began, oldest first, kept for the window's
    items. Past the window's end it goes on while that is the cheaper way to complete the
    threads commented on since: always for a recent window (a few days of comments), else
    while the pages left (from `Link: rel="last"`) are fewer than the threads they complete,
    each of which would otherwise be fetched again on its own."""
    params = {"since": github_time(window.start), "sort": "created", "direction": "asc", "per_page": PER_PAGE}
    for page in client.iter_pages(f"/repos/{repo}/issues/comments", stats, params=params):
        found: dict[int, list[Comment]] = {}
        for payload in page.data:
            number = int(str(payload.get("issue_url", "")).rsplit("/", 1)[-1] or 0)
            if number in items:
                found.setdefault(number, []).append(comment_from_payload(payload))
        attach(items, found, save)
        last = parse_timestamp(page.data[-1].get("created_at")) if page.data else None
        if last is None:
            break
        if last >= window.end and not _page_on(items, window, pages_left(page), recent):
            break


def _page_on(items: dict[int, Item], window: Window, left: int | None, recent: bool) -> bool:
    """Whether the listing's remaining pages cost less than the threads they would complete
    (those of items created in the window: an older item may miss comments from before it)."""
    if left is None:
        return recent
    completes = sum(1 for item in missing_threads(items) if window.contains(parse_timestamp(item.created)))
    return left < completes
