"""What one sentence states: the English phrasing of failures (crash, wrong result, memory growth
...), measurements and gains, each match checked against its context ("no behavior change", "to
prevent OOM", "deadlock avoidance" and "if it could hang" state no failure). Each pattern is linear
in the sentence; `stated` reads a distinct sentence once (pipeline/facts.py puts the sentences of
an item together).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from pytorch_insight.pipeline.magnitudes import BLOWUP_SECONDS, GAIN, better, figure, longest_seconds

# Costs that are a problem only when the text measures them.
NEEDS_MEASUREMENT = frozenset({"overhead", "compile_time"})
# A cost in time that stops work rather than slowing it ("3758.7s for a single compile", "an hour to
# compile"): docs/JUDGEMENT's compile-time blow-up.
SLOW = frozenset({"compile_time", "overhead", "perf_regression", "hang"})
ENUMERATION = 3  # distinct failure kinds in one sentence that make it a list rather than a report

# Problem kinds, highest tier first; each pattern is applied to a lower-cased sentence.
PROBLEMS: dict[str, re.Pattern[str]] = {
    "wrong_result": re.compile(
        # "silently ignores the flag"; not "silently dropping", which often tells another bug's story in a clause
        r"\b(?:silent(?:ly)?[ -](?:wrong|incorrect|corrupt\w*|disabl(?:ed?|es)|ignor(?:ed?|es)|drop(?:ped|s)|"
        r"skip(?:ped|s)|broken|bypass\w*|routed|turned off|produc\w+|return\w*|chang\w+|discard\w*|"
        # "were silently failing on non-contiguous tensors": the call goes through and does nothing right
        r"fail(?:s|ed|ing)?(?!\s+(?:to\s+)?(?:raise|error|throw|warn)))"
        r"|(?:wrong|incorrect|invalid|corrupt(?:ed)?|garbage|bogus|inconsistent|mismatched)(?:/\w+)?\s+(?:\w+\s+)?"
        r"(?:results?|outputs?|values?|"
        r"gradients?|grads?|answers?|numerics|data|losses)"
        # "incorrect output strides", "mismatched data-types": a tensor's metadata, which checks catch, not its values
        r"(?![\w-]|\s+(?:strides?|shapes?|sizes?|dtypes?|layouts?|(?:memory\s+)?formats?|devices?|names?|metadata|types?)\b)"
        r"|(?:eager|compiled?)\s*(?:/|and|vs\.?|versus)\s*(?:eager|compiled?)\s+(?:\w+\s+){0,2}"
        # not a title's tag ("[Eager/Compile Divergence]"), which files errors and values alike
        r"(?:mismatch\w*|disagree\w*|differ\w*|divergen\w*)(?![^\[\]]*\])"
        r"|(?:mismatch\w*|disagree\w*|differ\w*)\s+(?:between|from)\s+(?:the\s+)?(?:eager|compiled?)"
        r"|(?:produc\w+|returns?|returning|gives?|giving|yields?)\s+(?:\w+\s+){0,2}(?:nans?|non-?finite)"
        r"|non-?finite (?:outputs?|values?|results?|gradients?|losses)"
        r"|data corruption|silent correctness|numerical(?:ly)? (?:wrong|incorrect|mismatch\w*)"
        r"|(?:reads?|uses?|used|returns?|returned|copies|copied|gives?|gave|produces?|produced)\s+(?:\w+\s+)?"
        r"uninitiali[sz]ed\s+(?:memory|values?|data|buffers?)"
        # "the output has random values in its last rows": values no computation put there
        r"|(?:has|have|had|holds?|contains?|returns?|returned|gives?|gave|produces?|produced)\s+(?:\w+\s+)?"
        r"random\s+(?:values?|numbers|data|garbage|results?|outputs?)"
        r"|leak\w*\s+(?:\S+\s+){0,4}(?:to|into)\s+(?:the\s+)?user[- ]visible"
        r"|(?:accidentally|unintentionally|wrongly|incorrectly|erroneously|mistakenly)\s+(?:\w+\s+)?"
        r"(?:disabl\w+|enabl\w+|skipp\w+|dropp\w+|ignor\w+|turn\w+ off|overwrit\w+|discard\w+|bypass\w+)"
        # "incorrectly skipping the v2 nodes": a compiler pass's step, whose outcome the words leave unsaid
        r"(?!\s+(?:\S+\s+){0,2}(?:nodes?|pass(?:es)?|graphs?)\b)"
        r"|(?:loss|training|accuracy)\s+(?:curves?\s+)?(?:diverg\w+|drops?|collapses?)"
        r"|accuracy (?:issues?|problems?|bugs?|regressions?|errors?)"
        r"|(?:fail\w*\s+to|not)\s+(?:be\s+)?(?:updat|comput|calculat|propagat|restor|accumulat|handl|round|convert)\w*"
        r"\s+(?:\w+\s+){0,2}?correctly"
        r"|(?:gradients?|grads?|outputs?|results?)\s+(?:are|is|become|becomes)\s+(?:all\s+)?"
        r"(?:zeros?|wrong|incorrect|nan|none|garbage)"
        # "options passed in get completely ignored": what the user asked for is dropped without a word
        r"|(?:options?|arguments?|args|kwargs|flags?|settings?|parameters?|params)\s+(?:\S+\s+){0,4}?"
        r"(?:are|is|get|gets|got|were|was)\s+(?:completely|entirely|totally|silently|simply|just)\s+ignored)\b"
    ),
    "security": re.compile(
        r"\b(?:cve-\d{4}-\d+|security (?:issue|vulnerability|bug|hole)|vulnerab\w+|"
        r"(?:arbitrary|remote) code execution|privilege escalation)\b"
    ),
    # A process killed by the hardware or the runtime: nothing to catch, often nothing logged.
    "hard_crash": re.compile(
        r"\b(?:segfault\w*|seg(?:mentation)?[ -]?fault|sigsegv|sigabrt|sigbus|sigill|core dumped|"
        r"illegal (?:memory (?:access|reads?|writes?)|instruction|address)|"
        r"(?:reads?|reading|writes?|writing|access(?:es|ing)?)\s+(?:\w+\s+)?out[- ]of[- ]bounds|"
        r"(?:launch|kernel) failures?|"
        r"fail(?:s|ed|ures?)? (?:to|during|at) launch|device-side assert\w*|terminate called|double free|"
        r"use[- ]after[- ]free|out[- ]of[- ]bounds (?:read|write|access)|reads? (?:~?[\d.]+ \w+ )?past|"
        # "an OOB write in the scatter kernel", "it reads OOB": the abbreviation is as common as the words
        r"oob (?:memory )?(?:reads?|writes?|access(?:es)?)|(?:reads?|writes?) oob|"
        r"memory corruption|buffer overflow|exceed\w* the hardware limit|hardware limit|"
        r"null[- ]?(?:ptr|pointer) (?:dereference|deref|access)\w*)\b"
    ),
    "crash": re.compile(r"\b(?:crash(?:es|ed|ing)?|abort(?:s|ed)?)\b"),
    "hang": re.compile(
        r"\b(?:hangs?|hanging|hung|deadlock(?:s|ed|ing)?|livelock\w*|stuck|"
        # "the process freezes", not "we freeze the layout" (what a compiler does to a graph)
        r"freez(?:e|es|ing)(?!\s+(?:the|a|an|its|their|this|these|that|all|any|some|weights?|param\w*|layouts?|"
        r"graphs?|modules?|models?)\b)|"
        r"never (?:returns|finishes|completes))\b"
    ),
    "memory": re.compile(
        # "the memory leak checker" is a tool, not a leak
        r"\b(?:oom|ooms|out of memory|"
        r"memory leak\w*(?!\s+(?:checker|detector|checks?|detection|tests?|tools?|tracker))|"
        r"leak(?:s|ing)? memory|"
        # "activations are not freed after backward": memory held that should have been given back
        r"(?:memory|activations?|tensors?|buffers?|storages?|allocations?|blocks?)\s+(?:\w+\s+)?"
        r"(?:(?:are|is|were|was|get|gets)\s+)?(?:not|never)\s+(?:freed|released|cleared|deallocated|reclaimed)"
        r"(?!\s+(?:too\s+)?(?:early|soon|before|prematurely|until|while))|"
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
        # "worked on 2.4", "worked before": not "I worked with the maintainers", nor "worked in eager mode"
        r"\b(?:regress(?:ion|ions|ed|es)?|used to work|worked (?:fine |correctly )?before|"
        r"worked (?:fine |correctly )?(?:in|on|with)\s+(?:(?:py)?torch\s+|the\s+(?:previous|old|older|last|earlier)\b|"
        r"(?:version|release|nightly)\b|v?\d)|"
        # "#139833 broke `torch.compile(options=...)`": a named change broke what worked
        r"(?:(?<=#)\d+\s+|(?:pr|commit|diff|upgrade|update|bump)\s+(?:#?[\w.-]+\s+)?)broke|"
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
        "random",
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
        "inconsistent",
        "accuracy",
        "correctly",
        "finite",
        "ignored",
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
        "oob",
        "past",
        "corruption",
        "overflow",
        "hardware limit",
        "null",
    ),
    "crash": ("crash", "abort"),
    "hang": ("hang", "hung", "deadlock", "livelock", "stuck", "freez", "never "),
    "memory": ("oom", "memory", "leak", "freed", "released", "cleared", "dealloc", "reclaim"),
    "perf_regression": ("regress", "slow"),
    "compile_time": ("compil",),
    "overhead": ("overhead", "patholog", "add", "cost"),
    "blocker": ("block", "prevent", "install", "download", "unzip", "import torch"),
    "regression": ("regress", "work", "no longer", "broke", "upgrading", "updating", "pass"),
    "error": ("rais", "throw", "error", "fail", "traceback", "exception", "broken"),
}
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
# What turns a failure word into a design statement, a denial or a hypothesis.
BEFORE_CONTEXT = re.compile(
    r"\b(?:no|not|\w+n['’]t|cannot|without|never|avoid\w*|prevent\w*|guard\w* against|protect\w* against|instead of|"
    r"in case of|to reduce|reduc\w+ the|could|might|may|would|\w+['’]d|potentially|possibly|if|whether|check\w* for|"
    r"detect\w*|"
    r"confounded by|thinking|assuming|ideally|preferably|"
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
    # "makes the regression pass on all shards": a test named after the failure it guards against
    r"|^[\s-]*(?:(?:test|suite)\s+)?pass(?:es|ed|ing)?\b"
    # "incorrect values displayed in error messages": what a message or a document says, not a result
    r"|^[\s-]*(?:(?:displayed|printed|shown|reported|logged|mentioned)\s+)?(?:in|of)\s+(?:the\s+|its\s+)?"
    r"(?:error\s+|warning\s+|log\s+|exception\s+)?(?:messages?|strings?|logs?|docs?|docstrings?|documentation|comments?)\b"
)
# "it doesn't seem to reproduce the crash", "we never managed to trigger a hang", "does not result in
# an error", "we do not observe any performance regression": a failure someone could not bring about,
# or that does not follow, is denied from further away than BEFORE_CONTEXT looks.
NOT_REPRODUCED = re.compile(
    r"\b(?:not|never|\w+n['’]t|cannot|unable to|failed to)\s+(?:\S+\s+){0,3}?"
    r"(?:(?:reproduc|trigger|observ|see|hit)\w*|(?:result|lead)\w*\s+(?:in|to))\s+(?:the\s+|a\s+|an\s+|any\s+)?"
    r"(?:(?:performance|perf|memory|numerical|accuracy|compile|speed)\s+)?$"
)
# "are safely rejected with a ValueError", "is correctly blocked by a TypeError", "so the load errors
# out early", "should raise an error": an error a change brings in, or one the author expects, is the
# behaviour wanted, not a failure. "For the other formats we continue to raise": an error the authors
# keep on purpose, the change's limit.
WANTED_ERROR_BEFORE = re.compile(
    r"\b(?:should|must|safely|explicitly|properly|correctly|cleanly|gracefully|reject\w*)\s+(?:\S+\s+){0,3}?[`'\"(]*$|"
    # "eager correctly detects the mismatch and raises": what the right path does, told before the error
    r"\b(?:safely|properly|correctly|cleanly|gracefully)\s+(?:(?!(?:but|however|yet|though|although)\b)[^\s,;]+\s+)"
    r"{4,8}?(?:and|then)\s+$|"
    r"\bwe\s+(?:will\s+|would\s+)?continue\s+to\s+$|"
    # "Add a shape check in the loss to error out when ...": the error a check is there to raise
    r"\b(?:checks?|guards?|validations?|asserts?)\b[^.;]{0,40}?\bto\s+$"
)
WANTED_ERROR_AFTER = re.compile(r"^\W*(?:early|instead|gracefully|cleanly|up ?front)\b")
# "Error out if one is attempting to ...", "Raise a ValueError when ...", "We raise an error if ...": a
# change's description (or a request) in the imperative or in its authors' voice says which error the
# change adds, and its condition is no failure seen. The third person ("Errors out when ...",
# "Raises ...") reports one.
WANTED_ERROR_ORDER = re.compile(
    r"^[\W\d]*(?:(?:now|also|instead|then),?\s+)?(?:(?:we|this (?:pr|change))\s+(?:now\s+)?)?"
    r"(?:raise|throw|error out)\b"
)
# "The one exception is export", "with the exception of": the word's other sense, an error of no kind.
EXCEPTION_TO_A_RULE = re.compile(
    r"exceptions?(?=\s+(?:to|of|being)\b|\s+(?:is|are|was|were)\s+(?!raised|thrown|triggered|hit|caught)\w)"
)
# "... can accumulate, eventually leading to wrong results or divergence": a knock-on the author
# fears, stated anywhere before the failure words, is no failure seen ("may result in the following
# error" reports one). "but doesn't touch the second bug where …": a failure the change leaves
# alone. "to avoid code duplication and silent correctness problems": what a change keeps away,
# however long the list before it. "attempts to clean it up thus far result in segfaults": what a
# tried remedy did, not the problem it remedies.
CONSEQUENCE = re.compile(
    r"\b(?:eventually|ultimately|(?:could|might|would)\s+(?:\w+\s+)?(?:lead|result)\s+(?:to|in)|"
    r"(?:does not|doesn't|do not|don't|will not|won't)\s+(?:yet\s+)?(?:touch|address|cover)\b|"
    r"(?:to avoid|to prevent|avoids|avoiding|prevents|preventing)\s+(?:[\w-]+,?\s+){1,6}"
    r"(?:and|or|as well as)\s+(?:\S+\s+)?$|"
    # "used to prevent branching causing a slowdown": the harm a design keeps away
    r"(?:avoid|prevent)\w*\s+(?:[\w-]+\s+){1,3}(?:causing|leading to|resulting in)\s+(?:\S+\s+)?$|"
    r"attempt(?:s|ed|ing)?\s+to\s+(?:fix|clean|clear|remove|work around|resolve|patch|address|avoid|free|release)\b"
    r"(?:\s+\S+){0,6}?\s+(?:result(?:s|ed)?\s+in|leads?\s+to|led\s+to|caus\w+|trigger\w*)\s+(?:\S+\s+)?$)"
)
NEGATIONS_ANYWHERE = re.compile(r"\b(?:no (?:behaviou?r|functional|user-facing) change|nfc|no-op)\b")


# "WARNING: this will be slower than ...", "UserWarning: ...", a glog "W0512 19:16:17 ..." line: what
# a program warns of, printed, not what happened.
PROGRAM_WARNING = re.compile(r"^\W*(?:WARNING\b|[A-Z]\w*Warning:|W\d{4} \d\d:\d\d)")
# "`setTimeout, shrink, shutdown, abort`": a code span that lists names. Its words name functions,
# state nothing, and are blanked (keeping every offset) before the phrases are read.
NAME_LIST = re.compile(r"`[\w.:]+(?:\(\))?(?:,\s*[\w.:]+(?:\(\))?)+`")


# A sentence states the same facts wherever it stands: template lines, bot boilerplate and a commit's
# copy of its PR's description recur across a window, and each distinct sentence is read once.
@lru_cache(maxsize=4096)
def stated_facts(sentence: str) -> tuple[tuple[str, str], ...]:
    """(kind, the words that state it) for each fact the sentence states, in the order they are added."""
    if PROGRAM_WARNING.match(sentence):
        return ()
    lowered = sentence.lower()
    if "`" in lowered and "," in lowered:
        lowered = NAME_LIST.sub(lambda names: "`" + "_" * (len(names.group(0)) - 2) + "`", lowered)
    if ("no" in lowered or "nfc" in lowered) and NEGATIONS_ANYWHERE.search(lowered):
        return ()
    # A link's digits are no measurement ("…/Graph.cpp#L447%C2%A0" reads as 447%).
    plain = LINK.sub(" ", lowered) if "://" in lowered else lowered
    magnitude = figure(plain)
    stated: list[tuple[str, str]] = []
    # Most sentences state nothing: one scan for the triggers saves running every pattern.
    triggered = {kind for trigger in TRIGGER_SCAN.findall(lowered) for kind in TRIGGER_KINDS[trigger]}
    for kind, pattern in PROBLEMS.items():
        if kind not in triggered:
            continue
        for match in pattern.finditer(lowered):
            if not other_sense(kind, sentence, lowered, match) and asserted(lowered, match):
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
    elif GAIN.search(lowered) or (not stated and better(magnitude, plain)):
        found.append(("gain", magnitude.group(0).strip()))
    return tuple(found)


def asserted(sentence: str, match: re.Match[str]) -> bool:
    """The failure is stated as happening, not denied, prevented, tested for or imagined."""
    before = sentence[max(0, match.start() - 60) : match.start()]
    after = sentence[match.end() : match.end() + 60]
    if sentence[max(0, match.start() - 5) : match.start()].endswith(("test_", "_", "/", ".")) or after.startswith(
        ("_", "/")
    ):
        return False  # part of a name: test_hang_on_exit, freeze/optimize_for_inference, torch.jit.freeze
    return not (
        BEFORE_CONTEXT.search(before)
        or NOT_REPRODUCED.search(before)
        or AFTER_CONTEXT.match(after)
        or CONSEQUENCE.search(sentence, 0, match.start())
    )


def other_sense(kind: str, sentence: str, lowered: str, match: re.Match[str]) -> bool:
    """The kind's words mean something else here: an error wanted or named, a compiler pass's step,
    a regression test."""
    if kind == "error":
        return wanted_error(lowered, match) or named(sentence, lowered, match)
    if kind == "wrong_result":
        return COMPILER_STEP.search(lowered, max(0, match.start() - 30), match.start()) is not None
    if kind == "regression":
        return REGRESSION_TEST.match(lowered, match.end()) is not None
    if kind == "hang":
        return FIXED_VALUE.search(lowered, max(0, match.start() - 40), match.start()) is not None
    return False


# "the padded size freezes at its first value", "the loss is stuck at 2.3": a value that stops changing,
# not a program that stops running.
FIXED_VALUE = re.compile(
    r"\b(?:strides?|shapes?|sizes?|values?|dims?|dimensions?|hints?|seeds?|loss(?:es)?|accuracy|lr|"
    r"learning rate|outputs?|gradients?|grads?)\s+(?:(?:is|are|was|were|gets?|got|remains?|stays?)\s+)?$"
)


# "Added regression coverage", "a regression test for it": the name of a kind of test, not a regression.
REGRESSION_TEST = re.compile(r"\s*(?:tests?|testing|coverage|suites?|checks?)\b")


# "the node is silently skipped": a step of a compiler pass, whose outcome for the user is left unsaid.
COMPILER_STEP = re.compile(r"\b(?:nodes?|pass(?:es)?|graphs?)\s+(?:is|are|was|were|gets?|got)\s+$")
# "getError", "setLastError": a function's name as written, lower case first (an exception's class
# name, "KeyError", starts upper case and is an error that happened).
CAMEL_NAME = re.compile(r"\b[a-z][a-z0-9]*[A-Z]\w*")


def named(sentence: str, lowered: str, match: re.Match[str]) -> bool:
    """The words matched lie in a camel-cased name ("getError"), not an error that happened."""
    if len(sentence) != len(lowered):
        return False
    start = max(0, match.start() - 40)
    return any(name.start() <= match.start() < name.end() for name in CAMEL_NAME.finditer(sentence, start, match.end()))


def wanted_error(sentence: str, match: re.Match[str]) -> bool:
    """The error is what a change makes happen or what the author expects, not what goes wrong, or
    is no error at all (an exception to a rule)."""
    before = sentence[max(0, match.start() - 40) : match.start()]
    ordered = WANTED_ERROR_ORDER.match(sentence)
    return bool(
        (ordered is not None and match.start() < ordered.end())
        or WANTED_ERROR_BEFORE.search(before)
        or WANTED_ERROR_AFTER.match(sentence[match.end() :])
        or (match.group(0).startswith("exception") and EXCEPTION_TO_A_RULE.match(sentence, match.start()))
    )
