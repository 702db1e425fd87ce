"""Focus areas from the profile's rules: labels, title tags, kinds, patterns, paths, keywords and
`cc @...` owner lists, each worth a profile-set weight. Works on unlabelled items too."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pytorch_insight.config import AreaRule, ClassificationWeights, Profile
from pytorch_insight.pipeline.assessment import Assessment


@dataclass(frozen=True)
class _CompiledArea:
    rule: AreaRule
    labels: frozenset[str]
    tags: frozenset[str]
    words: frozenset[str]              # single-word keywords
    phrases: tuple[str, ...]           # multi-word keywords
    prefixes: re.Pattern[str] | None   # keywords ending in "*"
    patterns: tuple[re.Pattern[str], ...]
    paths: tuple[str, ...]
    owners: frozenset[str]


def _compile(rule: AreaRule) -> _CompiledArea:
    keywords = [keyword.lower() for keyword in rule.keywords]
    prefixes = [re.escape(k[:-1]) for k in keywords if k.endswith("*")]
    plain = [k for k in keywords if not k.endswith("*")]
    return _CompiledArea(
        rule=rule,
        labels=frozenset(label.lower() for label in rule.labels),
        tags=frozenset(tag.lower().strip("[]") for tag in rule.title_tags),
        words=frozenset(k for k in plain if " " not in k),
        phrases=tuple(k for k in plain if " " in k),
        prefixes=re.compile(r"\b(?:" + "|".join(prefixes) + r")\w*") if prefixes else None,
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
        for area in self.areas:
            score, evidence = self._score(area, assessment)
            if score >= self.weights.threshold:
                found[area.rule.id] = evidence
        if not found and self.fallback:
            found[self.fallback] = ["no specific area matched"]
        return found

    def _score(self, area: _CompiledArea, assessment: Assessment) -> tuple[float, list[str]]:
        weights, item, features = self.weights, assessment.item, assessment.features
        score, evidence = 0.0, []
        if self.use_labels:
            for label in sorted({label.lower() for label in item.labels} & area.labels):
                score += weights.label
                evidence.append(f"label {label}")
        for tag in sorted(features.tags & area.tags):
            score += weights.title_tag
            evidence.append(f"title tag [{tag}]")
        if item.kind in area.rule.kinds:
            score += weights.kind
            evidence.append(f"kind {item.kind}")
        raw = f"{item.title or ''}\n{item.body or ''}"
        for pattern in area.patterns:
            if pattern.search(raw):
                score += weights.pattern
                evidence.append(f"pattern {pattern.pattern}")
                break
        paths = [path for path in area.paths if path in features.text]
        if paths:
            score += weights.path
            evidence.append(f"path {paths[0]}")
        title_hits, body_hits = self._keywords(area, features.title, features.title_words, features.text, features.words)
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

    @staticmethod
    def _keywords(area: _CompiledArea, title: str, title_words: frozenset[str], text: str,
                  words: frozenset[str]) -> tuple[list[str], list[str]]:
        in_title = sorted(area.words & title_words) + [p for p in area.phrases if p in title]
        in_text = sorted(area.words & words) + [p for p in area.phrases if p in text]
        if area.prefixes:
            in_title += sorted(set(area.prefixes.findall(title)))
            in_text += sorted(set(area.prefixes.findall(text)))
        return in_title, [hit for hit in in_text if hit not in in_title]


def classify(assessments: Iterable[Assessment], profile: Profile, use_labels: bool = True) -> None:
    classifier = AreaClassifier(profile, use_labels)
    for assessment in assessments:
        assessment.area_evidence = classifier.classify(assessment)
        assessment.areas = list(assessment.area_evidence)
