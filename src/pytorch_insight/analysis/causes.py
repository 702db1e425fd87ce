"""Root causes: the sentences of a story that explain a failure's mechanism, and only those.

A sentence is a candidate when its author put it under a "Root cause" / "Cause" / "Why" heading,
when it carries a causal marker ("because", "due to", "the reason is" ...), or when the next
sentence says it brings harm about ("This leads to incorrect outputs"). A marker alone proves
little: "because no error is raised, this silently corrupts ..." states an impact, "we removed it
because it caused more harm than good" gives the reason for a change, "originally it seemed to be
caused by X" a guess the author dropped. Such candidates are left out, and a candidate found by a
marker alone becomes a root cause only when the sentence-role model does not read it as another
role (a false cause is worse than none).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pytorch_insight.analysis.change_words import describes_change, omission, prior_behaviour, prior_symptom
from pytorch_insight.analysis.lists import without_lists_after
from pytorch_insight.analysis.roles import RoleModel
from pytorch_insight.headings import ROLE_HEADINGS
from pytorch_insight.text import REQUEST, Body, code_only, lead_in, section, sentences

# ", which causes the OOM", ", leading to skipped rows": what comes before is the mechanism, what
# follows the marker the effect.
EFFECT = r",\s*(?:which (?:causes|caused|leads to|led to|results in|resulted in)|leading to|resulting in|causing)"
ROOT_CAUSE = re.compile(
    r"\b(?:root cause|caused by|because|due to|the (?:issue|problem|bug) (?:is|was) that|"
    r"this happens (?:when|because)|the (?:reason (?:why )?|cause )(?:is|was)|stems from|originates (?:from|in)|"
    r"(?:crash|error|failure|bug|problem|issue|segfault|hang)\w* comes? from|"
    rf"{EFFECT}|"
    # "the underlying problem is ...", not "the underlying problem persists" (which names none)
    r"the (?:underlying|real|actual) (?:issue|problem|cause|bug)"
    r"(?=\s*(?:is|was|seems|seemed|appears|appeared|lies|lay|here|:))|"
    # "The fused bias path is the problem.": a named part blamed, the sentence's whole point
    r"(?<!\bthis )(?<!\bthat )(?<!\bit )(?<!\bwhich )(?:is|was|seems to be|appears to be) the "
    r"(?:culprit|problem)(?=\W*$)|"
    # a regression's cause is the change that brought it
    r"bisect\w*\s+(?:\w+\s+)?(?:to|down to)|introduced (?:in|by) (?:pr |commit )?#?\d+|"
    r"(?:regress\w*|broke|broken) (?:in|by|since|after) (?:pr |commit )?#\d+)\b",
    re.I,
)
EFFECT_MARKER = re.compile(EFFECT, re.I)
# The markers that explain anything at all, and the verbs of failing that make them explain a failure
# ("The error occurs because ...").
PLAIN_MARKER = re.compile(r"because|due to", re.I)
OCCURS = re.compile(r"\b(?:happens?|happened|occurs?|occurred|arises?|fails?|failed|crash\w*|hangs?)\s+$", re.I)
# Words that name harm: a failure, wrong values, a slowdown, a leak.
HARM = re.compile(
    r"\b(?:fail\w*|errors?|crash\w*|hang\w*|deadlock\w*|corrupt\w*|wrong|incorrect\w*|nans?|slow\w*|leak\w*|ooms?|"
    r"out of memory|abort\w*|segfault\w*|illegal|mismatch\w*|diverg\w*|garbage)\b",
    re.I,
)
# "resulting in fewer failures": harm avoided, which is a gain.
SPARED = re.compile(r"\b(?:fewer|less|no|not|\w+n't|without|avoid\w*|prevent\w*)(?:\s+\S+){0,2}\s*$", re.I)
# "The old code picked the kernel from the first tensor's type. This leads to incorrect outputs ...":
# a sentence the next one names as what brings the harm about states the mechanism.
LEADS_TO_HARM = re.compile(
    r"^\W*(?:this|that|which|it)\s+(?:(?:then|in turn|eventually|can|could|may|will|would)\s+)?"
    r"(?:leads?\s+to|led\s+to|causes?|caused|results?\s+in|resulted\s+in)\b",
    re.I,
)
# A cause stated inside the summary's own sentence is given as its clause ("... because X"), so the
# root cause says what the summary does not.
CAUSE_CLAUSE_WORDS = 2
# "…, including the smallest inputs, which crash in the kernel because …": a marker inside a relative
# clause explains what that clause tells, one case of the problem; the summary's problem keeps its cause.
SIDE_CLAUSE = re.compile(r",\s*(?:which|where|whereupon)\b[^,;:.]*$", re.I)
# "I'm guessing that it was disabled because ...", "the suspicion that X might be the root cause": a
# guess, given without its hedge once quoted as a clause.
GUESSED = re.compile(
    r"\b(?:i'?m guessing|i guess|i suspect|my guess|my hunch|presumably|i think|i believe|suspicion|speculat\w*|"
    # "it would have been skipped anyway due to X": what would follow in a case that did not arise
    r"(?:might|may|could|would) (?:be|have been))\b",
    re.I,
)
# "Because then the build can use newer compilers": why one choice beats another (its benefit), not why
# something fails.
BENEFIT_REASON = re.compile(r"^because (?:then|that way|this way)\b", re.I)
# "originally it seemed to be caused by X. However, the underlying issue ...": a cause the author let go.
ABANDONED = re.compile(r"\b(?:originally|initially|at first|we thought|I thought)\b", re.I)
# "is not caused by X", "not due to", "isn't because": a cause ruled out, not one named.
NEGATED_CAUSE = re.compile(r"\b(?:not|never|n't|no longer)\s+(?:\w+\s+)?$", re.I)
# "shares its root cause with #N", "#N is another manifestation of the same root cause": a pointer
# to another thread, which names the cause there.
POINTER_CAUSE = re.compile(
    r"\b(?:shares?\s+(?:its\s+|the\s+|a\s+)?root cause|same\s+root cause|counterpart of\s+#\d+)\b", re.I
)
# "The error is caused by <a link to some lines of code>.": the cause pointed at, not named in words. A
# reference to an issue or PR ("caused by #N", or its URL) names the change that brought it and is kept.
LINK_CAUSE = re.compile(r"\W*+https?://(?![^\s;,]*/(?:issues|pull)/\d)[^\s;,]++\s*+(?:[;.,]|$)")
# "The grommet counter incorrectly wra…": a sentence its capture cut this early names no cause.
CUT_WORDS = 6


def cut_short(sentence: str) -> bool:
    return sentence.endswith("…") and len(sentence.split()) < CUT_WORDS


# A line that is only a link (to the lines of code at fault, under a "Root cause" heading): it points,
# the words around it tell.
BARE_LINK = re.compile(r"\W*+https?://\S++\W*+$")
# "Root cause and notes", "Root cause analysis" on a line of its own: a label over what follows.
CAUSE_LABEL = re.compile(
    r"^\W*root[ -]causes?(?:\s*+(?:[+&/,-]|and|analysis|summary|rationale|details|notes?|explanation|"
    r"discussion|investigation))*+\W*$",
    re.I,
)
# "I do not know where to start to isolate the root cause", "the cause is still unclear": a cause
# the author has not found.
UNKNOWN_CAUSE = re.compile(
    r"\b(?:(?:do|does|did)\s*n[o']t\s+know|no idea|not sure|unsure|unclear|unknown|yet to|still investigating|"
    r"trying to (?:find|figure out|isolate|understand))\b",
    re.I,
)
NOT_A_FAILURE = re.compile(r"\b(?:unaffected|not affected|works (?:fine|correctly)|is (?:fine|safe|correct))\b", re.I)
# "This is surprising because create_graph=True asks for ...", "it should work because ...": why
# the reporter expected otherwise, not why it fails.
EXPECTATION = re.compile(
    r"\b(?:surpris\w*|unexpected\w*|counter-?intuitive|confusing|strange|weird|"
    r"(?:is|was|seems|seemed|looks|looked) (?:\w+ )?odd|"
    r"(?:should|ought to) (?:(?:\w+ ){0,2}(?:work|succeed|pass|be fine|be allowed)|not (?:fail|crash|error|raise)))\b",
    re.I,
)
# "the tests require a hefty amount of memory due to ...": why the tests cost what they do.
TEST_COST = re.compile(r"\btests?\s+(?:\w+\s+)?(?:require|requires|need|needs|take|takes|use|uses)\b", re.I)
# "because test_x requires two GPUs and was not run on such a runner", "I am no longer able to
# repro it ... because": why the tests missed it, or a reading of a state that no longer fails.
MISSED_BY_TESTS = re.compile(
    r"\btest\w*\b[^.;]{0,80}?\b(?:was|were|is|are)\s*(?:not|never|n['’]t)\s+(?:\w+\s+)?(?:run|executed|enabled|caught)\b|"
    # "the tensors used in the test case hold one value, so it returns correct results even if ...":
    # why the tests passed over the bug
    r"\btest(?:s| cases?)?\b[^.;]{0,120}?\b(?:pass\w*|correct\w*|succeed\w*)\b[^.;]{0,40}?\beven (?:if|though|when)\b|"
    r"\b(?:no longer|not|unable to|can['’]?t|cannot|couldn['’]?t)\s+(?:be\s+)?(?:able\s+to\s+)?repro(?:duce)?\b",
    re.I,
)
# "nn.Linear hits it the same way, because it calls F.linear": why others are hit too (the
# failure's reach), not what goes wrong.
HIT_TOO = re.compile(
    r"\b(?:hit|hits|affected|affects|fail|fails|break|breaks)\b[^.;]{0,30}?\b(?:the same way|as well|too)\b|"
    r"\balso (?:hit|hits|affected|fail|fails|break|breaks)\b",
    re.I,
)
# "We had to remove it because ...", "reverted this because ...": why the authors changed something,
# not why the failure happens.
CHANGE_REASON = re.compile(
    r"\b(?:remov|revert|disabl|drop|delet|skipp|rolled back|roll back|deprecat)\w*\b[^.;:]{0,25}$", re.I
)
# "We pin the older release on our laptops because the new wheels are too large", "filing this as a bug
# because": why the author chose or files something; a failure said in between ("we run it on 8 GPUs
# and it crashes because") keeps its cause.
CHOICE_REASON = re.compile(
    r"(?:\b(?:i|we)\s+(?:use|run|prefer|want|need|chose|choose|opted)|\b(?:reporting|filing|opening|raising)\s+"
    r"(?:this|it))\b[^.;:]{0,60}$",
    re.I,
)
# "Adding .contiguous() does not prevent the crash because ...": why an attempt did not help, not
# what goes wrong.
ATTEMPT_FAILED = re.compile(
    r"\b(?:does|do|did)(?:\s+not|n['’]t)\s+(?:prevent|avoid|fix|help|solve|change|stop)\b", re.I
)
# "Filing it as a bug because the minimized case shows ...": why the author believes something, the
# evidence, not the mechanism.
EVIDENCE_CLAUSE = re.compile(
    r"^(?:because|due to)\s+(?:the|this|that|my|our|a|an)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:shows?|showed|demonstrates?|indicates?|suggests?|proves?|confirms?)\b",
    re.I,
)
# "I could not verify the overhead due to hardware limitations": why the author could not check
# something, not why the failure happens.
UNVERIFIED = re.compile(
    r"\b(?:could not|couldn't|can't|cannot|unable to|did not|didn't|was not able to)\s+(?:\w+\s+){0,2}"
    r"(?:verify|test|check|measure|benchmark|confirm|run)\b",
    re.I,
)
# "the assert trips on ranks 1-3 because the gather left out unchanged": why a check fails is what
# the bug does (its symptom), not its mechanism.
CHECK_FAILS = re.compile(r"\b(?:assert\w*|comparisons?|allclose)\b[^.;]{0,40}?\b(?:fail\w*|trip\w*|fire\w*)\b", re.I)
# "cpp_prefix.h — added the guard to the combine, which is the actual root cause": a change log's
# line, which says where a change was made, not why the failure happens.
CHANGE_LOG_LINE = re.compile(
    r"^\W*[\w/.-]+\.(?:py|pyi|h|hpp|c|cc|cpp|cu|cuh|mm|m|metal|yaml|yml|txt|md|toml|json)\b\s*(?:[—–:(-]|\bis\b)"
)
# "A hang here is worse than a crash, because no log gets written": why a failure is bad (its
# weight), not how it comes about.
WHY_IT_MATTERS = re.compile(
    r"\b(?:worse|better|more (?:serious|severe|dangerous|harmful)|(?:so |especially |particularly )?bad|harmful|"
    # "That matters because ...": why it is of consequence, once the cause is told
    r"annoying|problematic|important|significant|matters?)\b[^.;:]{0,25}$",
    re.I,
)
# "Fixes #123 - <the title>": a closing reference, which names the problem, not its cause.
CLOSING_LINE = re.compile(r"^\W*(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\b[\s:*]*(?:[\w.-]+/[\w.-]+)?#\d+", re.I)
# "... is wrong because it also includes the masked rows": what the wrong output holds (the symptom
# again), not how it comes about.
RESULT_CLAUSE = re.compile(
    r"^(?:because|since)\s+(?:it|they|the (?:output|result|value|tensor)s?)\s+(?:also\s+|still\s+|now\s+)?"
    r"(?:includes?|contains?|has|have|holds?|returns?|shows?|gives?)\b",
    re.I,
)
# "The job aborts due to a segmentation fault": the failure named again (a symptom), not how it comes about.
SYMPTOM_CLAUSE = re.compile(
    r"^(?:due to|because of|caused by)\s+(?:an?\s+|the\s+)?(?:segmentation faults?|segfaults?|crash(?:es)?|"
    r"errors?|exceptions?|failures?|timeouts?|ooms?|out of memory|sigsegv|sigabrt|illegal memory access)\b",
    re.I,
)
# "Compilation failed (Code=2) due to an interrupted connection", "RuntimeError: ... because ...": a
# program's message copied without quotes, whose causal word is the program's, not the author's account.
LOG_TEXT = re.compile(r"\b(?i:code|errno|status)\s*=\s*-?\d+|\b[A-Z]\w*(?:Error|Exception):\s")
# "Because no error is raised, ...": why a failure goes unnoticed (its impact), not its mechanism.
SILENT_CLAUSE = re.compile(
    r"^(?:because|due to)\s+(?:there is\s+|there's\s+)?(?:no|nothing)\s+(?:\w+\s+){0,2}"
    r"(?:error|errors|warning|warnings|exception|check|checks)\b",
    re.I,
)
# "slower due to `foo_backward` consuming ~70% of training time": where the time goes, a profile's
# reading of the symptom, not why that part is slow.
TIME_SHARE = re.compile(
    r"^(?:because of|because|due to)\s[^.;]{0,80}?\b(?:consum|tak|spend|account)\w*\s+(?:for\s+)?"
    r"(?:about\s+|around\s+|~\s*)?\d+(?:\.\d+)?\s*%\s+of\b",
    re.I,
)
# "The run failed due to a lint issue, fixed the formatting": why a change's own checks went red,
# the change's housekeeping, no failure of the code it is about.
HOUSEKEEPING = re.compile(
    r"^(?:because of|because|due to)\s+(?:an?\s+|the\s+|some\s+)?(?:\w+\s+)?"
    r"(?:lint\w*|formatting|flaky|flakiness|unrelated|infra(?:structure)?|merge conflicts?|rebase)\b",
    re.I,
)
# "We intentionally ignore X, because ...", "by design, because ...": the reason for a choice the
# authors made, no failure's cause.
DESIGN_CHOICE = re.compile(
    r"\b(?:intentional(?:ly)?|deliberate(?:ly)?|on purpose|purposely|by design|"
    r"(?:we|i) (?:chose|choose|decided|opt(?:ed)?) to|"
    # "Templatization is used to prevent branching causing a slowdown": the harm a design keeps away
    r"(?:is|are|was|were) (?:being )?(?:used|added|kept|chosen) to (?:prevent|avoid))\b",
    re.I,
)
# "Because it still makes sense to run the dense kernel ...", "because this is simpler": why a
# choice is sound, not why anything fails.
JUSTIFICATION = re.compile(
    r"^(?:because|due to)\s+(?:it|this|that|doing so)\s+(?:still\s+|also\s+|just\s+)?"
    r"(?:makes?\s+(?:more\s+)?sense|(?:is|would be|will be)\s+(?:\w+\s+)?(?:simpler|cleaner|easier|safer|cheaper|"
    r"faster|better|more (?:efficient|robust|general|consistent|readable))|"
    r"keeps?\s+(?:\w+\s+)?(?:simple|consistent))\b",
    re.I,
)
# "If the model is CPU-only, the correct kernel is generated.": the case that works, said beside the
# failure; a sentence the next one names as bringing harm about is its mechanism only when it says
# something goes wrong.
CORRECT_OUTCOME = re.compile(
    r"\b(?:correct|right|expected|proper)\s+(?:[\w-]+\s+){0,3}?(?:is|are|was|were|gets?|got)\s+(?:\w+\s+)?"
    r"(?:generated|produced|returned|used|called|chosen|picked|emitted|computed|selected)\b|"
    r"\b(?:works?|worked|runs?|ran|passe?s|passed)\s+(?:fine|correctly|as expected)\b",
    re.I,
)
NEGATED = re.compile(r"\b(?:not|never|no|\w+n['’]t|incorrect\w*|wrong)\b", re.I)
# The role model's agreement with a candidate found by a marker alone: it must not read the sentence
# as a role that states no cause (what happens, what is expected, how it was tested) with at least
# this probability. Chosen on the tuned weeks of the field-truth benchmark.
OTHER_ROLE = 0.5
NOT_CAUSE_ROLES = ("impact", "expected", "actual", "repro", "test_plan", "versions", "summary")


# "This PR reuses the workspaces for the following benefits:": the list it leads in to says what a
# change brings, and a "due to" in it explains a difficulty the change gets around, no failure.
BENEFITS = re.compile(r"\b(?:benefits?|advantages?|pros|upsides?|improvements?)\b", re.I)


def root_cause_sentences(bodies: list[Body], thread: list[str], changes: Sequence[bool] = ()) -> tuple[list[str], bool]:
    """The candidates, and whether they come from a section the author headed as the cause;
    `changes` says which of `bodies` describe a change (whose omissions are causes)."""
    for body in bodies:
        explicit = section(body, *ROLE_HEADINGS["cause"])
        if explicit and sentences(explicit):
            return across_code(sentences(explicit)), True
    texts = [without_lists_after("\n\n".join(body.sections.values()), BENEFITS) for body in bodies]
    found = []
    for k, text in enumerate(texts):
        change = k < len(changes) and changes[k]
        said = sentences(text)
        for n, sentence in enumerate(said):
            if (
                ROOT_CAUSE.search(sentence)
                or (n + 1 < len(said) and brings_harm(said[n + 1]))
                or (change and (omission(sentence) or prior_behaviour(sentence)))
            ):
                found.append(sentence)
    found += [sentence for text in thread for sentence in sentences(text) if names_the_cause(sentence)]
    return found, False


def names_the_cause(sentence: str) -> bool:
    """A comment's sentence that says it names the problem's cause ("the root cause is", "the issue
    is that", "this happens because"). A comment's bare "because" explains as often why its author
    did or prefers something ("This is because my script loads ...", "Because then the build can
    ..."): a third of such causes read as false to fact-checkers on weeks no rule was built on."""
    marker = ROOT_CAUSE.search(sentence)
    if marker is None or EFFECT_MARKER.match(marker.group(0)):
        return False
    return not PLAIN_MARKER.fullmatch(marker.group(0)) or OCCURS.search(sentence, 0, marker.start()) is not None


# "... the last pass writes" <code> "which replaces the cached handle ...": a sentence its author ran
# on across a code block, which splitting cut in two.
RUNS_ON = re.compile(r"^(?:which|that|so|and|where|because|but|when)\b|^[a-z]")
CLOSED = (".", "!", "?", ":", ";", ")", '"', "'", "`", "*")


def across_code(found: list[str]) -> list[str]:
    """The sentences with each one the code cut off joined to its continuation, the code marked cut
    ("writes … which replaces the cached handle")."""
    joined: list[str] = []
    for sentence in found:
        if joined and not joined[-1].rstrip().endswith(CLOSED) and RUNS_ON.match(sentence):
            joined[-1] = f"{joined[-1]} … {sentence}"
        else:
            joined.append(sentence)
    return joined


def brings_harm(sentence: str) -> bool:
    """The sentence opens by saying that what came before leads to harm (not to harm avoided)."""
    lead = LEADS_TO_HARM.match(sentence)
    harm = HARM.search(sentence, lead.end()) if lead else None
    return harm is not None and not SPARED.search(sentence, 0, harm.start())


def root_causes(
    sentences_found: Iterable[str], summary: str, roles: RoleModel | None = None, headed: bool = False, title: str = ""
) -> list[str]:
    """The cause sentences that explain a failure, each as its clause when the summary already
    quotes it, none made of the `title`'s words; without `headed`, each must also have the role
    model's agreement."""
    found = []
    for sentence in sentences_found:
        if lead_in(sentence):
            # A lead-in to a repro or a log ("The following program triggers it because …:") says
            # nothing once what it introduces is cut away, unless it names the cause before its colon.
            sentence = cause_before_colon(sentence)
        if not sentence or code_only(sentence) or BARE_LINK.match(sentence) or cut_short(sentence):
            continue
        marker = ROOT_CAUSE.search(sentence)
        if marker and not_a_cause(sentence, marker):
            continue
        if not marker and states_success(sentence):
            continue
        if describes_change(sentence):  # "Add a test that ...", "X fixes the issue": the change or its cure
            continue
        clause = cause_clause(sentence, summary)
        if not clause or SILENT_CLAUSE.match(clause) or restates(clause, title):
            continue
        if not headed and roles is not None and not model_agrees(roles, sentence):
            continue
        found.append(clause)
    return found


# "The grommet cache seems to skip the second key" under the title "Grommet cache skips its second key": a
# cause made mostly of the title's words tells the symptom again, not how it comes about.
TITLE_SHARE = 0.6
WORD = re.compile(r"[\w@`'.-]{3,}")
COMMON_WORDS = frozenset(
    "the and for with that this from are was were has have not but its into when then than which while under after"
    " before".split()
)


def restates(clause: str, title: str) -> bool:
    said = _content_words(clause)
    return bool(said) and len(said & _content_words(title)) >= TITLE_SHARE * len(said)


def _content_words(text: str) -> set[str]:
    return {word.strip("`'.-").lower() for word in WORD.findall(text)} - COMMON_WORDS - {""}


# "The root cause shows in a loop like this:", "the bug is here:": the words after the marker point
# at what follows the colon instead of naming the cause.
POINTS_ONWARD = re.compile(
    r"\b(?:like (?:this|so|these)|the following|as follows|below|here|this one|these (?:lines|steps))\W*$", re.I
)
STATED_ON = re.compile(r"\s*[\w`]")  # the marker runs on into words, not into a bracket or a dash


def cause_before_colon(lead: str) -> str:
    """The lead-in without its colon when it names the cause itself ("The root cause is the cache
    key, which leaves out the device index:"), else empty: a plain "because", a marker that heads
    what follows ("Root cause (measured step by step):"), or one the words after which only point
    at what the colon introduces."""
    said = lead.rstrip().removesuffix(":").rstrip()
    marker = ROOT_CAUSE.search(said)
    if marker is None or PLAIN_MARKER.fullmatch(marker.group(0)) or EFFECT_MARKER.match(marker.group(0)):
        return ""
    after = said[marker.end() :]
    if not STATED_ON.match(after) or POINTS_ONWARD.search(after):
        return ""
    return said if len(after.split()) > CAUSE_CLAUSE_WORDS else ""


def not_a_cause(sentence: str, marker: re.Match[str]) -> bool:
    """The marker introduces something other than the failure's cause."""
    before, clause = sentence[: marker.start()], sentence[marker.start() :]
    return bool(
        quoted(before)  # 'printed "Aborting due to timeout"': a program's message, not the author's account
        or LOG_TEXT.search(before)
        or CLOSING_LINE.match(sentence)
        # "This leads to X, causing Y": effects of what came before, both of them
        or (LEADS_TO_HARM.match(sentence) is not None and EFFECT_MARKER.match(clause) is not None)
        or CHANGE_LOG_LINE.match(sentence)
        or CHECK_FAILS.search(before)
        or GUESSED.search(before)
        or WHY_IT_MATTERS.search(before)
        or NOT_A_FAILURE.search(before)
        or HIT_TOO.search(before)
        or EXPECTATION.search(before)
        or TEST_COST.search(before)
        or MISSED_BY_TESTS.search(sentence)
        or prior_symptom(sentence)  # "Before this change, X returned wrong shapes, resulting in ...": the symptom
        or ABANDONED.search(sentence[: marker.end()])
        or NEGATED_CAUSE.search(sentence[max(0, marker.start() - 30) : marker.start()])
        or POINTER_CAUSE.search(sentence)
        or LINK_CAUSE.match(sentence, marker.end())
        or CAUSE_LABEL.match(sentence)
        or UNKNOWN_CAUSE.search(sentence)
        or REQUEST.search(before)
        or CHANGE_REASON.search(before)
        or ((choice := CHOICE_REASON.search(before)) is not None and not HARM.search(choice.group(0)))
        or ATTEMPT_FAILED.search(before)
        or UNVERIFIED.search(before)
        or DESIGN_CHOICE.search(before)
        or SILENT_CLAUSE.match(clause)
        or SYMPTOM_CLAUSE.match(clause)
        or BENEFIT_REASON.match(clause)
        or JUSTIFICATION.match(clause)
        or EVIDENCE_CLAUSE.match(clause)
        or RESULT_CLAUSE.match(clause)
        or TIME_SHARE.match(clause)
        or HOUSEKEEPING.match(clause)
    )


def states_success(sentence: str) -> bool:
    """The sentence says what goes right (a correct kernel picked, a path that works), with no word
    that turns it into a failure."""
    return CORRECT_OUTCOME.search(sentence) is not None and NEGATED.search(sentence) is None


def quoted(before: str) -> bool:
    """What follows `before` stands inside a quotation or a code span it opened."""
    return before.count('"') % 2 == 1 or before.count("`") % 2 == 1 or before.count("“") > before.count("”")


def model_agrees(roles: RoleModel, sentence: str) -> bool:
    probabilities = roles.probabilities(sentence)
    return all(probabilities.get(role, 0.0) < OTHER_ROLE for role in NOT_CAUSE_ROLES)


def cause_clause(sentence: str, summary: str) -> str:
    """`sentence`, or only its causal clause when the summary already quotes the sentence: what
    follows "because", what comes before ", which causes …" (empty when that clause is too short to
    name a cause)."""
    marker = ROOT_CAUSE.search(sentence)
    if sentence[:60] not in summary or marker is None:
        return sentence
    if marker and EFFECT_MARKER.match(marker.group(0)):
        # "X, leading to Y" quoted as the summary: X is the mechanism, told again here without Y
        cause = sentence[: marker.start()].rstrip(" :;,")
        return cause if len(cause.split()) > CAUSE_CLAUSE_WORDS else ""
    if SIDE_CLAUSE.search(sentence[: marker.start()]):
        return ""  # "…, which crashes in the kernel because …" explains a side case, not the problem
    if len(sentence[: marker.start()].split()) <= 1:
        return sentence  # "The root cause is that …": the marker opens the sentence, which is all cause
    clause = sentence[marker.start() :].rstrip(" :;,")
    return clause if len(clause.split()) > CAUSE_CLAUSE_WORDS else ""
