"""The pick model orders the list after priorities are set: it moves scores by its log-odds, raises a
likely pick from low to medium with a reason that names it, and never makes an item red."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pytorch_insight.config import Profile
from pytorch_insight.config_ranking import Picks
from pytorch_insight.pipeline import assess
from pytorch_insight.pipeline.picks import PICKED, load_picks, pick_probability, weigh_pick
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.severity import SeverityModel, write_model
from tests.pipeline.helpers import PROFILE, assessment, item, texts

SETTINGS = Picks(weight=1.0, promote=0.6)


def tiny_model() -> SeverityModel:
    """Picks say "scheduler"; the rest say "typo"."""
    return SeverityModel(
        classes=(PICKED,),
        index={"scheduler": 0, "typo": 1},
        idf=[1.0, 1.0],
        coef=[[4.0, -4.0]],
        intercept=[0.0],
        platt=[(1.0, 0.0)],
        card={"weeks": ["a", "b", "c"]},
    )


def with_picks(tmp_path: Path, settings: Picks = SETTINGS) -> Profile:
    path = tmp_path / "picks.json.gz"
    write_model(tiny_model(), path)
    picks = settings.model_copy(update={"model": str(path)})
    return PROFILE.model_copy(update={"judgement": PROFILE.judgement.model_copy(update={"picks": picks})})


def test_the_score_moves_by_the_weighted_log_odds() -> None:
    a = assessment(item(1, "a scheduler pass"))
    a.score, a.pick = 2.0, 0.8
    weigh_pick(a, SETTINGS.model_copy(update={"weight": 0.5}), 3, 1.0)
    assert a.score == pytest.approx(2.0 + 0.5 * math.log(0.8 / 0.2), abs=1e-3)
    unlikely = assessment(item(2, "a typo"))
    unlikely.score, unlikely.pick = 2.0, 0.2
    weigh_pick(unlikely, SETTINGS, 3, 1.0)
    assert unlikely.score < 2.0 and unlikely.reasons == []


def test_a_likely_pick_below_the_medium_bar_becomes_medium_and_says_why() -> None:
    a = assessment(item(1, "a scheduler pass"))
    a.score, a.pick, a.priority = 0.5, 0.9, "low"
    weigh_pick(a, SETTINGS, 3, 1.0)
    assert a.priority == "medium"
    assert texts(a.reasons) == [
        "a model learned from experts' picks in 3 labelled weeks rates it a likely pick (p=0.90)"
    ]


@pytest.mark.parametrize("case", ["noise", "duplicate", "weighed below a thread", "no weight", "not read"])
def test_what_the_model_does_not_raise(case: str) -> None:
    a = assessment(item(1, "a scheduler pass"))
    a.score, a.pick, a.priority = 0.5, 0.9, "low"
    settings, base = SETTINGS, 1.0
    if case == "noise":
        a.noise = [reason("bot", login="a-bot")]
    elif case == "duplicate":
        a.canonical = "github:pytorch/pytorch#2"
    elif case == "weighed below a thread":
        base = 0.0
    elif case == "no weight":
        settings = SETTINGS.model_copy(update={"weight": 0.0})
    else:
        a.pick = None
    weigh_pick(a, settings, 3, base)
    assert a.priority == "low"


def test_the_ranking_reads_each_item_with_the_profiles_model(tmp_path: Path) -> None:
    profile = with_picks(tmp_path)
    model = load_picks(profile.judgement.picks.model)
    liked, plain = item(1, "scheduler scheduler"), item(2, "typo typo")
    assert pick_probability(model, liked) > 0.9 > 0.1 > pick_probability(model, plain)
    ranked = {a.item.number: a for a in assess([liked, plain], profile)}
    assert ranked[1].priority == "medium" and ranked[2].priority == "low"
    assert ranked[1].score > ranked[2].score
    assert "a model learned from experts' picks in 3 labelled weeks" in " ".join(texts(ranked[1].reasons))


def test_the_model_never_makes_an_item_red(tmp_path: Path) -> None:
    profile = with_picks(tmp_path, SETTINGS.model_copy(update={"weight": 50.0}))
    (ranked,) = assess([item(1, "scheduler scheduler")], profile)
    assert ranked.priority == "medium" and ranked.score > profile.ranking.high
