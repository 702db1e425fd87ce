"""Analysis of the focus items: what happened, why, how bad, how to live with it, fix state.

An analyser is anything with a `name` and `analyse(assessment, context) -> Analysis`. The
rule-based one is the default and needs nothing but the collected data; a language-model
analyser plugs in behind the same protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pytorch_insight.analysis.model import Analysis, AnalysisContext
from pytorch_insight.pipeline import Assessment

__all__ = ["Analyser", "Analysis", "AnalysisContext"]


class Analyser(Protocol):
    name: str

    def analyse(self, assessment: Assessment, context: AnalysisContext, deep: bool) -> Analysis: ...

    def analyse_batch(self, pairs: Sequence[tuple[Assessment, bool]], context: AnalysisContext) -> list[Analysis]:
        """Several items at once (an analyser may work on them concurrently), in order."""
        ...
