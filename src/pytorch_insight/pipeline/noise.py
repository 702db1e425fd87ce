"""Mark (never delete) what is noise: bot authors, CI automation, bumps, clean-ups, test-only changes."""

from __future__ import annotations

import re
from functools import cache

from pytorch_insight.config import Profile
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import Reason, reason


class NoiseRules:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        # A window has few authors and many items: each login is judged once.
        self.is_bot = cache(profile.is_bot)
        self.rules = [
            (rule.id, rule.reason, [re.compile(p) for p in rule.title_patterns], set(rule.labels), set(rule.kinds))
            for rule in profile.noise
        ]

    def reasons(self, assessment: Assessment) -> list[Reason]:
        item = assessment.item
        found = []
        if self.is_bot(item.author):
            found.append(reason("bot", login=item.author or ""))
        title = item.title or ""
        labels = set(item.labels)
        for rule_id, why, patterns, rule_labels, kinds in self.rules:
            if labels & rule_labels or item.kind in kinds or _search_any(patterns, title):
                found.append(reason("signal", tag=f"noise:{rule_id}", what=why))
        return found


def _search_any(patterns: list[re.Pattern[str]], text: str) -> bool:
    # A loop rather than any() over a generator: this runs for every pattern of every item.
    for pattern in patterns:
        if pattern.search(text):
            return True
    return False
