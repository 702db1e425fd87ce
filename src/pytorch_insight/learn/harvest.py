"""A repository's labelled issues from GitHub's search API: the corpus `learn` trains on.

One search per label of the profile's class map (`repo:R is:issue label:"L"`), newest first, and
one for the repository's other labelled issues (the ordinary background every class must stand
out from), each paged up to a limit. Requests go through the project's HTTP client, so retries,
rate limits and conditional requests (an unchanged page costs nothing) work as for `collect`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pytorch_insight.http import HttpClient, RequestStats
from pytorch_insight.pipeline.severity import READ_AHEAD

PER_PAGE = 100


def label_queries(repo: str, classes: Mapping[str, list[str]], background: str) -> list[str]:
    labels = sorted({label for names in classes.values() for label in names})
    return [f'repo:{repo} is:issue label:"{label}"' for label in labels] + [
        f"repo:{repo} is:issue {background}".strip()
    ]


def harvest(client: HttpClient, stats: RequestStats, queries: Iterable[str], pages: int) -> Iterator[dict[str, Any]]:
    """Corpus lines for the issues the queries find, up to `pages` pages of 100 each."""
    for query in queries:
        params = {"q": query, "sort": "created", "order": "desc", "per_page": PER_PAGE}
        for number, page in enumerate(client.iter_pages("/search/issues", stats, params=params), start=1):
            for payload in page.data.get("items", []):
                line = corpus_line(payload, query)
                if line is not None:
                    yield line
            if number >= pages:
                break


def corpus_line(payload: Mapping[str, Any], query: str) -> dict[str, Any] | None:
    number, url = payload.get("number"), payload.get("repository_url") or ""
    if not isinstance(number, int) or "pull_request" in payload:
        return None
    repo = "/".join(str(url).rstrip("/").split("/")[-2:])
    labels = [label.get("name") for label in payload.get("labels") or [] if isinstance(label, Mapping)]
    created = payload.get("created_at")
    return {
        "repo": repo,
        "number": number,
        "kind": "issue",
        "state": payload.get("state"),
        "title": payload.get("title") or "",
        "labels": [label for label in labels if isinstance(label, str)],
        "created": created[:10] if isinstance(created, str) else None,
        # As much as a model may read, with room for the boilerplate and environment dump it drops.
        "text": (payload.get("body") or "")[:READ_AHEAD],
        "text_from": "description",
        "query": query,
    }


def merge_corpus(path: Path, lines: Iterable[dict[str, Any]]) -> tuple[int, int]:
    """Add the new threads to the corpus file (a thread seen again replaces its older copy);
    returns (threads in the file, threads new or updated)."""
    kept: dict[tuple[str, int], dict[str, Any]] = {}
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            for raw in handle:
                try:
                    data = json.loads(raw)
                    kept[(str(data["repo"]).lower(), int(data["number"]))] = data
                except (ValueError, KeyError, TypeError):
                    continue  # a damaged line of an earlier harvest: the harvest brings it again
    changed = 0
    for line in lines:
        key = (line["repo"].lower(), line["number"])
        if kept.get(key) != line:
            changed += 1
        kept[key] = line
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(path.suffix + ".tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for data in kept.values():
            handle.write(json.dumps(data, ensure_ascii=False) + "\n")
    temporary.replace(path)
    return len(kept), changed
