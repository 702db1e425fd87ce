"""An issue or pull request payload as an Item: its kind (RFC by title tag or label) and its
state the PyTorch way (a PR landed by a bot shows "closed" but carries a Merged label)."""

from __future__ import annotations

from typing import Any

from pytorch_insight.config import GitHubProfile
from pytorch_insight.model import Item, github_item_id
from pytorch_insight.sources.github_search import is_pull_request


def issue_to_item(payload: dict[str, Any], repo: str, rules: GitHubProfile) -> Item:
    labels = [label["name"] if isinstance(label, dict) else str(label) for label in payload.get("labels") or []]
    title = payload.get("title") or ""
    state, merged, evidence = merge_state(payload, labels, rules)
    extra = {"merge_evidence": evidence} if evidence else {}
    return Item(
        id=github_item_id(repo, payload["number"]),
        source="github",
        kind=item_kind(payload, title, labels, rules),
        repo=repo,
        number=payload["number"],
        url=payload.get("html_url"),
        title=title,
        body=payload.get("body") or "",
        author=(payload.get("user") or {}).get("login"),
        state=state,
        created=payload.get("created_at"),
        updated=payload.get("updated_at"),
        closed=payload.get("closed_at"),
        merged=merged,
        labels=labels,
        comment_count=payload.get("comments"),
        reactions=(payload.get("reactions") or {}).get("total_count"),
        raw=payload,
        **extra,
    )


def item_kind(payload: dict[str, Any], title: str, labels: list[str], rules: GitHubProfile) -> str:
    lowered = title.lower()
    if any(tag.lower() in lowered for tag in rules.rfc_title_tags) or set(labels) & set(rules.rfc_labels):
        return "rfc"
    return "pull_request" if is_pull_request(payload) else "issue"


def merge_state(payload: dict[str, Any], labels: list[str], rules: GitHubProfile) -> tuple[str, str | None, str]:
    """PyTorch PRs land through a bot and show "closed": the Merged label also means merged."""
    state = payload.get("state") or "open"
    pull = payload.get("pull_request")
    if not is_pull_request(payload):
        return state, None, ""
    if pull.get("merged_at"):
        return "merged", pull["merged_at"], "GitHub merged_at"
    merged_labels = sorted(set(labels) & set(rules.merged_labels))
    if state == "closed" and merged_labels:
        closer = (payload.get("closed_by") or {}).get("login")
        by = f", closed by {closer}" if closer else ""
        return "merged", payload.get("closed_at"), f"label {merged_labels[0]}{by}"
    return state, None, ""
