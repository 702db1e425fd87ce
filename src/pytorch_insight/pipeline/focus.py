"""The focus list: stories, not items.

An issue and the PRs that fix it, a resubmission or reland of one change, and the members of one
ghstack are one story and take one slot; the best-ranked member leads and the others are shown
with it. Duplicates never lead, noise never leads, and no author leads more than the profile's
`focus_per_author` stories below high priority, so one busy stack or person cannot fill the list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pytorch_insight.config import Profile
from pytorch_insight.pipeline.assessment import Assessment

STORY_LINKS = frozenset({"fixes", "fixed_by", "relands", "relanded_by", "duplicate", "stack"})


@dataclass(frozen=True, slots=True)
class Story:
    lead: str
    members: tuple[str, ...]  # the lead first, then the others best first


def _stories(ranked: Sequence[Assessment]) -> dict[str, list[Assessment]]:
    """Union-find over the story links: root id -> members in rank order."""
    parent = {a.id: a.id for a in ranked}

    def find(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for assessment in ranked:
        for relation in assessment.relations:
            if relation.type in STORY_LINKS and relation.target in parent:
                first, second = find(assessment.id), find(relation.target)
                if first != second:
                    parent[max(first, second)] = min(first, second)
    groups: dict[str, list[Assessment]] = {}
    for assessment in ranked:  # ranked is best first, so each group is too
        groups.setdefault(find(assessment.id), []).append(assessment)
    return groups


def select_focus(ranked: Sequence[Assessment], profile: Profile, size: int, low: bool = False) -> list[Story]:
    """The best `size` stories whose lead is neither noise, a duplicate nor (unless `low`: the
    order the report lists every story in) low priority."""
    groups = _stories(ranked)
    root_of = {a.id: root for root, members in groups.items() for a in members}
    per_author: Counter[str] = Counter()
    chosen: list[Story] = []
    taken: set[str] = set()
    for assessment in ranked:
        if len(chosen) >= size:
            break
        root = root_of[assessment.id]
        if root in taken or assessment.noise or assessment.canonical or (assessment.priority == "low" and not low):
            continue
        author = (assessment.item.author or "").lower()
        if author and assessment.priority != "high" and per_author[author] >= profile.ranking.focus_per_author:
            continue
        taken.add(root)
        if assessment.priority != "high":
            per_author[author] += 1
        others = tuple(a.id for a in groups[root] if a is not assessment and not a.canonical)
        chosen.append(Story(assessment.id, (assessment.id, *others)))
    return chosen
