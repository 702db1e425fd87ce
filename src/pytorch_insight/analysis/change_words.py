"""What a change's description says of itself: what it does, cures, must do or leaves for later,
how the code behaved before it, what it failed to do and how a check of it went.

The root-cause, impact and summary rules all need to tell such sentences from an account of what
goes wrong: "This PR makes the kernel read the stride" is no cause, "the offset was not multiplied
by the element size" in a fix's description is one.
"""

from __future__ import annotations

import re

from pytorch_insight.pipeline.magnitudes import MAGNITUDE
from pytorch_insight.text import in_code_span

# "Avoiding the view for 0-d tensors fixes the issue": what cures it, not what causes it.
FIX_STATEMENT = re.compile(
    r"\b(?:fix(?:es|ed)?|solv(?:es|ed)|resolv(?:es|ed)|avoids?|works? around)\s+"
    r"(?:(?:the|this|that|these)\s+(?:issue|problem|bug|error|crash|failure)s?\b|it\s*(?:[.!,;]|$))",
    re.I,
)
# "a dashboard run shows no regressions", "the suite passes without failures", "the timings stay within
# noise": how a check of the change went (not "the dashboard shows a regression", a problem seen).
RUN_NOTE = re.compile(
    r"\bdashboard (?:runs?|is running)\b|\b(?:no|without|zero)\s+(?:\w+\s+)?(?:regressions?|failures?|slowdowns?)\b|"
    r"\bwithin (?:the )?noise\b",
    re.I,
)
# "Match the reference decomposition by computing ...", "This PR makes ...": the fix's opening says
# what the change does, which is no statement of what was wrong; nor is "we need to special-case
# size 0" (the change to make).
CHANGE_OPENING = re.compile(
    r"^(?:this (?:pr|change|diff|commit|patch)\b|"
    r"this (?:adds|bundles|changes|enables|disables|ensures|extends|fixes|implements|introduces|makes|moves|"
    r"preserves|reintroduces|removes|replaces|restores|switches|updates|uses)\b|"
    # "This is implemented for both backends", "It is now handled in the caller": the change, done
    r"(?:this|it) (?:is|was|has been) (?:now )?(?:implemented|added|done|handled|fixed|addressed)\b|"
    # the author's own account of the change: "I've fixed this by adding ...", "We have added ..."
    r"(?:i|we)(?:'ve| have)?\s+(?:\w+\s+)?(?:fixed|added|changed|updated|implemented|made|moved|replaced|removed)\b|"
    # "By checking dtype first, ...": how the change works
    r"by\s+\w+ing\b|"
    # "Note that this works only for ...": the change's reach
    r"note that this (?:\w+ )?(?:only )?(?:works|applies|covers|handles|supports)\b|"
    r"(?:add|adds|allow|avoid|bump|bundle|cast|change|changes|clamp|compute|delete|disable|drop|enable|ensure|"
    r"expose|extend|fix|fixes|guard|handle|implement|include|introduce|keep|make|makes|match|move|pass|"
    r"preserve|refactor|register|remove|rename|replace|return|revert|set|skip|support|switch|update|upgrade|"
    r"use|uses|wrap|"
    # the same in a description's third person ("Updates the kernels to read the stride"); not the
    # forms a bug report opens with too ("Returns wrong values", "Skips the check")
    r"allows|bumps|disables|enables|ensures|exposes|extends|implements|introduces|moves|refactors|registers|"
    r"removes|renames|replaces|supports|switches|updates|upgrades|wraps)\b)",
    re.I,
)

CHANGE_PLAN = re.compile(
    r"^(?:[^,.;]{0,60},\s*)?(?:we|i) (?:need|needed|have|had|want|wanted) to\b|"
    # "The proposal is to keep a per-device cache", "We propose to ...": the change to make
    r"^(?:the|my|our) (?:proposal|plan|idea|suggestion) (?:here )?(?:is|was) to\b|^(?:we|i) (?:propose|suggest)\b",
    re.I,
)
# In a fix's description, what the code failed to do: "nDims is mutated but never restored", "the
# offset was not multiplied by the element size", "the MPS kernel does not check offsets[0]".
OMISSION = re.compile(
    r"\b(?:(?:is|was|are|were)\s+(?:not|never)|(?:is|was|are|were)\s*n['’]t)\s+(?:being\s+)?"
    r"(?:properly\s+|correctly\s+)?(?!(?:supported|allowed|needed|required|expected|implemented|affected|"
    r"related|tested|covered|planned|guaranteed|recommended|used|called|triggered|changed|enabled|exposed|"
    # "it is not supposed to compute anything": what the design intends, no step the code missed
    r"supposed|meant|designed|intended)\b)"
    r"(?:\w+ed|reset|kept|written)\b|"
    r"\b(?:does|did|do)\s*(?:not|n['’]t)\s+(?:correctly\s+|properly\s+)?(?:check|handle|account for|consider|"
    r"validate|respect|propagate|preserve|restore|reset|initiali[sz]e|synchroni[sz]e|copy|update|clear|release|free|"
    r"include|honou?r|guard|wait for)\b|"
    r"\bnever\s+(?:gets?\s+|got\s+)?(?:restored|reset|freed|released|cleared|initiali[sz]ed|updated|synchroni[sz]ed|"
    r"checked|validated|propagated)\b|"
    r"\b(?:is|was|were|are)\s+missing\b|"
    # "the scheduler reads the stale queue length instead of the current one": what the code does in
    # place of what it should (what it returns instead is the symptom)
    r"\b(?:reports?|uses?|reads?|writes?|computes?|picks?|emits?|reported|used|wrote|written|computed|picked|"
    r"emitted)\b[^.;]{1,80}?\binstead of\b|"
    # "the loader only checked for an empty path", "the copy guarded only on the size": a check that
    # covered one case of several
    r"\b(?:only|just)\s+(?:early[- ]returned|guarded|checked|handled|validated|accepted)\b|"
    r"\b(?:guarded|checked|validated)\s+only\b",
    re.I,
)
# "If true, the allocator will be able to use the pool instead of OOMing", "it can now read the
# cached value instead of ...": what the change lets the code do, not what the code got wrong.
NEW_BEHAVIOUR = re.compile(
    r"\b(?:will|can|could|may|might)\s+(?:now\s+|then\s+|also\s+|instead\s+)?(?:be able to|be allowed to|"
    r"(?:use|read|write|compute|pick|emit|report)\w*\b[^.;]{1,80}?\binstead of)\b|^\W*if (?:true|enabled|set)\b",
    re.I,
)

# In a fix's description, how the code behaved before it: "Previously, the cache key held only the
# device index", "The previous check compared the major version alone": the mechanism the change removes.
PRIOR_BEHAVIOUR = re.compile(
    r"^\W*(?:previously\b|before this (?:pr|change|diff|patch|fix)\b|"
    r"the (?:previous|old|existing|original) (?:\S+\s+){0,5}?(?:was|were|did|would|had|used|only|always|never|"
    r"assumed|called|checked|relied|treated|computed|returned)\b)",
    re.I,
)
# "Previously this would crash", "Previously, the test failed on the second device": the failure itself (its
# symptom), not how it came about; "Previously landed as #12 but reverted": the change's history.
PRIOR_SYMPTOM = re.compile(
    r"^\W*[^,;:]{0,40}?\b(?:(?:would|will|could|can|did)\s+)?(?:crash|fail|break|error|hang|segfault|raise|abort)\w*\b|"
    # "Before this change, EmbeddingBag generated incorrect offsets": the wrong result it gave
    r"\b(?:gave|gives|generated|generates|produced|produces|returned|returns|computed|computes)\s+(?:\w+\s+)?"
    r"(?:incorrect|wrong|invalid|garbage|corrupt\w*|uninitiali[sz]ed|random)\b|"
    r"\b(?:this|it|the test|tests)\s+(?:would|will|could|did|was|were)\b|"
    r"\b(?:revert\w*|reland\w*|landed|merged|attempt\w*|tried|discussed|approved)\b",
    re.I,
)
# "The overhead can potentially be further reduced", "left for a follow-up": what a change leaves for
# later, no account of what was wrong.
FURTHER_WORK = re.compile(
    r"\b(?:can|could|may|might|will)\s+(?:\w+\s+){0,3}?(?:further|later|eventually)\b|"
    r"\b(?:in|as|for) (?:a )?follow[- ]?ups?\b|\bfuture (?:work|prs?|changes?)\b",
    re.I,
)
# "... is not needed anymore", "no longer": what the change makes unnecessary, not what was wrong.
NOT_DONE = re.compile(r"\b(?:anymore|any more|no longer|after this (?:pr|change)|with this (?:pr|change)|now)\b", re.I)

# "Using 1000 DTensors, torch.stack takes 17s whereas torch.cat takes 0.1s": two figures side by side
# measure how bad the problem is; they say nothing of how it comes about.
MEASUREMENT_FIGURES = 2


def measures(sentence: str) -> bool:
    """The sentence reports figures (a timing against another, a before and an after)."""
    return len(MAGNITUDE.findall(sentence.lower())) >= MEASUREMENT_FIGURES


def describes_change(sentence: str) -> bool:
    """The sentence says what a change does or cures, must do or leaves for later, not what goes wrong."""
    plain = sentence.lstrip("[]`*# ")
    return bool(
        CHANGE_OPENING.match(plain)
        or CHANGE_PLAN.match(plain)
        or FURTHER_WORK.search(plain)
        or FIX_STATEMENT.search(plain)
    )


def omission(sentence: str) -> bool:
    """A fix's description names what the code failed to do ("the offset was not multiplied by the
    element size", "never restored"), which is the mechanism the fix removes; not the change itself,
    nor a program's message it quotes (`NameError: name 'x' is not defined`)."""
    in_code = in_code_span(sentence)
    return (
        any(not in_code(found.start()) for found in OMISSION.finditer(sentence))
        and not describes_change(sentence)
        and not NOT_DONE.search(sentence)
        and not NEW_BEHAVIOUR.search(sentence)
    )


def prior_behaviour(sentence: str) -> bool:
    """A fix's description says what the code did before the change (the mechanism it removes), not
    the failure that followed from it nor the change's own history."""
    return PRIOR_BEHAVIOUR.match(sentence) is not None and not prior_symptom(sentence) and not NOT_DONE.search(sentence)


def prior_symptom(sentence: str) -> bool:
    """A fix's description says how the code failed before it ("Before this change, the loader
    returned wrong shapes"): the symptom, not how it came about."""
    lead = PRIOR_BEHAVIOUR.match(sentence)
    return lead is not None and PRIOR_SYMPTOM.search(sentence[lead.end() :]) is not None


def run_note(sentence: str) -> bool:
    """The sentence reports how a check of the change went ("dashboard run here w/ no regressions"):
    a note on the change's testing, no account of the problem."""
    return RUN_NOTE.search(sentence) is not None
