"""Landed commits: fetch them for the window and tie each to the PR it landed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pytorch_insight.http import HttpClient, RequestStats
from pytorch_insight.model import Item, Relation, commit_item_id, github_item_id
from pytorch_insight.window import Window, github_time


def fetch_commits(client: HttpClient, stats: RequestStats, repo: str, window: Window) -> Iterator[list[dict[str, Any]]]:
    """Pages of commits landed on the default branch inside the window."""
    params = {
        "since": github_time(window.start),
        "until": github_time(window.end),
        "per_page": 100,
    }
    for page in client.iter_pages(f"/repos/{repo}/commits", stats, params=params):
        yield page.data


def landed_pr(message: str, pattern: re.Pattern[str], repo: str) -> tuple[str, int] | None:
    """The PR a commit message says it landed (``Pull Request resolved: .../pull/N``)."""
    match = pattern.search(message or "")
    if not match:
        return None
    return match.groupdict().get("repo") or repo, int(match.group("number"))


def commit_to_item(payload: dict[str, Any], repo: str, pattern: re.Pattern[str]) -> Item:
    commit = payload.get("commit") or {}
    message = commit.get("message") or ""
    title, _, body = message.partition("\n")
    author = (payload.get("author") or {}).get("login") or (commit.get("author") or {}).get("name")
    landed_at = (commit.get("committer") or {}).get("date") or (commit.get("author") or {}).get("date")
    relations = []
    target = landed_pr(message, pattern, repo)
    if target:
        relations.append(Relation(type="lands", target=github_item_id(*target), evidence="Pull Request resolved line"))
    return Item(
        id=commit_item_id(repo, payload["sha"]),
        source="github",
        kind="commit",
        repo=repo,
        url=payload.get("html_url"),
        title=title.strip(),
        body=body.strip(),
        author=author,
        state="landed",
        created=landed_at,
        sha=payload["sha"],
        comment_count=commit.get("comment_count"),
        relations=relations,
        raw=payload,
    )
