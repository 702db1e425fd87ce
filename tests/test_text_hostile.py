"""Every pass over an issue body is linear in it: a hostile body eight times as long costs about
eight times as much, never sixty-four (one body of 64k newlines once took `report` 314 s). The
sizes are small and each timing is the best of several; eight times the size puts linear and
quadratic so far apart that a loaded machine's noise cannot bridge them, and a reading past the
bound is taken again: a quadratic pass fails every time, noise does not repeat itself.
benchmarks/hostile.py times the same at GitHub's full 65,536 characters."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

from pytorch_insight import text
from pytorch_insight.analysis.grounding import SourceCorpus
from pytorch_insight.analysis.model import AnalysisContext
from pytorch_insight.analysis.rules import RuleAnalyser
from pytorch_insight.announced import announced_errors as announce
from pytorch_insight.config import load_profile
from pytorch_insight.model import Item
from pytorch_insight.pipeline import assess
from pytorch_insight.redact import redact
from pytorch_insight.report.render import md_inline
from tests.pipeline import helpers

N = 5_000
GROWTH = 8
MAX_RATIO = 24.0  # linear gives ~8; quadratic ~64
ATTEMPTS = 3
ONE_CALL = 1.0  # seconds: a 5,000-character body takes milliseconds; more is no linear pass
PROFILE = load_profile("pytorch")

UNITS = {
    "newlines": "\n",
    "crlf": "\r\n",
    "blank lines with blanks": "\n \t \n",
    "backticks": "`",
    "unclosed fences": "```\n",
    "fence info without newline": "```python ",
    "brackets": "[",
    "unclosed links": "[a](",
    "unclosed images": "![",
    "unclosed tags": "<a ",
    "nested lists": "".join(f"{'  ' * depth}- item\n" for depth in range(20)),
    "hashes": "# ",
    "heading lines": "# heading\n",
    "spaces": " ",
    "parens": "(",
    "stars": "*",
    "underscores": "_",
    "question marks": "?",
    "dotted digits": "1.",
    "test plan lines": "Test Plan:\n",
    "numbered prompts": "1. what is it\n",
    "mixed": "# h\n```\n[[((**__ `x\n  - 1. what?\n\n<a ![x]( Test Plan:\n\t \n",
    "bold lead-ins": "**Root cause:** x\n",
    "disclosure prefixes": "**Disclosure** this was drafted with an a",
    "plain lead-ins": "Workaround: y\n",
    "bold runs without a close": "**" + "a" * 39 + "  \t",
    "logs after lead-ins": "It fails with:\n```\na.b.c.D.e.F: x\nValueError: y\nA.B.C.D.E.F.G.H.I.J.K.L\n```\n",
}


def hostile(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def cost(function: Callable[[str], object], value: str, loops: int) -> float:
    """CPU time of `loops` cold calls (the sentence cache emptied before each): the processor
    time of this process, which other work on the machine does not stretch as it does wall time."""
    gc.collect()
    gc.disable()  # a collection falling into one timing and not the other is noise, not growth
    try:
        started = time.process_time()
        for _ in range(loops):
            text.sentences_cache_clear()
            function(value)
        return time.process_time() - started
    finally:
        gc.enable()


def assert_linear(function: Callable[[str], object], small: str, large: str) -> None:
    once = cost(function, small, 1)
    assert once < ONE_CALL, f"{once:.2f} s for {len(small)} characters"
    loops = max(1, int(0.01 / max(once, 1e-6)))  # each timing at least ~10 ms: far above the clock's grain
    ratios = []
    for _ in range(ATTEMPTS):
        small_cost, large_cost = float("inf"), float("inf")
        for _ in range(5):  # in turns, the best of each
            small_cost = min(small_cost, cost(function, small, loops))
            large_cost = min(large_cost, cost(function, large, loops))
        ratios.append(large_cost / small_cost)
        if ratios[-1] < MAX_RATIO:
            return
    raise AssertionError(f"{GROWTH}x the text cost {', '.join(f'{r:.1f}' for r in ratios)}x the time")


def item(body: str) -> Item:
    return helpers.item(1, "torch.compile crashes on H100", body)


def deep_analysis(body: str) -> None:
    ranked = assess([item(body)], PROFILE)
    RuleAnalyser().analyse(ranked[0], AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked}), True)


def announced_errors(body: str) -> None:
    announce(text.sentences(body), body)


@pytest.mark.parametrize("unit", UNITS.values(), ids=UNITS.keys())
@pytest.mark.parametrize(
    "function", [text.prose, text.sentences, text.parse_body, announced_errors], ids=lambda f: f.__name__
)
def test_text_passes_are_linear(function: Callable[[str], object], unit: str) -> None:
    assert_linear(function, hostile(unit, N), hostile(unit, GROWTH * N))


@pytest.mark.parametrize("unit", ["\n", "\r\n", " ", "1", "1.", "`", "[a](", "?", "_", "*"], ids=repr)
def test_the_deep_analysis_of_an_item_is_linear(unit: str) -> None:
    assert_linear(deep_analysis, hostile(unit, N), hostile(unit, GROWTH * N))


@pytest.mark.parametrize("unit", ["1", "1.", "a.", " ", "_", "`_", "[", "ghp_", "sk-a", "Bearer "], ids=repr)
def test_rendering_redaction_and_grounding_are_linear(unit: str) -> None:
    corpus = SourceCorpus(["The autotuner caches a kernel."])
    for function in (md_inline, redact, corpus.unsupported):
        assert_linear(function, hostile(unit, N), hostile(unit, GROWTH * N))


def test_a_body_longer_than_github_allows_is_cut_before_it_is_read() -> None:
    body = "A sentence that is long enough. " * 4_000  # 128,000 characters
    assert len(text.parse_body(body).sections[""]) == text.BODY_LIMIT
    assert len(text.prose(body)) <= text.BODY_LIMIT


def test_patterns_read_the_same_as_before() -> None:
    """The linear patterns keep their meaning: headings, fences, links, boilerplate, questions."""
    body = (
        "## 🐛 Describe the bug ##\r\n"
        "It crashes on H100.\r\n"
        "Fixes #123\r\n"
        "cc @alice @bob\r\n"
        "\r\n\r\n\r\n"
        "```python\nx = 1\n```\n"
        "See [the docs](https://pytorch.org/docs/(stable)) and ![shot](https://x/y.png).\n"
        "Is this expected?!\n\n"
        "1) What is the root cause of the problem\n"
        "Test Plan:\npython test.py\nReviewed By: carol\n"
    )
    # "Test Plan:" leads in to a section of its own; "1) What is ..." is a prompt, no lead-in
    assert list(text.parse_body(body).sections) == ["", "describe the bug", "test plan"]
    assert text.parse_body(body).code_blocks == ["x = 1"]
    assert text.sentences(body) == ["It crashes on H100.", "See the docs and ."]
