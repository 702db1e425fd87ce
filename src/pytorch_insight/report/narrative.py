"""The report's own sentences, in the report's language, composed from extracted facts.

Nothing here paraphrases a source: a sentence names the kind of problem, the words that state it
(quoted, in the source's language), the context the sources give (hardware, a downstream user, a
release, a measurement) and the fix state the data shows. What the sources do not say is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytorch_insight.analysis.model import Analysis
from pytorch_insight.pipeline import Assessment
from pytorch_insight.pipeline.facts import PROBLEM_KINDS, Fact
from pytorch_insight.pipeline.rank import severity_sharers
from pytorch_insight.pipeline.reasons import FACT_NAMES
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.text import shorten

CONTEXT_ORDER = ("confirmed", "hardware", "scale", "downstream", "release", "default", "measured")
DETAIL_LIMIT = 80
CHANGE_KINDS = ("pull_request", "commit")


def story_facts(assessment: Assessment, by_id: dict[str, Assessment]) -> list[Fact]:
    """The item's facts, then those of the items whose severity it shares (its issue, its fix)."""
    return [fact for item in (assessment, *severity_sharers(assessment, by_id)) for fact in item.facts.facts]


class Narrator:
    def __init__(
        self,
        t: Catalogue,
        ref: Callable[[str], str],
        by_id: dict[str, Assessment],
        weights: dict[str, float],
    ) -> None:
        self.t, self.ref, self.by_id, self.weights = t, ref, by_id, weights

    def quote(self, text: str) -> str:
        return self.t("quoted", text=shorten(" ".join(text.split()), DETAIL_LIMIT))

    def fact_name(self, kind: str) -> str:
        names = FACT_NAMES.get(kind, {"en": kind, "zh": kind})
        return names["zh"] if self.t.lang == "zh" else names["en"]

    def worst_problem(self, facts: Sequence[Fact]) -> Fact | None:
        problems = [fact for fact in facts if fact.kind in PROBLEM_KINDS]
        # The worst kind; among its facts, one stated in words before one read from a label.
        return max(
            problems,
            key=lambda f: (self.weights.get(f.kind, 0.0), -PROBLEM_KINDS.index(f.kind), not _from_label(f)),
            default=None,
        )

    def problem(self, fact: Fact) -> str:
        """ "silent wrong results (“silently routed”)": the kind in the report's words, the source's own."""
        if not fact.detail or fact.detail.lower() == self.fact_name(fact.kind).lower():
            return self.fact_name(fact.kind)
        return self.t("named_fact", name=self.fact_name(fact.kind), detail=self.quote(fact.detail))

    def context(self, facts: Sequence[Fact], said: str = "") -> str:
        """ ", on H100, affecting vLLM ...": each kind once, leaving out what the phrase `said` holds."""
        parts = []
        for kind in CONTEXT_ORDER:
            fact = next((f for f in facts if f.kind == kind), None)
            if fact is not None and fact.detail.lower() not in said.lower():
                parts.append(self.t(f"ctx_{kind}", detail=fact.detail))
        return "".join(parts)

    def head(self, assessment: Assessment) -> str:
        """What the item is about, in a phrase: its worst stated problem, its design or its gain."""
        t, item = self.t, assessment.item
        facts = story_facts(assessment, self.by_id)
        worst = self.worst_problem(facts)
        tracked = [r.target for r in assessment.relations if r.type == "tracks"]
        design = assessment.facts.first("design")
        gain = next((f for f in facts if f.kind == "gain"), None)
        if tracked and worst is not None:
            return t("c_tracker", n=len(tracked), problem=self.problem(worst))
        if worst is not None and item.kind in CHANGE_KINDS:
            fixed = [r.target for r in assessment.relations if r.type == "fixes"]
            target = t("c_fix_target", refs=t.list_separator.join(self.ref(f) for f in fixed[:2])) if fixed else ""
            return t("c_fix", target=target, problem=self.problem(worst))
        if worst is not None:
            return t("c_problem", problem=self.problem(worst))
        if item.kind == "rfc" or (design is not None and design.detail == "RFC"):
            return t("c_rfc")
        if design is not None:
            return t("c_design", detail=self.quote(design.detail))
        if gain is not None:
            return t("c_gain", detail=gain.detail)
        return t("c_other", kind=t(f"kind_{item.kind}"))

    def conclusion(self, assessment: Assessment, fix_text: str) -> str:
        """One line: what the item is about, in the report's language, and where its fix stands."""
        head = self.head(assessment)
        sentence = head + self.context(story_facts(assessment, self.by_id), said=head) + self.t.full_stop
        return (sentence + self.t("c_fix_state", fix=fix_text) + self.t.full_stop).strip()

    def short_state(self, analysis: Analysis) -> str:
        return self.t(f"state_{analysis.fix_state}")


def _from_label(fact: Fact) -> bool:
    return fact.evidence.startswith("label: ")
