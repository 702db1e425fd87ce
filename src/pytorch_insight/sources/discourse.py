"""Discourse forums (dev-discuss, discuss): the topics active in the window, their first post and
the replies posted in it, through the standard JSON API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from pytorch_insight.config import ForumConfig
from pytorch_insight.errors import RateLimited, RemoteError, Unauthorized
from pytorch_insight.http import HttpClient, RequestStats, Unreachable
from pytorch_insight.model import Comment, CoverageStatus, Item, SourceStatus
from pytorch_insight.sources import MALFORMED, Emit, Progress, malformed_reason, skipped_note, unreachable_note
from pytorch_insight.sources.html_text import html_to_text
from pytorch_insight.window import Window, parse_timestamp

MAX_LATEST_PAGES = 30  # a window months back would otherwise page through the forum's whole history
MAX_TOPIC_PAGES = 10
UNREAD_NAMED = 5  # the coverage note names this many unread topics, then counts the rest


def forum_item_id(host: str, topic_id: int) -> str:
    return f"forum:{host}/t/{topic_id}"


class DiscourseSource:
    def __init__(self, client: HttpClient, forum: ForumConfig, has_key: bool = False) -> None:
        self.client = client
        self.forum = forum
        self.has_key = has_key  # whether DISCOURSE_API_KEY is sent: a 401 means something else without it
        self.name = f"forum:{forum.name}"
        self.host = urlsplit(forum.url).netloc or forum.name

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        stats, notes, stored = RequestStats(), [], 0
        unread: list[str] = []  # topics whose own request failed; the others are still read
        skipped: list[str] = []  # topics whose data does not fit an item (a date that is no date)
        status = CoverageStatus.OK
        attempted = 0  # topics asked for; those not unread were read, in the window or not
        try:
            categories = self._categories(stats)
            wanted = self._wanted(categories)
            for topic in self._recent_topics(stats, window, notes):
                if wanted is not None and topic.get("category_id") not in wanted:
                    continue
                attempted += 1
                item = self._read_topic(stats, topic, window, categories, unread, skipped)
                if item is not None:
                    emit([item])
                    stored += 1
                    progress.update(self.name, f"{self.host}: topics", stored)
        except RateLimited as exc:
            status, notes = CoverageStatus.PARTIAL, [*notes, f"rate limited: {exc}"]
        except Unauthorized:
            why = (
                "the forum rejected DISCOURSE_API_KEY (401)"
                if self.has_key
                else "the forum asks for a login (401) and no DISCOURSE_API_KEY is set"
            )
            status, notes = CoverageStatus.FAILED, [*notes, why]
        except Unreachable as exc:
            note = unreachable_note(exc, f"the url of {self.name} in the profile")
            status, notes = CoverageStatus.PARTIAL if stored else CoverageStatus.FAILED, [*notes, note]
        except RemoteError as exc:
            status, notes = CoverageStatus.PARTIAL if stored else CoverageStatus.FAILED, [*notes, str(exc)]
        notes += _unread_note(unread) + skipped_note(skipped, "topic") + stats.notes
        if notes and status is CoverageStatus.OK:
            # Every topic failing is a failed forum; one failing while the others were read (stored,
            # or found outside the window) is a partial one.
            status = CoverageStatus.PARTIAL if stored or attempted > len(unread) else CoverageStatus.FAILED
        return SourceStatus(
            name=self.name,
            status=status,
            items=stored,
            requests=stats.requests,
            not_modified=stats.not_modified,
            note="; ".join(notes),
        )

    def _read_topic(
        self,
        stats: RequestStats,
        topic: dict[str, Any],
        window: Window,
        categories: dict[int, dict[str, Any]],
        unread: list[str],
        skipped: list[str],
    ) -> Item | None:
        """One topic's item; a topic whose request fails (deleted since the listing, a page that
        keeps erroring) is noted in `unread` and skipped. What ends the whole forum (rate limit,
        rejected key, no network) is raised."""
        try:
            return self._topic_item(stats, topic, window, categories)
        except (RateLimited, Unauthorized, Unreachable):
            raise
        except RemoteError as exc:
            unread.append(f"{topic.get('id')} ({exc})")
            return None
        except MALFORMED as exc:
            skipped.append(f"topic {topic.get('id')} ({malformed_reason(exc)})")
            return None

    def _categories(self, stats: RequestStats) -> dict[int, dict[str, Any]]:
        data = self.client.get_json("/categories.json", stats, params={"include_subcategories": "true"}).data
        found: dict[int, dict[str, Any]] = {}
        for category in (data.get("category_list") or {}).get("categories", []):
            found[category["id"]] = category
            for child in category.get("subcategory_list") or []:
                found[child["id"]] = {**child, "parent_category_id": category["id"]}
        return found

    def _wanted(self, categories: dict[int, dict[str, Any]]) -> set[int] | None:
        """Ids of the categories of interest and their subcategories; None when all are wanted."""
        if not self.forum.categories:
            return None
        chosen = {cid for cid, category in categories.items() if category.get("slug") in set(self.forum.categories)}
        children = {child for cid in chosen for child in categories[cid].get("subcategory_ids") or []}
        children |= {cid for cid, category in categories.items() if category.get("parent_category_id") in chosen}
        return chosen | children

    def _recent_topics(self, stats: RequestStats, window: Window, notes: list[str]) -> Iterator[dict[str, Any]]:
        """Topics bumped since the window began and created before it ended, newest activity first.

        Pinned topics head every page whatever their age, so they never end the paging."""
        for page_number in range(MAX_LATEST_PAGES):
            data = self.client.get_json("/latest.json", stats, params={"order": "activity", "page": page_number}).data
            topic_list = data.get("topic_list") or {}
            topics = topic_list.get("topics", [])
            older = 0
            for topic in topics:
                bumped = parse_timestamp(topic.get("bumped_at") or topic.get("last_posted_at"))
                created = parse_timestamp(topic.get("created_at"))
                if bumped is not None and bumped < window.start:
                    older += 0 if topic.get("pinned") else 1
                    continue
                if created is not None and created < window.end:
                    yield topic
            unpinned = sum(1 for topic in topics if not topic.get("pinned"))
            if not topic_list.get("more_topics_url") or (unpinned and older == unpinned):
                return
        notes.append(f"stopped after {MAX_LATEST_PAGES} pages of /latest.json")

    def _topic_item(
        self, stats: RequestStats, topic: dict[str, Any], window: Window, categories: dict[int, dict[str, Any]]
    ) -> Item | None:
        data = self.client.get_json(f"/t/{topic['id']}.json", stats).data
        posts = list((data.get("post_stream") or {}).get("posts", []))
        total = len((data.get("post_stream") or {}).get("stream", [])) or len(posts)
        page = 1
        # Later pages only when the replies loaded so far stop before the window's end.
        while len(posts) < total and page < MAX_TOPIC_PAGES and _last_post_before(posts, window):
            page += 1
            more = self.client.get_json(f"/t/{topic['id']}.json", stats, params={"page": page}).data
            new = [
                p for p in (more.get("post_stream") or {}).get("posts", []) if p["id"] not in {q["id"] for q in posts}
            ]
            if not new:
                break
            posts.extend(new)
        if not posts:
            return None
        first, replies = posts[0], [p for p in posts[1:] if window.contains(parse_timestamp(p.get("created_at")))]
        last_posted = window.contains(parse_timestamp(data.get("last_posted_at")))
        if not window.contains(parse_timestamp(first.get("created_at"))) and not replies and not last_posted:
            # Bumped in the window by an edit or a like, but nobody posted in it. A last post in the
            # window that the pages do not show (deleted, hidden, past the pages read) still counts.
            return None
        category = categories.get(data.get("category_id") or topic.get("category_id"), {})
        return Item(
            id=forum_item_id(self.host, topic["id"]),
            source=self.name,
            kind="forum",
            repo=self.host,
            url=f"{self.forum.url.rstrip('/')}/t/{data.get('slug') or topic.get('slug')}/{topic['id']}",
            title=data.get("title") or topic.get("title"),
            body=html_to_text(first.get("cooked")),
            author=first.get("username"),
            state="closed" if data.get("closed") else "open",
            created=data.get("created_at") or first.get("created_at"),
            updated=data.get("last_posted_at"),
            labels=[tag if isinstance(tag, str) else tag.get("name", "") for tag in data.get("tags") or []],
            comments=[
                Comment(
                    id=p["id"],
                    author=p.get("username"),
                    date=p.get("created_at"),
                    kind="reply",
                    body=html_to_text(p.get("cooked")),
                )
                for p in replies
            ],
            comment_count=max(0, (data.get("posts_count") or len(posts)) - 1),
            reactions=data.get("like_count"),
            raw={"topic": topic, "posts": posts},
            category=category.get("name"),
            views=data.get("views"),
        )


def _unread_note(unread: list[str]) -> list[str]:
    if not unread:
        return []
    named = "; ".join(f"topic {topic}" for topic in unread[:UNREAD_NAMED])
    more = f" and {len(unread) - UNREAD_NAMED} more" if len(unread) > UNREAD_NAMED else ""
    return [f"{len(unread)} topic{'s' if len(unread) > 1 else ''} could not be read: {named}{more}"]


def _last_post_before(posts: list[dict[str, Any]], window: Window) -> bool:
    last = parse_timestamp(posts[-1].get("created_at")) if posts else None
    return last is not None and last < window.end
