"""The typed models passed between stages: items, their relations, source coverage."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytorch_insight.window import Window, parse_timestamp

Kind = Literal["issue", "pull_request", "rfc", "commit", "forum", "blog", "event", "slack"]
GITHUB_KINDS = frozenset({"issue", "pull_request", "rfc"})

# The item JSONL fields that are always written (null when unknown), then those written when known.
JSONL_FIELDS = ("repo", "number", "kind", "state", "title", "author", "created", "labels", "body", "comments", "url")
JSONL_OPTIONAL = ("updated", "closed", "merged", "comment_count", "reactions", "sha", "source", "relations")


class Comment(BaseModel):
    """One comment, review or review thread; unknown keys are kept."""

    model_config = ConfigDict(extra="allow")

    author: str | None = None
    date: str | None = None
    kind: str = "comment"
    body: str | None = ""

    def key(self) -> tuple[Any, ...]:
        """Identity for merging threads: the GitHub id when known, else the visible content."""
        native = (self.model_extra or {}).get("id")
        return ("id", native) if native is not None else ("text", self.author, self.date, self.body)


class Relation(BaseModel):
    type: str
    target: str
    evidence: str = ""


class Item(BaseModel):
    """One thing that happened: an issue, PR, RFC, commit, forum thread, post, event or message."""

    model_config = ConfigDict(extra="allow")

    id: str
    source: str
    kind: Kind
    repo: str | None = None
    number: int | None = None
    url: str | None = None
    title: str | None = None
    body: str | None = None
    author: str | None = None
    state: str | None = None
    created: str | None = None
    updated: str | None = None
    closed: str | None = None
    merged: str | None = None
    labels: list[str] = Field(default_factory=list)
    comments: list[Comment] = Field(default_factory=list)
    comment_count: int | None = None
    reactions: int | None = None
    sha: str | None = None
    relations: list[Relation] = Field(default_factory=list)
    raw: dict[str, Any] | None = Field(default=None, exclude=True)

    @field_validator("created", "updated", "closed", "merged")
    @classmethod
    def _is_timestamp(cls, value: str | None) -> str | None:
        if value is not None and parse_timestamp(value) is None:
            raise ValueError(f"not an ISO date or timestamp: {value!r}")
        return value

    def active_in(self, window: Window) -> bool:
        """Created in the window, or older and closed or merged in it."""
        return any(window.contains(parse_timestamp(moment)) for moment in (self.created, self.closed, self.merged))

    def to_jsonl(self) -> dict[str, Any]:
        """The item JSONL object: fixed fields first, known optional ones, then unknown fields."""
        data = self.model_dump(mode="json")
        line = {name: data[name] for name in JSONL_FIELDS}
        line.update({name: data[name] for name in JSONL_OPTIONAL if data[name] not in (None, [])})
        line.update(self.model_extra or {})
        return line


def merge_comments(old: list[Comment], new: list[Comment]) -> list[Comment]:
    """Union of two threads, newer copies winning, ordered by date (stable for equal dates)."""
    merged = {comment.key(): comment for comment in old}
    merged.update((comment.key(), comment) for comment in new)
    return sorted(merged.values(), key=lambda comment: comment.date or "")


def github_item_id(repo: str, number: int) -> str:
    return f"github:{repo}#{number}"


def commit_item_id(repo: str, sha: str) -> str:
    return f"commit:{repo}@{sha}"


def short_ref(item_id: str) -> str:
    """``github:pytorch/pytorch#180257`` -> ``pytorch/pytorch#180257``; commits keep 7 hex digits."""
    kind, _, rest = item_id.partition(":")
    if kind == "github":
        return rest
    if kind == "commit" and "@" in rest:
        repo, sha = rest.split("@", 1)
        return f"{repo}@{sha[:7]}"
    return item_id


class CoverageStatus(StrEnum):
    OK = "ok"
    PARTIAL = "partial"
    SKIPPED = "skipped"
    FAILED = "failed"


class SourceStatus(BaseModel):
    """How completely one source delivered the window, in numbers and one human note."""

    name: str
    status: CoverageStatus
    items: int = 0
    requests: int = 0
    not_modified: int = 0
    note: str = ""
