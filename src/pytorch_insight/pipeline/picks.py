"""The pick model at report time: how likely the experts whose weekly picks it learned from
(learn/pick_model.py) would be to choose an item and to give it high priority, and what that does
to the item's place.

The severity reading says how bad a problem is; experts also choose what no problem word marks
(a new subsystem, a design change, a fix of a wrong result told in a PR's own words) and pass over
what merely sounds bad. Once priorities are set, the few items of a week the model finds most like
the experts' high-priority ones become high and a high item it finds unlike them drops to medium;
then its pick log-odds move each item below high up or down the list, and a likely pick below the
medium bar is raised to medium. Every move says in its reason that the model made it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pytorch_insight.config_ranking import Picks
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.severity import SeverityModel, read_model

PICKED = "picked"
HIGH = "high"
PACKAGED = "picks.json.gz"
# The log-odds of a probability this close to 0 or 1 would outweigh every stated fact.
FLOOR = 0.01


@lru_cache(maxsize=4)
def load_picks(path: str | None = None) -> SeverityModel:
    """The model at `path`, or the one shipped with the package; read once per process."""
    if path:
        return read_model(Path(path), "pick model")
    with resources.as_file(resources.files("pytorch_insight") / "models" / PACKAGED) as shipped:
        return read_model(shipped, "pick model")


def pick_probabilities(model: SeverityModel, item: Item) -> dict[str, float]:
    """Class -> probability (`picked`, and `high` where the model has it)."""
    # No class needs a quoted sentence (a bar above 1): the probabilities are all the ranking uses.
    return model.judge(item.title, item.body, tuple, explain=2.0).probabilities


def raisable(assessment: Assessment, base: float) -> bool:
    """Whether the model may raise the item: not noise, a duplicate, or a kind the profile weighs
    below a thread (`base` under 1)."""
    return not assessment.noise and not assessment.canonical and base >= 1.0


def weigh_high(
    assessments: Sequence[Assessment],
    settings: Picks,
    weeks: int,
    bases: Mapping[str, float],
    blocked: Set[str] = frozenset(),
    kept: Set[str] = frozenset(),
) -> None:
    """The items the `high` class rates highest, up to `raise_per_week` of them at `raise_high` or
    more, become high (not those `blocked`: a story the profile never makes red, an edge case a
    text or a label states, not merely one the learned judgement leans towards); a high item it
    rates below `keep_high` becomes medium (not those `kept`: a triager's own high priority
    outweighs any model). The week is weighed at once: the cap keeps the model from filling the
    red list on its own."""
    for a in assessments:
        if a.priority != "high" or a.id in kept:
            continue
        if a.pick_high is not None and a.pick_high < settings.keep_high:
            a.priority = "medium"
            a.reasons.append(reason("unlike-high", p=f"{a.pick_high:.2f}", weeks=weeks))
    likely = [
        a
        for a in assessments
        if a.priority != "high"
        and a.pick_high is not None
        and a.pick_high >= settings.raise_high
        and raisable(a, bases.get(a.item.kind, 1.0))
        and a.id not in blocked
    ]
    for a in sorted(likely, key=lambda a: (-(a.pick_high or 0.0), a.id))[: settings.raise_per_week]:
        a.priority = "high"
        a.reasons.append(reason("high-like", p=f"{a.pick_high:.2f}", weeks=weeks))


def weigh_pick(assessment: Assessment, settings: Picks, weeks: int, base: float) -> None:
    """Move an item below high priority by the model's log-odds; a likely pick says so and, if low,
    becomes medium (not noise, a duplicate, or a kind the profile weighs below a thread: `base`
    under 1). High items are left as they are: what they state orders them."""
    p = assessment.pick
    if p is None or not settings.weight or assessment.priority == "high":
        return
    bounded = min(max(p, FLOOR), 1 - FLOOR)
    assessment.score = round(assessment.score + settings.weight * math.log(bounded / (1 - bounded)), 3)
    if p < settings.promote:
        return
    assessment.reasons.append(reason("picked-like", p=f"{p:.2f}", weeks=weeks))
    if assessment.priority == "low" and raisable(assessment, base):
        assessment.priority = "medium"
