import importlib
import json
import re
from pathlib import Path

import pytest

from pytorch_insight import text as text_module
from pytorch_insight.config import NoiseRule
from pytorch_insight.guard import Guard, either, guard
from pytorch_insight.pipeline import facts, phrases, severity
from pytorch_insight.pipeline.facts import FactExtractor
from tests.pipeline.helpers import PROFILE

# The module, not the function `pytorch_insight.pipeline` exports under its name.
link = importlib.import_module("pytorch_insight.pipeline.link")
references = importlib.import_module("pytorch_insight.pipeline.references")
RAW = Path(__file__).resolve().parents[1] / "data" / "raw"


def test_a_pattern_led_by_a_word_boundary_needs_its_first_word() -> None:
    needs = guard(re.compile(r"\bsm_?(?:[789]\d|1[0-2]\d)a?\b"))
    assert needs.clauses == (("sm",),)
    assert not needs.may_match("a text about kernels")
    assert needs.may_match("built for sm90a")


def test_alternatives_join_into_one_clause_and_a_bare_one_voids_it() -> None:
    assert guard(re.compile(r"\b(?:abc)+d|\bxy")).clauses == (("abc", "xy"),)
    assert set(guard(re.compile(r"\bab(?:cd|)ef")).clauses) == {("ab",), ("ef",)}
    # "fix" stands for every alternative that holds it ("fixed it", "that fixes", "with a fix" ...)
    assert guard(link.FIX_OFFERED).clauses[0] == ("created", "fix", "opened", "put up", "sent", "submitted")


def test_case_blind_patterns_are_ruled_out_only_in_ascii_text() -> None:
    needs = guard(re.compile(r"(?i)\bkernel\b"))
    assert needs.folded and not needs.may_match("no such word here")
    assert needs.may_match("A KERNEL")
    # The Kelvin sign is "k" to a case-blind pattern, never to lower()
    assert re.search(r"(?i)\bkernel\b", "\u212aernel") and needs.may_match("\u212aernel")


def test_patterns_the_engine_skips_through_itself_are_not_tested_first() -> None:
    assert not guard(re.compile(r"__main__\.\w+")).worth
    assert not guard(re.compile(r"^DISABLED test")).worth
    assert guard(re.compile(r"^DISABLED test", re.M)).worth  # every line's start
    assert guard(re.compile(r"\b(?i:abc)d")).clauses == ()  # scoped folding: no guard


def test_a_choice_of_patterns_needs_what_one_of_them_needs() -> None:
    choice = either([guard(re.compile(r"(?i)\bbump\b")), guard(re.compile(r"(?i)^update (?:the )?pinned"))])
    assert choice.clauses == (("bump", "update "),) and choice.folded
    assert not choice.may_match("Fix a crash") and choice.may_match("Update pinned commit")
    assert not either([guard(re.compile(r"\bbump\b")), guard(re.compile(r"\w+"))]).clauses


def patterns() -> list[re.Pattern[str]]:
    extractor = FactExtractor(PROFILE.severity)
    vocabularies = (extractor.hardware, extractor.downstream, extractor.release, extractor.scale)
    found = [vocabulary[0].pattern for vocabulary in vocabularies if vocabulary]
    found += [re.compile(p) for area in PROFILE.areas for p in area.patterns]
    found += [re.compile(p) for rule in PROFILE.noise for p in rule.title_patterns]
    found += list(phrases.PROBLEMS.values())
    modules = (facts, phrases, link, references, text_module, severity)
    found += [value for module in modules for value in vars(module).values() if isinstance(value, re.Pattern)]
    return found


def texts() -> list[str]:
    rows = [json.loads(line) for path in sorted(RAW.glob("*.jsonl")) for line in path.read_text().splitlines()]
    found = [f"{row['title'] or ''}\n{row['body'] or ''}" for row in rows]
    # The same texts as a hostile source may write them: shouted, or with the letters case-blind
    # matching takes for ASCII ones (the Kelvin sign, the long s, the dotless i).
    found += [text.upper() for text in found]
    found += [text.replace("k", "\u212a").replace("s", "\u017f").replace("i", "\u0131") for text in found]
    return found


@pytest.mark.parametrize("pattern", patterns(), ids=lambda p: p.pattern[:40])
def test_a_guard_never_rules_out_a_text_the_pattern_matches(pattern: re.Pattern[str]) -> None:
    needs = Guard(guard(pattern).clauses, guard(pattern).folded)  # tested even where not worth it
    for text in texts():
        assert needs.may_match(text) or pattern.search(text) is None, text[:80]


@pytest.mark.parametrize("rule", PROFILE.noise, ids=lambda rule: rule.id)
def test_a_rule_guard_never_rules_out_a_title_one_of_its_patterns_matches(rule: NoiseRule) -> None:
    patterns = [re.compile(p) for p in rule.title_patterns]
    needs = either(guard(p) for p in patterns)
    for text in texts():
        title = text.split("\n", 1)[0]
        assert needs.may_match(title) or not any(p.search(title) for p in patterns), title
