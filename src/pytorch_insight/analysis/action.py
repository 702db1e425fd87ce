"""A suggested action (follow / track / adapt / ignore) and its urgency (P0 / P1 / P2), from rules
over priority, fix state, signals and the reader's areas. Each result names the rule that fired."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytorch_insight.analysis.model import Analysis
from pytorch_insight.config import Reader
from pytorch_insight.pipeline import Assessment

CHANGE_KINDS = ("pull_request", "commit")
FOCUS_WEIGHT = 1.0
BREAKING = re.compile(r"deprecat|bc[- ]breaking|breaking change|remove support", re.I)
SEVERE = frozenset(
    {"wrong_result", "hard_crash", "security"}
)  # fact kinds that justify P0 by themselves  # a reader weight at or above this makes an area "theirs"


@dataclass(frozen=True)
class Suggestion:
    action: str  # follow | track | adapt | ignore
    urgency: str  # P0 | P1 | P2
    why: str  # catalogue key of the rule that decided


def suggest(assessment: Assessment, analysis: Analysis, reader: Reader) -> Suggestion:
    kind, priority = assessment.item.kind, assessment.priority
    theirs = any(reader.area_weights.get(area, 1.0) >= FOCUS_WEIGHT for area in assessment.areas)
    codes = {r.code for r in assessment.reasons}
    design = assessment.facts.first("design")
    api_change = design is not None and bool(BREAKING.search(design.detail))
    if analysis.fix_state == "reverted":
        return Suggestion("track", "P1", "why_reverted")
    if kind == "rfc":
        return Suggestion("follow", "P1" if priority != "low" else "P2", "why_rfc")
    if api_change and kind in CHANGE_KINDS:
        return Suggestion("adapt", "P0" if priority == "high" and theirs else "P1", "why_api")
    if priority == "high" and kind not in CHANGE_KINDS:
        if analysis.fix_state in ("landed", "merged"):
            return Suggestion("track", "P1", "why_fixed_bug")
        # Act-now rests on what the problem is, never on a fix the collected data merely lacks.
        if theirs and SEVERE & assessment.facts.kinds():
            return Suggestion("follow", "P0", "why_severe_bug")
        return Suggestion("follow", "P1", "why_open_bug")
    if priority == "high" and analysis.fix_state in ("merged", "landed"):
        return Suggestion("adapt" if theirs else "track", "P1", "why_landed_change")
    if priority == "high":
        return Suggestion("track", "P1", "why_change")
    if priority == "medium":
        return Suggestion("track", "P1" if theirs and "fixes-severe" in codes else "P2", "why_medium")
    return Suggestion("ignore", "P2", "why_low")
