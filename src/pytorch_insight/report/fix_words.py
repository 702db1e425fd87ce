"""How the report words a fix state: the state the analysis found, the PRs it names with theirs, and
what the threads add (a merge or revert asked for, a landing or a fix said, another change
preferred). Only what the data shows; what it cannot tell is said to be unknown."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pytorch_insight.analysis.impact import CHANGES
from pytorch_insight.analysis.model import Analysis
from pytorch_insight.model import Item
from pytorch_insight.pipeline import Assessment
from pytorch_insight.report.i18n import Catalogue


class FixWords:
    def __init__(self, t: Catalogue, ref: Callable[[str], str], by_id: Mapping[str, Assessment]) -> None:
        self.t, self.ref, self.by_id = t, ref, by_id

    def join(self, parts: list[str]) -> str:
        return self.t.list_separator.join(parts)

    def text(self, analysis: Analysis, item: Item) -> str:
        """Where the fix of a focus entry stands, in words: its state and what its threads add."""
        kind = item.kind
        states = self.pr_states(analysis.fix_ref_states)
        if analysis.fix_state == "referenced":
            return self.t("fix_referenced", refs=self.join(states))
        if analysis.fix_state == "tracking":
            return self.tracking_text(analysis.fix_refs)
        refs = self.join([self.ref(ref) for ref in analysis.fix_refs])
        if analysis.fix_state == "open" and not refs:
            return self.t("fix_open_self")
        # What the threads add to the states: a merge asked for, a PR announced without its number.
        thread = ""
        if analysis.merge_requested:  # "author: their words": the words are a quote, marked as one
            who, _, words = analysis.merge_requested.partition(": ")
            thread = self.t("fix_merge_requested", who=who, words=words)
        if analysis.pr_mentioned:
            thread += self.t("fix_pr_mentioned", quote=analysis.pr_mentioned)
        if analysis.superseded:
            # An issue's quote comes from one of its PRs, which is named: it may have others.
            source = analysis.said_in.get("superseded") if kind not in CHANGES else None
            on = {"ref": self.ref(source)} if source else {}
            thread += self.t("fix_superseded_on" if on else "fix_superseded", quote=analysis.superseded, **on)
        if analysis.fix_state == "closed" and analysis.revert_requested:
            # The merge tooling reverts landed changes: "does not show whether it landed" is not said.
            who, _, words = analysis.revert_requested.partition(": ")
            return self.t("fix_closed_revert_requested", who=who, words=words) + thread
        if analysis.fix_state == "closed" and analysis.relanded_by:
            # "does not show whether it landed" reads as false beside a PR that relands it.
            relands = self.join([self.ref(ref) for ref in analysis.relanded_by])
            return self.t("fix_closed_relanded", refs=relands) + thread
        if analysis.fix_state == "closed" and analysis.landed_said:
            # The thread says what the states could not: "does not show whether it landed" is not said.
            return self.t("fix_closed_landed_said", quote=analysis.landed_said) + thread
        if analysis.fix_state == "closed" and analysis.picked_by:
            # Nor beside a merged cherry-pick of it: a release branch has the change.
            return self.t("fix_closed_picked", refs=self.join([self.ref(ref) for ref in analysis.picked_by])) + thread
        if analysis.pr_named or analysis.pr_named_later:
            # "no fix PR referenced" would be false: a comment names one the window does not hold.
            # Named only after the window, "none by its end" bounds it: said without that bound, it
            # reads as false beside the later comment the data holds.
            later = "" if analysis.pr_named else "_later"
            quote = analysis.pr_named or analysis.pr_named_later
            if analysis.fix_state == "closed" and analysis.fixed_said:
                thread += self.t("fix_fixed_said_too", quote=analysis.fixed_said)
            if analysis.fix_state == "closed" and states:
                # Nor is "no fix PR linked" true beside a PR of the data that names it ("For #N").
                return self.t(f"fix_closed_referenced_named{later}", refs=self.join(states), quote=quote) + thread
            closed = "fix_closed_named" if analysis.fix_state == "closed" else "fix_none_named"
            return self.t(closed + later, quote=quote) + thread
        if analysis.fix_state == "closed" and analysis.fixed_said:
            # Whether its PRs landed is unknown (or there are none), but the thread says the problem
            # is gone: say that too.
            if refs:
                return self.t("fix_closed_linked_fixed_said", refs=refs, quote=analysis.fixed_said) + thread
            if states:  # "no fix PR in the collected data" reads as false beside a PR that says "Fixes #N"
                source = analysis.said_in.get("fixed_said")
                by = self.ref(source) if source in analysis.fix_ref_states else self.t("by_a_comment")
                words = self.t(
                    "fix_closed_referenced_fixed_said", refs=self.join(states), by=by, quote=analysis.fixed_said
                )
                return words + thread
            return self.t("fix_closed_fixed_said", quote=analysis.fixed_said) + thread
        # A PR linked with it by URL is named, neither called its fix nor denied as one: it may say
        # it fixes the problem in words the data does not link.
        linked = self.join(self.pr_states(analysis.linked_prs))
        if analysis.fix_state == "closed" and not refs and kind not in CHANGES:
            # A report closed with no fix in the data: whether it "landed" is no question for it; PRs
            # that name it are said to, never that none does.
            if states:
                return self.t("fix_closed_referenced", refs=self.join(states)) + thread
            if linked:
                return self.t("fix_closed_linked", refs=linked) + thread
            return self.t("fix_closed_report") + thread
        if analysis.fix_state == "closed" and analysis.fix_passed_over():
            # "does not show whether it landed" reads as false beside the comment saying it was passed over
            return self.t("fix_closed_passed_over", refs=refs) + thread
        if analysis.fix_state == "closed":
            return self.t("fix_closed", refs=self.t("fix_closed_refs", refs=refs) if refs else "") + thread
        if analysis.fix_state == "none" and linked:
            return self.t("fix_none_linked", refs=linked) + thread
        if analysis.fix_state == "none" and analysis.similar_prs:
            # A PR titled after the same problem may be its fix though it names no issue: "no fix
            # PR referenced" is true and would mislead, so the report says what the data shows.
            return self.t("fix_none_similar", refs=self.join(self.pr_states(analysis.similar_prs))) + thread
        if analysis.fix_state == "unconfirmed" and analysis.fixed_said:
            # "does not show whether they landed" reads as false beside the comment that says so
            return self.t("fix_unconfirmed_fixed_said", refs=refs, quote=analysis.fixed_said) + thread
        if analysis.fix_state == "open" and kind not in CHANGES and item.state == "closed":
            # A report closed while its fix is still open (as a copy of another, or by its author): the
            # fix state alone would leave the report's own state unsaid.
            return self.t("fix_open_report_closed", refs=refs) + thread
        return self.t(f"fix_{analysis.fix_state}", refs=refs) + thread

    def pr_states(self, states: dict[str, str]) -> list[str]:
        """ "#N (state)" for each PR id -> state."""
        return [
            self.t("fix_ref_state", ref=self.ref(ref), state=self.t(f"pr_state_{state}"))
            for ref, state in states.items()
        ]

    def tracking_text(self, tracked: list[str]) -> str:
        """Where an umbrella's tracked items stand, counted from their collected states."""
        known = [self.by_id[ref] for ref in tracked if ref in self.by_id]
        closed = [a for a in known if a.item.state == "closed"]
        fixing = [a for a in known if a.item.state != "closed" and any(r.type == "fixed_by" for r in a.relations)]
        missing = len(tracked) - len(known)
        return self.t(
            "fix_tracking",
            n=len(tracked),
            closed=len(closed),
            fixing=len(fixing),
            open=len(known) - len(closed) - len(fixing),
            missing=self.t("fix_tracking_missing", n=missing) if missing else "",
        )
