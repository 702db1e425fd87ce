"""The typed models passed between stages: items, their relations, source coverage."""

from __future__ import annotations

from datetime import date, datetime, timezone
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytorch_insight.redact import safe_message
from pytorch_insight.window import Window, parse_timestamp

Kind = Literal["issue", "pull_request", "rfc", "commit", "forum", "blog", "event", "slack"]
GITHUB_KINDS = frozenset({"issue", "pull_request", "rfc"})
# Kinds whose `updated` and reply dates are people taking part (a reply in a topic or a thread):
# an older topic discussed in the window belongs to it. On GitHub an update is anything at all
# (a label, a bot, CI), so issues and PRs count only when created, closed or merged in the window.
DISCUSSION_KINDS = frozenset({"forum", "slack"})

# The item JSONL fields that are always written (null when unknown), then those written when known.
# A source's note names what went wrong, a few records at most.
NOTE_LIMIT = 2000
# The characters of a comment's text that identify it across copies.
FINGERPRINT = 200
JSONL_FIELDS = ("repo", "number", "kind", "state", "title", "author", "created", "labels", "body", "comments", "url")
# The bounds of the numbers an item carries: `number` is an INTEGER column (32 bits on
# PostgreSQL); counts go to JSON readers, whose integers are exact up to 2**53. A value past them
# is a broken or hostile line, refused by validation rather than by the database, where it would
# cost the whole batch.
MAX_NUMBER = 2**31 - 1
MAX_COUNT = 2**53 - 1
JSONL_OPTIONAL = ("updated", "closed", "merged", "comment_count", "reactions", "sha", "source", "relations")


class Comment(BaseModel):
    """One comment, review or review thread; unknown keys are kept."""

    model_config = ConfigDict(extra="allow")

    author: str | None = None
    date: str | None = None
    kind: str = "comment"
    body: str | None = ""

    @field_validator("date")
    @classmethod
    def _in_utc(cls, value: str | None) -> str | None:
        # Lenient, unlike the item's own times: an odd comment date is kept as it came.
        return utc_timestamp(value) if value is not None and parse_timestamp(value) is not None else value

    @property
    def native_id(self) -> str | None:
        """The platform's id (GitHub comment id, Discourse post id, Slack ts), when known."""
        native = (self.model_extra or {}).get("id")
        return str(native) if native is not None else None

    def fingerprint(self) -> tuple[str, str, str]:
        """What identifies a comment whatever path brought it: kind, author and the opening of
        its text (transcriptions may cut a long comment or reflow its whitespace)."""
        return self.kind, (self.author or "").lower(), " ".join((self.body or "").split())[:FINGERPRINT]

    def same_as(self, other: Comment) -> bool:
        """One comment in two copies: by the platform id when both carry one, else by author,
        text and date, a bare date matching any time of that day (imported transcriptions give
        days, the API gives seconds)."""
        if self.native_id is not None and other.native_id is not None:
            return self.native_id == other.native_id
        return self.fingerprint() == other.fingerprint() and _dates_agree(self.date, other.date)


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
    number: int | None = Field(default=None, ge=0, le=MAX_NUMBER)
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
    comment_count: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    reactions: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    sha: str | None = None
    relations: list[Relation] = Field(default_factory=list)
    raw: dict[str, Any] | None = Field(default=None, exclude=True)

    @field_validator("created", "updated", "closed", "merged")
    @classmethod
    def _is_timestamp(cls, value: str | None) -> str | None:
        if value is not None and parse_timestamp(value) is None:
            raise ValueError(f"not an ISO date or timestamp: {value!r}")
        return utc_timestamp(value) if value is not None else None

    def active_in(self, window: Window) -> bool:
        """Whether the item belongs to the window: see `activity`."""
        return any(window.contains(parse_timestamp(moment)) for moment in self.activity())

    def activity(self) -> list[str]:
        """The moments that place the item in a window: created, closed or merged (for GitHub
        items, commits and posts, only these); for forum topics and Slack threads also the last
        activity and each reply; for events also the day they were announced, so an event
        announced in the window that starts later is reported when it is news."""
        moments = [self.created, self.closed, self.merged]
        if self.kind in DISCUSSION_KINDS:
            moments += [self.updated, *(comment.date for comment in self.comments)]
        if self.kind == "event":
            announced = (self.model_extra or {}).get("announced")
            moments.append(announced if isinstance(announced, str) else None)
        return [moment for moment in moments if moment]

    def to_jsonl(self) -> dict[str, Any]:
        """The item JSONL object: fixed fields first, known optional ones, then unknown fields.

        The id is written when the other fields cannot give it back (an event without a URL, a
        forum topic), so an exported item imports under the same id."""
        data = self.model_dump(mode="json")
        line = {"id": self.id} if self.id != derived_item_id(data) else {}
        line.update({name: data[name] for name in JSONL_FIELDS})
        line.update({name: data[name] for name in JSONL_OPTIONAL if data[name] not in (None, [])})
        line.update(self.model_extra or {})
        return line


def utc_timestamp(text: str) -> str:
    """An ISO timestamp in UTC with the ``Z`` suffix (``...+02:00`` -> ``...Z``, a time without a
    zone is taken as UTC), so stored times compare as text too; a bare date and an already-UTC
    ``...Z`` stamp are kept as they are."""
    try:
        date.fromisoformat(text)
        return text
    except ValueError:
        pass
    moment = parse_timestamp(text)
    return text if moment is None or text.endswith("Z") else utc_stamp(moment)


def utc_stamp(moment: datetime) -> str:
    """An aware datetime as the UTC ``...Z`` string items carry."""
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def derived_item_id(line: dict[str, Any]) -> str | None:
    """The id an item JSONL line without one is imported under (the rule `jsonl.item_from_line`
    applies): repo+number, repo+sha, else kind+URL."""
    kind, repo, number = line.get("kind"), line.get("repo"), line.get("number")
    if kind in GITHUB_KINDS and repo and isinstance(number, int):
        return github_item_id(repo, number)
    if kind == "commit" and repo and line.get("sha"):
        return commit_item_id(repo, line["sha"])
    if line.get("url"):
        return f"{kind}:{line['url']}"
    return None


# The comments after a report's moment on an item set back to that moment (`report.asof`).
LATER_COMMENTS = "comments_after_moment"


def later_comments(item: Item) -> list[Comment]:
    """The comments an item set back to a moment had after it: not its discussion then, but what
    the data holds beside it."""
    return [Comment.model_validate(comment) for comment in (item.model_extra or {}).get(LATER_COMMENTS) or []]


def closing_thread(item: Item) -> list[Comment]:
    """The comments that may tell how a closed item closed: its own and, where the close is undated
    and the item was set back to a moment, the later ones that came with that state."""
    undated = item.state != "open" and not item.closed and not item.merged
    return item.comments + (later_comments(item) if undated else [])


def merge_comments(old: list[Comment], new: list[Comment]) -> list[Comment]:
    """Union of two copies of a thread, ordered by date (stable for equal dates).

    A comment of `new` replaces its copy in `old` (an edit, a fuller copy), keeping the platform
    id and exact time the old copy had and the new one lacks, so an imported thread and the same
    thread fetched merge in either order. Each old comment stands for one new one at most: two
    equal comments of one copy (a bot command said twice a day) stay two."""
    merged = list(old)
    by_id = {comment.native_id: index for index, comment in enumerate(old) if comment.native_id is not None}
    by_print: dict[tuple[str, str, str], list[int]] = {}
    for index, comment in enumerate(old):
        by_print.setdefault(comment.fingerprint(), []).append(index)
    used: set[int] = set()
    for comment in new:
        index = by_id.get(comment.native_id) if comment.native_id is not None else None
        if index is None or index in used:
            candidates = by_print.get(comment.fingerprint(), [])
            index = next((i for i in candidates if i not in used and merged[i].same_as(comment)), None)
        if index is None:
            merged.append(comment)
            continue
        used.add(index)
        merged[index] = _newer_copy(merged[index], comment)
    return sorted(merged, key=lambda comment: comment.date or "")


def _newer_copy(old: Comment, new: Comment) -> Comment:
    """`new`, with the id and the exact time only `old` knows."""
    update: dict[str, Any] = {}
    if new.native_id is None and old.native_id is not None:
        update["id"] = (old.model_extra or {})["id"]
    if _is_day(new.date) and old.date and not _is_day(old.date):
        update["date"] = old.date
    return new.model_copy(update=update) if update else new


def _is_day(text: str | None) -> bool:
    return bool(text) and len(text or "") == 10 and parse_timestamp(text) is not None


def _dates_agree(first: str | None, second: str | None) -> bool:
    if first == second:
        return True
    if not first or not second:
        return False
    if _is_day(first) or _is_day(second):
        return first[:10] == second[:10]
    return parse_timestamp(first) == parse_timestamp(second) is not None


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

    @field_validator("note")
    @classmethod
    def _plain(cls, value: str) -> str:
        # Notes quote servers (error bodies, titles) and are printed, stored and reported.
        return safe_message(value, NOTE_LIMIT)
