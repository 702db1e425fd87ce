"""The pick model at report time: how likely the experts whose weekly picks it learned from
(learn/pick_model.py) would be to choose an item and to give it high priority, and what that does
to the item's place.

The severity reading says how bad a problem is; experts also choose what no problem word marks
(a new subsystem, a design change, a fix of a wrong result told in a PR's own words) and pass over
what merely sounds bad. Once priorities are set, its pick log-odds move each item below high up or
down the list, and a likely pick below the medium bar is raised to medium, with a reason that says
the model made the move. Both classes' probabilities are also what the red model (pipeline/red.py)
reads to decide which stories are high.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pytorch_insight.config_ranking import Picks
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.severity import SeverityModel, load_document, read_document, write_document

PICKED = "picked"
HIGH = "high"
PACKAGED = "picks.json.gz"
# 2: both classes read the item's reading (`reading_tags`) besides its words.
FORMAT_VERSION = 2
# The log-odds of a probability this close to 0 or 1 would outweigh every stated fact.
FLOOR = 0.01
# A description's length, in characters, read in three steps: a one-line change, a paragraph, a
# write-up. The labelled weeks show at most ~1,500 characters of a thread, so a longer one reads as
# the last step, as it does at report time.
LENGTHS = ((300, "short"), (1000, "paragraph"))
# Above this probability of the `high` class, an item below high says the model moved it up: better
# than even odds that an expert would call it high (at even odds its log-odds move nothing).
LIKELY_HIGH = 0.5
# A class of the triage model counts as read at this probability: its classes are rare, and one a
# description leans to well below even odds still tells. Set once, not tuned on the labelled weeks.
TRIAGE_TAG = 0.25


@dataclass(frozen=True)
class PickModel:
    """One model per class, each reading what tells its class best (leave-one-week-out): whether
    experts choose an item shows in more of its description and in its kind, labels and length;
    whether they call it high shows in the opening the severity model reads, and the rest blurs it.
    Both read what the rules and the triage model made of the item (`reading_tags`): the triagers'
    judgement, learned from thousands of issues, carries over to the experts' few weeks."""

    picked: SeverityModel  # its words (as far as its text_limit) and pick_tags
    high: SeverityModel | None  # its words alone; None when the weeks held too few high items
    card: dict = field(default_factory=dict)

    def rate(self, item: Item, read: Sequence[str] = ()) -> dict[str, float]:
        """Class -> probability (`picked`, and `high` where the model has it), given the item's
        `reading_tags`."""
        # No class needs a quoted sentence (a bar above 1): the probabilities are all the ranking uses.
        rated = self.picked.judge(item.title, item.body, tuple, pick_tags(item, read), explain=2.0).probabilities
        if self.high is not None:
            rated |= self.high.judge(item.title, item.body, tuple, read, explain=2.0).probabilities
        return rated

    def probabilities(self, picked_terms: Sequence[str], high_terms: Sequence[str]) -> dict[str, float]:
        """The same from terms already read (`severity.terms` with the tags and limit each part reads)."""
        rated = self.picked.probabilities(picked_terms)
        if self.high is not None:
            rated |= self.high.probabilities(high_terms)
        return rated

    @classmethod
    def from_dict(cls, data: dict) -> PickModel:
        if data.get("format") != FORMAT_VERSION or "picked" not in data:
            raise ValueError("not a pick model of this version (refit it: python benchmarks/pick_model.py)")
        high = data.get("high")
        return cls(
            SeverityModel.from_dict(data["picked"]),
            SeverityModel.from_dict(high) if high is not None else None,
            data.get("card", {}),
        )

    def to_dict(self) -> dict:
        return {
            "format": FORMAT_VERSION,
            "picked": self.picked.to_dict(),
            "high": self.high.to_dict() if self.high is not None else None,
            "card": self.card,
        }


def pick_tags(item: Item, read: Sequence[str] = ()) -> list[str]:
    """What the `picked` class reads of an item besides its words: its kind, its labels, how long
    its description is (experts choose what a thread explains at length more often than a one-liner)
    and its `reading_tags`."""
    length = len(item.body or "")
    size = next((name for bound, name in LENGTHS if length < bound), "long")
    return [f"kind:{item.kind}", f"length:{size}", *(f"label:{label.lower()}" for label in item.labels), *read]


def reading_tags(assessment: Assessment) -> list[str]:
    """What the rules and the triage model read in an item, as the pick model's tags: the kinds of
    its facts and the triage classes it leans to (a label the triagers gave counts in full)."""
    tags = [f"fact:{kind}" for kind in sorted(assessment.facts.kinds())]
    if assessment.learned is not None:
        tags += [f"triage:{name}" for name, p in sorted(assessment.learned.probabilities.items()) if p >= TRIAGE_TAG]
    return tags


def read_picks(path: Path) -> PickModel:
    return read_document(path, "pick model", PickModel.from_dict)


def write_picks(model: PickModel, path: Path) -> None:
    write_document(model.to_dict(), path)


@lru_cache(maxsize=4)
def load_picks(path: str | None = None) -> PickModel:
    """The model at `path`, or the one shipped with the package; read once per process."""
    return load_document(path, PACKAGED, "pick model", PickModel.from_dict)


def raisable(assessment: Assessment, base: float) -> bool:
    """Whether the model may raise the item: not noise, a duplicate, or a kind the profile weighs
    below a thread (`base` under 1)."""
    return not assessment.noise and not assessment.canonical and base >= 1.0


def log_odds(p: float | None) -> float:
    """The log-odds of a probability held FLOOR away from 0 and 1 (none reads as FLOOR)."""
    bounded = min(max(p or 0.0, FLOOR), 1 - FLOOR)
    return math.log(bounded / (1 - bounded))


def weigh_pick(assessment: Assessment, settings: Picks, weeks: int, base: float) -> None:
    """Move an item below high priority by the model's log-odds; a likely pick says so and, if low,
    becomes medium (not noise, a duplicate, or a kind the profile weighs below a thread: `base`
    under 1). High items are left as they are: what they state orders them."""
    p = assessment.pick
    if p is None or not settings.weight or assessment.priority == "high":
        return
    assessment.score = round(assessment.score + settings.weight * log_odds(p), 3)
    if p < settings.promote:
        return
    assessment.reasons.append(reason("picked-like", p=f"{p:.2f}", weeks=weeks))
    if assessment.priority == "low" and raisable(assessment, base):
        assessment.priority = "medium"


def weigh_high(assessment: Assessment, settings: Picks, weeks: int) -> None:
    """Move an item the red list left below high by the log-odds that experts would give it high
    priority (times `high_weight`): of the stories below the red list, one experts would call high
    reads before one they would only pick. The red model reads the scores from before this move, as
    it was fitted; a likely high one says why it moved."""
    p = assessment.pick_high
    if p is None or not settings.high_weight or assessment.priority == "high":
        return
    assessment.score = round(assessment.score + settings.high_weight * log_odds(p), 3)
    if p > LIKELY_HIGH:
        assessment.reasons.append(reason("high-like", p=f"{p:.2f}", weeks=weeks))
