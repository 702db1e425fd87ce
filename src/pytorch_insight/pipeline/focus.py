"""The focus list: stories, not items.

An issue and the PRs that fix it, a resubmission or reland of one change, the members of one
ghstack and one author's series of changes on one named thing are one story and take one slot; the
best-ranked member leads and the others are shown with it, except that an issue leads the PR that
fixes it when it ranks at the same priority or above: the reader learns what broke, for whom, and
how far the fix got. Duplicates never lead, noise never leads, and no author leads more than the
profile's `focus_per_author` stories below high priority, so one busy stack or person cannot fill
the list. A quiet week still has a focus list of the profile's `focus_fill` stories (`fill_focus`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pytorch_insight.config import Profile
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import reason, speaking_for

STORY_LINKS = frozenset(
    {
        "fixes",
        "fixed_by",
        "tests",
        "tested_by",
        "relands",
        "relanded_by",
        "duplicate",
        "stack",
        "similar",
        "series",
        "names",
        "named_by",
    }
)


@dataclass(frozen=True, slots=True)
class Story:
    lead: str
    members: tuple[str, ...]  # the lead first, then the others best first


def story_groups(ranked: Sequence[Assessment]) -> dict[str, list[Assessment]]:
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
    groups = story_groups(ranked)
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
        lead = _fixed_issue(assessment, groups[root]) or assessment
        others = tuple(a.id for a in groups[root] if a is not lead and not a.canonical)
        chosen.append(Story(lead.id, (lead.id, *others)))
    return chosen


def _fixed_issue(fix: Assessment, members: Sequence[Assessment]) -> Assessment | None:
    """The best-ranked issue of the story that `fix` fixes, if it may lead in its place: neither
    noise nor a duplicate, and at the fix's priority or above (a lower one would hide why the
    story is in the list behind a weaker entry)."""
    if fix.item.kind != "pull_request":
        return None
    fixed = {r.target for r in fix.relations if r.type == "fixes"}
    for member in members:
        if (
            member.item.kind == "issue"
            and (member.id in fixed or any(r.type == "fixed_by" and r.target == fix.id for r in member.relations))
            and not member.noise
            and not member.canonical
            and member.priority in (fix.priority, "high")
        ):
            return member
    return None


def fill_focus(ranked: Sequence[Assessment], profile: Profile) -> None:
    """Raise to medium the low-priority leads of the week's best `focus_fill` stories: a focus list
    names the stories most worth a look this week, and in a quiet week some of them score below the
    medium bar that a busy week's list is made of."""
    size = profile.ranking.focus_fill
    if size <= 0:
        return
    by_id = {assessment.id: assessment for assessment in ranked}
    for story in select_focus(ranked, profile, size, low=True):
        lead = by_id[story.lead]
        # A story nothing speaks for (no fact, link, discussion or author of note) stays low, and so
        # do kinds the profile weighs below a thread (events, chat, commits that shadow their PRs).
        spoken_for = bool(speaking_for(lead.reasons))
        if lead.priority == "low" and spoken_for and profile.ranking.base.get(lead.item.kind, 1.0) >= 1.0:
            lead.priority = "medium"
            lead.reasons.append(reason("focus-fill", n=size))
