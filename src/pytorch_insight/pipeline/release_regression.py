"""A regression stated against a named release of the project ("works with 2.6 but fails with
2.7", "[2.12 regression]", "broken since the 2.9.1 RC"): users who upgrade hit it, so the release
decides about it. The problem is the regression fact already read (from the text, a triager's label
or the learned judgement); this reads only whether the title or the regression's own sentence names
a release, with the profile's `[severity] releases` vocabulary."""

from __future__ import annotations

import re

from pytorch_insight.model import Item
from pytorch_insight.pipeline.facts import EVIDENCE_LIMIT, TITLE_LIMIT, Fact, ItemFacts
from pytorch_insight.text import shorten

KIND = "release_regression"
# The release itself within what the vocabulary matched ("torch 2.9.1" -> "2.9.1").
RELEASE = re.compile(r"release/\d+\.\d+|v?\d+\.\d+(?:\.\d+)?(?:rc\d*)?|\bRC\s?\d*|nightl\w*", re.I)
# "Edit: not a regression from 3.1 to 3.2, it began in 3.0": the description takes back the
# releases its title compares, so the title names none.
WITHDRAWN = re.compile(r"\bnot (?:a |an )?regression (?:from|between|in|since)\b", re.I)


class ReleaseRegressions:
    def __init__(self, releases: list[str]) -> None:
        self.pattern = re.compile("|".join(f"(?:{release})" for release in releases), re.I) if releases else None

    def read(self, item: Item, facts: ItemFacts) -> ItemFacts:
        """`facts` with a release-regression fact added when a regression is among them and its own
        sentence, or else the title, names a release (quoted: that sentence and the release's words)."""
        regression = facts.first("regression")
        if self.pattern is None or regression is None:
            return facts
        # A label's evidence is the label itself: only the title can name the release then.
        stated = "" if regression.source == "label" else regression.evidence
        title = (item.title or "")[:TITLE_LIMIT]
        if WITHDRAWN.search(item.body or ""):
            stated, title = ("" if stated == title else stated), ""
        for sentence in (stated, title):
            if found := self.pattern.search(sentence):
                words = found.group(0)
                release = RELEASE.search(words)
                fact = Fact(KIND, shorten(sentence, EVIDENCE_LIMIT), (release.group(0) if release else words).strip())
                return ItemFacts((*facts.facts, fact), facts.is_fix)
        return facts
