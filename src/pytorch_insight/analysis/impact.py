"""The impact of a focus item: the sentences of its story that state what goes wrong and how much,
read from the item, the report a fix closes, and what it tracks; copied, never composed."""

from __future__ import annotations

import re
from collections.abc import Callable

from pytorch_insight.learn.roles import ROLE_HEADINGS
from pytorch_insight.pipeline import Assessment
from pytorch_insight.text import bounded, parse_body, section, sentences

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
    r"\b\d+\s+(?:of\s+\d+\s+|out of\s+\d+\s+)?(?:\w+\s+)?(?:tests?|test cases|models?|jobs?|workflows?|"
    r"configs?|configurations|parametrizations|users?|ranks?|nodes?|GPUs|benchmarks?|kernels?|shards?)\b",
    re.I,
)
FAILING = re.compile(
    r"\b(?:fail\w*|error\w*|crash\w*|hang\w*|break\w*|broken|affected|regress\w*|end (?:with|in))\b", re.I
)
# A benchmark table's rows (a measurement's sentence may be one): which row shows harm, the table
# does not say in words, and PRs often add one to show that nothing got slower.
TABLE_BARS = 3

# "An example of the error: That meant ...": a lead-in whose example was cut away, run into the
# next sentence, or a lead-in alone ("An example of the segfault on exit:").
LEAD_IN = re.compile(r"\w:\s+[A-Z][a-z]+\s[a-z]|:\Z")
# A sentence its author led with the impact's name ("Observable effect: ..."): the words after it.
IMPACT_LEAD = re.compile(rf"^(?:{'|'.join(map(re.escape, ROLE_HEADINGS['impact']))})\s*:\s*(?=\S)", re.I)


def impact_sentences(story: list[Assessment], stated: Callable[[str], set[str]]) -> list[str]:
    """The sentences that state the problem and its measurements (the facts' evidence), the worst
    first; an explicit "Impact" section, or a sentence led by "Impact:" / "Observable effect:", wins.
    `stated` reads the kinds one sentence states (the fact rules' reading)."""
    for assessment in story:
        explicit = section(parse_body(assessment.item.body), *ROLE_HEADINGS["impact"])
        if explicit and sentences(explicit):
            return sentences(explicit)
    for assessment in story:
        led = [s[lead.end() :] for s in sentences(assessment.item.body or "") if (lead := IMPACT_LEAD.match(s))]
        if led:
            return led
    found = []
    for assessment in story[:1]:  # how many tests, models or jobs fail: the breadth of the problem
        found += [s for s in sentences(bounded(assessment.item.body)) if SCOPE.search(s) and FAILING.search(s)]
    # A change's own title says what it changes; the title of a report it fixes says what went wrong,
    # which is the change's impact (it restates only the report's own entry).
    fixing = story[0].item.kind in CHANGES
    for assessment in story:
        title = assessment.item.title or ""
        for fact in assessment.facts.facts:
            if fact.kind not in IMPACT_FACTS or fact.source != "text":
                continue  # a model's fact quotes the sentence that weighs most for a class, not one that states it
            if fact.evidence == title and not (fixing and assessment.item.kind not in CHANGES):
                # The title alone restates the entry: the description's own sentence stating the same
                # problem says more (where it is, whom it hits, how often).
                said = (
                    s
                    for s in sentences(bounded(assessment.item.body))
                    if _plain(s) and title not in s and not LEAD_IN.search(s.rstrip()) and fact.kind in stated(s)
                )
                found.append(next(said, ""))
            elif _plain(fact.evidence):
                found.append(fact.evidence)
    return [s for s in found if s]


def _plain(sentence: str) -> bool:
    """A sentence, not a label, a setting (`key: value`) or a table row."""
    return ":" not in sentence[:12] and sentence.count("|") < TABLE_BARS
