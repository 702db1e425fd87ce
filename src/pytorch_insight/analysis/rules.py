"""The offline analyser: extracts, never composes. Every sentence and figure it returns is
copied from the item, its comments or its linked items; what they do not say stays empty."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pytorch_insight.analysis.causes import root_cause_sentences, root_causes
from pytorch_insight.analysis.change_words import describes_change, measures, prior_symptom, run_note
from pytorch_insight.analysis.figures import URL, facts
from pytorch_insight.analysis.fix_state import (
    blames_itself,
    fix_state,
    fixed_said,
    fixed_said_by_tests,
    linked_prs,
    merged_picks,
    pr_mentioned,
    pr_named,
    referencing_prs,
    similar_prs,
    threads_say,
)
from pytorch_insight.analysis.impact import (
    CHANGES,
    JOINED_LINES,
    OPENING_HARM,
    consequence,
    harm_told,
    impact_sentences,
)
from pytorch_insight.analysis.lists import LIST_ITEM, with_its_list
from pytorch_insight.analysis.model import (
    Analysis,
    AnalysisContext,
    FileChange,
)
from pytorch_insight.analysis.roles import RoleModel, load_role_model
from pytorch_insight.analysis.workaround import find_workaround
from pytorch_insight.model import Item, later_comments
from pytorch_insight.pipeline import Assessment
from pytorch_insight.pipeline.references import umbrella
from pytorch_insight.text import (
    CODE_SPAN,
    FENCE,
    LETTER,
    Body,
    aside,
    excerpt,
    join_sentences,
    lead_in,
    left_out,
    parse_body,
    section,
    sentences,
)

SUMMARY_SECTIONS = (
    "describe the bug",
    "summary",
    "issue",
    "problem",
    "the feature, motivation and pitch",
    "motivation",
    "description",
    "context",
)
MECHANISM = re.compile(r"`[^`]+`|\b[\w/]+\.(?:py|cpp|cu|h|hpp|c|cc|yaml|yml)\b|\b\w+\(\)")
# What a repro shows going wrong, in a report's words after it: harm, or outputs that disagree.
SEEN_WRONG = re.compile(rf"{OPENING_HARM.pattern}|\bdiscrepanc(?:y|ies)\b", re.I)
# "*Quick note: this report comes from a user ...*", "Disclaimer: ...", "Apologies for posting ...": a
# description's opening paragraph about the report itself, up to the blank line that ends it. Its
# emphasis marks are bounded: each count of a longer run would be tried against the words after it.
OPENING_NOTE = re.compile(
    r"\s*[*_]{0,3}(?:(?:[\w-]+ )?(?:note|disclaimer|fyi)[*_]*\s*:|(?:apolog(?:ies|ize|ise)|sorry)\b)"
    r"[^\n]*+(?:\n(?![ \t]*\n)[^\n]*+)*+",
    re.I,
)
SUMMARY_WORDS = 5
LABEL_WORDS = 6  # "Trace of the second run: <url>": a label of what follows, not a statement
REFERENCE_ONLY = re.compile(r"(?:re-?land|revert|cherry[- ]pick)\w*(?:\s+of)?\s+\S+\s*\.?$", re.I)
# "Install the package with `pip install …`", "Clone the repo and run …": a step of the setup, which
# tells how to get to the problem, not what it is. "Human note: I found this while working on …": where
# the report comes from, not what it says.
SETUP_STEP = re.compile(
    r"^\W*(?:install|clone|download|run|execute|build|check out|checkout|git|pip|conda|cd|export|source|apt|brew)\b|"
    # "Simply paste the snippet from the report to reproduce": how to reproduce, no account of the problem
    r"^\W*(?:just |simply )?(?:copy|paste|save|use|try)\b[^.;]{0,100}?\bto (?:reproduce|repro)\b|"
    r"^\W*(?:(?:human|author'?s?|side)\s+note\s*:|(?:i|we)\s+(?:found|discovered|noticed|hit|ran into|came across)"
    r"\s+(?:this|it)\b)",
    re.I,
)
STORY_READ = ("fixes", "fixed_by", "relands", "duplicate")  # linked items whose text tells the same story
STORY_ITEMS = 3


# A sentence the role model reads as an impact or a workaround with at least this probability fills
# that field when no heading or phrase rule did (false is worse than empty: chosen high on the tuned
# weeks of the field-truth benchmark).
ROLE_FILLS = {"impact": 0.8, "workaround": 0.8}


class RuleAnalyser:
    name = "rules"

    def __init__(self, roles: RoleModel | None = None) -> None:
        self._roles = roles

    @property
    def roles(self) -> RoleModel:
        """The sentence-role model (the shipped one unless another was passed in), read on first use."""
        if self._roles is None:
            self._roles = load_role_model()
        return self._roles

    def analyse_batch(self, pairs: Sequence[tuple[Assessment, bool]], context: AnalysisContext) -> list[Analysis]:
        return [self.analyse(assessment, context, deep) for assessment, deep in pairs]

    def analyse(self, assessment: Assessment, context: AnalysisContext, deep: bool) -> Analysis:
        item = assessment.item
        body = parse_body(item.body)
        thread = [c.body or "" for c in item.comments if not context.profile.is_bot(c.author)]
        tracker = any(r.type == "tracks" for r in assessment.relations)
        summary = summarise(body, lists=not tracker)
        state, refs = fix_state(assessment, context)
        analysis = Analysis(
            summary=summary,
            fix_state=state,
            fix_refs=refs,
            fix_ref_states=referencing_prs(assessment, context) if state in ("referenced", "closed") else {},
            facts=facts(item, body),
            analyser=self.name,
        )
        if state in ("none", "closed") and item.kind in ("issue", "rfc"):
            if not refs:
                analysis.pr_named = pr_named(item.comments, context.profile)
                analysis.pr_mentioned = "" if analysis.pr_named else pr_mentioned(item, context.profile)
                if not (analysis.pr_named or analysis.pr_mentioned):
                    analysis.pr_named_later = pr_named(later_comments(item), context.profile, dated=True)
                analysis.similar_prs = similar_prs(assessment, context)
                analysis.linked_prs = linked_prs(assessment, context)
            for field in ("pr_named", "pr_mentioned", "pr_named_later"):
                if getattr(analysis, field):
                    analysis.said_in[field] = item.id
        if state in ("closed", "unconfirmed") and item.kind in ("issue", "rfc"):
            # A report's thread may say it is fixed: closed, with or without linked PRs (by a
            # dependency's release the data does not hold), or still open with its fix PRs closed
            # ("addressed in #N, closing", and the close never came). "No landed fix" or "does not
            # show whether they landed" would then be false.
            analysis.fixed_said, said_by = fixed_said(item, context.profile), item.id
            if not analysis.fixed_said and state == "closed":
                analysis.fixed_said, said_by = fixed_said_by_tests(assessment, context)
            if analysis.fixed_said:
                analysis.said_in["fixed_said"] = said_by
        if state == "closed" and item.kind == "pull_request":
            analysis.relanded_by = [r.target for r in assessment.relations if r.type == "relanded_by"]
            analysis.picked_by = merged_picks(assessment, context)
        if state in ("closed", "unconfirmed"):
            closed = (
                [assessment] if item.kind == "pull_request" else [context.by_id[r] for r in refs if r in context.by_id]
            )
            for field, found, pr_id in threads_say([pr.item for pr in closed], context.profile):
                setattr(analysis, field, found)
                analysis.said_in[field] = pr_id
        if not analysis.facts.files:  # an issue's story touches the files its fixes change
            analysis.facts.files = [
                FileChange.model_validate(change)
                for ref in refs
                if ref in context.by_id
                for change in (context.by_id[ref].item.model_extra or {}).get("files", [])
            ]
        if not deep:
            return analysis
        # The story is read as one: a fix PR's description often explains its issue's root cause,
        # and an issue's report states the problem its fix removes.
        story = [
            context.by_id[r.target]
            for r in assessment.relations
            if r.type in STORY_READ and r.target in context.by_id and not context.by_id[r.target].noise
        ][:STORY_ITEMS]
        members = [assessment, *story]
        bodies = [body, *(parse_body(other.item.body) for other in story)]
        # Each member's own thread, its bots' comments left out.
        said = [
            thread,
            *([c.body or "" for c in o.item.comments if not context.profile.is_bot(c.author)] for o in story),
        ]
        threads = [text for texts in said for text in texts]
        # Two sentences a field joins that its source does not write one after the other are joined
        # by "…": a quote that ran them together would put words in no one's mouth.
        adjacent = Adjacency(
            [
                *(member.item.body or "" for member in members),
                *(text for b in bodies for text in b.sections.values()),
                *("\n\n".join(b.sections.values()) for b in bodies),
                *threads,
            ]
        )

        if not analysis.summary and story:  # an issue that is all code: its fix tells what happened
            told = summarise(bodies[1])
            # what the fix does, or a note on its benchmark run, is no account of the report
            if not (describes_change(told) or run_note(told)):
                analysis.summary = told
                analysis.quoted_from["summary"] = story[0].id
        if not analysis.summary and item.kind in CHANGES:
            # A fix that says no more than "Fixes #N": the report it fixes names the problem in its title.
            fixed = [
                other
                for other in story
                if other.item.kind not in CHANGES
                and any(r.type == "fixes" and r.target == other.id for r in assessment.relations)
                and says_something(other.item.title or "")
            ]
            if fixed:
                analysis.summary = fixed[0].item.title or ""
                analysis.quoted_from["summary"] = fixed[0].id
        summary = analysis.summary
        mechanism = first(mechanism_sentences(item, body), 2, exclude=summary)
        changes = [item.kind in CHANGES, *(other.item.kind in CHANGES for other in story)]
        # A tracker gathers other problems and has no cause of its own: its criteria and checklists
        # (a cherry-pick's "Criteria Category: ...") read as causes to the rules, and as false to a reader.
        candidates, headed = ([], False) if umbrella(assessment) else root_cause_sentences(bodies, threads, changes)
        analysis.root_cause = join_sentences(
            first(root_causes(candidates, summary, self.roles, headed, item.title or ""), 2), adjacent
        )
        tracked = [
            context.by_id[r.target] for r in assessment.relations if r.type == "tracks" and r.target in context.by_id
        ][:STORY_ITEMS]
        # An umbrella has no cause of its own: one tracked report's cause, quoted as the umbrella's,
        # read as false to an independent fact-checker. Its tracked items carry their own.
        fixes = [other for other in story if other.item.kind in CHANGES]
        if not analysis.root_cause and not candidates and item.kind not in CHANGES and fixes:
            # The fix's own account of what was wrong is the best statement of the cause there is; not
            # when the thread's own cause sentences were all rejected (its fix then rarely says more),
            # nor when its opening says what the change does, tells how the code failed before it, only
            # measures the problem, reports how a check of the change went, repeats the title
            # (the symptom, not how it comes about) or names the issue itself as the problem's origin.
            # Its list items are its change log: an account that opens with one is none, and one that
            # runs into one stops there.
            fix_account = prose_opening(parse_body(fixes[0].item.body))
            if fix_account and not (
                describes_change(fix_account)
                or prior_symptom(fix_account)
                or measures(fix_account)
                or run_note(fix_account)
                or repeats(fix_account, item.title)
                or blames_itself(fix_account, item)
            ):
                analysis.root_cause = fix_account
                analysis.quoted_from["root_cause"] = fixes[0].id
        # what the root cause quotes is not quoted again as a detail of the mechanism (nor is another
        # sentence quoted in its place: the next one tends to state the impact, which is quoted there)
        details = first(mechanism, len(mechanism), exclude=analysis.root_cause)
        analysis.details = join_sentences(details, adjacent)
        used = summary + analysis.root_cause + analysis.details
        stated = impact_sentences([assessment, *story, *tracked])
        analysis.impact = join_sentences(first(stated, 2, exclude=used), adjacent)
        texts = ["\n\n".join(b.sections.values()) for b in bodies] + threads
        # "see the summary" read as a restatement to every fact-checker: an impact the summary alone
        # states is left to another sentence that states it, or said to be unstated.
        if not analysis.impact:
            analysis.impact = consequence([assessment, *story])
        if not analysis.impact:
            analysis.impact = self.role_sentence(texts, "impact", exclude=used)
        if not analysis.impact:
            # The summary may be the only sentence that states what goes wrong: every fact-checker
            # read an empty impact there as missed. Its part that states the problem is quoted
            # again, never a cause or the mechanism, nor the bare title (a restatement).
            again = first(stated, 1, exclude=analysis.root_cause + analysis.details)
            analysis.impact = excerpt(again[0], limit=IMPACT_AGAIN) if again and "\n" not in again[0] else ""
        if not analysis.impact:  # a change's summary says what it changes, and perhaps what it fixes
            analysis.impact = harm_told(summary, IMPACT_AGAIN, change=item.kind in CHANGES)
        # A PR's body describes its fix; only an explicit section there, an issue's report or its
        # thread offers a workaround. A PR's review thread suggests to its author ("you can use this
        # tensor as the test's input"), not to the users the problem hits.
        reports = [b for b, a in zip(bodies, members, strict=True) if a.item.kind not in CHANGES]
        report_threads = [
            text for texts, a in zip(said, members, strict=True) if a.item.kind not in CHANGES for text in texts
        ]
        workaround, code = find_workaround(bodies, reports, report_threads)
        if not workaround:
            report_texts = ["\n\n".join(b.sections.values()) for b in reports] + report_threads
            workaround = self.role_sentence(report_texts, "workaround", exclude=used + analysis.impact)
        analysis.workaround, analysis.workaround_code = workaround, code
        # nor is what the workaround quotes
        analysis.details = join_sentences(first(details, len(details), exclude=workaround), adjacent)
        if not workaround:  # the triagers may know of one the thread does not spell out
            labels = (label for a in [assessment, *story] for label in a.item.labels)
            analysis.workaround_label = next((label for label in labels if "workaround" in label.lower()), "")
        for field in ("root_cause", "impact"):
            source = quoted_source(getattr(analysis, field), item, [other.item for other in story])
            if source and field not in analysis.quoted_from:
                analysis.quoted_from[field] = source
        return analysis

    def role_sentence(self, texts: list[str], role: str, exclude: str) -> str:
        """The first statement of `texts` the role model reads as `role` with ROLE_FILLS confidence."""
        for text in texts:
            for sentence in sentences(text):
                if (
                    "\n" not in sentence
                    and says_something(sentence)
                    and sentence not in exclude
                    and self.roles.p(sentence, role) >= ROLE_FILLS[role]
                ):
                    return sentence
        return ""


def quoted_source(text: str, item: Item, story: Sequence[Item]) -> str:
    """The id of the linked item whose words a field quotes when they are not the item's own: the
    report names where a cause or an impact read from a fix or an earlier version comes from."""
    said = " ".join(text.removeprefix("…").removesuffix("…").split())
    # Its opening and its close: an impact that opens on the words of the item's own title may go on
    # in the words of its fix.
    ends = [part for part in (said[:60].split(". ")[0], said[-60:].split(". ")[-1]) if part]

    def holds(source: Item) -> bool:
        words = words_of(source)
        return all(end in words for end in ends)

    if not ends or holds(item):
        return ""
    return next((other.id for other in story if holds(other)), "")


# A list item's marker, which the sentence split leaves out of the sentence it opens.
LIST_MARKER = re.compile(r"(?m)^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")


class Adjacency:
    """Whether the texts write one sentence right after another: as consecutive sentences of one of
    them, or with only blanks (and list markers) between their words, as where a lead-in ("Root
    cause:") the sentence split kept is cut off by the field that quotes its sentence."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.pairs: set[tuple[str, str]] = set()
        self.flat: list[str] = []
        for text in texts:
            found = sentences(text)
            self.pairs.update(zip(found, found[1:], strict=False))
            self.flat.append(" ".join(LIST_MARKER.sub("", text).split()))

    def __call__(self, first: str, second: str) -> bool:
        if (first, second) in self.pairs:
            return True
        run = f"{' '.join(first.split())} {' '.join(second.split())[:60]}"
        return any(run in text for text in self.flat)


def words_of(item: Item) -> str:
    parts = [item.title, item.body, *(comment.body for comment in item.comments)]
    return " ".join(" ".join(part.split()) for part in parts if part)


def first(found: Iterable[str], limit: int, exclude: str = "") -> list[str]:
    """The first `limit` distinct sentences not already used in `exclude` (a sentence shortened with
    an ellipsis is used where its words before the cut are)."""
    chosen: list[str] = []
    for sentence in found:
        if sentence not in chosen and sentence.removesuffix("…") not in exclude:
            chosen.append(sentence)
        if len(chosen) == limit:
            break
    return chosen


def prose_opening(body: Body) -> str:
    """The sentences of the description's opening (`summarise`) before its first list item or the
    first that says what the change does (a change log written without list marks); empty when it
    opens with either."""
    told, prose = summarise(body), summarise(body, lists=False)
    kept: list[str] = []
    # `summarise` keeps lines without a stop apart by "; " (`join_sentences`): each is read alone.
    for sentence in (part for said in sentences(told) for part in JOINED_LINES.split(said)):
        if sentence not in prose or describes_change(sentence):
            break
        kept.append(sentence)
    return join_sentences(kept)


def summarise(body: Body, lists: bool = True) -> str:
    """The first two sentences of the template's description, else of the body; without `lists`
    its list items are left out (a tracker's list is what it tracks, not what is wrong)."""
    text = section(body, *SUMMARY_SECTIONS) or body.sections.get("", "") or next(iter(body.sections.values()), "")
    for n, candidate in enumerate((text, "\n\n".join(body.sections.values()))):
        if (note := OPENING_NOTE.match(candidate)) and candidate[note.end() :].strip():
            candidate = candidate[note.end() :]  # a note on the report itself, before what it reports
        said = sentences(candidate if lists else LIST_ITEM.sub("", candidate))
        found = [s for s in said if says_something(s) and not run_note(s)]  # a run's note says how a check went
        fence = FENCE.search(candidate)
        opening = candidate[: fence.start()] if fence else candidate
        if found and fence and not any(says_something(s) for s in sentences(opening)):
            # A description whose opening, before its code, states nothing: a remark after the
            # repro ("I can look at it later") is no summary of it, what it shows going wrong is
            # ("I observe a large discrepancy between the CPU and GPU outputs"); only in the
            # description's own section, and never a sentence the capture cut off.
            if n:
                return ""
            if not candidate.rstrip().endswith(FINISHED):
                found = found[:-1]
            seen = next((k for k, s in enumerate(found) if SEEN_WRONG.search(s) and not lead_in(s)), len(found))
            return join_sentences(_closed(found[seen : seen + 2], candidate, lists))
        if found:
            chosen = with_its_list(found[:2], candidate) if lists else found[:2]
            if len(chosen) > 1 and lead_in(chosen[0]) and skips_code(candidate, chosen[0], chosen[1]):
                # What the lead-in introduced (code, a log) is not quoted: the gap is marked.
                chosen = [left_out(chosen[0]), *chosen[1:]]
            return join_sentences(_closed(chosen, candidate, lists))
    return ""


def _closed(chosen: list[str], text: str, lists: bool) -> list[str]:
    """The summary's sentences with a last one that leads in ("Here is the code to reproduce:") followed
    by the list it introduces, or by a mark that what it introduced is left out: a quote that ends in
    a colon points at nothing."""
    if not chosen or not lead_in(chosen[-1]) or chosen[-1].rstrip().endswith("…"):
        return chosen
    listed = with_its_list(chosen[-1:], text) if lists else chosen[-1:]
    return [*chosen[:-1], listed[0] if listed[0] != chosen[-1] else left_out(chosen[-1])]


# How much of a sentence's end (or start) finds it again in its text.
ANCHOR = 30


def skips_code(text: str, first: str, second: str) -> bool:
    """Whether a fenced code block lies between two sentences of `text` (whitespace folded)."""
    flat = " ".join(text.split())
    end = flat.find(" ".join(first.split())[-ANCHOR:])
    start = flat.find(" ".join(second.split())[:ANCHOR], end + 1) if end >= 0 else -1
    return start >= 0 and "```" in flat[end:start]


def says_something(sentence: str) -> bool:
    """A statement rather than a label, a link, a bare reference ("TEST PR: <url>", "Relanding D123"), a
    setup step or an aside of the author's."""
    words = [word for word in URL.sub("", sentence).split() if LETTER.search(word)]
    return (
        len(words) >= SUMMARY_WORDS
        and not REFERENCE_ONLY.match(sentence)
        and not SETUP_STEP.match(sentence)
        and not aside(sentence)
        and not labels_only(sentence)
    )


def labels_only(sentence: str) -> bool:
    """A label of the link or code it is followed by ("Trace for the second run: <url>", "Command
    `make all`"): the few words outside them end on a colon, or are one word without a full stop
    ("The kernel in `a.cu` reads past the end of the tile: <url>" states something first)."""
    said = sentence.rstrip().removesuffix("…").rstrip()
    # a lead-in ("`spin()` fails with:") introduces what follows it, and is read as one (`lead_in`)
    if said.endswith(":") or not ("`" in said or "://" in said):
        return False
    outside = CODE_SPAN.sub(" ", URL.sub(" ", said)).rstrip(" .;,")
    words = [word for word in outside.split() if LETTER.search(word)]
    if outside.endswith(":"):
        return len(words) <= LABEL_WORDS
    return len(words) <= 1 and not said.endswith(("!", "?", "."))


def repeats(sentence: str, title: str | None) -> bool:
    """The sentence opens with the title's words (case and spacing aside)."""
    said, named = (" ".join(text.lower().split()) for text in (sentence, title or ""))
    return len(named.split()) >= SUMMARY_WORDS and said.startswith(named)


def mechanism_sentences(item: Item, body: Body) -> list[str]:
    text = item.body or ""
    found = sentences(text)
    if found and not text.rstrip().endswith(FINISHED):
        found = found[:-1]  # a description that stops mid-sentence was cut: its last words say nothing whole
    # A file named inside a link ("https://…/interpreter.py#L217") marks a sentence about the code only
    # when the sentence states something besides its links: a bare link or a label of one says nothing.
    # A lead-in's colon points at the code or log it introduced, which is not quoted: the gap is marked.
    return [left_out(s) if s.endswith(":") else s for s in found if MECHANISM.search(s) and says_something(s)]


FINISHED = (".", "!", "?", ":", ")", "`", '"', "'", "]", ">", "*")
IMPACT_AGAIN = 200
