"""The pick model at report time: how likely the experts whose weekly picks it learned from
(learn/pick_model.py) would be to choose an item, and what that does to the item's place.

The severity reading says how bad a problem is; experts also choose what no problem word marks
(a new subsystem, a design change, a fix told in a PR's own words) and pass over what merely
sounds bad. The model's log-odds move an item up or down the list after its priority is set, so it
orders the items below high priority without ever making one red, and a likely pick below the
medium bar is raised to medium with a reason that names the model.
"""

from __future__ import annotations

import math
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pytorch_insight.config_ranking import Picks
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.severity import SeverityModel, read_model

PICKED = "picked"
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


def pick_probability(model: SeverityModel, item: Item) -> float:
    # No class needs a quoted sentence (a bar above 1): the probability is all the ranking uses.
    return model.judge(item.title, item.body, tuple, explain=2.0).probabilities[PICKED]


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
    if assessment.priority == "low" and not assessment.noise and not assessment.canonical and base >= 1.0:
        assessment.priority = "medium"
