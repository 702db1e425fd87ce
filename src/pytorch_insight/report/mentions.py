"""Which of this window's items speak of an earlier one: the follow-up's "related since" (a PR
saying last week's change broke a path, a review discussing it). Read from the window's titles,
descriptions and the comments written in the window; one pass over the window, keyed by the
mentioned item's id, so looking up last week's focus items costs nothing more."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from pytorch_insight.model import github_item_id
from pytorch_insight.pipeline import Assessment
from pytorch_insight.text import sentences, shorten
from pytorch_insight.window import Window, parse_timestamp

BODY_READ = 65_536  # bodies are read this far, as everywhere else
REFERENCE = re.compile(
    r"https?://github\.com/(?P<url_repo>[\w.-]+/[\w.-]+)/(?:issues|pull)/(?P<url_number>\d+)"
    r"|(?<![\w/#&])(?P<repo>[\w.-]+/[\w.-]+)?#(?P<number>\d{1,9})\b"
)
QUOTE_LIMIT = 300


def mentions(ranked: Sequence[Assessment], window: Window) -> dict[str, list[tuple[str, str]]]:
    """Mentioned item id -> [(id of the item of this window that mentions it, the sentence)]."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for assessment in ranked:
        item = assessment.item
        texts = [item.title or ""] + sentences((item.body or "")[:BODY_READ])
        for comment in item.comments:
            if window.contains(parse_timestamp(comment.date)):
                texts += sentences((comment.body or "")[:BODY_READ])
        seen: set[str] = set()
        for text in texts:
            if "#" not in text and "github.com" not in text:
                continue
            for match in REFERENCE.finditer(text):
                repo = match["url_repo"] or match["repo"] or item.repo
                number = match["url_number"] or match["number"]
                if not repo:
                    continue
                target = github_item_id(repo, int(number))
                if target != item.id and target not in seen:
                    seen.add(target)
                    found[target].append((assessment.id, shorten(text, QUOTE_LIMIT)))
    return found
