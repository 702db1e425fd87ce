"""Severity from meaning: typed facts read from what an item's text says happens.

Each fact carries the sentence it was read from, so a report can quote its evidence. The English
phrasing of failures (crash, wrong result, memory growth ...) is general and lives here; what is
specific to a community (its hardware, its major downstream users, its labels) comes from the
profile. Matching is on word boundaries and each match is checked against its context: "no
behavior change", "to prevent OOM", "deadlock avoidance" and "if it could hang" describe a
design or a hypothesis, not a failure, and yield nothing.

One pass over the sentences of one item, each pattern linear in the sentence: the stage stays
linear in the size of the window.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from pytorch_insight.config import SeverityVocabulary
from pytorch_insight.folded import CaseBlind, case_blind
from pytorch_insight.guard import Guard, guard
from pytorch_insight.model import Item
from pytorch_insight.text import sentences, shorten

EVIDENCE_LIMIT = 240
TITLE_LIMIT = 1000  # GitHub allows 256; other sources may not bound theirs
# Costs that are a problem only when the text measures them.
NEEDS_MEASUREMENT = frozenset({"overhead", "compile_time"})
# A cost in time that stops work rather than slowing it ("3758.7s for a single compile", "an hour to
# compile"): docs/JUDGEMENT's compile-time blow-up.
SLOW = frozenset({"compile_time", "overhead", "perf_regression", "hang"})
BLOWUP_SECONDS = 600
DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|secs?|seconds|mins?|minutes|h|hours)\b")
SECONDS = {"ms": 0.001, "s": 1, "sec": 1, "secs": 1, "seconds": 1, "min": 60, "mins": 60, "minutes": 60}
SECONDS |= {"h": 3600, "hours": 3600}
ENUMERATION = 3  # distinct failure kinds in one sentence that make it a list rather than a report
SENTENCE_LIMIT = 60  # sentences read per item: descriptions state their problem early
# Sections whose text is not a statement about the problem: environment dumps, test logs, checklists.
SKIPPED_SECTIONS = re.compile(
    r"(?ims)^\s{0,3}(?:#{1,6}\s*(?:versions?|environment|test plan|testing|checklist|collect_env)\b|"
    r"test plan:|versions?:)[^\n]*\n.*?(?=^\s{0,3}#{1,6}\s|\Z)"
)

# Problem kinds, highest tier first; each pattern is applied to a lower-cased sentence.
PROBLEMS: dict[str, re.Pattern[str]] = {
    "wrong_result": re.compile(
        # "silently ignores the flag"; not "silently dropping", which often tells another bug's story in a clause
        r"\b(?:silent(?:ly)?[ -](?:wrong|incorrect|corrupt\w*|disabl(?:ed?|es)|ignor(?:ed?|es)|drop(?:ped|s)|"
        r"skip(?:ped|s)|broken|bypass\w*|routed|turned off|produc\w+|return\w*|chang\w+|discard\w*)"
        r"|(?:wrong|incorrect|invalid|corrupt(?:ed)?|garbage|bogus)\s+(?:\w+\s+)?(?:results?|outputs?|values?|"
        r"gradients?|grads?|answers?|numerics|data|losses)"
        r"|(?:eager|compiled?)\s*(?:/|and|vs\.?|versus)\s*(?:eager|compiled?)\s+(?:\w+\s+){0,2}"
        r"(?:mismatch\w*|disagree\w*|differ\w*|divergen\w*)"
        r"|(?:mismatch\w*|disagree\w*|differ\w*)\s+(?:between|from)\s+(?:the\s+)?(?:eager|compiled?)"
        r"|(?:produc\w+|returns?|returning|gives?|giving|yields?)\s+(?:\w+\s+){0,2}nans?"
        r"|data corruption|silent correctness|numerical(?:ly)? (?:wrong|incorrect|mismatch\w*)"
        r"|(?:reads?|uses?|used|returns?|copies|copied)\s+(?:\w+\s+)?uninitiali[sz]ed\s+(?:memory|values?|data|buffers?)"
        r"|leak\w*\s+(?:\S+\s+){0,4}(?:to|into)\s+(?:the\s+)?user[- ]visible"
        r"|(?:accidentally|unintentionally|wrongly|incorrectly|erroneously|mistakenly)\s+(?:\w+\s+)?"
        r"(?:disabl\w+|enabl\w+|skipp\w+|dropp\w+|ignor\w+|turn\w+ off|overwrit\w+|discard\w+|bypass\w+)"
        r"|(?:loss|training|accuracy)\s+(?:curves?\s+)?(?:diverg\w+|drops?|collapses?)"
        r"|(?:gradients?|grads?|outputs?|results?)\s+(?:are|is|become|becomes)\s+(?:all\s+)?"
        r"(?:zeros?|wrong|incorrect|nan|none|garbage))\b"
    ),
    "security": re.compile(
        r"\b(?:cve-\d{4}-\d+|security (?:issue|vulnerability|bug|hole)|vulnerab\w+|"
        r"(?:arbitrary|remote) code execution|privilege escalation)\b"
    ),
    # A process killed by the hardware or the runtime: nothing to catch, often nothing logged.
    "hard_crash": re.compile(
        r"\b(?:segfault\w*|seg(?:mentation)?[ -]?fault|sigsegv|sigabrt|sigbus|sigill|core dumped|"
        r"illegal (?:memory access|instruction|address)|(?:launch|kernel) failures?|"
        r"fail(?:s|ed|ures?)? (?:to|during|at) launch|device-side assert\w*|terminate called|double free|"
        r"use[- ]after[- ]free|out[- ]of[- ]bounds (?:read|write|access)|reads? (?:~?[\d.]+ \w+ )?past|"
        r"memory corruption|buffer overflow|exceed\w* the hardware limit|hardware limit|"
        r"null[- ]?(?:ptr|pointer) (?:dereference|deref|access)\w*)\b"
    ),
    "crash": re.compile(r"\b(?:crash(?:es|ed|ing)?|abort(?:s|ed)?)\b"),
    "hang": re.compile(
        r"\b(?:hangs?|hanging|hung|deadlock(?:s|ed|ing)?|livelock\w*|stuck|freez(?:e|es|ing)|"
        r"never (?:returns|finishes|completes))\b"
    ),
    "memory": re.compile(
        r"\b(?:oom|ooms|out of memory|memory leak\w*|leak(?:s|ing)? memory|"
        r"memory (?:blow[- ]?up|explosion|spike|regression|growth|bloat)|"
        r"(?:more|higher|increased?|doubl\w+|extra|excessive)\s+(?:\w+\s+)?memory|"
        r"memory (?:usage|consumption|footprint) (?:increase\w*|grow\w*|goes up|doubl\w*|jump\w*|spik\w*)|"
        r"(?<![\d.])[\d.]++\s*[x×]\s+(?:more\s+)?memory)\b"
    ),
    "perf_regression": re.compile(
        r"\b(?:(?:perf|performance|speed|throughput|latency|e2e|end-to-end)\s+regress\w*|"
        r"regress\w* (?:in |of )?(?:perf|performance|speed|throughput|latency)|"
        r"slow(?:er|down|downs|s down|ness)|(?<![\d.])[\d.]++\s*(?:%|x|×)\s+slower)\b"
    ),
    "compile_time": re.compile(
        r"\b(?:compil(?:e|ation)[- ]times?|(?:takes?|taking|took)\s+(?:~|about\s+|over\s+)?[\d.]+\s*"
        r"(?:s|secs?|seconds|mins?|minutes|h|hours)\b(?:\s+\w+){0,3}\s+compil\w*|"
        r"compil\w*(?:\s+\w+){0,2}\s+(?:takes?|taking|took)\s+(?:~|about\s+|over\s+)?[\d.]+\s*"
        r"(?:s|secs?|seconds|mins?|minutes|h|hours))\b"
    ),
    # Overhead is a problem only when the text measures it.
    "overhead": re.compile(
        r"\b(?:overhead|pathological\w*|(?:add(?:s|ing|ed)?|costs?|costing)\s+(?:an? )?(?:extra\s+)?~?[\d.]+\s*"
        r"(?:ms|us|µs|s|seconds|%))\b"
    ),
    "blocker": re.compile(
        r"\b(?:block(?:s|ing|er|ers)?|prevents?|preventing)\s+(?:\S+\s+){0,4}?(?:from\s+)?"
        r"(?:upgrad\w+|releases?|migrat\w+|adopt\w+|moving to|the move to|launch)\b|release[- ]blocker"
        # the package itself cannot be had: nobody gets past this
        r"|\b(?:cannot|can't|can not|couldn't|could not|unable to|fails? to|failed to)\s+(?:properly\s+)?"
        r"(?:be\s+)?(?:install(?:ed)?|download(?:ed)?|unzip|import torch)\b"
    ),
    "regression": re.compile(
        r"\b(?:regress(?:ion|ions|ed|es)?|used to work|worked (?:fine |correctly )?(?:in|on|with|before)|"
        r"no longer (?:works?|saved|supported|runs?)|broken (?:in|since|by|after)|broke (?:in|since|after)|"
        r"after (?:upgrading|updating) to|(?:works?|worked|pass(?:es|ed)?)\s+(?:\w+\s+)?(?:fine\s+)?(?:on|with|in|"
        r"under)\s+(?:torch\s+|pytorch\s+)?v?\d+\.\d+)\b"
    ),
    "error": re.compile(
        r"\b(?:(?:raises?|raising|throws?|throwing)\s+(?:an?\s+|the\s+)?(?:\S+\s+){0,2}?(?:\w*error|\w*exception)|"
        r"errors? out|fails? with|failing with|fails? to (?:compile|build|import|"
        r"load|run|save|serialize)|(?:[a-z]+)?error\b:?|assertionerror|traceback|exception|is broken|broken)\b"
    ),
}
# The stated kinds, highest tier first, with the blow-up a measured duration makes of a slow one.
PROBLEM_KINDS = (*(kind for kind in PROBLEMS if kind != "error"), "blowup", "error")
# Substrings one of which a sentence must hold for a kind's pattern to be worth running.
TRIGGERS: dict[str, tuple[str, ...]] = {
    "wrong_result": (
        "silent",
        "wrong",
        "incorrect",
        "invalid",
        "corrupt",
        "garbage",
        "bogus",
        "uninitiali",
        "eager",
        "mismatch",
        "disagree",
        "differ",
        "nan",
        "numerical",
        "diverg",
        "drop",
        "collaps",
        "zero",
        "none",
        "leak",
        "accidental",
        "unintentional",
        "erroneous",
        "mistaken",
    ),
    "security": ("cve", "secur", "vulnerab", "code execution", "privilege"),
    "hard_crash": (
        "seg",
        "sigsegv",
        "sigabrt",
        "sigbus",
        "sigill",
        "core dump",
        "illegal",
        "launch",
        "device-side",
        "terminate called",
        "double free",
        "after",
        "bounds",
        "past",
        "corruption",
        "overflow",
        "hardware limit",
        "null",
    ),
    "crash": ("crash", "abort"),
    "hang": ("hang", "hung", "deadlock", "livelock", "stuck", "freez", "never "),
    "memory": ("oom", "memory", "leak"),
    "perf_regression": ("regress", "slow"),
    "compile_time": ("compil",),
    "overhead": ("overhead", "patholog", "add", "cost"),
    "blocker": ("block", "prevent", "install", "download", "unzip", "import torch"),
    "regression": ("regress", "work", "no longer", "broke", "upgrading", "updating", "pass"),
    "error": ("rais", "throw", "error", "fail", "traceback", "exception", "broken"),
}
DIGIT = re.compile(r"\d")
LINK = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")


def longest_literal(words: Iterable[str]) -> re.Pattern[str]:
    """A pattern that matches what an alternation of `words`, the longest first, matches (the longest
    word that starts at a position), written as a tree of their characters: the alternation tries
    every word at every position, the tree one branch per character."""
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def written(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + written(child) for char, child in node.items() if char]
        if not branches:
            return ""
        either = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        # Longer words first: the branches are tried before ending at a shorter word.
        return f"(?:{either})?" if "" in node else either

    return re.compile(written(tree))


# All triggers in one pass, the longest first; a trigger stands for its own kinds and for those of
# every shorter trigger it contains ("corruption" holds "corrupt").
TRIGGER_SCAN = longest_literal({t for ts in TRIGGERS.values() for t in ts})
TRIGGER_KINDS: dict[str, frozenset[str]] = {
    trigger: frozenset(kind for kind, others in TRIGGERS.items() if any(other in trigger for other in others))
    for triggers in TRIGGERS.values()
    for trigger in triggers
}
GAIN = re.compile(
    r"\+[\d.]+\s*%|\b(?:faster|rais(?:es|ed|ing)|speed-?ups?|speeds? up|improv\w+|reduc\w+|sav(?:es?|ing)|gains?|"
    r"boost\w*|cuts?|"
    r"less memory|fewer|lower|higher throughput|increases? (?:throughput|mfu|tps))\b"
)
PERF_WORDS = re.compile(
    r"\b(?:ms|s|sec|seconds|minutes|hours|throughput|latency|tps|tok/s|tokens/s|tflops|mfu|memory|gb|gib|mb|mib|"
    r"speed\w*|faster|slower|time|overhead|step|steps|qps|bandwidth|gb/s|perf\w*|runtime|compile)\b"
)
# A number of its own, not the digits of a name: MI300X is a GPU, not a 300x speed-up.
NUMBER = r"(?<![\w.,~])~?\d++(?:,\d{3})*(?:\.\d++)?"
UNIT = (
    r"(?:ms|µs|us|s|secs?|seconds|mins?|minutes|h|hours|gb|gib|mb|mib|kib|kb|tb|tps|tok/s|tokens/s|tflops|gb/s"
    r"|it/s|%)"
)
MAGNITUDE = re.compile(
    rf"(?:from\s+{NUMBER}\s*{UNIT}?\s+to\s+{NUMBER}\s*{UNIT}?|{NUMBER}\s*{UNIT}?\s*(?:->|→|=>)\s*{NUMBER}\s*{UNIT}?"
    rf"|{NUMBER}\s*{UNIT}?\s+(?:vs\.?|versus)\s+{NUMBER}\s*{UNIT}?"
    rf"|[+\-]?{NUMBER}\s*(?:%|x\b|×)|{NUMBER}\s*(?:ms|µs|us|s|secs?|seconds|mins?|minutes|hours|gb|gib|mb|mib|kib|"
    rf"tps|tok/s|tokens/s|tflops|gb/s)\b)"
)
# What turns a failure word into a design statement, a denial or a hypothesis.
BEFORE_CONTEXT = re.compile(
    r"\b(?:no|not|\w+n['’]t|cannot|without|never|avoid\w*|prevent\w*|guard\w* against|protect\w* against|instead of|"
    r"in case of|to reduce|reduc\w+ the|could|might|may|would|potentially|possibly|if|whether|check\w* for|detect\w*|"
    r"confounded by|"
    r"unrelated|not related to|"
    r"handle|handling|catch|catches|tests? (?:for|that)|allow|allows|raise an error|error (?:message|handling))"
    r"(?:\s+\S+){0,2}\s*$"
)
AFTER_CONTEXT = re.compile(
    # "device-side assert stderr checks": a failure word naming what a check looks for, a word or two
    # before the check (never across a preposition: "a segfault in tests" is one)
    r"^[\s-]*(?:(?!(?:in|on|at|of|for|with|when|while|during|from|under|after|before)\b)[\w.]+[\s-]+){0,2}?"
    r"(?:checks?|tests?|markers?|detection|detector|handling|handler|guards?)\b"
    r"|^[\s-]*(?:avoidance|prevention|free|safe|safety|mode|message|messages|case|cases|path)\b"
    # "incorrect values displayed in error messages": what a message or a document says, not a result
    r"|^[\s-]*(?:(?:displayed|printed|shown|reported|logged|mentioned)\s+)?(?:in|of)\s+(?:the\s+|its\s+)?"
    r"(?:error\s+|warning\s+|log\s+|exception\s+)?(?:messages?|strings?|logs?|docs?|docstrings?|documentation|comments?)\b"
)
NEGATIONS_ANYWHERE = re.compile(r"\b(?:no (?:behaviou?r|functional|user-facing) change|nfc|no-op)\b")
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


@dataclass(frozen=True, slots=True)
class Fact:
    kind: str  # a problem kind, "gain", "design", "hardware", "scale", "downstream", "release", "default"
    evidence: str  # the sentence it was read from (bounded)
    detail: str = ""  # the matched words: a magnitude, a hardware name, a downstream user ...
    # "text" (a phrase read it), "label" (a triager's label), "model" (the learned judgement), "hint"
    # (the learned judgement's leaning towards a class that tempers a problem, learned.py)
    source: str = "text"
    confidence: float = 1.0  # the learned judgement's probability for a "model" fact
    # The title, when it states the kind too: one line says what the thread is about, and the
    # evidence above (the description's sentence) says more.
    headline: str = ""


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

        def add(kind: str, evidence: str, detail: str = "", source: str = "text", headline: str = "") -> None:
            if kind not in seen:
                seen.add(kind)
                found.append(Fact(kind, shorten(evidence, EVIDENCE_LIMIT), detail, source, headline=headline))

        if RFC_TAG.search(title) or item.kind == "rfc":
            add("design", title, "RFC")
        elif DESIGN_TITLE.search(title.lower()):
            add("design", title, DESIGN_TITLE.search(title.lower()).group(0))  # type: ignore[union-attr]
        if edge := EDGE_TITLE.search(title.lower()):
            add("edge_case", title, edge.group(0))
        read = [title, *sentences(body)[:SENTENCE_LIMIT]]
        if not any(pattern.search(title) for pattern in self.policy):
            stated: dict[str, tuple[str, str]] = {}  # kind -> the first sentence of the description stating it

            def note(kind: str, evidence: str, detail: str = "") -> None:
                stated.setdefault(kind, (evidence, detail))

            for sentence in read[1:]:
                self._read(sentence, note)

            def titled(kind: str, evidence: str, detail: str = "") -> None:
                said = stated.get(kind)
                if said is not None and kind not in MAGNITUDES and _says_more(said[0], title):
                    add(kind, *said, headline=shorten(title, EVIDENCE_LIMIT))
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
        for kind, detail in _stated(sentence):
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
            if vocabulary is not None and (found := _search(vocabulary, text, lowered)):
                add(kind, read[bisect_right(starts, found[0]) - 1], found[1])


CONTEXTUAL = frozenset({*PROBLEMS, "gain"})


# A sentence states the same facts wherever it stands: template lines, bot boilerplate and a commit's
# copy of its PR's description recur across a window, and each distinct sentence is read once.
@lru_cache(maxsize=4096)
def _stated(sentence: str) -> tuple[tuple[str, str], ...]:
    """(kind, the words that state it) for each fact the sentence states, in the order they are added."""
    lowered = sentence.lower()
    if ("no" in lowered or "nfc" in lowered) and NEGATIONS_ANYWHERE.search(lowered):
        return ()
    # A link's digits are no measurement ("…/Graph.cpp#L447%C2%A0" reads as 447%).
    plain = LINK.sub(" ", lowered) if "://" in lowered else lowered
    measured = DIGIT.search(plain) is not None and PERF_WORDS.search(plain) is not None
    magnitude = MAGNITUDE.search(plain) if measured else None
    stated: list[tuple[str, str]] = []
    # Most sentences state nothing: one scan for the triggers saves running every pattern.
    triggered = {kind for trigger in TRIGGER_SCAN.findall(lowered) for kind in TRIGGER_KINDS[trigger]}
    for kind, pattern in PROBLEMS.items():
        if kind not in triggered:
            continue
        for match in pattern.finditer(lowered):
            if _asserted(lowered, match):
                stated.append((kind, match.group(0)))
                break
    if len({kind for kind, _ in stated} - {"error", "regression"}) >= ENUMERATION:
        stated = []  # a list of failure kinds is a policy or a checklist, not a report of one
    if magnitude is None:
        return tuple((kind, words) for kind, words in stated if kind not in NEEDS_MEASUREMENT)
    found = list(stated)
    if stated:
        found.append(("measured", magnitude.group(0).strip()))
    if {kind for kind, _ in stated} & SLOW and longest_seconds(magnitude.group(0)) >= BLOWUP_SECONDS:
        found.append(("blowup", magnitude.group(0).strip()))
    elif GAIN.search(lowered) or (not stated and _better(magnitude, plain)):
        found.append(("gain", magnitude.group(0).strip()))
    return tuple(found)


def _search(vocabulary: tuple[CaseBlind, Guard], text: str, lowered: str) -> tuple[int, str] | None:
    """Where a vocabulary's first word in `text` starts, and the word as written. Most texts hold
    none of the strings its words need; the rest are searched case-sensitively when ASCII (folded)."""
    pattern, needs = vocabulary
    return pattern.search(text, lowered) if needs.may_match(text, lowered) else None


# "16 -> 23 MFU", "from 40 ms to 31 ms": a before and an after of a metric whose direction is known.
BEFORE_AFTER = re.compile(rf"(?:from\s+)?({NUMBER})\s*{UNIT}?\s*(?:->|→|=>|to)\s*({NUMBER})")
HIGHER_BETTER = re.compile(r"\b(?:mfu|tps|tok/s|tokens/s|tflops|throughput|qps|bandwidth|gb/s|speedup|it/s)\b")
LOWER_BETTER = re.compile(r"\b(?:latency|ms|µs|us|secs?|seconds|minutes|runtime|time|step time)\b")


def _better(magnitude: re.Match[str], sentence: str) -> bool:
    """The magnitude moves a metric the right way: up for a rate, down for a time. A change the
    sentence does not call better or worse in words is read by its numbers alone."""
    change = BEFORE_AFTER.search(magnitude.group(0))
    if change is None:
        return False
    before, after = (float(n.lstrip("~").replace(",", "")) for n in change.groups())
    around = sentence[max(0, magnitude.start() - 40) : magnitude.end() + 20]
    if HIGHER_BETTER.search(around):
        return after > before
    if LOWER_BETTER.search(around):
        return after < before
    return False


def _asserted(sentence: str, match: re.Match[str]) -> bool:
    """The failure is stated as happening, not denied, prevented, tested for or imagined."""
    before = sentence[max(0, match.start() - 60) : match.start()]
    after = sentence[match.end() : match.end() + 60]
    if sentence[max(0, match.start() - 5) : match.start()].endswith(("test_", "_", "/", ".")) or after.startswith(
        ("_", "/")
    ):
        return False  # part of a name: test_hang_on_exit, freeze/optimize_for_inference, torch.jit.freeze
    return not BEFORE_CONTEXT.search(before) and not AFTER_CONTEXT.match(after)


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
    return title not in sentence and not sentence.rstrip().endswith(":") and sentence.count("|") < TABLE_CELLS


def longest_seconds(magnitude: str) -> float:
    """The longest duration a magnitude states, in seconds (0 when it states none)."""
    return max((float(n.replace(",", "")) * SECONDS[unit] for n, unit in DURATION.findall(magnitude)), default=0.0)
