"""The red list: which stories of a week are high priority, as the experts of the labelled weeks
would mark them.

The rules read what a text states, the triage model what thousands of triaged issues have in
common, the pick model what experts chose; each alone ranks red stories worse than their sum. The
red model (fitted by learn/red_model.py on every labelled week, each week's numbers read by a pick
model that never saw that week) is a logistic regression over what those stages concluded of an
item and of its story: the rules' score and severity, the pick model's two log-odds, the fact kinds
and the triage classes. A week's stories are then taken best first while the model rates them at
least its bar (the bar is fitted with the model: the highest at which, on weeks it did not fit on,
it finds three in four of the experts' red stories), at most `cap` a week and at least `floor`
(JUDGEMENT.md: red is usually 3–6 stories a week); one member of a taken story, an issue when one
reaches the rate, is high and carries it. A triager's own high priority stays high, a stated edge
case is never raised, and every change the model makes says so in its reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from pytorch_insight.model import short_ref
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.focus import story_groups
from pytorch_insight.pipeline.picks import log_odds, raisable
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.severity import load_document, read_document, write_document

PACKAGED = "red.json.gz"
FORMAT_VERSION = 1
# A story of more members than this reads as this many: a long stack is not redder for its length.
STORY_SIZE = 4
# What an item's numbers are named in a model file; fact and triage features are named after their
# kind and class (`fact:crash`, `triage:wrong_result`), so a profile's own kinds and classes work.
NUMBERS = ("score", "severity", "pick", "pick_high", "story_score", "story_pick", "story_pick_high", "story_size")
KINDS = ("issue", "pull_request")


@dataclass(frozen=True)
class RedModel:
    """A logistic regression over standardised features, and the bar a story must reach."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    bar: float
    card: dict = field(default_factory=dict)

    def rate(self, features: Mapping[str, float]) -> float:
        offset, weights = self._linear
        z = offset + sum(weights[name] * value for name, value in features.items() if name in weights)
        return 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))

    @cached_property
    def _linear(self) -> tuple[float, dict[str, float]]:
        """The standardisation folded into the weights: a row holds a few of the features, and one
        that is absent (0) only shifts the offset, so a rate reads the row's own features alone."""
        weights = {name: c / s for name, s, c in zip(self.names, self.scale, self.coef, strict=True)}
        offset = self.intercept - sum(weights[name] * m for name, m in zip(self.names, self.mean, strict=True))
        return offset, weights

    @classmethod
    def from_dict(cls, data: dict) -> RedModel:
        if data.get("format") != FORMAT_VERSION:
            raise ValueError("not a red model of this version (refit it: python benchmarks/red_model.py)")
        names = tuple(str(name) for name in data["names"])
        columns = [tuple(float(v) for v in data[key]) for key in ("mean", "scale", "coef")]
        if any(len(column) != len(names) for column in columns) or any(s <= 0 for s in columns[1]):
            raise ValueError("its columns do not match its feature names")
        return cls(names, *columns, float(data["intercept"]), float(data["bar"]), data.get("card", {}))

    def to_dict(self) -> dict:
        return {
            "format": FORMAT_VERSION,
            "names": list(self.names),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "bar": self.bar,
            "card": self.card,
        }


def read_red(path: Path) -> RedModel:
    return read_document(path, "red model", RedModel.from_dict)


def write_red(model: RedModel, path: Path) -> None:
    write_document(model.to_dict(), path)


@lru_cache(maxsize=4)
def load_red(path: str | None = None) -> RedModel:
    """The model at `path`, or the one shipped with the package; read once per process."""
    return load_document(path, PACKAGED, "red model", RedModel.from_dict)


def eligible(assessment: Assessment, bases: Mapping[str, float]) -> bool:
    """Whether the red list may hold the item: what the pick model may raise."""
    return assessment.pick is not None and raisable(assessment, bases.get(assessment.item.kind, 1.0))


def red_features(groups: Mapping[str, Sequence[Assessment]], bases: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """Item id -> the red model's features, for every item of the stories (`focus.story_groups`) the
    red list may hold. A story's numbers are the best of its members the list may hold: a fix's
    words may state what its issue's do not."""
    features: dict[str, dict[str, float]] = {}
    for members in groups.values():
        held = [a for a in members if eligible(a, bases)]
        if not held:
            continue
        story = {
            "story_score": max(a.score for a in held),
            "story_pick": max(log_odds(a.pick) for a in held),
            "story_pick_high": max(log_odds(a.pick_high) for a in held),
            "story_size": float(min(len(held), STORY_SIZE)),
        }
        for a in held:
            row = {
                "score": a.score,
                "severity": a.severity,
                "pick": log_odds(a.pick),
                "pick_high": log_odds(a.pick_high),
                **story,
            }
            row |= {f"kind:{kind}": 1.0 for kind in KINDS if a.item.kind == kind}
            row |= {f"fact:{kind}": 1.0 for kind in a.facts.kinds()}
            if a.learned is not None:
                row |= {f"triage:{name}": p for name, p in a.learned.probabilities.items()}
            features[a.id] = row
    return features


def feature_names(rows: Sequence[Mapping[str, float]]) -> tuple[str, ...]:
    """The numbers, the kinds, then every fact kind and triage class the rows hold, sorted."""
    named = {name for row in rows for name in row if name.startswith(("fact:", "triage:"))}
    return (*NUMBERS, *(f"kind:{kind}" for kind in KINDS), *sorted(named))


def choose(stories: Sequence[tuple[float, str]], bar: float, cap: int, floor: int) -> tuple[list[str], float]:
    """Of (rate, story) pairs, the stories the red list takes, best first, and the rate a member
    needs to be high with them: those at `bar` or more, at most `cap` (0: no cap), else the best
    `floor`."""
    ranked = sorted(stories, key=lambda pair: (-pair[0], pair[1]))
    taken = [pair for pair in ranked if pair[0] >= bar]
    if cap:
        taken = taken[:cap]
    if len(taken) < floor:
        taken = ranked[:floor]
    if not taken:
        return [], bar
    return [story for _, story in taken], min(bar, taken[-1][0])


def _lead(assessment: Assessment) -> tuple[bool, float, str]:
    """The order in which a story's members carry it: an issue first (it says what broke), then as
    the ranking puts them."""
    return (assessment.item.kind != "issue", -assessment.score, assessment.id)


def mark_red(
    assessments: Sequence[Assessment],
    model: RedModel,
    limits: tuple[int, int],
    bases: Mapping[str, float],
    blocked: Set[str] = frozenset(),
    kept: Set[str] = frozenset(),
) -> None:
    """Set which items are high: those `kept` (a triager's own high priority), and in each other
    story `choose` takes (`limits`: the window's cap and floor) one member that reaches its rate,
    an issue first. A stated edge case (`blocked`) is never raised. An item the model raises or
    lowers says so, and why: its rate against the bar, the floor, a red list already full, or the
    member that carries its story."""
    groups = story_groups(assessments)
    features = red_features(groups, bases)
    rates = {item: model.rate(row) for item, row in features.items() if item not in blocked}
    best: dict[str, float] = {}
    for root, members in groups.items():
        rated = [rates[a.id] for a in members if a.id in rates]
        if rated:
            best[root] = max(rated)
    chosen, need = choose([(rate, root) for root, rate in best.items()], model.bar, *limits)
    # One member carries a story: the report shows a story as one entry with its other members (the
    # fix, the reland, the sibling change) beside it, and a supporting change is no high-priority
    # item of its own. A story with an item `kept` high is carried by it; a taken one by the member
    # that reaches the rate and that the story would lead with.
    carrier = {root: min((a for a in groups[root] if rates.get(a.id, -1.0) >= need), key=_lead).id for root in chosen}
    held = {a.id for a in assessments if a.id in kept and not a.noise and not a.canonical}
    for root, members in groups.items():
        if holders := [a for a in members if a.id in held]:
            carrier[root] = min(holders, key=_lead).id
    said = {
        "weeks": len(model.card.get("weeks", [])),
        "bar": f"{model.bar:.2f}",
        "share": f"{model.card.get('recall', 0.0):.0%}",
    }
    for root, members in groups.items():
        for a in members:
            p = rates.get(a.id)
            if a.id in held:
                a.priority = "high"
            elif carrier.get(root) == a.id:
                if a.priority != "high":
                    code = "red-like" if rates[a.id] >= model.bar else "red-floor"
                    a.reasons.append(reason(code, p=f"{rates[a.id]:.2f}", n=limits[1], **said))
                    a.priority = "high"
            elif a.priority == "high":
                a.priority = "medium"
                if root in carrier:
                    a.reasons.append(reason("red-carried", ref=short_ref(carrier[root])))
                elif p is not None:
                    code = "unlike-red" if p < model.bar else "red-full"
                    a.reasons.append(reason(code, p=f"{p:.2f}", n=len(chosen), **said))
