"""A suggested action (follow / track / adapt / ignore), its urgency (P0 / P1 / P2) and the item it is
aimed at, from what the claims say: the harm the story's sources state and where its fix stands.

Urgency follows harm and fix state: an open problem with no landed fix that its sources state as a
silent wrong result, a hard crash or a security problem is P0 (check your own code path now); once
its fix has landed it is P1 (make sure your build has it), so a fixed edge case never outranks an
open wrong result. The action is aimed at the item to act on: a fix PR is reviewed and landed itself
(not its issue), an open issue is tracked, a landed fix is checked for in your build. Each result
names the rule that set its urgency (`because`) and the instruction (`why`), both catalogue keys.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from pytorch_insight.analysis.model import Analysis
from pytorch_insight.config import Reader
from pytorch_insight.pipeline import Assessment
from pytorch_insight.pipeline.rank import story_kinds

CHANGE_KINDS = ("pull_request", "commit")
FOCUS_WEIGHT = 1.0  # a reader weight at or above this makes an area "theirs"
BREAKING = re.compile(r"deprecat|bc[- ]breaking|breaking change|remove support", re.I)
# Fact kinds whose harm justifies acting now while no fix has landed (docs/JUDGEMENT tiers 1 and 2).
SEVERE = ("wrong_result", "hard_crash", "security")  # the worst first: the one a reason names
LANDED = ("landed", "merged")


@dataclass(frozen=True)
class Suggestion:
    action: str  # follow | track | adapt | ignore
    urgency: str  # P0 | P1 | P2
    why: str  # catalogue key of the instruction: what to do, and with which item
    because: str = ""  # catalogue key of the reason for the urgency
    target: str = ""  # the id of the item the instruction is aimed at
    harm: str = ""  # the severe fact kind the story's sources state, which the urgency reason names


def suggest(
    assessment: Assessment, analysis: Analysis, reader: Reader, by_id: Mapping[str, Assessment] | None = None
) -> Suggestion:
    """What to do about a focus item; `by_id` lets a fix take the harm its issue states."""
    item, priority = assessment.item, assessment.priority
    theirs = any(reader.area_weights.get(area, 1.0) >= FOCUS_WEIGHT for area in assessment.areas)
    kinds = story_kinds(assessment, by_id or {})
    harm = next((kind for kind in SEVERE if kind in kinds), "")
    design = assessment.facts.first("design")
    api_change = design is not None and bool(BREAKING.search(design.detail))
    own = assessment.id
    if analysis.fix_state == "reverted":
        return Suggestion("track", "P1", "do_reverted", "because_reverted", (analysis.fix_refs or [own])[0])
    proposal = design is not None and design.detail == "RFC" and item.kind not in CHANGE_KINDS
    # A proposal a PR closes is followed through that PR, as a report is.
    if item.kind == "rfc" or (proposal and not analysis.fix_refs):
        if item.state in ("closed", "merged", "landed"):  # a proposal closed asks for no comments, nor for a fix
            return Suggestion("track", "P2", "do_rfc_closed", "because_rfc_closed", own)
        return Suggestion("follow", "P1" if priority != "low" else "P2", "do_rfc", "because_rfc", own)
    if api_change and item.kind in CHANGE_KINDS:
        urgency = "P0" if priority == "high" and theirs else "P1"
        return Suggestion("adapt", urgency, "do_adapt_api", "because_api", own)
    if item.kind in CHANGE_KINDS:
        suggestion = _change(assessment, analysis, bool(harm) and theirs)
    elif priority == "low":
        suggestion = Suggestion("ignore", "P2", "do_nothing", "because_low", own)
    else:
        suggestion = _problem(assessment, analysis, bool(harm) and theirs)
    return replace(suggestion, harm=harm if suggestion.because.endswith("_severe") else "")


def _problem(assessment: Assessment, analysis: Analysis, severe: bool) -> Suggestion:
    """An issue (or a forum thread): tracked while open, checked for in your build once fixed."""
    own, refs = assessment.id, analysis.fix_refs
    if analysis.superseded:  # a fix its thread says another change replaced is no fix to check for
        refs = [ref for ref in refs if ref != analysis.said_in.get("superseded")]
    if analysis.fix_state == "landed":
        fix = refs[0] if refs else own
        if severe:
            return Suggestion("track", "P1", "do_check_build", "because_fixed_severe", fix)
        return Suggestion("track", "P2", "do_check_build", "because_fixed", fix)
    high = assessment.priority == "high"
    if analysis.fix_state == "closed":  # closed, but no landed fix in the data: it may or may not be fixed
        if refs:  # its fix PR was closed too, which in PyTorch often means it landed: check that PR
            because = "because_fixed_said_linked" if analysis.fixed_said else "because_closed_linked"
            return Suggestion("track", "P1" if high else "P2", "do_check_landed", because, refs[0])
        because = "because_fixed_said" if analysis.fixed_said else "because_closed_issue"
        if analysis.fix_passed_over():  # "links no fix PR" would deny the one passed over
            because = "because_closed_fix_superseded"
        elif analysis.fix_ref_states:  # "no fix PR" reads as false beside a PR that names it (a test's "Fixes #N")
            because = "because_fixed_said_referenced" if analysis.fixed_said else "because_closed_referenced"
        elif analysis.pr_named or analysis.pr_mentioned or analysis.pr_named_later:
            # "links no fix PR" or "holds no fix PR" reads as false beside it
            because = "because_fixed_said_pr_in_thread" if analysis.fixed_said else "because_closed_pr_in_thread"
        elif not analysis.fixed_said and analysis.linked_prs:
            because = "because_closed_linked_pr"  # nor beside a PR linked with it by URL
        return Suggestion("track", "P1" if high else "P2", "do_check_closed", because, own)
    if analysis.fix_state == "unconfirmed" and refs:  # its fix PR closed: landed or not, the data cannot tell
        because = "because_closed_fix_severe" if severe else "because_closed_change"
        return Suggestion("track", "P1" if high or severe else "P2", "do_check_landed", because, refs[0])
    if analysis.fix_state == "open" and refs:
        if severe and high:
            return Suggestion("follow", "P0", "do_follow_fix", "because_fix_pending_severe", refs[0])
        return Suggestion("follow", "P1" if high else "P2", "do_follow_fix", "because_fix_pending", refs[0])
    if severe and high:
        return Suggestion("track", "P0", "do_check_and_track", "because_open_severe", own)
    if severe:
        return Suggestion("track", "P1", "do_check_and_track", "because_open_severe", own)
    return Suggestion("track", "P1" if high else "P2", "do_track", "because_open" if high else "because_medium", own)


def _change(assessment: Assessment, analysis: Analysis, severe: bool) -> Suggestion:
    """A PR or commit: reviewed and landed while open, tested once landed; a fix weighs its problem."""
    own, high = assessment.id, assessment.priority == "high"
    # A revert backs a change out; it is a fix only of the issues it says that change caused.
    reverting = any(r.type == "reverts" for r in assessment.relations)
    fixes = (assessment.facts.is_fix and not reverting) or any(r.type == "fixes" for r in assessment.relations)
    if analysis.fix_state in LANDED:
        if fixes:
            urgency = "P1" if severe else "P2"
            return Suggestion(
                "track", urgency, "do_check_build", "because_fixed_severe" if severe else "because_fixed", own
            )
        return Suggestion("adapt" if high else "track", "P1" if high else "P2", "do_test_landed", "because_landed", own)
    if analysis.fix_state == "closed":
        if analysis.superseded and analysis.said_in.get("superseded") == own:
            return Suggestion("ignore", "P2", "do_nothing", "because_superseded", own)
        if analysis.relanded_by:
            return Suggestion(
                "track",
                "P1" if fixes and severe else "P2",
                "do_follow_reland",
                "because_relanded",
                analysis.relanded_by[0],
            )
        if analysis.revert_requested and analysis.said_in.get("revert_requested") == own:
            return Suggestion(
                "track", "P1" if fixes and severe else "P2", "do_check_reverted", "because_revert_requested", own
            )
        # Its own thread says it landed, or a merged cherry-pick of it is a change a build can be checked for.
        landed_said = analysis.landed_said and analysis.said_in.get("landed_said") == own
        if landed_said or analysis.picked_by:
            check = "do_check_build" if fixes else "do_test_landed"
            because, ref = ("because_landed_said", own) if landed_said else ("because_picked", analysis.picked_by[0])
            return Suggestion("track", "P1" if fixes and severe else "P2", check, because, ref)
        # PyTorch closes the PRs it lands through its merge tooling: "closed" may well mean landed.
        if analysis.merge_requested:
            return Suggestion(
                "track", "P1" if high or severe else "P2", "do_check_landed", "because_merge_requested", own
            )
        if fixes and severe:
            return Suggestion("track", "P1", "do_check_landed", "because_closed_fix_severe", own)
        return Suggestion("track", "P1" if high else "P2", "do_check_landed", "because_closed_change", own)
    if fixes and severe and high:
        return Suggestion("follow", "P0", "do_review_pr", "because_fix_pending_severe", own)
    if fixes:
        return Suggestion("follow", "P1" if high else "P2", "do_review_pr", "because_fix_pending", own)
    return Suggestion("track", "P1" if high else "P2", "do_review_pr", "because_pending", own)
