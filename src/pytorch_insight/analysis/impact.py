"""The impact of a focus item: the sentences of its story that state what goes wrong and how much,
read from the item, the report a fix closes, and what it tracks; copied, never composed."""

from __future__ import annotations

import re

from pytorch_insight.analysis.causes import CHANGE_REASON, CLOSING_LINE, HARM, SPARED
from pytorch_insight.analysis.change_words import describes_change
from pytorch_insight.headings import ROLE_HEADINGS
from pytorch_insight.pipeline import Assessment
from pytorch_insight.text import CODE_SPAN, aside, bounded, code_only, excerpt, lead_in, parse_body, section, sentences

CHANGES = ("pull_request", "commit")
# Facts whose sentences state the impact: the problem, its measurement, a measured gain.
IMPACT_FACTS = (
    "wrong_result",
    "security",
    "hard_crash",
    "crash",
    "hang",
    "memory",
    "perf_regression",
    "overhead",
    "compile_time",
    "blowup",
    "blocker",
    "measured",
    "gain",
    "scale",
)
SCOPE = re.compile(
    r"\b\d+\s*(?:/\s*\d+\s+|\s(?:of|out of)\s+\d+\s+|\s)(?:\w+\s+)?(?:tests?|test cases|models?|jobs?|workflows?|"
    r"configs?|configurations|parametrizations|users?|ranks?|nodes?|GPUs|benchmarks?|kernels?|shards?)\b",
    re.I,
)
FAILING = re.compile(
    r"\b(?:fail\w*|error\w*|crash\w*|hang\w*|break\w*|broken|affected|regress\w*|end (?:with|in))\b", re.I
)
# In a report, "17/40 models are more than 20% slower" is the breadth of the problem too; a change
# saying so measures its own cost.
WORSE = re.compile(r"\b(?:slower|worse|wrong|incorrect|mismatch\w*)\b", re.I)
# A benchmark table's rows (a measurement's sentence may be one): which row shows harm, the table
# does not say in words, and PRs often add one to show that nothing got slower.
TABLE_BARS = 3

# "..., causing all later CUDA calls to fail": the clause of a sentence that states what a failure
# leads to, quoted from its marker on when it names harm.
CONSEQUENCE = re.compile(
    r"\b(?:causing|leading to|resulting in|which (?:causes|caused|leads to|led to|results in|resulted in)|"
    r"as a result,?|this (?:causes|caused|leads to|led to|results in))\s+",
    re.I,
)

# An opening states a wrong result in more words than HARM's: "silently overwrites", "output is
# inconsistent with eager", "produces numerically different results".
OPENING_HARM = re.compile(
    rf"{HARM.pattern}|\bsilently\b|\binconsistent\b|\bdiffer(?:s|ent)?\s+(?:from|results?|outputs?|values?)\b|"
    # "the write does nothing on a view", "the argument is silently ignored": an effect lost
    r"\b(?:does|do|did) nothing\b|\b(?:has|have|had) no effect\b|\b(?:is|are|was|were|gets?) (?:silently )?ignored\b|"
    # "kills the process", "terminates the interpreter": a crash in other words
    r"\b(?:kill|terminat)\w*\s+(?:the\s+|its\s+)?(?:python\s+)?(?:process|interpreter|job|worker)s?\b",
    re.I,
)
EXPLAINS = re.compile(r"\b(?:because|since|due to)\b", re.I)
# "The error happens inside ...", "This leak happens when ...": harm stated before the sentence.
REFERS_BACK = re.compile(r"\b(?:the|this|that|these|those)\s+$", re.I)

# "The repro now exits cleanly where it previously died with SIGABRT": a change's account of what its
# test shows now, the cure, not the harm.
FIX_RESULT = re.compile(
    r"\bnow\s+(?:\w+\s+)?(?:exits?|pass(?:es)?|works?|succeeds?|runs?|completes?|returns?|matche?s?)\b", re.I
)

# "... to prevent branching causing ...": what follows the marker is kept away, not brought about.
KEPT_AWAY = re.compile(
    r"\b(?:(?:prevent|avoid)\w*\s+(?:[\w-]+\s+){0,3}|"
    # "keeps the grommets so that we don't free one early, which causes a hang": what it no longer does
    r"so (?:that )?(?:we|it|they|users?) (?:don'?t|do not|doesn'?t|does not|no longer|never)(?:\s+[\w-]+){1,5}[\s,]*)$",
    re.I,
)

# "That meant that if we hit errors in production, the process returned 0": harm named only inside a
# condition is supposed, not stated.
CONDITION = re.compile(r"\b(?:if|unless|in case|whenever)\b[^,;.]*", re.I)

# `join_sentences` keeps lines without a stop apart by "; " ("Pad the header; Check the size").
JOINED_LINES = re.compile(r"; (?=[A-Z])")
# A sentence its author led with the impact's name ("Observable effect: ..."): the words after it.
IMPACT_LEAD = re.compile(rf"^(?:{'|'.join(map(re.escape, ROLE_HEADINGS['impact']))})\s*:\s*(?=\S)", re.I)


def impact_sentences(story: list[Assessment]) -> list[str]:
    """The sentences that state the problem and its measurements (the facts' evidence), the worst
    first; an explicit "Impact" section, or a sentence led by "Impact:" / "Observable effect:", wins."""
    for assessment in story:
        explicit = section(parse_body(assessment.item.body), *ROLE_HEADINGS["impact"])
        stated = [s for s in sentences(explicit) if not code_only(s)]
        if stated:
            return stated
    for assessment in story:
        led = [s[lead.end() :] for s in sentences(assessment.item.body or "") if (lead := IMPACT_LEAD.match(s))]
        if led:
            return led
    found = []
    for assessment in story[:1]:  # how many tests, models or jobs fail: the breadth of the problem
        report = assessment.item.kind not in CHANGES
        found += [
            s
            for s in sentences(bounded(assessment.item.body))
            if SCOPE.search(s) and (FAILING.search(s) or (report and WORSE.search(s))) and not supposed(s)
        ]
    # A change's own title says what it changes; the title of a report it fixes says what went wrong,
    # which is the change's impact (a title restates only its own entry).
    fixing = story[0].item.kind in CHANGES
    for assessment in story:
        own_title = assessment.item.title or ""
        for fact in assessment.facts.facts:
            if (
                fact.kind in IMPACT_FACTS
                and fact.source == "text"  # a model's fact quotes the sentence that weighs most, not one that states it
                and (fact.evidence != own_title or (fixing and assessment.item.kind not in CHANGES))
                and _plain(fact.evidence)
                and not aside(fact.evidence)
                and not describes_change(fact.evidence)  # "Disable the fast kernel due to accuracy issues"
                and not supposed(fact.evidence)
                and not (assessment.item.kind in CHANGES and FIX_RESULT.search(fact.evidence))
                and not lead_in(fact.evidence)  # "The crash occurs when running the following:" states it half
            ):
                found.append(fact.evidence)
    return found


def consequence(story: list[Assessment]) -> str:
    """The first clause of the story's descriptions that says what a failure leads to ("causing all
    subsequent CUDA operations to fail"), from its marker on; empty when none names harm. A clause
    that leads in to a log or a listing (ends with ":") states nothing yet, nor one that says why
    something was removed or reverted."""
    for assessment in story:
        for sentence in sentences(bounded(assessment.item.body)):
            marker = CONSEQUENCE.search(sentence)
            if marker is None or "\n" in sentence:
                continue
            because = EXPLAINS.search(sentence, 0, marker.start())
            if because and CHANGE_REASON.search(sentence, 0, because.start()):
                continue  # "We removed it because it was causing failures": harm that is gone with it
            if KEPT_AWAY.search(sentence, 0, marker.start()):
                continue  # "used to prevent branching causing a slowdown": harm a design keeps away
            clause = sentence[marker.start() :].strip()
            harm = HARM.search(clause, marker.end() - marker.start())
            if harm and not SPARED.search(clause[: harm.start()]) and not lead_in(clause):
                return clause
    return ""


# "Fixes `MaxUnpool` crash when input tensors are small", "This PR fixes a few cases where ...
# crashes": a fix's opening that names the harm it removes states that harm, and whom it hits.
FIXED_HARM = re.compile(r"^\W*(?:this (?:pr|change|diff|patch) )?fix(?:es|ed)?\b", re.I)
# "Fix the memory leak shown in <url>": the harm is named and pointed at, not stated; what follows
# it must say when or whom it hits ("... when input tensors are small"). Possessive runs: a run of
# "#1#1..." is read one way only.
POINTER_ONLY = re.compile(
    r"\W*(?:(?:shown|reported|described|seen|mentioned|found|raised|discussed)\s+)?(?:in|at|by|from|on|see)?\s*"
    r"(?:(?:https?://\S++|[\w.-]*+#\d++)\W*+)*+$",
    re.I,
)


def harm_told(summary: str, limit: int, change: bool = False) -> str:
    """The report's opening sentence when it names harm ("compilation fails with a stride validation
    error"): a problem the phrase list has no words for is still stated there, and an empty impact
    beside it reads as missed to every fact-checker. Later sentences guess at causes or say what
    does not fail; an opening that says what a change does is no impact, nor one whose harm is
    named elsewhere ("The error happens inside ..."), only inside code (`leaky_relu`) or only as
    the reason for something else ("This test was disabled because it is failing"). A `change`'s
    opening states harm only as the harm it fixes. A long one is cut around its harm word."""
    parts = JOINED_LINES.split(next(iter(sentences(summary)), ""))
    # the opening is read from its first line that names harm: a line before it may be a heading's
    # words, and that line may itself be an entry of a change log ("Add a test that checks both
    # paths error out"), which says what the change does
    first = next((n for n, part in enumerate(parts) if OPENING_HARM.search(part)), 0)
    opening = "; ".join(parts[first:])
    fixed = FIXED_HARM.match(opening) if change else None
    if change and (fixed is None or CLOSING_LINE.match(opening)):
        return ""
    harm = OPENING_HARM.search(
        CODE_SPAN.sub(lambda span: " " * len(span.group()), opening), fixed.end() if fixed else 0
    )
    if (
        harm is None
        or "\n" in opening
        or SPARED.search(opening[: harm.start()])
        or REFERS_BACK.search(opening[: harm.start()])
        or EXPLAINS.search(opening[: harm.start()])
        or lead_in(opening)
        or (describes_change(opening) and not fixed)
        or (fixed and POINTER_ONLY.match(opening, harm.end()))
    ):
        return ""
    return excerpt(opening, harm.group(0), limit)


def supposed(sentence: str) -> bool:
    """The sentence names harm only inside its conditions ("if we hit errors, ...")."""
    return HARM.search(sentence) is not None and HARM.search(CONDITION.sub(" ", sentence)) is None


def _plain(sentence: str) -> bool:
    """A sentence, not a label, a setting (`key: value`), a table row or a closing reference ("Fixes
    #12 - <the issue's title>", a restatement of the title)."""
    return ":" not in sentence[:12] and sentence.count("|") < TABLE_BARS and not CLOSING_LINE.match(sentence)
