"""The overview: one short paragraph per area that tells the week's stories in the report's language.

Each paragraph is composed from the claims of its focus stories, never from a keyword list: what
each story is (the source's own title, quoted, and its item number), what is fixed and by which
change, what is still open, and the one story to act on first with the reason its urgency gives.
Every sentence is a template of the catalogue filled with item numbers, quoted titles and states
the data holds, so it says nothing the focus entries below do not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from pytorch_insight.analysis.action import Suggestion
from pytorch_insight.analysis.model import Analysis
from pytorch_insight.config import Profile
from pytorch_insight.pipeline import Assessment
from pytorch_insight.pipeline.rank import severity_sharers
from pytorch_insight.pipeline.reasons import in_source_case
from pytorch_insight.pipeline.references import partial_fix
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.report.model import FocusEntry, Theme
from pytorch_insight.report.narrative import held_by
from pytorch_insight.text import shorten

THEMES = 4  # areas with a paragraph, besides those holding a high-priority story
STORIES = 3  # stories told per paragraph; the others are counted
TITLE = 70  # characters of a quoted title in the overview
CHANGE_KINDS = ("pull_request", "commit")
WHOM = ("downstream", "hardware")  # the context that says for whom a story matters
URGENCY_ORDER = ("P0", "P1", "P2")
# Urgency reasons of a problem still to be solved: a fixed story is no story to act on first.
OPEN = frozenset(
    {"because_open_severe", "because_fix_pending_severe", "because_fix_pending", "because_open", "because_reverted"}
)


class OverviewWriter:
    def __init__(
        self,
        t: Catalogue,
        ref: Callable[[str], str],
        by_id: Mapping[str, Assessment],
        profile: Profile,
        area_names: Mapping[str, str],
    ) -> None:
        self.t, self.ref, self.by_id, self.profile, self.area_names = t, ref, by_id, profile, area_names

    @staticmethod
    def home(assessment: Assessment, order: Mapping[str, int]) -> str:
        """The area a story is told in: one its title's tag names (a "[ROCm]" report on the CUDA
        allocator is a ROCm story), else one a triager's label names (not one the people it copies
        suggest), else its first in the profile's order."""
        if not assessment.areas:
            return "core"

        def said(area: str, how: str) -> bool:
            return any(evidence.startswith(how) for evidence in assessment.area_evidence.get(area, ()))

        return min(
            assessment.areas,
            key=lambda area: (not said(area, "title tag"), not said(area, "label "), order.get(area, 99)),
        )

    def themes(self, entries: Sequence[FocusEntry], suggestions: Mapping[str, Suggestion]) -> list[Theme]:
        """One paragraph per area holding focus stories, each story told once, in its home area;
        the areas with the most high-priority stories first."""
        order = {area.id: index for index, area in enumerate(self.profile.areas)}
        groups: dict[str, list[FocusEntry]] = defaultdict(list)
        for entry in entries:
            groups[self.home(self.by_id[entry.id], order)].append(entry)
        ranked = sorted(groups.items(), key=lambda kv: (-high(kv[1]), -len(kv[1]), order.get(kv[0], 99)))
        themes = []
        # Past THEMES areas, only those holding a high-priority story keep a paragraph: no red story
        # goes untold because its area came fifth.
        told = [(area, members) for n, (area, members) in enumerate(ranked) if n < THEMES or high(members)]
        for area, members in told:
            name = self.area_names.get(area, area)
            themes.append(
                Theme(
                    area=area,
                    name=name,
                    high=high(members),
                    items=[e.id for e in members],
                    text=self.paragraph(name, members, suggestions),
                )
            )
        return themes

    def paragraph(self, name: str, members: Sequence[FocusEntry], suggestions: Mapping[str, Suggestion]) -> str:
        t = self.t
        high = sum(e.priority == "high" for e in members)
        intro = t(
            "ov_intro" if len(members) > 1 else "ov_intro_one",
            area=name,
            n=len(members),
            high=t("ov_intro_high", k=high) if high and len(members) > 1 else "",
        )
        told = [self.story(entry) for entry in members[:STORIES]]
        body = t.clause_separator.join(told) + t.full_stop
        if len(members) > STORIES:
            rest = t.list_separator.join(e.ref or self.ref(e.id) for e in members[STORIES:])
            body += t("ov_more", n=len(members) - STORIES, refs=rest) + t.full_stop
        return (intro + body + self.first_to_act(members, suggestions)).strip()

    @staticmethod
    def said_of_itself(analysis: Analysis, field: str, item_id: str) -> bool:
        """Whether the item's own thread says what `field` holds (not another PR of its story's)."""
        return bool(getattr(analysis, field)) and analysis.said_in.get(field) == item_id

    def story(self, entry: FocusEntry) -> str:
        """One story in a clause: what it is (its quoted title and number) and where its fix stands."""
        t, analysis = self.t, entry.analysis
        assessment = self.by_id[entry.id]
        ref = entry.ref or self.ref(entry.id)
        title = t("quoted", text=shorten(" ".join(entry.title.split()), TITLE))
        named = self.whom(assessment, entry.title)
        # Who the sources name, after the title, or as a clause where the title closes a parenthesis.
        say = partial(
            t,
            whom=t("ov_mentions", names=named) if named else "",
            whom_clause=t("ov_mentions_clause", names=named) if named else "",
        )
        fixes = [r.target for r in assessment.relations if r.type == "fixes"]
        partly = {r.target for r in assessment.relations if r.type == "fixes" and partial_fix(r.evidence)}
        state = analysis.fix_state
        if state == "reverted":
            return say("ov_reverted", ref=ref, title=title)
        design = assessment.facts.first("design")
        if entry.kind == "rfc" or (design is not None and design.detail == "RFC"):
            return say("ov_rfc", ref=ref, title=title)
        if any(r.type == "tracks" for r in assessment.relations):
            tracked = [r.target for r in assessment.relations if r.type == "tracks"]
            return say("ov_tracker", ref=ref, title=title, n=len(tracked))
        if entry.kind in CHANGE_KINDS:
            # "Partially addresses #N": the target is named as fixed in part, as its relation line says.
            target = t.list_separator.join(
                t("ov_in_part", ref=self.ref(f)) if f in partly else self.ref(f) for f in fixes[:2]
            )
            merged = state in ("merged", "landed")
            # "without a confirmed merge" reads as false where its own thread says it landed, or
            # shows a merge asked for: the clause says what the thread shows.
            closed = f"ov_{'fix' if target else 'change'}_closed"
            if state == "closed" and analysis.relanded_by:
                closed += "_relanded"
                say = partial(say, reland=self.refs(analysis.relanded_by))
            elif state == "closed" and self.said_of_itself(analysis, "landed_said", entry.id):
                closed += "_landed_said"
            elif state == "closed" and analysis.picked_by:
                closed += "_picked"
                say = partial(say, pick=self.refs(analysis.picked_by))
            elif state == "closed" and self.said_of_itself(analysis, "merge_requested", entry.id):
                closed += "_merge_asked"
            if target:
                key = "ov_fix_merged" if merged else closed if state == "closed" else "ov_fix_open"
                return say(key, ref=ref, target=target, title=title)
            if state == "closed":
                return say(closed, ref=ref, title=title)
            return say("ov_change_merged" if merged else "ov_change_open", ref=ref, title=title)
        fix = self.refs(analysis.fix_refs)
        many = "_many" if len(analysis.fix_refs) > 1 else ""  # "its fixes #1, #2 are ..."
        if state == "landed":
            return say(f"ov_issue_fixed{many}", ref=ref, title=title, fix=fix)
        if state == "open" and fix:
            return say(f"ov_issue_fixing{many}", ref=ref, title=title, fix=fix)
        if state == "closed":
            if analysis.fixed_said and not self.said_of_itself(analysis, "fixed_said", entry.id):
                by = self.ref(analysis.said_in["fixed_said"])  # a PR naming it, not a comment, says so
                return say("ov_issue_closed_fixed_said_by", ref=ref, title=title, by=by)
            return say("ov_issue_closed_fixed_said" if analysis.fixed_said else "ov_issue_closed", ref=ref, title=title)
        if state == "unconfirmed" and fix:  # still open, its fix PRs closed: never "no fix PR"
            return say(f"ov_issue_fix_closed{many}", ref=ref, title=title, fix=fix)
        if state == "referenced":
            return say("ov_issue_referenced", ref=ref, title=title, fix=self.refs(list(analysis.fix_ref_states)))
        if analysis.pr_named or analysis.pr_mentioned or analysis.pr_named_later:  # "no fix PR" would read false
            return say("ov_issue_pr_in_thread", ref=ref, title=title)
        if analysis.linked_prs:  # nor where a PR is linked with it
            return say("ov_issue_linked_pr", ref=ref, title=title, fix=self.refs(list(analysis.linked_prs)))
        if analysis.similar_prs:  # nor where a PR is titled after the same problem
            return say("ov_issue_similar_pr", ref=ref, title=title, fix=self.refs(list(analysis.similar_prs)))
        return say("ov_issue_open", ref=ref, title=title)

    def whom(self, assessment: Assessment, title: str) -> str:
        """Who or what the story's sources name as hit (a downstream user, hardware), when the title
        does not: mentioned, not asserted."""
        facts = [f for a in (assessment, *severity_sharers(assessment, self.by_id)) for f in a.facts.facts]
        named = []
        for kind in WHOM:
            fact = next((f for f in facts if f.kind == kind and f.detail), None)
            if fact is not None:
                name = in_source_case(fact.detail, fact.evidence)
                if name.lower() not in title.lower():
                    holder = held_by(fact, assessment, self.by_id, fixed_named=False)
                    named.append(name + (self.t("p_in_aside", ref=self.ref(holder)) if holder else ""))
        return self.t.list_separator.join(dict.fromkeys(named))

    def first_to_act(self, members: Sequence[FocusEntry], suggestions: Mapping[str, Suggestion]) -> str:
        """The story to act on first, when one is urgent (P0 or P1): its number, why, and what to do."""
        urgent = [
            e
            for e in members
            if e.id in suggestions and (e.urgency == "P0" or (e.urgency == "P1" and suggestions[e.id].because in OPEN))
        ]
        if not urgent:
            return ""
        entry = min(urgent, key=lambda e: URGENCY_ORDER.index(e.urgency))
        suggestion = suggestions[entry.id]
        harm = self.t(f"harm_{suggestion.harm}") if suggestion.harm else ""
        because = self.t(suggestion.because, harm=harm) if suggestion.because else ""
        todo = self.t(suggestion.why, ref=self.ref(suggestion.target or entry.id))
        key = "ov_act_now" if entry.urgency == "P0" else "ov_act_week"
        return self.t(key, ref=entry.ref or self.ref(entry.id), because=because, todo=todo) + self.t.full_stop

    def refs(self, ids: Sequence[str]) -> str:
        return self.t.list_separator.join(self.ref(item_id) for item_id in ids[:2])


def high(entries: Sequence[FocusEntry]) -> int:
    """How many of the entries are high priority."""
    return sum(entry.priority == "high" for entry in entries)
