"""Mark (never delete) what is noise: bot authors, CI automation, bumps, clean-ups, test-only changes."""

from __future__ import annotations

import re

from pytorch_insight.config import Profile
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import Reason, reason


class NoiseRules:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.rules = [
            (rule.id, rule.reason, [re.compile(p) for p in rule.title_patterns], set(rule.labels), set(rule.kinds))
            for rule in profile.noise
        ]

    def reasons(self, assessment: Assessment) -> list[Reason]:
        item = assessment.item
        found = []
        if self.profile.is_bot(item.author):
            found.append(reason("bot", login=item.author or ""))
        title = item.title or ""
        labels = set(item.labels)
        for rule_id, why, patterns, rule_labels, kinds in self.rules:
            if any(p.search(title) for p in patterns) or labels & rule_labels or item.kind in kinds:
                found.append(reason("signal", tag=f"noise:{rule_id}", what=why))
        return found
