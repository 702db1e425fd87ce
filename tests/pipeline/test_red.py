"""The red model decides which stories of a window are high: those it rates at its bar or more,
at most the cap and at least the floor a week, each carried by one member; a triager's own high
priority stays, a stated edge case is never raised, and every change it makes says so."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pytorch_insight.errors import ConfigError
from pytorch_insight.pipeline import Assessment, assess
from pytorch_insight.pipeline.focus import story_groups
from pytorch_insight.pipeline.reasons import reason
from pytorch_insight.pipeline.red import RedModel, choose, feature_names, mark_red, read_red, red_features, write_red
from pytorch_insight.window import make_window
from tests.pipeline.helpers import PROFILE, assessment, item, texts

# Rates rise with the score: 0.5 at a score of 5, about 0.12 at 3 and 0.88 at 7.
BY_SCORE = RedModel(("score",), (5.0,), (1.0,), (1.0,), 0.0, 0.5, {"weeks": ["a", "b"], "recall": 0.75})


def rated(number: int, score: float, priority: str = "medium", kind: str = "issue") -> Assessment:
    a = assessment(item(number, f"item {number}", kind=kind))
    a.score, a.priority, a.pick, a.pick_high = score, priority, 0.5, 0.5
    return a


def test_the_rate_is_the_logistic_of_the_standardised_features() -> None:
    model = RedModel(("score", "fact:crash"), (2.0, 0.5), (2.0, 0.5), (1.0, 2.0), -1.0, 0.3)
    # z = -1 + 1 * (4 - 2) / 2 + 2 * (1 - 0.5) / 0.5 = 2
    assert model.rate({"score": 4.0, "fact:crash": 1.0}) == pytest.approx(1 / (1 + 2.718281828**-2), abs=1e-6)
    assert model.rate({"score": 4.0}) < model.rate({"score": 4.0, "fact:crash": 1.0})  # a missing feature is 0


def test_a_model_file_round_trips_and_a_wrong_one_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "red.json.gz"
    write_red(BY_SCORE, path)
    assert read_red(path) == BY_SCORE
    data = json.loads(gzip.decompress(path.read_bytes()))
    data["coef"] = [1.0, 2.0]  # more weights than features
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(ConfigError, match="red model"):
        read_red(path)
    path.write_bytes(gzip.compress(json.dumps({"format": 0}).encode()))  # an older format: its refit named
    with pytest.raises(ConfigError, match=r"red model .*python benchmarks/red_model\.py"):
        read_red(path)


def test_stories_are_taken_best_first_from_the_bar_up_to_the_cap_and_down_to_the_floor() -> None:
    stories = [(0.9, "a"), (0.2, "b"), (0.6, "c"), (0.4, "d")]
    assert choose(stories, 0.5, 8, 0) == (["a", "c"], 0.5)
    assert choose(stories, 0.5, 1, 0) == (["a"], 0.5)  # the cap
    assert choose(stories, 0.5, 8, 3) == (["a", "c", "d"], 0.4)  # the floor: its members need 0.4
    assert choose(stories, 0.5, 0, 0) == (["a", "c"], 0.5)  # no cap
    assert choose([], 0.5, 8, 3) == ([], 0.5)


def test_the_model_raises_and_lowers_and_says_so() -> None:
    week = [rated(1, 7.0), rated(2, 6.0, "high"), rated(3, 2.0, "high"), rated(4, 1.0, "low")]
    mark_red(week, BY_SCORE, (8, 0), {})
    assert [a.priority for a in week] == ["high", "high", "medium", "low"]
    assert texts(week[0].reasons) == [
        "a model learned from the experts' red stories in 2 labelled weeks rates it p=0.88, at or above the bar"
        " of 0.50 at which it finds 75% of them"
    ]
    assert week[1].reasons == []  # high already: nothing to say
    assert texts(week[2].reasons) == [
        "kept below high priority: a model learned from the experts' red stories in 2 labelled weeks rates it"
        " p=0.05, below the bar of 0.50 at which it finds 75% of them"
    ]


def test_the_cap_keeps_the_best_stories_and_the_floor_raises_the_likeliest() -> None:
    week = [rated(1, 9.0), rated(2, 8.0), rated(3, 7.0, "high")]
    mark_red(week, BY_SCORE, (2, 0), {})
    assert [a.priority for a in week] == ["high", "high", "medium"]
    assert texts(week[2].reasons) == [
        "kept below high priority: the window's 2 high-priority stories are those a model learned from the"
        " experts' red stories in 2 labelled weeks rates likeliest (this one: p=0.88)"
    ]
    quiet = [rated(n, score) for n, score in ((1, 3.0), (2, 2.0), (3, 1.0))]
    mark_red(quiet, BY_SCORE, (8, 2), {})
    assert [a.priority for a in quiet] == ["high", "high", "medium"]
    assert "the window had fewer than 2 high-priority stories" in texts(quiet[0].reasons)[0]


def test_a_story_is_taken_once_and_one_member_carries_it() -> None:
    issue, fix, test = rated(1, 8.0), rated(2, 6.0, "high", kind="pull_request"), rated(3, 1.0, kind="pull_request")
    fix.relate("fixes", issue.id, "Fixes #1")
    test.relate("tests", issue.id, "Tests #1")
    other = rated(4, 7.0)
    mark_red([issue, fix, test, other], BY_SCORE, (2, 0), {})  # two stories fit the cap of two
    assert [a.priority for a in (issue, fix, test, other)] == ["high", "medium", "medium", "high"]
    assert texts(fix.reasons) == ["kept below high priority: its story is high priority through pytorch/pytorch#1"]
    assert test.reasons == []  # it was not high: nothing changed


def test_an_issue_that_reaches_the_rate_carries_its_story_before_a_likelier_fix() -> None:
    issue, fix = rated(1, 5.5), rated(2, 9.0, kind="pull_request")
    fix.relate("fixes", issue.id, "Fixes #1")
    mark_red([fix, issue], BY_SCORE, (8, 0), {})
    assert (issue.priority, fix.priority) == ("high", "medium")
    below = rated(3, 2.0)  # an issue under the bar leaves its story to the fix that reaches it
    fixing = rated(4, 9.0, kind="pull_request")
    fixing.relate("fixes", below.id, "Fixes #3")
    mark_red([fixing, below], BY_SCORE, (8, 0), {})
    assert (below.priority, fixing.priority) == ("medium", "high")


@pytest.mark.parametrize("case", ["noise", "duplicate", "weighed below a thread", "never red", "not read"])
def test_what_the_model_never_raises(case: str) -> None:
    a, bases, blocked = rated(1, 9.0), {}, set()
    if case == "noise":
        a.noise = [reason("bot", login="a-bot")]
    elif case == "duplicate":
        a.canonical = "github:pytorch/pytorch#2"
    elif case == "weighed below a thread":
        bases = {"issue": 0.5}
    elif case == "never red":  # an edge case something states
        blocked = {a.id}
    else:
        a.pick = None  # no pick model read it
    mark_red([a], BY_SCORE, (8, 3), bases, blocked)
    assert a.priority == "medium"


def test_a_triagers_high_priority_stays_high() -> None:
    labelled = rated(1, 0.0, "high")
    mark_red([labelled], BY_SCORE, (8, 0), {}, kept={labelled.id})
    assert labelled.priority == "high" and labelled.reasons == []


def test_a_triagers_high_priority_carries_its_story_and_its_fix_says_so() -> None:
    issue, fix = rated(1, 2.0, "high"), rated(2, 9.0, "high", kind="pull_request")
    fix.relate("fixes", issue.id, "Fixes #1")
    mark_red([fix, issue], BY_SCORE, (8, 0), {}, kept={issue.id})
    assert (issue.priority, fix.priority) == ("high", "medium")
    assert texts(fix.reasons) == ["kept below high priority: its story is high priority through pytorch/pytorch#1"]


def test_only_the_item_a_triager_labelled_keeps_its_high_priority_not_its_fix() -> None:
    issue = item(7, "The optimizer step corrupts the weights", labels=["high priority"])
    fix = item(8, "Stop the optimizer step corrupting the weights", "Fixes #7", kind="pull_request")
    ranked = {a.item.number: a for a in assess([issue, fix], PROFILE)}
    assert ranked[7].priority == "high"
    assert ranked[8].priority != "high" and "its story is high priority through" in " ".join(texts(ranked[8].reasons))


def test_the_features_are_the_items_and_its_storys_best_numbers() -> None:
    issue, fix = rated(1, 2.0), rated(2, 6.0, kind="pull_request")
    fix.relate("fixes", issue.id, "Fixes #1")
    fix.pick_high = 0.9
    noisy = rated(3, 9.0, kind="pull_request")
    noisy.noise = [reason("bot", login="a-bot")]
    noisy.relate("fixes", issue.id, "Fixes #1")
    features = red_features(story_groups([issue, fix, noisy]), {})
    assert set(features) == {issue.id, fix.id}  # noise is never held, nor counted in its story
    assert features[issue.id]["score"] == 2.0 and features[issue.id]["story_score"] == 6.0
    assert features[issue.id]["story_pick_high"] == features[fix.id]["pick_high"] > features[issue.id]["pick_high"]
    assert features[issue.id]["story_size"] == 2.0
    assert features[issue.id]["kind:issue"] == 1.0 and "kind:issue" not in features[fix.id]


def test_facts_and_triage_classes_are_features_named_by_kind() -> None:
    (read,) = assess([item(5, "Wrong values from the fused norm", labels=["module: correctness (silent)"])], PROFILE)
    (row,) = red_features(story_groups([read]), {}).values()
    assert row["triage:wrong_result"] == 1.0  # the triagers' label counts in full
    assert all(row[f"fact:{kind}"] == 1.0 for kind in read.facts.kinds())
    names = feature_names([row, {"fact:a": 1.0}])
    assert names[:2] == ("score", "severity") and "fact:a" in names and "triage:wrong_result" in names


def test_the_ranking_marks_red_with_the_profiles_model_its_cap_scaled_to_the_window(tmp_path: Path) -> None:
    path = tmp_path / "red.json"
    write_red(RedModel(("fact:hang",), (0.5,), (0.5,), (3.0,), 0.0, 0.9, {"weeks": ["a"]}), path)
    profile = PROFILE.model_copy(deep=True)
    profile.judgement.red = profile.judgement.red.model_copy(update={"model": str(path), "cap": 1, "floor": 0})
    hangs = [
        item(1, "The job hangs forever in the barrier"),
        item(2, "Training hangs at the allreduce of the last step"),
        item(3, "The process hangs when the data loader exits"),
    ]
    week = assess(hangs, profile, window=make_window("2026-04-07", "2026-04-13"))
    assert sum(a.priority == "high" for a in week) == 1
    fortnight = assess(hangs, profile, window=make_window("2026-04-07", "2026-04-20"))
    assert sum(a.priority == "high" for a in fortnight) == 2
