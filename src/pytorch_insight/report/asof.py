"""The world as of a moment: an item set back to how it stood then, from its own dates.

A report of a past window must describe that window, not what happened after it: a PR merged the
week after is still open in this week's report, a comment written later is not part of its
discussion, an issue reopened later was closed then. The store holds items as last collected,
so every report (and the follow-up's "now") sets them back to the end of its window. What carries
no date (labels, a state without a close or merge time) stays as collected. Later comments are set
aside from the discussion, not dropped: they may tell how such an undated close came about ("the
diff has been landed", `model.closing_thread`), and a statement bounded by the window's end must
not hide what the data holds after it."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pytorch_insight.model import LATER_COMMENTS, Item, github_item_id
from pytorch_insight.store import Store
from pytorch_insight.window import Window, parse_timestamp


def as_of(item: Item, moment: datetime) -> Item:
    """The item as it stood at `moment`, as far as its dates tell: a merge or close dated later is
    undone, later comments and timeline events dropped, a reopening after `moment` of an item
    closed before it undone; an undated state stays as collected. Later comments are kept apart
    (`model.later_comments`)."""
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
        # Kept apart, not lost: an undated close's state comes from the same later collection as
        # these comments, so they may tell how it closed; and a report that says "no fix PR" by the
        # window's end must not hide a later comment naming one.
        changes[LATER_COMMENTS] = [comment.model_dump() for comment in item.comments if _after(comment.date, moment)]
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


def with_reference_states(items: list[Item], stored: Mapping[str, Item], moment: datetime) -> list[Item]:
    """The items with the state of each PR their timelines name set back to `moment`, where the
    store holds that PR with its dates (the timeline records its state when it was collected: a PR
    merged after `moment` was still open then). A PR the store does not hold keeps its state."""
    result = []
    for item in items:
        refs = (item.model_extra or {}).get("timeline_refs")
        if not isinstance(refs, list):
            result.append(item)
            continue
        changed = [_reference_then(ref, stored, moment) for ref in refs]
        result.append(item.model_copy(update={"timeline_refs": changed}) if changed != refs else item)
    return result


def referenced_ids(items: list[Item]) -> set[str]:
    """The ids of the issues and PRs the items' timelines name (cross-references)."""
    found = set()
    for item in items:
        for ref in (item.model_extra or {}).get("timeline_refs") or []:
            if _is_cross_reference(ref):
                found.add(github_item_id(ref["repo"], ref["number"]))
    return found


def _reference_then(ref: Any, stored: Mapping[str, Item], moment: datetime) -> Any:
    if not _is_cross_reference(ref) or ref.get("state") == "open":
        return ref
    source = stored.get(github_item_id(ref["repo"], ref["number"]))
    if source is None:
        return ref
    then = as_of(source, moment)
    state = "merged" if then.state in ("merged", "landed") else then.state or ref.get("state")
    return ref | {"state": state} if state != ref.get("state") else ref


def _is_cross_reference(ref: Any) -> bool:
    return (
        isinstance(ref, dict)
        and ref.get("event") == "cross-referenced"
        and isinstance(ref.get("repo"), str)
        and isinstance(ref.get("number"), int)
    )


def items_as_of_end(store: Store, window: Window) -> list[Item]:
    """The stored items of the window as they stood at its end, with the PRs their timelines
    name as they stood then too: what any report of the window is built from."""
    items = [as_of(item, window.end) for item in store.items_in_window(window)]
    referenced = referenced_ids(items)
    return with_reference_states(items, store.get_items(sorted(referenced)), window.end) if referenced else items
