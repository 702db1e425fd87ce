"""Severity from meaning: typed facts read from what an item's text says happens.

Each fact carries the sentence it was read from, so a report can quote its evidence. The English
phrasing of failures (crash, wrong result, memory growth ...) is general and lives in
pipeline/phrases.py; the title's own signs (an RFC, a design change, an edge case) and the order
of a thread's facts live here; what is specific to a community (its hardware, its major
downstream users, its labels) comes from the profile.

One pass over the sentences of one item, each pattern linear in the sentence: the stage stays
linear in the size of the window.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from pytorch_insight.announced import announced_errors
from pytorch_insight.config import SeverityVocabulary
from pytorch_insight.folded import CaseBlind, case_blind
from pytorch_insight.guard import Guard, guard
from pytorch_insight.model import Item
from pytorch_insight.pickling import by_fields
from pytorch_insight.pipeline.phrases import PROBLEM_KINDS, PROBLEMS, stated_facts
from pytorch_insight.text import lead_in, sentences, shorten

EVIDENCE_LIMIT = 240
TITLE_LIMIT = 1000  # GitHub allows 256; other sources may not bound theirs
SENTENCE_LIMIT = 60  # sentences read per item: descriptions state their problem early
# Sections whose text is not a statement about the problem: environment dumps, test logs and lists, checklists,
# a way around it (whose cost, "a modest slowdown", is no problem of the report's), and a list of
# examples of the expected behaviour ("The reference follows these semantics, for example:" and its
# items: "inf / 1.0 gives NaN" is what is right there, not what goes wrong).
SKIPPED_SECTIONS = re.compile(
    r"(?ims)^\s{0,3}(?:#{1,6}\s*(?:versions?|environment|test plan|testing|checklist|collect_env|workarounds?)\b|"
    r"test plan:|versions?:)[^\n]*\n.*?(?=^\s{0,3}#{1,6}\s|\Z)|"
    r"^[^\n]*\b(?:semantics|expected|correctly|should|reference behaviou?r)\b[^\n]*:[ \t]*\n(?:[ \t]*\n)?"
    r"(?:[ \t]*(?:[-*+]|\d+[.)])[ \t][^\n]*(?:\n|\Z))+|"
    # "**Tests** (`test/test_x.py`):" and its list: what the tests cover ("restore on exception"), not
    # what goes wrong
    r"^\s{0,3}\*\*(?:tests?|testing|test plan)\b[^\n]*\n(?:[ \t]*\n)?(?:[ \t]*(?:[-*+]|\d+[.)])[ \t][^\n]*(?:\n|\Z))+"
)

FIX_INTENT = re.compile(
    r"^(?:\[[^\]]*\]\s*)*(?:fix(?:es|ed|ing)?|work ?around|resolve[sd]?|prevent|avoid|correct|repair|handle|"
    r"guard|restore|revert)\b|\b(?:this (?:pr|change|diff|commit) (?:fixes|resolves|addresses|works around))\b"
)
DESIGN_TITLE = re.compile(
    # "introducing a bug" reports a problem; "introduced by #N" says where one came from.
    r"\b(?:introduc\w+(?! by\b| an? (?:bug|regression|issue|error|problem|crash|leak|hang)\b)|"
    r"new (?:ir|api|apis|backend|subsystem|pass|runtime|mode|dsl|format)|"
    # a subsystem begun: "Initial setup for the TPU backend", "Experimental NVSHMEM integration"
    r"(?:initial|experimental)\s+(?:\w+\s+){0,2}(?:support|integration|backend|setup|implementation)|"
    r"(?:enable|enabled|enabling|disable|disabled|disabling|turn on|turn off|make)\b[^.]{0,60}\bby default|"
    r"default to\b|(?:change|flip)s?\s+(?:the\s+)?default|behaviou?r change|"
    # what downstream code must adapt to: an argument, option or alias removed, an API renamed
    r"(?:remove|drop)s?\s+(?:\w+\s+){0,3}(?:argument|parameter|option|alias|aliases)\b|"
    r"renam\w+\s+(?:\w+\s+){0,3}(?:apis?|ops?|methods?|functions?|modules?)\b|"
    r"(?:upgrade|move|switch)s?\s+(?:\w+\s+){0,4}to\s+c\+\+\s?\d\d|"
    # "silence deprecation warnings" tidies a build log; it deprecates nothing
    r"deprecat\w*(?!\s+warn)|bc[- ]breaking|(?:remove|drop)s?\s+(?:\w+\s+){0,3}support\b|breaking change|proposal|"
    r"design doc)\b"
)
# A title about a numeric edge rather than a broken result: signed zeros, overflow at the format's
# limits, low-precision divergence from eager. Fuzzers file these by the dozen; triagers label few of
# them high priority (see the profile's `edge_case` labels), and neither expert pass put one high.
EDGE_TITLE = re.compile(
    r"\b(?:signed[- ]zeros?|negative zero|overflow\w*\s+(?:behaviou?r|near|at)|"
    r"near (?:the )?(?:float\d*|fp\d+|bf16|half) (?:boundary|max\w*|limits?|range)|large finite|"
    r"numerical(?:ly)?\s+(?:divergen\w+|different|differences?|inconsisten\w*|discrepanc\w+)|"
    # degenerate inputs: zero-sized dimensions, non-positive sizes
    r"\w*(?:features|size|numel|dim|len|length|channels)\s*=\s*0\b|non-positive|zero[- ](?:size[ds]?|length|element))\b"
    r"|\[inconsistency\]"
)
RFC_TAG = re.compile(r"\[\s*rfc\s*\]|^\s*rfc\s*:", re.I)


@by_fields
@dataclass(frozen=True, slots=True)
class Fact:
    kind: str  # a problem kind, "gain", "design", "hardware", "scale", "downstream", "release", "default"
    evidence: str  # the sentence it was read from (bounded)
    detail: str = ""  # the matched words: a magnitude, a hardware name, a downstream user ...
    # "text" (a phrase read it), "label" (a triager's label), "model" (the learned judgement), "hint"
    # (the learned judgement's leaning towards a class that tempers a problem, learned.py)
    source: str = "text"
    confidence: float = 1.0  # the learned judgement's probability for a "model" fact


@by_fields
@dataclass(frozen=True, slots=True)
class ItemFacts:
    facts: tuple[Fact, ...]
    is_fix: bool  # the item presents itself as fixing or working around a problem

    def kinds(self) -> set[str]:
        return {fact.kind for fact in self.facts}

    def first(self, kind: str) -> Fact | None:
        return next((fact for fact in self.facts if fact.kind == kind), None)

    @property
    def problems(self) -> list[str]:
        kinds = self.kinds()
        return [kind for kind in PROBLEM_KINDS if kind in kinds]


class FactExtractor:
    def __init__(self, vocabulary: SeverityVocabulary) -> None:
        def alternation(words: list[str]) -> tuple[CaseBlind, Guard] | None:
            if not words:
                return None
            # A word start, or a count glued to it: "8xH100".
            pattern = re.compile(r"(?:\b|(?<=\dx))(?:" + "|".join(sorted(words, key=len, reverse=True)) + r")\b", re.I)
            return case_blind(pattern), guard(pattern)

        self.hardware = alternation(vocabulary.hardware)
        self.downstream = alternation([re.escape(word) for word in vocabulary.downstream])
        self.release = alternation(vocabulary.release)
        self.scale = alternation(vocabulary.scale)
        self.default_path = alternation(vocabulary.default_path)
        self.label_facts = {label.lower(): kind for kind, labels in vocabulary.labels.items() for label in labels}
        self.policy = [re.compile(pattern) for pattern in vocabulary.policy_titles]

    def extract(self, item: Item, context: bool = False) -> ItemFacts:
        """The item's facts; its context (hardware, scale, release ...) only where a problem or a gain
        is stated, or where `context` asks for it (the learned judgement found a problem)."""
        title = (item.title or "")[:TITLE_LIMIT]
        body, skipped = _skip_sections(item.body or "")
        found: list[Fact] = []
        seen: set[str] = set()

        def add(kind: str, evidence: str, detail: str = "", source: str = "text") -> None:
            if kind not in seen:
                seen.add(kind)
                found.append(Fact(kind, shorten(evidence, EVIDENCE_LIMIT), detail, source))

        if RFC_TAG.search(title) or item.kind == "rfc":
            add("design", title, "RFC")
        elif DESIGN_TITLE.search(title.lower()):
            add("design", title, DESIGN_TITLE.search(title.lower()).group(0))  # type: ignore[union-attr]
        if edge := EDGE_TITLE.search(title.lower()):
            add("edge_case", title, edge.group(0))
        described = announced_errors(sentences(body)[:SENTENCE_LIMIT], body)
        read = [title, *(sentence for sentence, _ in described)]
        # A lead-in run on into its log's error line: a quote of it shows the error, not the lead-in.
        logged = {sentence: error for sentence, error in described if error}
        if not any(pattern.search(title) for pattern in self.policy):
            stated: dict[str, tuple[str, str]] = {}  # kind -> the first sentence of the description stating it

            def note(kind: str, evidence: str, detail: str = "") -> None:
                if kind in PROBLEM_KINDS and evidence in logged:
                    detail = logged[evidence].split(":")[0]  # the exception's name, or the signal
                stated.setdefault(kind, (evidence, detail))

            for sentence in read[1:]:
                self._read(sentence, note)

            def titled(kind: str, evidence: str, detail: str = "") -> None:
                said = stated.get(kind)
                if said is not None and kind not in MAGNITUDES and _says_more(said[0], title):
                    add(kind, *said)
                else:
                    add(kind, evidence, detail)

            # The title's kinds come first (it says what the thread is about), each quoted from the
            # description's sentence that states it where there is one: the title alone restates the entry.
            self._read(title, titled)
            for kind, (evidence, detail) in stated.items():
                add(kind, evidence, detail)
        # A label confirms a kind the text may already state in words; the words are the better evidence.
        for label in item.labels:
            kind = self.label_facts.get(label.lower())
            if kind:
                add(kind, f"label: {label}", label, "label")
        if context or seen & CONTEXTUAL:  # context only weighs with a problem or a gain
            self._context(read, add)
            if self.hardware is not None and (setup := _search(self.hardware, skipped, skipped.lower())):
                add("hardware", f"environment: {setup[1]}", setup[1])  # the reporter's setup
        return ItemFacts(tuple(found), bool(FIX_INTENT.search(title.lower())) or _says_it_fixes(body))

    def _read(self, sentence: str, add) -> None:  # type: ignore[no-untyped-def]
        for kind, detail in stated_facts(sentence):
            add(kind, sentence, detail)

    def _context(self, read: list[str], add) -> None:  # type: ignore[no-untyped-def]
        """Hardware, scale, downstream users, release and default path: each searched once over
        all the sentences, and quoted with the sentence that names it."""
        text = "\n".join(read)
        lowered = text.lower()
        starts = list(accumulate((len(sentence) + 1 for sentence in read[:-1]), initial=0))
        for kind, vocabulary in (
            ("hardware", self.hardware),
            ("downstream", self.downstream),
            ("release", self.release),
            ("scale", self.scale),
            ("default", self.default_path),
        ):
            if vocabulary is not None and (found := _search(vocabulary, text, lowered, kind == "downstream")):
                sentence = read[bisect_right(starts, found[0]) - 1]
                if not SPARED.search(sentence):
                    add(kind, sentence, found[1])


# "the default config is safe", "H100 is unaffected": the place named is the one not hit, which
# weighs nothing as context and, quoted as "mentions …", would read as if it were.
SPARED = re.compile(
    r"\b(?:unaffected|not (?:affected|impacted|reproducible)|(?:typically|is|are|remains?|stays?|looks?) safe|"
    r"works? (?:fine|correctly|as expected)|still works?)\b",
    re.I,
)


CONTEXTUAL = frozenset({*PROBLEMS, "gain"})


# How far back a path's start is looked for: a longer run without a blank is no path a reader wrote.
PATH_LIMIT = 200


def _search(
    vocabulary: tuple[CaseBlind, Guard], text: str, lowered: str, projects: bool = False
) -> tuple[int, str] | None:
    """Where a vocabulary's first word in `text` starts, and the word as written. Most texts hold
    none of the strings its words need; the rest are searched case-sensitively when ASCII (folded).
    Of `projects` (downstream users), a word that is a folder inside a path
    (`src/lathe/transformers/grommet.cpp`) names a folder of the tree, not the project: the
    search goes on past it. A device's folder (`hopper/`) holds that device's code."""
    pattern, needs = vocabulary
    if not needs.may_match(text, lowered):
        return None
    found = pattern.search(text, lowered)
    while projects and found is not None and _folder(text, *found):
        found = pattern.search(text, lowered, found[0] + len(found[1]))
    return found


def _folder(text: str, start: int, word: str) -> bool:
    """The word sits between slashes inside a path; not at a tree's root (`monorepo//torchtune/...`)
    nor in a link (`github.com/huggingface/transformers/...` points at the project)."""
    end = start + len(word)
    if text[start - 1 : start] != "/" or text[start - 2 : start] == "//" or text[end : end + 1] != "/":
        return False
    reach = max(0, start - PATH_LIMIT)  # bounded, so a text of slashes is read in linear time
    opening = max(text.rfind(mark, reach, start) for mark in (" ", "\n", "`"))
    path = text[max(opening + 1, reach) : start]
    return "://" not in path and "github.com" not in path


SAYS_FIX = re.compile(
    r"\b(?:fix(?:es|ed)?|resolves?|closes?|works? around|addresses)\b\s*:?\s*(?:#\d+|https?://github\.com/\S+/issues/"
    r"|(?:the|a|an|this)\s+(?:\w+\s+){0,3}(?:bug|issue|problem|crash|regression|failure|error|hang|leak|mismatch))"
)


def _says_it_fixes(body: str) -> bool:
    head = body[:3000].lower()
    return guard(SAYS_FIX).may_match(head) and SAYS_FIX.search(head) is not None


def _skip_sections(body: str) -> tuple[str, str]:
    """The body with each skipped section replaced by a blank line (SKIPPED_SECTIONS.sub), and the
    skipped sections joined, in one pass; a body without their headings is read as it is."""
    if not guard(SKIPPED_SECTIONS).may_match(body):
        return body, ""
    kept, skipped, end = [], [], 0
    for match in SKIPPED_SECTIONS.finditer(body):  # a section is never empty: it holds its heading line
        kept.append(body[end : match.start()])
        skipped.append(match.group(0))
        end = match.end()
    kept.append(body[end:])
    return "\n\n".join(kept), " ".join(skipped)


TABLE_CELLS = 3  # bars that make a "sentence" a run of table rows
# Kinds whose detail is a number: the title's number is the one the thread leads with.
MAGNITUDES = frozenset({"measured", "gain", "blowup"})


def _says_more(sentence: str, title: str) -> bool:
    """Whether a description's sentence can stand for its title: not the title run into more words
    (a description that opens by repeating it), nor a lead-in to an example cut away ("...:"), nor a
    table's rows, whose cells say what they measure only to someone reading the whole table."""
    return title not in sentence and not lead_in(sentence) and sentence.count("|") < TABLE_CELLS
