"""Ranked assessments -> the report model: items, focus list, counts, contributors, coverage."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timezone

from pytorch_insight import __version__
from pytorch_insight.config import Profile, Reader
from pytorch_insight.model import SourceStatus, short_ref
from pytorch_insight.pipeline import Assessment
from pytorch_insight.report.model import (
    AreaCoverage, Contributor, Coverage, FocusEntry, Report, ReportItem, WindowModel,
)
from pytorch_insight.window import Window

FOCUS_SIZE = 12
TOP_AUTHORS = 10
GITHUB_KINDS = ("issue", "pull_request", "rfc", "commit")


def report_item(assessment: Assessment) -> ReportItem:
    item = assessment.item
    return ReportItem(
        id=item.id, source=item.source, kind=item.kind, repo=item.repo, number=item.number, url=item.url,
        title=item.title, author=item.author, created=(item.created or "")[:10] or None, state=item.state,
        areas=assessment.areas, area_evidence=assessment.area_evidence, priority=assessment.priority,
        score=assessment.score, rank=assessment.rank, reasons=[r.en for r in assessment.reasons],
        noise=[r.en for r in assessment.noise],
        duplicate_of=assessment.canonical, merged_from=assessment.aliases,
        relations=sorted(assessment.relations, key=lambda r: (r.type, r.target)),
    )


def focus_list(ranked: Sequence[Assessment], size: int = FOCUS_SIZE) -> list[FocusEntry]:
    """The best items that are neither noise nor duplicates, high or medium only."""
    chosen = [a for a in ranked if not a.noise and not a.canonical and a.priority != "low"][:size]
    return [FocusEntry(id=a.id, rank=a.rank, priority=a.priority, reason=selection_reason(a)) for a in chosen]


def selection_reason(assessment: Assessment) -> str:
    areas = ", ".join(assessment.areas) or "no area"
    why = "; ".join(r.en for r in assessment.reasons[:4]) or "ranked on its kind alone"
    return f"{assessment.priority} priority in {areas}: {why}"


def counts(ranked: Sequence[Assessment]) -> dict[str, dict[str, int]]:
    return {
        "kind": dict(sorted(Counter(a.item.kind for a in ranked).items())),
        "priority": {p: sum(a.priority == p for a in ranked) for p in ("high", "medium", "low")},
        "area": dict(sorted(Counter(area for a in ranked for area in a.areas).items())),
    }


def contributors(ranked: Sequence[Assessment], profile: Profile) -> list[Contributor]:
    """Key contributors active in the window, then the most active other humans; bots never."""
    by_author: dict[str, list[Assessment]] = defaultdict(list)
    for assessment in ranked:
        author = assessment.item.author
        if author and not profile.is_bot(author):
            by_author[author].append(assessment)
    known = {person.login.lower(): person for person in profile.contributors}
    key = sorted((login for login in by_author if login.lower() in known), key=str.lower)
    others = sorted((login for login in by_author if login.lower() not in known),
                    key=lambda login: (-len(by_author[login]), login.lower()))[:TOP_AUTHORS]
    result = []
    for login in key + others:
        person = known.get(login.lower())
        mine = by_author[login]
        result.append(Contributor(
            login=login, name=person.name if person else None, team=person.team if person else None, key=bool(person),
            items=[a.id for a in mine], areas=sorted({area for a in mine for area in a.areas}),
        ))
    return result


def area_coverage(ranked: Sequence[Assessment], profile: Profile) -> list[AreaCoverage]:
    rows = []
    for area in profile.areas:
        members = [a for a in ranked if area.id in a.areas and not a.canonical]
        high = [short_ref(a.id) for a in members if a.priority == "high"]
        medium = sum(a.priority == "medium" for a in members)
        level = "high" if high else "medium" if medium else "low"
        rows.append(AreaCoverage(id=area.id, name=area.name.en, level=level, items=len(members), high=high))
    return rows


def stats(ranked: Sequence[Assessment], collected: int) -> dict[str, int]:
    github = sum(a.item.kind in GITHUB_KINDS for a in ranked)
    return {
        "collected": collected,
        "github_items": github,
        "community_items": len(ranked) - github,
        "after_fusion": len(ranked),
        "merged_copies": collected - len(ranked),
        "duplicates": sum(a.canonical is not None for a in ranked),
        "noise": sum(bool(a.noise) for a in ranked),
        "high": sum(a.priority == "high" for a in ranked),
        "medium": sum(a.priority == "medium" for a in ranked),
        "low": sum(a.priority == "low" for a in ranked),
    }


def build_report(ranked: Sequence[Assessment], *, window: Window, profile: Profile, reader: Reader,
                 statuses: Sequence[SourceStatus], collected: int, generated_at: datetime | None = None) -> Report:
    moment = generated_at or datetime.now(timezone.utc)
    return Report(
        window=WindowModel(since=window.since.isoformat(), until=window.until.isoformat()),
        generated_at=moment.isoformat(timespec="seconds"),
        generator=f"pytorch-insight {__version__}",
        profile=profile.name,
        reader=reader.id,
        analyser="rules",
        items=[report_item(a) for a in ranked],
        focus=focus_list(ranked),
        counts=counts(ranked),
        contributors=contributors(ranked, profile),
        coverage=Coverage(sources=list(statuses), areas=area_coverage(ranked, profile)),
        stats=stats(ranked, collected),
    )
