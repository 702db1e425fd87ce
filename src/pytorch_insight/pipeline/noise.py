"""Mark (never delete) what is noise: bot authors, CI automation, bumps, clean-ups, test-only changes."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from pytorch_insight.config import NoiseRule, Profile
from pytorch_insight.guard import Guard, either, guard
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import Reason, reason


class NoiseRules:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        # A window has few authors and many items: each login is judged once.
        self.is_bot = cache(profile.is_bot)
        # Each rule's reason is worded once: every item it marks holds the same one (a reading
        # process sends it to the parent once per batch).
        self.rules = [
            (
                reason("signal", tag=noise_tag(rule), what=rule.reason),
                _guarded(rule.title_patterns),
                set(rule.labels),
                set(rule.kinds),
            )
            for rule in profile.noise
        ]
        # Most titles hold none of the strings any of a rule's patterns needs: one test for the rule.
        self.rule_guards = [either(needs for _, needs in patterns) for _, patterns, _, _ in self.rules]
        self.bot_reason = cache(lambda login: reason("bot", login=login))
        self.liftable = frozenset(noise_tag(rule) for rule in profile.noise if rule.stated_problem_lifts)

    def reasons(self, assessment: Assessment) -> list[Reason]:
        item = assessment.item
        found = []
        if self.is_bot(item.author):
            found.append(self.bot_reason(item.author or ""))
        title = item.title or ""
        lowered = title.lower()
        labels = set(item.labels)
        for (said, patterns, rule_labels, kinds), needs in zip(self.rules, self.rule_guards, strict=True):
            if (
                labels & rule_labels
                or item.kind in kinds
                or (needs.may_match(title, lowered) and _search_any(patterns, title, lowered))
            ):
                found.append(said)
        return found

    def lifted(self, reasons: list[Reason], problems: Callable[[], list[str]]) -> bool:
        """Whether every rule that marked the item yields to a problem its text states (`problems`, read
        only when it may matter); an error message alone is no such statement (a clean-up may quote
        the error it tidies)."""
        return (
            bool(reasons)
            and all(said.code in self.liftable for said in reasons)
            and any(kind != "error" for kind in problems())
        )


def noise_tag(rule: NoiseRule) -> str:
    """The code of the reason a rule gives each item it marks."""
    return f"noise:{rule.id}"


def fixing_nothing(profile: Profile) -> frozenset[str]:
    """The codes of the rules whose changes fix nothing they name (`NoiseRule.fixes`)."""
    return frozenset(noise_tag(rule) for rule in profile.noise if not rule.fixes)


def _guarded(patterns: list[str]) -> list[tuple[re.Pattern[str], Guard]]:
    """Each pattern with its guard: most are case-blind and led by `\b`, tried at every position."""
    return [(compiled, guard(compiled)) for compiled in map(re.compile, patterns)]


def _search_any(patterns: list[tuple[re.Pattern[str], Guard]], text: str, lowered: str) -> bool:
    # A loop rather than any() over a generator: this runs for every pattern of every item.
    for pattern, needs in patterns:
        if needs.may_match(text, lowered) and pattern.search(text):
            return True
    return False
