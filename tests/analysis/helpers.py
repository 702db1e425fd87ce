"""What the rule analyser's tests share: the profile and a deep analysis of hand-written items."""

from __future__ import annotations

from pytorch_insight.analysis.model import Analysis, AnalysisContext
from pytorch_insight.analysis.rules import RuleAnalyser
from pytorch_insight.config import load_profile
from pytorch_insight.model import Item
from pytorch_insight.pipeline import assess

PROFILE = load_profile("pytorch")


def analyse(*items: Item) -> dict[int, Analysis]:
    """The deep analyses of these items, assessed together (each one's context holds the others)."""
    ranked = assess(list(items), PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    analyser = RuleAnalyser()
    return {a.item.number: analyser.analyse(a, context, deep=True) for a in ranked if a.item.number is not None}
