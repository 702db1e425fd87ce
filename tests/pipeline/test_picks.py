"""The pick model orders the list after priorities are set: it moves scores by its log-odds and
raises a likely pick from low to medium with a reason that names it; its classes read what the
rules and the triage model made of an item."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from pytorch_insight.config import Profile
from pytorch_insight.config_ranking import Picks
from pytorch_insight.errors import ConfigError
from pytorch_insight.pipeline import assess
from pytorch_insight.pipeline.facts import Fact
from pytorch_insight.pipeline.picks import (
    HIGH,
    PICKED,
    PickModel,
    load_picks,
    pick_tags,
    read_picks,
    reading_tags,
    weigh_high,
    weigh_pick,
    write_picks,
)
from pytorch_insight.pipeline.rank import story_kinds
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.red import RedModel, write_red
from pytorch_insight.pipeline.severity import SeverityModel, write_model
from tests.pipeline.helpers import PROFILE, assessment, item, texts

SETTINGS = Picks(weight=1.0, promote=0.6)


def part(name: str, index: dict[str, int] | None = None) -> SeverityModel:
    """One class whose items say "scheduler" (and not "typo")."""
    return SeverityModel(
        classes=(name,),
        index=index or {"scheduler": 0, "typo": 1},
        idf=[1.0, 1.0],
        coef=[[4.0, -4.0]],
        intercept=[0.0],
        platt=[(1.0, 0.0)],
        card={},
    )


def tiny_model(high: SeverityModel | None = None) -> PickModel:
    """Picks say "scheduler"; the rest say "typo"."""
    return PickModel(part(PICKED), high, {"weeks": ["a", "b", "c"]})


def with_picks(tmp_path: Path, settings: Picks = SETTINGS) -> Profile:
    path = tmp_path / "picks.json.gz"
    write_picks(tiny_model(), path)
    picks = settings.model_copy(update={"model": str(path)})
    # The red model reads the pick model's numbers: left out, the priorities here are the rules' and this model's.
    red = PROFILE.judgement.red.model_copy(update={"cap": 0})
    return PROFILE.model_copy(update={"judgement": PROFILE.judgement.model_copy(update={"picks": picks, "red": red})})


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


def test_below_high_the_high_class_moves_the_score_and_a_likely_high_says_so() -> None:
    settings = SETTINGS.model_copy(update={"high_weight": 0.5})
    likely = assessment(item(1, "a scheduler pass"))
    likely.score, likely.pick_high, likely.priority = 2.0, 0.8, "medium"
    weigh_high(likely, settings, 3)
    assert likely.score == pytest.approx(2.0 + 0.5 * math.log(0.8 / 0.2), abs=1e-3)
    assert texts(likely.reasons) == [
        "a model learned from the priorities experts gave in 3 labelled weeks rates it likely high priority"
        " (p=0.80), which moves it up the list"
    ]
    unlikely = assessment(item(2, "a typo"))
    unlikely.score, unlikely.pick_high, unlikely.priority = 2.0, 0.2, "low"
    weigh_high(unlikely, settings, 3)
    assert unlikely.score < 2.0 and unlikely.reasons == []


@pytest.mark.parametrize("case", ["high already", "no weight", "no high class", "even odds"])
def test_what_the_high_class_leaves_alone(case: str) -> None:
    a = assessment(item(1, "a scheduler pass"))
    a.score, a.pick_high, a.priority = 2.0, 0.9, "medium"
    settings = SETTINGS.model_copy(update={"high_weight": 0.5})
    if case == "high already":
        a.priority = "high"
    elif case == "no weight":
        settings = SETTINGS
    elif case == "no high class":
        a.pick_high = None
    else:
        a.pick_high = 0.5  # its log-odds move nothing, so no reason says it moved
    weigh_high(a, settings, 3)
    assert a.score == 2.0 and a.reasons == []


def test_the_red_list_reads_the_scores_from_before_the_high_class_moves_them(tmp_path: Path) -> None:
    picks, red = tmp_path / "picks.json.gz", tmp_path / "red.json.gz"
    # The `picked` class reads neither item's words (even odds for both): only the `high` class tells them apart.
    write_picks(PickModel(part(PICKED, {"unread": 0, "typo": 1}), part(HIGH), {"weeks": ["a"]}), picks)
    # A red list of one story, the best scored: it must take the stated crash, whatever the high
    # class makes of the other item afterwards.
    write_red(RedModel(("score",), (0.0,), (1.0,), (1.0,), 0.0, 0.0, {"weeks": ["a"]}), red)
    profile = PROFILE.model_copy(deep=True)
    moved = profile.judgement.picks.model_copy(update={"model": str(picks), "high_weight": 50.0})
    capped = profile.judgement.red.model_copy(update={"model": str(red), "cap": 1, "floor": 0})
    profile.judgement = profile.judgement.model_copy(update={"picks": moved, "red": capped})
    crash = item(1, "Segmentation fault when the loader exits", "The process segfaults on exit.")
    plain = item(2, "a scheduler pass", "It reorders the passes.")
    ranked = {a.item.number: a for a in assess([crash, plain], profile)}
    assert ranked[1].priority == "high" and ranked[2].priority != "high"
    assert ranked[2].score > ranked[1].score  # moved after the red list was set


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
    assert model.rate(liked)[PICKED] > 0.9 > 0.1 > model.rate(plain)[PICKED]
    ranked = {a.item.number: a for a in assess([liked, plain], profile)}
    assert ranked[1].priority == "medium" and ranked[2].priority == "low"
    assert ranked[1].score > ranked[2].score
    assert "a model learned from experts' picks in 3 labelled weeks" in " ".join(texts(ranked[1].reasons))


def test_the_pick_class_never_makes_an_item_red(tmp_path: Path) -> None:
    profile = with_picks(tmp_path, SETTINGS.model_copy(update={"weight": 50.0}))
    (ranked,) = assess([item(1, "scheduler scheduler")], profile)
    assert ranked.priority == "medium" and ranked.score > profile.ranking.high


def test_a_leaning_towards_an_edge_case_is_no_statement_of_one() -> None:
    wrong = Fact("wrong_result", "The kernel silently returns wrong values.")
    leaning = Fact("edge_case", "The kernel silently returns wrong values.", "p=0.20", "hint")
    labelled = Fact("edge_case", "label: module: edge cases", "module: edge cases", "label")
    issue, fix = assessment(item(1, "wrong values")), assessment(item(2, "Fix wrong values", kind="pull_request"))
    issue.facts = replace(issue.facts, facts=(wrong, leaning))
    fix.relate("fixes", issue.id, "Fixes #1")
    by_id = {issue.id: issue, fix.id: fix}
    # The fix's story holds its issue's leaning: a leaning, not a statement, for the high class.
    assert story_kinds(fix, by_id) == {"wrong_result", "edge_case"}
    assert story_kinds(fix, by_id, hints=False) == {"wrong_result"}
    issue.facts = replace(issue.facts, facts=(wrong, labelled))
    assert story_kinds(fix, by_id, hints=False) == {"wrong_result", "edge_case"}


def test_each_class_reads_its_own_terms(tmp_path: Path) -> None:
    # The picked class reads the item's labels and far into its description; the high class reads
    # the words of its opening alone, as the severity model does.
    picked = part(PICKED, {"label:module: rocm": 0, "typo": 1})
    high = part(HIGH, {"scheduler": 0, "label:module: rocm": 1})
    path = tmp_path / "picks.json"
    write_picks(PickModel(replace(picked, text_limit=1500), high, {"weeks": []}), path)
    model = read_picks(path)
    assert model.picked.text_limit == 1500 and model.high is not None and model.high.text_limit == 600
    labelled = item(1, "a change", labels=["module: ROCm"])
    assert model.rate(labelled)[PICKED] > 0.9 and model.rate(labelled)[HIGH] == pytest.approx(0.5)
    late = item(2, "a change", "x " * 400 + "scheduler")  # its word past the 600 characters the high class reads
    assert model.rate(late)[HIGH] == pytest.approx(0.5)
    early = item(3, "a change", "scheduler " + "x " * 400)
    assert model.rate(early)[HIGH] > 0.9


def test_the_tags_say_kind_labels_and_how_long_the_description_is() -> None:
    assert pick_tags(item(1, "t", "short", labels=["High Priority"])) == [
        "kind:issue",
        "length:short",
        "label:high priority",
    ]
    assert "length:paragraph" in pick_tags(item(2, "t", "x" * 500))
    # The labelled weeks show ~1,500 characters of a thread: a longer description reads as the same step.
    assert "length:long" in pick_tags(item(3, "t", "x" * 1200))
    assert "length:long" in pick_tags(item(4, "t", "x" * 9000))


def test_both_classes_read_what_the_rules_and_the_triage_model_made_of_the_item(tmp_path: Path) -> None:
    (read,) = assess([item(5, "Wrong values from the fused norm", labels=["module: correctness (silent)"])], PROFILE)
    tags = reading_tags(read)
    # the triagers' label counts in full, and the facts the rules read are named by kind
    assert "triage:wrong_result" in tags and all(f"fact:{kind}" in tags for kind in read.facts.kinds())
    picked = part(PICKED, {"triage:wrong_result": 0, "typo": 1})
    high = part(HIGH, {"fact:hang": 0, "typo": 1})
    path = tmp_path / "picks.json"
    write_picks(PickModel(picked, high, {"weeks": []}), path)
    model = read_picks(path)
    plain = item(6, "a change")
    assert model.rate(plain, ["triage:wrong_result"])[PICKED] > 0.9 > model.rate(plain)[PICKED]
    assert model.rate(plain, ["fact:hang"])[HIGH] > 0.9 > model.rate(plain)[HIGH]
    # the report rates each item with its own reading
    profile = PROFILE.model_copy(deep=True)
    profile.judgement.picks = profile.judgement.picks.model_copy(update={"model": str(path)})
    labelled, bare = item(7, "a change", labels=["module: correctness (silent)"]), item(8, "a change")
    rated = {a.item.number: a for a in assess([labelled, bare], profile)}
    assert (rated[7].pick or 0.0) > 0.9 > (rated[8].pick or 0.0)


def test_a_file_that_is_no_pick_model_is_a_clear_error(tmp_path: Path) -> None:
    old = tmp_path / "old.json.gz"
    write_model(part(PICKED), old)  # one severity-shaped model: the pick model's former shape
    with pytest.raises(ConfigError, match="pick model"):
        read_picks(old)
