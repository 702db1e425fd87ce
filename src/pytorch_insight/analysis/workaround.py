"""A workaround the thread states: under its own heading, named as one, or told as a change of the
reporter's that keeps the problem away ("calling `synchronize()` first prevents the hang", "it works
fine when the batch is split in two"). Copied, never composed."""

from __future__ import annotations

import re

from pytorch_insight.analysis.causes import HARM
from pytorch_insight.analysis.lists import with_its_list
from pytorch_insight.headings import ROLE_HEADINGS
from pytorch_insight.text import FENCE, REQUEST, Body, join_sentences, lead_in, parse_body, section, sentences

WORKAROUND = re.compile(
    r"\b(?:work-?around|work around|as a temporary (?:fix|solution)|in the meantime|"
    # "You can use <url>" alone points at a tool (a benchmark script), not at a way around the problem
    r"you can (?:set|disable|use|pass)(?!\s+<?https?://\S+\s*$)|mutes? (?:this|the) (?:issue|problem)|"
    r"avoids? (?:this|the) (?:issue|problem)|makes? (?:it|the (?:issue|problem)) go away)\b",
    re.I,
)
# A sentence opening on something the user does, whose effect is that the problem stays away.
USER_CHANGE = re.compile(
    r"^\W*(?:(?:also|however|but|and|alternatively),?\s+)?"
    r"(?:removing|using|setting|disabling|enabling|switching|replacing|adding|wrapping|surrounding|"
    r"calling|passing|reducing|increasing|installing|downgrading|pinning|reverting|moving|running|casting|"
    r"converting|changing|turning (?:off|on)|commenting out)\b(.{0,120}?)\b(?:avoids?|prevents?|eliminates?|"
    r"fixes|resolves?|works? around|gets? rid of|circumvents?|bypass(?:es)?|makes? (?:it|them) (?:work|pass)|"
    # "pinning the older kernel returns correct values", "calling `.contiguous()` first restores correct output"
    r"(?:gives?|returns?|restores?) (?:correct\w*|the (?:correct|right|expected))|makes? the tests? pass|"
    # "disabling the rewrite makes compiled output match eager"
    r"makes? (?:the )?(?:compiled )?(?:outputs?|results?|values?) (?:match|agree)\w*)\b",
    re.I,
)
# "The leak does not occur with a single worker", "the kernel runs correctly with a padded input",
# "the same model works with the `debug` backend", "the reference backend produces correct results",
# "the error goes away without the flag", "it works again after downgrading to the older release".
STAYS_AWAY_IF = re.compile(
    r"\b(?:does not|doesn't|do not|don't|did not|didn't) (?:happen|occur|reproduce|crash|fail|hang)\w* "
    r"(?:if|when|with(?:out)?|after|once)\b|"
    r"\b(?:goes|go|went) away (?:if|when|with(?:out)?|after|once|by)\b|"
    r"\b(?:is|are|was|were) gone (?:if|when|with(?:out)?|after|once|by)\b|"
    # "the export succeeds when the graph cache is disabled"
    r"\b(?:works?|runs?|passes|succeeds?) (?:again |fine |correctly )?(?:if|when|once) (?:\S+ ){0,6}?(?:is|are) "
    r"(?:disabled|enabled|turned off|turned on|removed|unset)\b|"
    # "both reference backends work"
    r"\bbackends? (?:works?|runs?|pass(?:es)?|(?:gives?|returns?) (?:the )?correct)\b|"
    r"\b(?:works?|worked|runs?|passes) (?:again |fine |correctly )?after (?:downgrading|reverting|pinning|"
    r"rolling back|switching|installing)\b|"
    r"\b(?:is|are|works?|runs?|passes) (?:fine|correct(?:ly)?|ok(?:ay)?|as expected) (?:with|when|if|after|once|on)\b|"
    r"\b(?:works?|runs?|passes|succeeds?) (?:fine |correctly )?(?:with|under|using) (?:the )?\S+ backend\b|"
    r"\bbackend (?:produces|gives|returns) (?:the )?(?:correct|right|expected)\b|"
    # "Each of these makes the result correct", "half-precision inputs allow the kernel to run correctly"
    r"\bmakes? (?:it|the (?:results?|outputs?)) (?:exactly |numerically )?(?:correct|match)\b|"
    r"\b(?:allows?|lets?) (?:\S+ ){1,4}?to (?:execute|run|work|compile|pass|finish)\w* "
    r"(?:correctly|fine|as expected)\b|"
    # "Remove the scale tensor from the region's inputs and everything compiles."
    r"^\W*(?:remove|drop|disable|enable|set|use|pass|call|add|wrap|replace|switch|downgrade|pin|move|cast)\b"
    r"[^.;]{0,150}\band (?:it|everything|the (?:model|code|script|program|test)) (?:works|compiles|runs|passes)\b",
    re.I,
)
# "With `cache_size = 0` it's right", "Without the flag everything passes": the change named first, then
# the problem gone.
CONDITION_FIRST = re.compile(
    r"^\W*(?:(?:but|and|however|also),?\s+)?with(?:out)?\s+(?P<change>(?:`[^`\n]{0,100}`|[^,.;`\n]){1,120}?),?\s+"
    r"(?:it|this|everything|the (?:output|result|model|code|test|program)s?)\s*"
    r"(?:(?:is|'s|are|was)\s+(?:fine|correct|right|ok(?:ay)?)|works?|passes|succeeds?)\b",
    re.I,
)
# Words after "works fine after" / "is correct with" that name the change itself ("downgrading to
# the previous release").
CHANGE_WORDS = 2
# "..., which was the usual workaround for the slow 3-D kernel": the failing code is itself a way
# around another limit, which tells why users write it, not how to avoid the failure.
ANOTHER_LIMIT = re.compile(
    r"\bwhich (?:is|was) (?:a |an |the )?(?:\w+ )?work-?around\b|\bwork-?around (?:given|because of|due to)\b", re.I
)
# "runs fine on the previous release but OOMs at once on the new one": fine in one setting and failing in the other is
# the problem stated as a comparison (a regression), not a way around it.
CONTRAST = re.compile(rf"\b(?:but|while|whereas)\b[^.;]*?(?:{HARM.pattern})", re.I)
NEGATION = re.compile(r"\b(?:not|never|no longer|neither|nor)\b|n't\b", re.I)
NEGATION_REACH = 16  # characters before a "works fine with" that can deny it ("doesn't work fine with")


def find_workaround(bodies: list[Body], reports: list[Body], thread: list[str]) -> tuple[str, str]:
    """A workaround sentence and, when the same text offers one, the code block that goes with it."""
    for body in bodies:
        explicit = section(body, *ROLE_HEADINGS["workaround"])
        if explicit and sentences(explicit):
            blocks = parse_body(explicit).code_blocks
            return join_sentences(sentences(explicit)[:2]), blocks[0] if blocks else ""
    texts = ["\n\n".join(body.sections.values()) for body in reports] + thread
    # A workaround named as one anywhere in the thread goes before a change that only keeps the
    # problem away.
    for text in texts:
        for sentence in sentences(text):
            if names_workaround(sentence):
                return sentence, _code_after(text, sentence)
    for text in texts:
        for sentence in sentences(text):
            if keeps_problem_away(sentence):
                return sentence, _code_after(text, sentence)
            if told := lead_in_workaround(sentence, text):
                return told, ""
    return "", ""


def lead_in_workaround(sentence: str, text: str) -> str:
    """A lead-in that keeps the problem away: "It works fine after downgrading to the previous
    release:" states the change before the colon (what follows shows it working); "The same script is correct with:"
    states it only in the list below, which is quoted with it (without one it says nothing)."""
    if not lead_in(sentence):
        return ""
    said = sentence.rstrip().removesuffix(":")
    if not keeps_problem_away(said):
        return ""
    away = STAYS_AWAY_IF.search(said) or USER_CHANGE.search(said)
    if away is not None and len(said[away.end() :].split()) >= CHANGE_WORDS:
        return said
    listed = with_its_list([sentence], text)[0]
    return listed if listed != sentence else ""


# "Found one workaround for you.", "Here is a workaround:": it announces one, the next words give it.
ANNOUNCED = re.compile(
    r"^\W*(?:(?:i|we)(?:'ve| have)?\s+found|found|there(?:'s| is)|here(?:'s| is)|i have|we have)\s+"
    r"(?:one|a|an|the)?\s*(?:possible\s+|simple\s+|temporary\s+|quick\s+)?work-?around(?:\s+for\s+(?:you|now))?\W*$",
    re.I,
)


# "…called with no workspace, from an old INT8 workaround": a workaround in the code's history, which
# explains the code; none a user can apply.
IN_THE_CODE = re.compile(
    r"\b(?:old|older|previous|existing|legacy|earlier|former)\s+(?:\S+\s+){0,2}work-?arounds?\b", re.I
)


# "...and they would like to know when they can drop their workaround": someone else's workaround,
# named and not told; kept when the words go on to say what it is ("their workaround is to pin the
# older wheel").
NOT_TOLD = re.compile(r"\b(?:their|its|his|her)\s+work-?arounds?\b(?!\s*(?::|(?:is|was)\s+(?:to\b|\w+ing\b)))", re.I)


def names_workaround(sentence: str) -> bool:
    return (
        bool(WORKAROUND.search(sentence))
        and not IN_THE_CODE.search(sentence)
        and not NOT_TOLD.search(sentence)
        and not REQUEST.search(sentence)
        and not ANOTHER_LIMIT.search(sentence)
        and not ANNOUNCED.match(sentence)
    )


def keeps_problem_away(sentence: str) -> bool:
    """A reporter's change after which the problem is gone, stated, not asked about (a question, a
    request, a denial or a sentence leading into a list is none)."""
    if "\n" in sentence or "?" in sentence or lead_in(sentence) or REQUEST.search(sentence):
        return False
    change = USER_CHANGE.search(sentence)
    if change:
        return not NEGATION.search(change.group(1))
    if first := CONDITION_FIRST.match(sentence):
        named = first.group("change")
        return not (NEGATION.search(named) or ELSEWHERE.match(named) or CONTRAST.search(sentence, first.end()))
    away = STAYS_AWAY_IF.search(sentence)
    return (
        bool(away)
        and not NEGATION.search(sentence[max(0, away.start() - NEGATION_REACH) : away.start()])
        and not CONTRAST.search(sentence, away.end())
        and not ELSEWHERE.match(sentence, away.end())
    )


# "This does not occur with CUDA", "doesn't happen with non-subclassed tensors": where else the
# problem is absent says how far it reaches (another device, another kind of tensor), not what a
# user can change to keep it away.
ELSEWHERE = re.compile(r"\s*(?:the\s+|a\s+|an\s+)?(?:cuda|cpu|mps|xpu|rocm|gpus?|non-|plain\b|regular\b|other\b)", re.I)


def _code_after(text: str, sentence: str) -> str:
    """The code block that follows a workaround sentence within a few lines, if any: right after it,
    or after it leads in to one. A block another sentence introduces ("Common test pattern:") is that
    sentence's, often the failing code itself."""
    anchor = text.find(sentence[:40])
    if anchor < 0:
        return ""
    rest = text[anchor : anchor + len(sentence) + 400]
    block = FENCE.search(rest)
    # a block the window cuts before its closing fence is not quoted as if it ended there
    if block is None or not block.group(0).rstrip().endswith("`"):
        return ""
    between = sentences(rest[: block.start()])
    return block.group("code").strip() if len(between) <= 1 or lead_in(sentence) else ""
