"""The report's own sentences, in the report's language, composed from extracted facts.

Nothing here paraphrases a source: a sentence quotes what states the problem (the sentence, in the
source's language, or the triager's label, or the learned model's reading, said to be one), the
context the sources give (a measurement, a triage confirmation, the names they mention) and the fix
state the data shows. What the sources do not say is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from pytorch_insight.analysis.model import Analysis
from pytorch_insight.pipeline import Assessment
from pytorch_insight.pipeline.facts import Fact
from pytorch_insight.pipeline.phrases import PROBLEM_KINDS
from pytorch_insight.pipeline.rank import severity_sharers
from pytorch_insight.pipeline.reasons import FACT_NAMES, MODEL_NAMES, in_source_case
from pytorch_insight.pipeline.references import partial_fix
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.text import REQUEST, excerpt, sentences, shorten

MENTIONS = ("hardware", "scale", "downstream", "release", "default")
DETAIL_LIMIT = 80
QUOTE = 100  # characters of a quoted sentence in a conclusion
CHANGE_KINDS = ("pull_request", "commit")
# Problems a sentence states only by naming them ("We get this error:", "there is an error when we
# save"): such a sentence says that something fails, the reporter's title what fails.
VAGUE_PROBLEMS = frozenset({"error"})


def story_facts(assessment: Assessment, by_id: dict[str, Assessment]) -> list[Fact]:
    """The item's facts, then those of the items whose severity it shares (its issue, its fix)."""
    return [fact for item in (assessment, *severity_sharers(assessment, by_id)) for fact in item.facts.facts]


def held_by(fact: Fact, assessment: Assessment, by_id: Mapping[str, Assessment], fixed_named: bool = True) -> str:
    """The id of the other item of the story (its fix, its first version) the fact was read from, or
    "": a quote or a name is credited to the item that states it. Where the sentence names the issue
    a fix fixes as the problem's (`fixed_named`: "Fixes #N, a problem ..."), that issue's words need none."""
    if any(own is fact for own in assessment.facts.facts):
        return ""
    holder = next((a.id for a in severity_sharers(assessment, by_id) if any(f is fact for f in a.facts.facts)), "")
    fixed = any(r.type == "fixes" and r.target == holder for r in assessment.relations)
    return "" if fixed and fixed_named else holder


def change_title(holder: Assessment, fact: Fact) -> bool:
    return holder.item.kind in CHANGE_KINDS and fact.evidence == (holder.item.title or "")


class Narrator:
    def __init__(
        self,
        t: Catalogue,
        ref: Callable[[str], str],
        by_id: dict[str, Assessment],
        weights: dict[str, float],
    ) -> None:
        self.t, self.ref, self.by_id, self.weights = t, ref, by_id, weights

    def held_by(self, fact: Fact, assessment: Assessment) -> str:
        holder = held_by(fact, assessment, self.by_id)
        return self.t("p_in", ref=self.ref(holder)) if holder else ""

    def quote(self, text: str) -> str:
        return self.t("quoted", text=shorten(" ".join(text.split()), DETAIL_LIMIT))

    def fact_name(self, kind: str) -> str:
        names = FACT_NAMES.get(kind, {"en": kind, "zh": kind})
        return names["zh"] if self.t.lang == "zh" else names["en"]

    def worst_problem(self, facts: Sequence[Fact]) -> Fact | None:
        problems = [fact for fact in facts if fact.kind in PROBLEM_KINDS]
        # "A workaround would be appreciated, it blocks our upgrade": a request says what the author
        # asks for, quoted as the problem only where no other sentence states one.
        problems = [fact for fact in problems if not REQUEST.search(fact.evidence)] or problems
        # The worst kind; among its facts, one stated in words before one read from a label.
        return max(
            problems,
            key=lambda f: (self.weights.get(f.kind, 0.0), -PROBLEM_KINDS.index(f.kind), not _from_label(f)),
            default=None,
        )

    def problem(self, fact: Fact, clause: bool = False) -> str:
        """The problem as what states it: the sentence quoted (around the words that state it), the
        triager's label, or the learned model's reading, said to be the model's. A category named
        after one matched word is no statement: the word may be negated, hypothetical or idiomatic.
        As a `clause` ("a problem triaged as …") the model's reading is worded to follow a noun."""
        if fact.source == "label":
            return self.t("p_label", label=fact.detail or fact.evidence.removeprefix("label: "))
        if fact.source == "model":
            name = MODEL_NAMES.get(fact.kind) or FACT_NAMES.get(fact.kind, {"en": fact.kind, "zh": fact.kind})
            return self.t(
                "p_model_clause" if clause else "p_model",
                name=name[self.t.lang],
                p=fact.detail.removeprefix("p="),
                quote=excerpt(fact.evidence, "", QUOTE),
            )
        # The description's sentence, where it states the kind too: the title alone says nothing the
        # entry's heading does not.
        return self.t("quoted", text=excerpt(fact.evidence, fact.detail, QUOTE))

    def context(self, facts: Sequence[Fact], said: str = "", owner: Assessment | None = None) -> str:
        """ ", triaged high priority, measured 12.4 ms vs 13.9 ms, mentions H100 and vLLM": each kind
        once, leaving out what the phrase `said` holds. Names found in the text are "mentioned", not
        asserted (a reporter may name H100 to say it works there); a name another item of the
        `owner`'s story holds is credited to it."""
        first = {
            kind: next((f for f in facts if f.kind == kind), None) for kind in (*MENTIONS, "confirmed", "measured")
        }
        parts = []
        confirmed = first["confirmed"]
        if confirmed is not None:  # "high priority" says so; another label (a SEV) is named as it is
            label = confirmed.detail or confirmed.evidence.removeprefix("label: ")
            high = label.lower() == "high priority" or confirmed.source != "label"
            parts.append(self.t("ctx_confirmed") if high else self.t("ctx_label", label=label))
        measured = first["measured"]
        if measured is not None and measured.detail.lower() not in said.lower() and not one_side(measured):
            parts.append(self.t("ctx_measured", detail=in_source_case(measured.detail, measured.evidence)))
        named = [
            self.t("quoted", text=in_source_case(fact.detail, fact.evidence))
            + (self.held_by(fact, owner) if owner is not None else "")
            for kind in MENTIONS
            if (fact := first[kind]) is not None and fact.detail and fact.detail.lower() not in said.lower()
        ]
        if named:
            quoted = list(dict.fromkeys(named))
            parts.append(self.t("ctx_mentions", names=self.t.list_separator.join(quoted)))
        return "".join(parts)

    def head(self, assessment: Assessment, summary: str = "") -> str:
        """What the item is about, in a phrase: its worst stated problem, its design or its gain, else
        what a change's description opens with (`summary`), which its title does not already say. A
        change's title says what the change does: it states no problem of another item's."""
        t, item = self.t, assessment.item
        facts = [
            fact
            for fact in story_facts(assessment, self.by_id)
            if not ((holder := held_by(fact, assessment, self.by_id)) and change_title(self.by_id[holder], fact))
        ]
        if item.kind in CHANGE_KINDS:
            # A fix's report states the problem, the fix its cure ("the test now passes where it
            # used to crash"): of two statements of one kind, the report's is quoted.
            fixed = {r.target for r in assessment.relations if r.type == "fixes"}
            facts.sort(
                key=lambda fact: not any(fact in self.by_id[ref].facts.facts for ref in fixed if ref in self.by_id)
            )
        tracked = [r.target for r in assessment.relations if r.type == "tracks"]
        # A report's own words state its problem; its fix may explain a neighbouring one ("eager
        # silently returns wrong values, while the compiled one crashes"): the fix speaks only where the
        # report states no problem itself. An umbrella's problems are those it tracks.
        own = None if tracked or item.kind in CHANGE_KINDS else self.worst_problem(assessment.facts.facts)
        worst = own or self.worst_problem(facts)
        vague = worst is not None and worst.kind in VAGUE_PROBLEMS and worst.source == "text"
        if vague and not tracked and item.kind not in CHANGE_KINDS:
            worst = None  # a report's title says what fails
        design = assessment.facts.first("design")
        gain = next((f for f in facts if f.kind == "gain"), None)
        # "A fix for a problem stated as “…”" quotes the text; a label or the model's reading is no
        # statement of the text, and its own wording follows the noun ("a problem triaged as …").
        judged = "_judged" if worst is not None and worst.source in ("label", "model") else ""
        if tracked and worst is not None:
            return t("c_tracker" + judged, n=len(tracked), problem=self.problem(worst, clause=True))
        if worst is not None and item.kind in CHANGE_KINDS:
            fixes = [r for r in assessment.relations if r.type == "fixes"]
            if fixes:
                key = "c_fix_partial" if all(partial_fix(r.evidence) for r in fixes) else "c_fix"
                refs = t.list_separator.join(self.ref(r.target) for r in fixes[:2])
                return t(key + judged, refs=refs, problem=self.problem(worst, clause=True))
            if assessment.facts.is_fix:
                return t("c_fix_untargeted" + judged, problem=self.problem(worst, clause=True))
            # A change that never says it fixes anything (a feature, a new option) may name a problem
            # only to explain its design: "a fix for" it would be the report's invention.
            return t("c_change_mentions" + judged, problem=self.problem(worst, clause=True))
        if worst is not None:
            return t("c_problem", problem=self.problem(worst) + self.held_by(worst, assessment))
        if item.kind == "rfc" or (design is not None and design.detail == "RFC"):
            # A closed proposal is no longer asking for comments, whether it was adopted or not.
            return t("c_rfc_closed" if item.state in ("closed", "merged", "landed") else "c_rfc")
        # A report that states a problem, if only vaguely ("raises an error"), is no design change nor
        # a gain, whatever words of one its title uses ("... when only the new API is used").
        if design is not None and not vague:  # quoted from the title that states it, not named after its word
            return t("c_design", detail=t("quoted", text=excerpt(design.evidence, design.detail, QUOTE)))
        if gain is not None and not vague:
            detail = t("quoted", text=excerpt(gain.evidence, gain.detail, QUOTE))
            return t("c_gain", kind=t(f"kind_{item.kind}"), detail=detail)
        # A change's title names the change and its description says why; a reporter's title is
        # their own statement of the problem, often sharper than the description's opening.
        title = item.title or ""
        opening = next(iter(sentences(summary)), "") if item.kind in CHANGE_KINDS else ""
        said = opening if opening and opening not in title else title
        return t("c_other", kind=t(f"kind_{item.kind}"), title=t("quoted", text=shorten(said, QUOTE)))

    def conclusion(self, assessment: Assessment, fix_text: str, summary: str = "") -> str:
        """One line: what the item is about, in the report's language, and where its fix stands."""
        head = self.head(assessment, summary)
        context = self.context(story_facts(assessment, self.by_id), said=head, owner=assessment)
        sentence = head + context + self.t.full_stop
        return (sentence + self.t("c_fix_state", fix=fix_text) + self.t.full_stop).strip()

    def short_state(self, analysis: Analysis) -> str:
        return self.t(f"state_{analysis.fix_state}")


def _from_label(fact: Fact) -> bool:
    return fact.evidence.startswith("label: ")


# "took 30 minutes before the upgrade, but hours after it": one number of a comparison whose other
# side is in words. Alone, "measured 30 minutes" states the wrong side as the problem.
THEN_AND_NOW = re.compile(r"\b(?:before|after|previously|used to|prior to|until|now)\b", re.I)
COMPARED = re.compile(r"\bvs\b|versus|->|→|=>|%|×|\dx\b|\bto\b", re.I)


def one_side(measured: Fact) -> bool:
    """The measurement is a single number from a sentence comparing a before and an after."""
    return bool(THEN_AND_NOW.search(measured.evidence)) and not COMPARED.search(measured.detail)
