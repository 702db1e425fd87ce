"""Fitting the red model: a logistic regression over the pipeline's numbers, its bar the highest at
which the red list finds three in four of the experts' red stories of weeks out of fold."""

from __future__ import annotations

import random

import pytest

from pytorch_insight.errors import ConfigError
from pytorch_insight.learn.red_model import RECALL, RedWeek, fit_red, found


def week(n: int, seed: int) -> RedWeek:
    """Twelve stories of one item each; those of a high score are mostly red, with some noise."""
    rng = random.Random(seed)
    rows, stories = [], []
    for k in range(12):
        score = rng.uniform(0, 10)
        rows.append({"score": score, "fact:crash": float(score > 6 and rng.random() < 0.7)})
        stories.append(f"story {k}" if score + rng.gauss(0, 1.5) > 7 else None)
    return RedWeek(f"week {n}", rows, [f"root {k}" for k in range(12)], stories, sum(s is not None for s in stories))


def test_the_bar_finds_the_share_of_red_stories_and_the_card_says_how() -> None:
    weeks = [week(n, seed=n) for n in range(10)]
    model = fit_red(weeks, (8, 1))
    assert model.names[0] == "score" and "fact:crash" in model.names
    assert model.coef[model.names.index("score")] > 0  # a higher score reads redder
    card = model.card
    stories = sum(w.red_stories for w in weeks)
    assert card["red_stories"] == stories and card["weeks"] == [w.name for w in weeks]
    assert card["out_of_fold_found"] >= RECALL * stories
    # in-fold, the fitted model at its bar finds at least as many
    rates = [[model.rate(row) for row in w.rows] for w in weeks]
    assert found(weeks, rates, model.bar, (8, 1)) >= RECALL * stories
    assert found(weeks, rates, 0.99, (8, 1)) < found(weeks, rates, model.bar, (8, 1))


def test_a_story_is_found_once_and_only_by_the_members_that_reach_the_rate() -> None:
    two = RedWeek("w", [{}, {}, {}], ["r", "r", "s"], ["red", "red", "other"], 3)
    assert found([two], [[0.9, 0.8, 0.1]], 0.5, (8, 0)) == 1  # "r" once; "s" below the bar
    assert found([two], [[0.9, 0.8, 0.1]], 0.5, (8, 2)) == 2  # the floor takes "s" too


def test_too_few_weeks_or_no_red_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="at least 5 weeks"):
        fit_red([week(n, seed=n) for n in range(3)], (8, 3))
    plain = [RedWeek(f"w{n}", [{"score": 1.0}], ["r"], [None], 0) for n in range(6)]
    with pytest.raises(ConfigError, match="red and other items"):
        fit_red(plain, (8, 3))
