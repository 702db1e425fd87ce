"""The report's numbers and footer: the funnel, the counts per kind, priority and area (one
count per area for the whole report: the chart, the coverage table, the follow-up and the JSON),
and the footer naming the generator, profile, reader and analyser."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pytorch_insight.analysis import Analyser
from pytorch_insight.pipeline import Assessment
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.report.model import Footer

FROM_GITHUB = ("issue", "pull_request", "rfc", "commit")


def stats(ranked: Sequence[Assessment], collected: int, deep: int) -> dict[str, int]:
    github = sum(a.item.kind in FROM_GITHUB for a in ranked)
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
        "deep": deep,
    }


def counts(ranked: Sequence[Assessment]) -> dict[str, dict[str, int]]:
    return {
        "kind": dict(sorted(Counter(a.item.kind for a in ranked).items())),
        "priority": {p: sum(a.priority == p for a in ranked) for p in ("high", "medium", "low")},
        "area": area_counts(ranked),
    }


def area_counts(ranked: Sequence[Assessment]) -> dict[str, int]:
    """Items per area, a duplicate counted once (with the item that stands for it): the one count
    the chart, the coverage table, the follow-up's table and the JSON all show."""
    return dict(sorted(Counter(area for a in ranked if not a.canonical for area in a.areas).items()))


def footer(t: Catalogue, generator: str, profile: str, reader: str, role: str, analyser: Analyser) -> Footer:
    usage = getattr(analyser, "usage", None)
    llm = (
        None
        if usage is None
        else {
            "calls": usage.calls,
            "tokens_in": usage.tokens_in,
            "tokens_out": usage.tokens_out,
            "cache_hits": usage.cache_hits,
            "fallbacks": usage.fallbacks,
        }
    )
    text = t(
        "footer",
        generator=generator,
        profile=profile,
        reader=role,
        analyser=analyser_name(t, analyser.name),
    )
    if llm is not None:
        text += " · " + t("llm_usage", **llm)
    return Footer(generator=generator, profile=profile, reader=reader, analyser=analyser.name, text=text, llm=llm)


def analyser_name(t: Catalogue, name: str) -> str:
    """An analyser as the report names it: the rule analyser in the report's language, a model by its name."""
    return t("analyser_rules") if name == "rules" else name
