"""The window rolled up by repository: how much each one holds and in which areas."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from pytorch_insight.pipeline import Assessment
from pytorch_insight.report.model import RepoRollup

GITHUB_KINDS = ("issue", "pull_request", "rfc", "commit")


def repo_rollup(ranked: Sequence[Assessment], area_names: Mapping[str, str]) -> list[RepoRollup]:
    """One row per repository with GitHub items in the window, the busiest first."""
    by_repo: dict[str, list[Assessment]] = defaultdict(list)
    for assessment in ranked:
        item = assessment.item
        if item.kind in GITHUB_KINDS and item.repo and assessment.canonical is None:
            by_repo[item.repo].append(assessment)
    rows = []
    for repo, members in by_repo.items():
        areas = Counter(area for a in members for area in a.areas)
        rows.append(
            RepoRollup(
                repo=repo,
                items=len(members),
                pull_requests=sum(a.item.kind == "pull_request" for a in members),
                issues=sum(a.item.kind in ("issue", "rfc") for a in members),
                high=sum(a.priority == "high" for a in members),
                areas={area_names.get(area, area): count for area, count in areas.most_common()},
            )
        )
    return sorted(rows, key=lambda row: (-row.items, row.repo))
