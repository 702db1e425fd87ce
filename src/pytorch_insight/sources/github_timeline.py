"""What a focus issue's timeline says about its fix: the PRs and commits that reference it (also
those outside the window, with their state), and when it was closed or reopened, as small plain
dicts; everything else of the payload (bodies, hostile text) is dropped."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pytorch_insight.model import Item
from pytorch_insight.sources.github_search import is_pull_request, repository_of

# The timeline events kept per item (the newest), and how much of a referencing title.
TIMELINE_KEEP = 50
TIMELINE_TITLE = 200
TIMELINE_EVENTS = frozenset({"cross-referenced", "closed", "reopened", "referenced", "connected"})
SHA = re.compile(r"[0-9a-f]{7,64}")
# (payload, labels) -> (state, merged at, evidence): the source's PyTorch-aware merge rule.
MergeState = Callable[[dict[str, Any], list[str]], tuple[str, str | None, str]]


def timeline_refs(
    events: list[Any], merge_state: MergeState, repo: str | None = None, known: dict[int, Item] | None = None
) -> list[dict[str, Any]]:
    """The fix-relevant timeline events as small plain dicts, oldest first, the newest
    `TIMELINE_KEEP` of them. Everything else of the payload (bodies, hostile text) is dropped."""
    refs = [
        ref for event in events if isinstance(event, dict) and (ref := _timeline_ref(event, merge_state, repo, known))
    ]
    refs.sort(key=lambda ref: ref["date"] or "")  # GitHub lists them oldest first already; keep it so
    return refs[-TIMELINE_KEEP:]


def _timeline_ref(
    event: dict[str, Any], merge_state: MergeState, repo: str | None, known: dict[int, Item] | None
) -> dict[str, Any] | None:
    kind = event.get("event")
    if kind not in TIMELINE_EVENTS:
        return None
    date = _text(event.get("created_at"))
    if kind == "cross-referenced":
        source = event.get("source")
        issue = source.get("issue") if isinstance(source, dict) else None
        if not isinstance(issue, dict) or not isinstance(issue.get("number"), int):
            return None
        return {
            "event": kind,
            "repo": repository_of(issue),
            "number": issue["number"],
            "kind": "pull_request" if is_pull_request(issue) else "issue",
            "state": _reference_state(issue, merge_state, repo, known),
            "title": (_text(issue.get("title")) or "")[:TIMELINE_TITLE],
            "date": date,
            "url": _text(issue.get("html_url")),
        }
    if kind == "connected":
        return {"event": kind, "date": date}
    actor = _text((event.get("actor") or {}).get("login")) if isinstance(event.get("actor"), dict) else None
    if kind == "reopened":
        return {"event": kind, "date": date, "actor": actor}
    commit = _text(event.get("commit_id"))
    commit = commit if commit and SHA.fullmatch(commit) else None
    if kind == "referenced":
        return {"event": kind, "date": date, "commit_id": commit} if commit else None
    return {"event": kind, "date": date, "commit_id": commit, "actor": actor}


def _reference_state(
    issue: dict[str, Any], merge_state: MergeState, repo: str | None, known: dict[int, Item] | None
) -> str:
    """open / closed / merged, the PyTorch way (merged_at, or a merged label on a closed PR);
    a PR of this run that a landed commit proved merged counts as merged too."""
    labels = [label.get("name") if isinstance(label, dict) else str(label) for label in issue.get("labels") or []]
    state, _, _ = merge_state(issue, [label for label in labels if isinstance(label, str)])
    item = (known or {}).get(issue["number"]) if repo is not None and repository_of(issue) == repo else None
    if is_pull_request(issue) and item is not None and item.state == "merged":
        return "merged"
    return state if state in ("open", "closed", "merged") else "open"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
