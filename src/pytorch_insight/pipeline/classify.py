"""Focus areas from the profile's rules: labels, title tags, kinds, patterns, paths, keywords and
`cc @...` owner lists, each worth a profile-set weight. Works on unlabelled items too."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytorch_insight.config import AreaRule, ClassificationWeights, Profile
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.features import KeywordSet


@dataclass(frozen=True)
class _CompiledArea:
    rule: AreaRule
    labels: frozenset[str]
    tags: frozenset[str]
    keywords: KeywordSet
    patterns: tuple[re.Pattern[str], ...]
    paths: tuple[str, ...]
    owners: frozenset[str]


def _compile(rule: AreaRule) -> _CompiledArea:
    return _CompiledArea(
        rule=rule,
        labels=frozenset(label.lower() for label in rule.labels),
        tags=frozenset(tag.lower().strip("[]") for tag in rule.title_tags),
        keywords=KeywordSet(rule.keywords),
        patterns=tuple(re.compile(pattern) for pattern in rule.patterns),
        paths=tuple(path.lower() for path in rule.paths),
        owners=frozenset(owner.lower().lstrip("@") for owner in rule.owners),
    )


class AreaClassifier:
    def __init__(self, profile: Profile, use_labels: bool = True) -> None:
        self.weights: ClassificationWeights = profile.classification
        self.areas = [_compile(rule) for rule in profile.areas]
        self.fallback = next((area.rule.id for area in self.areas if area.rule.fallback), None)
        self.use_labels = use_labels

    def classify(self, assessment: Assessment) -> dict[str, list[str]]:
        """Area id -> the evidence that put the item there, in profile order."""
        found: dict[str, list[str]] = {}
        raw = f"{assessment.item.title or ''}\n{assessment.item.body or ''}"  # the profile's patterns see it as written
        for area in self.areas:
            score, evidence = self._score(area, assessment, raw)
            if score >= self.weights.threshold:
                found[area.rule.id] = evidence
        if not found and self.fallback:
            found[self.fallback] = ["no specific area matched"]
        return found

    def _score(self, area: _CompiledArea, assessment: Assessment, raw: str) -> tuple[float, list[str]]:
        weights, item, features = self.weights, assessment.item, assessment.features
        score, evidence = 0.0, []
        if self.use_labels:
            for label in sorted(features.labels & area.labels):
                score += weights.label
                evidence.append(f"label {label}")
        for tag in sorted(features.tags & area.tags):
            score += weights.title_tag
            evidence.append(f"title tag [{tag}]")
        if item.kind in area.rule.kinds:
            score += weights.kind
            evidence.append(f"kind {item.kind}")
        for pattern in area.patterns:
            if pattern.search(raw):
                score += weights.pattern
                evidence.append(f"pattern {pattern.pattern}")
                break
        paths = [path for path in area.paths if path in features.text]
        if paths:
            score += weights.path
            evidence.append(f"path {paths[0]}")
        hits = area.keywords.find(features.words, features.text)
        title_hits = [hit for hit in hits if hit in features.title_words or (" " in hit and hit in features.title)]
        body_hits = [hit for hit in hits if hit not in title_hits]
        if title_hits:
            score += weights.title_keyword
            evidence.append("title mentions " + ", ".join(title_hits[:3]))
        if body_hits:
            score += min(weights.body_keyword_cap, weights.body_keyword * len(body_hits))
            evidence.append("text mentions " + ", ".join(body_hits[:3]))
        owners = sorted(features.owners & area.owners)
        if owners:
            score += min(weights.owner_cap, weights.owner * len(owners))
            evidence.append("cc " + ", ".join(f"@{owner}" for owner in owners[:3]))
        return score, evidence
