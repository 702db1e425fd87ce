"""The parts of a profile that judge: ranking weights, the severity vocabulary, and the learned
judgement's label map and thresholds."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _regexes(patterns: list[str]) -> list[str]:
    """Profile patterns must compile: a typo fails at load time with its place, not mid-run."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"bad regular expression {pattern!r}: {exc}") from None
    return patterns


Regexes = Annotated[list[str], AfterValidator(_regexes)]


class LocalizedText(BaseModel):
    zh: str
    en: str


class Signal(BaseModel):
    """A ranking factor: fires on labels, kinds, keywords (words, phrases, ``prefix*``), title
    patterns, or body patterns (run on the lower-cased text); adds `weight`."""

    id: str
    reason: LocalizedText
    weight: float
    labels: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    title_patterns: Regexes = Field(default_factory=list)
    body_patterns: Regexes = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)


class SeverityVocabulary(BaseModel):
    """What a community's text names: its current hardware, scale, major downstream users and
    release vocabulary (regular-expression alternatives, matched on word boundaries), and the
    labels its triagers use for a kind of problem (fact kind -> labels)."""

    hardware: Regexes = Field(default_factory=list)
    scale: Regexes = Field(default_factory=list)
    downstream: list[str] = Field(default_factory=list)
    release: Regexes = Field(default_factory=list)
    # A release of the project as a regression's sentence or a title names it ("torch 2.9.1",
    # "[2.12 regression]"): such a regression is a `release_regression` (pipeline/release_regression.py).
    releases: Regexes = Field(default_factory=list)
    default_path: Regexes = Field(default_factory=list)
    labels: dict[str, list[str]] = Field(default_factory=dict)
    # Titles of threads whose text states rules rather than problems (a release tracker lists which
    # regressions and crashes qualify for a cherry-pick): no problem is read from their text.
    policy_titles: Regexes = Field(default_factory=list)
    # Names so common in the project's text (core modules, base classes) that sharing one says
    # nothing about two items being related.
    common_identifiers: list[str] = Field(default_factory=list)


class Ranking(BaseModel):
    high: float = 6.0
    medium: float = 3.0
    base: dict[str, float] = Field(default_factory=dict)
    signals: list[Signal] = Field(default_factory=list)
    # Points per fact kind (see pipeline/facts.py): the worst problem counts in full, the others
    # add `secondary_share` of theirs up to `secondary_cap`; context facts (hardware, scale,
    # downstream, release, default path, a measurement) add theirs only to a problem or a gain.
    facts: dict[str, float] = Field(default_factory=dict)
    context: dict[str, float] = Field(default_factory=dict)
    secondary_share: float = 0.25
    secondary_cap: float = 2.0
    # Slots of the focus list: at most this many stories led by one author.
    focus_per_author: int = 3
    # The focus list holds the week's best stories, this many of them however quiet the week: the
    # leads of the best-ranked stories below `medium` are raised to medium to fill it (0: never).
    focus_fill: int = 0
    # High (red) needs more than a score: the story states a problem of a `red_alone` kind, or a
    # `red_problems` kind together with one of the `red_context` facts (named hardware, scale, a
    # release, a maintainer's confirmation ...). Without these lists the score alone decides.
    red_alone: list[str] = Field(default_factory=list)
    red_always: list[str] = Field(default_factory=list)  # kinds that make a story high whatever its score
    red_problems: list[str] = Field(default_factory=list)
    red_context: list[str] = Field(default_factory=list)
    red_blocked: list[str] = Field(default_factory=list)  # kinds that keep a story below high (unless red_always)
    comment_weight: float = 0.6
    comment_cap: float = 2.0
    reaction_weight: float = 0.5
    reaction_cap: float = 1.5
    participant_weight: float = 0.3
    participant_cap: float = 1.2
    fix_available: float = 1.0
    fixes_several: float = 0.0  # a change that closes two or more issues
    fix_share: float = 0.5
    key_contributor: float = 1.0
    watched_person: float = 1.5
    watched_keyword: float = 1.0
    watched_path: float = 1.0
    noise_factor: float = 0.25
    duplicate_penalty: float = 3.0


class Picks(BaseModel):
    """The pick model (learn/pick_model.py): what experts chose in the weeks they labelled. Its
    log-odds, times `weight`, add to the score of an item below high priority once priorities are set;
    from `promote` on, a low item becomes medium and the reason says why. Once the red list is set,
    the log-odds of its `high` class (that experts would give the item high priority), times
    `high_weight`, move each item left below high.
    A weight of 0 leaves it out: a model learned on one community's weeks is that community's."""

    # A setting this version no longer has (the former `raise_high`, `high_floor`, ...) is named, not ignored.
    model_config = ConfigDict(extra="forbid")

    weight: float = 0.0
    promote: float = 1.0
    high_weight: float = 0.0
    model: str | None = None  # a model file; the shipped one by default


class Red(BaseModel):
    """The red model (pipeline/red.py, fitted with the pick model): which stories of a window are
    high priority. `cap` and `floor` count stories a week; a window of another length scales them,
    and one of unknown span is capped as a week and has no floor. A cap of 0 leaves the model out
    (it reads the pick model's probabilities, so it needs that model too): then the rules alone
    decide what is high."""

    model_config = ConfigDict(extra="forbid")

    cap: int = 0
    floor: int = 0
    model: str | None = None  # a model file; the shipped one by default


class Judgement(BaseModel):
    """The learned severity model (pipeline/severity.py): which triage labels make which class when
    `learn` trains it, how a class reads as a fact, and how sure the model must be.

    A class the model gives at least `add` becomes a fact of its own, quoted from the sentence that
    weighs most for it."""

    classes: dict[str, list[str]] = Field(default_factory=dict)  # class -> labels
    title_classes: dict[str, list[str]] = Field(default_factory=dict)  # class -> title prefixes of bots
    facts: dict[str, str] = Field(default_factory=dict)  # class -> the fact kind it states
    # The search qualifiers of the ordinary issues every class must stand out from (`learn`).
    background: str = ""
    add: float = 0.6
    # Below `add`, a class the model gives at least `explain` still weighs in the ranking by its
    # probability, with a reason that says it is the model's reading, never as a fact.
    explain: float = 0.3
    # The average precision on the newest part of its corpus (the model's data card) a class needs
    # before the model's reading of it counts at all.
    reliable: float = 0.5
    # Classes that only temper a problem (an edge case, a fuzzer's find): from the given probability
    # on, the class's fact is added, weighed in full, and its reason says it is the model's leaning,
    # not a finding. Their bar is set by the judgement benchmark, not by `reliable`.
    hints: dict[str, float] = Field(default_factory=dict)
    model: str | None = None  # a model file; the shipped one by default
    picks: Picks = Field(default_factory=Picks)
    red: Red = Field(default_factory=Red)
