"""The world as of a moment: an item set back to how it stood then, from its own dates.

A report of a past window must describe that window, not what happened after it: a PR merged the
week after is still open in this week's report, a comment written later is not part of its
discussion, an issue reopened later was closed then. The store holds items as last collected,
so every report (and the follow-up's "now") sets them back to the end of its window. What carries
no date (labels, a state without a close or merge time) stays as collected."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pytorch_insight.model import Item
from pytorch_insight.window import parse_timestamp


def as_of(item: Item, moment: datetime) -> Item:
    """The item as it stood at `moment`, as far as its dates tell: a merge or close dated later is
    undone, later comments and timeline events dropped, a reopening after `moment` of an item
    closed before it undone; an undated state stays as collected."""
    changes: dict[str, Any] = {}
    for name in ("merged", "closed"):
        if _after(getattr(item, name), moment):
            changes[name] = None
            changes["state"] = "open"
    if "merged" in changes:
        changes["merge_evidence"] = None  # the proof of a merge that had not happened yet
    if _after(item.updated, moment):
        changes["updated"] = None
    comments = [comment for comment in item.comments if not _after(comment.date, moment)]
    if len(comments) != len(item.comments):
        changes["comments"] = comments
    refs = (item.model_extra or {}).get("timeline_refs")
    if isinstance(refs, list):
        kept = [ref for ref in refs if not _ref_after(ref, moment)]
        if len(kept) != len(refs):
            changes["timeline_refs"] = kept
            if item.state == "open" and "state" not in changes and _closed_then(kept):
                changes["state"] = "closed"  # reopened after the moment: it was closed then
    return item.model_copy(update=changes) if changes else item


def _after(text: str | None, moment: datetime) -> bool:
    when = parse_timestamp(text) if isinstance(text, str) else None
    return when is not None and when >= moment


def _ref_after(ref: Any, moment: datetime) -> bool:
    return isinstance(ref, dict) and _after(ref.get("date"), moment)


def _closed_then(refs: list[Any]) -> bool:
    """Whether the last close or reopen event kept is a close."""
    events = [ref.get("event") for ref in refs if isinstance(ref, dict) and ref.get("event") in ("closed", "reopened")]
    return bool(events) and events[-1] == "closed"
