"""A local Discourse: /categories.json, /latest.json (paged, pinned topics first), /t/<id>.json
(posts in chunks, `?page=N`). Topic and post objects start from the recorded real ones in
tests/data/api-samples/discourse/, so every key and type matches what Discourse sends."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from tests.conftest import DATA
from tests.fakes.server import LocalServer, Reply

RECORDED = DATA / "api-samples" / "discourse"


def _recorded(name: str) -> dict[str, Any]:
    return json.loads((RECORDED / name).read_text())


@dataclass
class Post:
    username: str
    created_at: str
    cooked: str


@dataclass
class Topic:
    id: int
    title: str
    posts: list[Post]
    category_id: int = 1
    pinned: bool = False
    tags: list[str] = field(default_factory=list)
    likes: int = 0
    views: int = 10
    # Fields of the topic's JSON set as a test needs them (a hostile or broken forum's values).
    overrides: dict[str, Any] = field(default_factory=dict)
    summary_overrides: dict[str, Any] = field(default_factory=dict)  # the same, in /latest.json

    @property
    def slug(self) -> str:
        return "-".join(self.title.lower().split())[:40] or "topic"

    @property
    def bumped_at(self) -> str:
        return self.posts[-1].created_at


class FakeDiscourse(LocalServer):
    def __init__(
        self, topics: list[Topic], categories: list[tuple[int, str, str]], per_page: int = 30, chunk: int = 20
    ) -> None:
        super().__init__()
        self.topics = {topic.id: topic for topic in topics}
        self.categories = categories
        self.per_page, self.chunk = per_page, chunk
        latest = _recorded("sourcecred_test_2021__latest_page0.json")
        self.topic_template = latest["topic_list"]["topics"][0]
        self.user_template = latest["users"][0]
        self.page_template = _recorded("sourcecred_test_2021__t_26_page1.json")
        self.post_template = self.page_template["post_stream"]["posts"][0]
        self.category_template = _recorded("sourcecred_test_2021__categories.json")["category_list"]["categories"][0]

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        if path == "/categories.json":
            return Reply.json(
                200,
                {
                    "category_list": {
                        "can_create_category": False,
                        "can_create_topic": False,
                        "categories": [self._category(*c) for c in self.categories],
                    }
                },
            )
        if path == "/latest.json":
            return Reply.json(200, self._latest(int(query.get("page", ["0"])[0])))
        if path.startswith("/t/") and path.endswith(".json"):
            topic = self.topics.get(int(path[3:-5]))
            if topic is None:
                return Reply.json(
                    404, {"errors": ["The requested URL or resource could not be found."], "error_type": "not_found"}
                )
            return Reply.json(200, self._topic_page(topic, int(query.get("page", ["1"])[0])))
        return Reply.json(
            404, {"errors": ["The requested URL or resource could not be found."], "error_type": "not_found"}
        )

    def _category(self, category_id: int, slug: str, name: str) -> dict[str, Any]:
        return {
            **copy.deepcopy(self.category_template),
            "id": category_id,
            "slug": slug,
            "name": name,
            "topic_url": f"/t/about-{slug}/{category_id}",
            "subcategory_ids": [],
        }

    def _latest(self, page: int) -> dict[str, Any]:
        ordered = sorted(self.topics.values(), key=lambda t: (not t.pinned, _desc(t.bumped_at), t.id))
        chunk = ordered[page * self.per_page : (page + 1) * self.per_page]
        topic_list: dict[str, Any] = {
            "can_create_topic": False,
            "per_page": self.per_page,
            "top_tags": [],
            "topics": [self._topic_summary(t) for t in chunk],
        }
        if (page + 1) * self.per_page < len(ordered):
            topic_list["more_topics_url"] = "/latest?" + urlencode({"no_definitions": "true", "page": page + 1})
        users = [
            {**copy.deepcopy(self.user_template), "id": index, "username": name}
            for index, name in enumerate(sorted({p.username for t in chunk for p in t.posts}), start=1)
        ]
        return {"users": users, "primary_groups": [], "flair_groups": [], "topic_list": topic_list}

    def _topic_summary(self, topic: Topic) -> dict[str, Any]:
        summary = copy.deepcopy(self.topic_template)
        summary.update(
            id=topic.id,
            title=topic.title,
            fancy_title=topic.title,
            slug=topic.slug,
            posts_count=len(topic.posts),
            reply_count=len(topic.posts) - 1,
            highest_post_number=len(topic.posts),
            created_at=topic.posts[0].created_at,
            last_posted_at=topic.bumped_at,
            bumped_at=topic.bumped_at,
            pinned=topic.pinned,
            tags=topic.tags,
            views=topic.views,
            like_count=topic.likes,
            category_id=topic.category_id,
            last_poster_username=topic.posts[-1].username,
            excerpt=topic.posts[0].cooked[:100],
        )
        summary.update(topic.summary_overrides)
        return summary

    def _topic_page(self, topic: Topic, page: int) -> dict[str, Any]:
        data = copy.deepcopy(self.page_template)
        posts = [self._post(topic, number, post) for number, post in enumerate(topic.posts, start=1)]
        data["post_stream"] = {
            "posts": posts[(page - 1) * self.chunk : page * self.chunk],
            "stream": [post["id"] for post in posts],
        }
        data.update(
            id=topic.id,
            title=topic.title,
            fancy_title=topic.title,
            slug=topic.slug,
            posts_count=len(posts),
            reply_count=len(posts) - 1,
            created_at=topic.posts[0].created_at,
            last_posted_at=topic.bumped_at,
            like_count=topic.likes,
            views=topic.views,
            category_id=topic.category_id,
            tags=topic.tags,
            pinned=topic.pinned,
            chunk_size=self.chunk,
            highest_post_number=len(posts),
        )
        data.update(topic.overrides)
        if page * self.chunk >= len(posts):
            data["suggested_topics"] = []  # Discourse adds them to a topic's last page
        return data

    def _post(self, topic: Topic, number: int, post: Post) -> dict[str, Any]:
        data = copy.deepcopy(self.post_template)
        data.update(
            id=topic.id * 1000 + number,
            username=post.username,
            name=post.username,
            display_username=post.username,
            created_at=post.created_at,
            updated_at=post.created_at,
            cooked=post.cooked,
            post_number=number,
            topic_id=topic.id,
            topic_slug=topic.slug,
        )
        return data


def _desc(stamp: str) -> str:
    """A sort key that orders ISO timestamps newest first."""
    return "".join(chr(0x10FFFF - ord(ch)) for ch in stamp)
