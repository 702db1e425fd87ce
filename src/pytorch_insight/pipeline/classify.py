"""Focus areas from the profile's rules: labels, title tags, kinds, patterns, paths, keywords and
`cc @...` owner lists, each worth a profile-set weight. Works on unlabelled items too."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from pytorch_insight.config import AreaRule, ClassificationWeights, Profile
from pytorch_insight.guard import Guard, guard
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.features import KeywordSet


@dataclass(frozen=True)
class _CompiledArea:
    rule: AreaRule
    labels: frozenset[str]
    tags: frozenset[str]
    keywords: KeywordSet
    # Each pattern with its guard, None where the engine skips ahead by itself: a profile's pattern
    # led by `\b` ("\bsm_?...") would be tried at every position of every text.
    patterns: tuple[tuple[re.Pattern[str], Guard | None], ...]
    paths: tuple[str, ...]
    owners: frozenset[str]

    def first_pattern(self, raw: str) -> re.Pattern[str] | None:
        """The first of the area's patterns found in `raw`."""
        for pattern, needs in self.patterns:
            if (needs is None or needs.may_match(raw)) and pattern.search(raw):
                return pattern
        return None


def _compile(rule: AreaRule) -> _CompiledArea:
    return _CompiledArea(
        rule=rule,
        labels=frozenset(label.lower() for label in rule.labels),
        tags=frozenset(tag.lower().strip("[]") for tag in rule.title_tags),
        keywords=KeywordSet(rule.keywords),
        patterns=tuple((compiled, _worth(guard(compiled))) for compiled in map(re.compile, rule.patterns)),
        paths=tuple(path.lower() for path in rule.paths),
        owners=frozenset(owner.lower().lstrip("@") for owner in rule.owners),
    )


def _worth(needs: Guard) -> Guard | None:
    return needs if needs.worth and needs.clauses else None


class AreaClassifier:
    def __init__(self, profile: Profile, use_labels: bool = True) -> None:
        self.weights: ClassificationWeights = profile.classification
        self.areas = [_compile(rule) for rule in profile.areas]
        self.fallback = next((area.rule.id for area in self.areas if area.rule.fallback), None)
        self.use_labels = use_labels
        # The areas each piece of evidence may speak for. An item's labels, tags, words, phrases and
        # paths are looked up once, and only the areas they name or whose pattern matches are
        # scored: most items hold evidence for one or two of the areas.
        self.named: dict[tuple[str, str], set[int]] = defaultdict(set)
        for n, area in enumerate(self.areas):
            keys = [
                *(("label", label) for label in area.labels),
                *(("tag", tag) for tag in area.tags),
                *(("kind", kind) for kind in area.rule.kinds),
                *(("owner", owner) for owner in area.owners),
                *(("word", word) for word in area.keywords.words),
                *(("phrase", phrase) for phrase in area.keywords.phrases),
                *(("path", path) for path in area.paths),
            ]
            for key in keys:
                self.named[key].add(n)
        self.words = frozenset(value for kind, value in self.named if kind == "word")
        self.phrases = tuple(value for kind, value in self.named if kind == "phrase")
        self.paths = tuple(value for kind, value in self.named if kind == "path")
        # An item's text is its title, a line break and its description: a phrase or path without a
        # line break is in it when it is in one of the two, and a window repeats descriptions (a
        # commit carries its PR's), so a description's are looked up once. Those with a line break
        # may run across the two: they are looked for in the whole text.
        self.in_description = lru_cache(maxsize=512)(self._in_text)
        self.phrases_across = tuple(phrase for phrase in self.phrases if "\n" in phrase)
        self.paths_across = tuple(path for path in self.paths if "\n" in path)
        self.prefixes = tuple(dict.fromkeys(prefix for area in self.areas for prefix in area.keywords.prefixes))
        self.prefix_areas = {n for n, area in enumerate(self.areas) if area.keywords.prefixes}
        # An area with no evidence scores 0: it is only worth scoring when the threshold lets 0 in.
        self.score_all = self.weights.threshold <= 0.0
        # The window's words tried against the prefixes so far, and those that start with one: a
        # word is tried once, not once per item that uses it.
        self.tried: set[str] = set()
        self.prefixed: set[str] = set()
        # One string per distinct piece of evidence: a window repeats a few hundred of them, and a
        # reading process sends each once per batch instead of once per item.
        self.evidence: dict[str, str] = {}

    def classify(self, assessment: Assessment) -> dict[str, list[str]]:
        """Area id -> the evidence that put the item there, in profile order."""
        found: dict[str, list[str]] = {}
        item, features = assessment.item, assessment.features
        phrases, paths = self._phrases_and_paths(features.title, features.text)
        present = _Present(
            raw=f"{item.title or ''}\n{item.body or ''}",  # the profile's patterns see it as written
            words=features.words & self.words,
            phrases=phrases,
            prefixed=self._prefixed(features.words),
            paths=paths,
        )
        named: set[int] = set(self.prefix_areas) if present.prefixed else set()
        lookup = self.named.get
        # A triager's label outranks a cc list: the bot cc's a label's subscribers, and one who
        # follows several areas, or a label since removed, would add an area no label names. So does
        # a label the profile maps to no area: the cc list then speaks for that label's followers.
        labelled = self.use_labels and bool(features.labels)
        for kind, values in (
            ("label", features.labels if self.use_labels else ()),
            ("tag", features.tags),
            ("kind", (item.kind,)),
            ("owner", features.owners),
            ("word", present.words),
            ("phrase", present.phrases),
            ("path", present.paths),
        ):
            for value in values:
                if areas := lookup((kind, value)):
                    named |= areas
        for n, area in enumerate(self.areas):
            pattern = area.first_pattern(present.raw)
            if pattern is None and n not in named and not self.score_all:
                continue
            score, evidence = self._score(area, assessment, present, pattern, with_owners=not labelled)
            if score >= self.weights.threshold:
                found[area.rule.id] = evidence
        if not found and self.fallback:
            found[self.fallback] = ["no specific area matched"]
        return found

    def _phrases_and_paths(self, title: str, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """The keyword phrases and the paths the item's lower-cased text holds."""
        if not text.startswith(f"{title}\n"):  # not the title and description extract_features joins
            return self._in_text(text)
        phrases, paths = self.in_description(text[len(title) + 1 :])
        return (
            phrases.union(
                [phrase for phrase in self.phrases if phrase in title],
                [phrase for phrase in self.phrases_across if phrase in text],
            ),
            paths.union(
                [path for path in self.paths if path in title], [path for path in self.paths_across if path in text]
            ),
        )

    def _in_text(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """The keyword phrases and the paths a lower-cased text holds."""
        return (
            frozenset([phrase for phrase in self.phrases if phrase in text]),
            frozenset([path for path in self.paths if path in text]),
        )

    def _prefixed(self, words: frozenset[str]) -> list[str]:
        """The words that start with some area's keyword prefix, sorted."""
        if not self.prefixes:
            return []
        new = words - self.tried
        if new:
            self.tried |= new
            self.prefixed.update(word for word in new if word.startswith(self.prefixes))
        return sorted(words & self.prefixed)

    def _once(self, evidence: str) -> str:
        return self.evidence.setdefault(evidence, evidence)

    def _score(
        self,
        area: _CompiledArea,
        assessment: Assessment,
        present: _Present,
        pattern: re.Pattern[str] | None,
        with_owners: bool = True,
    ) -> tuple[float, list[str]]:
        """The area's score and evidence; `pattern` is its first pattern found in the text; the cc
        list counts when `with_owners`."""
        weights, item, features = self.weights, assessment.item, assessment.features
        score, evidence = 0.0, []
        if self.use_labels and not features.labels.isdisjoint(area.labels):
            for label in sorted(features.labels & area.labels):
                score += weights.label
                evidence.append(self._once(f"label {label}"))
        if not features.tags.isdisjoint(area.tags):
            for tag in sorted(features.tags & area.tags):
                score += weights.title_tag
                evidence.append(self._once(f"title tag [{tag}]"))
        if item.kind in area.rule.kinds:
            score += weights.kind
            evidence.append(self._once(f"kind {item.kind}"))
        if pattern is not None:
            score += weights.pattern
            evidence.append(self._once(f"pattern {pattern.pattern}"))
        if present.paths:
            paths = [path for path in area.paths if path in present.paths]
            if paths:
                score += weights.path
                evidence.append(self._once(f"path {paths[0]}"))
        hits = area.keywords.found(present.words, present.phrases, present.prefixed)
        if hits:
            title_hits = [hit for hit in hits if hit in features.title_words or (" " in hit and hit in features.title)]
            body_hits = [hit for hit in hits if hit not in title_hits]
            if title_hits:
                score += weights.title_keyword
                evidence.append(self._once("title mentions " + ", ".join(title_hits[:3])))
            if body_hits:
                score += min(weights.body_keyword_cap, weights.body_keyword * len(body_hits))
                evidence.append(self._once("text mentions " + ", ".join(body_hits[:3])))
        if with_owners and not features.owners.isdisjoint(area.owners):
            owners = sorted(features.owners & area.owners)
            score += min(weights.owner_cap, weights.owner * len(owners))
            evidence.append(self._once("cc " + ", ".join(f"@{owner}" for owner in owners[:3])))
        return score, evidence


@dataclass(frozen=True, slots=True)
class _Present:
    """What of every area's evidence an item holds, read once per item."""

    raw: str
    words: frozenset[str]  # keyword words among the item's words
    phrases: frozenset[str]  # keyword phrases in its text
    prefixed: list[str]  # its words that start with some keyword prefix, sorted
    paths: frozenset[str]  # paths in its text
