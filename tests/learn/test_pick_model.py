"""The pick model learns what a week's experts chose, is judged leave-one-week-out, and ships as a
file the ranking reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytorch_insight.errors import ConfigError
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.learn.pick_model import (
    HIGH,
    PICKED,
    PICKED_TEXT,
    expert_numbers,
    fit_picks,
    item_reader,
    main,
    picked_numbers,
    read_week,
)
from pytorch_insight.model import Item
from pytorch_insight.pipeline.picks import read_picks, reading_tags
from pytorch_insight.pipeline.severity import terms

# Made-up weeks: what the experts pick is told in one vocabulary, what they pass over in another.
CHOSEN = [
    "Sparse gather returns stale values after a resize kernel runs on the default stream",
    "New scheduler pass fuses reductions across loop nests in the compiler backend",
    "Half precision rounding op silently loses the last bit on every accelerator",
    "Design change: the allocator keeps one pool per stream and frees it on stream sync",
    "Deadlock in the collective barrier when two groups overlap on one rank",
    "The jagged layout narrow then unbind silently drops the last component",
]
PASSED = [
    "Update the copyright year in the docs footer",
    "Bump the pinned linter version in the lint workflow",
    "Typo in a docstring of the data loader",
    "Add a test for an argument name in the docs build",
    "Rename a local variable in the docs example",
    "Bump the pinned formatter version in the lint workflow",
]


def week_items(data: Path) -> list[Item]:
    return [item_from_line(json.loads(line)) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_week(folder: Path, since: str, until: str, first: int) -> tuple[Path, Path]:
    data = folder / f"demo-{since}_{until}.jsonl"
    rows, chosen = [], []
    for n, title in enumerate(CHOSEN + PASSED):
        number = first + n
        rows.append(
            {
                "repo": "o/r",
                "number": number,
                "kind": "issue",
                "state": "open",
                "title": title,
                "created": f"{since}T10:00:00Z",
                "body": title,
            }
        )
        if n < len(CHOSEN):
            chosen.append(number)
    data.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    picks = folder / f"demo-{since}_{until}.editor-picks.json"
    # One expert's list in the form of docs/EXPERT_BRIEF.md: stories, with what was left out aside.
    picks.write_text(
        json.dumps(
            {
                "experts": [
                    {
                        "themes": [
                            {"label": "x", "numbers": chosen[:3], "red": True},
                            {"label": "y", "numbers": chosen[3:]},
                        ],
                        "near_misses": [{"number": first + len(CHOSEN)}],
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    return data, picks


@pytest.fixture
def weeks(tmp_path: Path) -> list[tuple[Path, Path]]:
    return [
        write_week(tmp_path, "2026-01-05", "2026-01-11", 100),
        write_week(tmp_path, "2026-01-12", "2026-01-18", 200),
        write_week(tmp_path, "2026-01-19", "2026-01-25", 300),
    ]


def test_picked_numbers_are_every_expert_choice_but_not_the_near_misses(weeks) -> None:  # type: ignore[no-untyped-def]
    _, picks = weeks[0]
    assert picked_numbers(picks) == set(range(100, 100 + len(CHOSEN)))


def test_high_numbers_are_the_picks_marked_high_or_red(tmp_path: Path, weeks) -> None:  # type: ignore[no-untyped-def]
    _, picks = weeks[0]
    assert expert_numbers(picks)[1] == {100, 101, 102}  # the red story, not the other one nor a near miss
    # The other forms an expert file takes: picks with a priority, a list of red items.
    other = tmp_path / "other.json"
    focus = [{"number": 7, "also": [8], "priority": "high"}, {"number": 9, "priority": "medium"}]
    other.write_text(json.dumps({"experts": [{"focus": focus}], "red": [{"number": 11}]}), encoding="utf-8")
    assert expert_numbers(other)[1] == {7, 8, 11}
    assert picked_numbers(other) == {7, 8, 9, 11}


def test_a_week_marks_the_picked_items_active_in_its_window(weeks) -> None:  # type: ignore[no-untyped-def]
    week = read_week(*weeks[1])
    assert week.name == "demo-2026-01-12_2026-01-18"
    assert week.picked == [True] * len(CHOSEN) + [False] * len(PASSED)
    assert week.high == [True] * 3 + [False] * (len(CHOSEN) + len(PASSED) - 3)
    # The picked class reads the item's kind and its description's length besides its words, and
    # both classes what the rules and the triage model read in it, as the report does.
    read = [reading_tags(item_reader().read(item)) for item in week_items(weeks[1][0])]
    assert "fact:hang" in read[4] and "fact:wrong_result" in read[5]
    tagged = ["kind:issue", "length:short", *read[4]]
    assert week.documents[4] == terms(CHOSEN[4], CHOSEN[4], tagged, PICKED_TEXT)
    assert week.plain[4] == terms(CHOSEN[4], CHOSEN[4], read[4])


def test_a_week_file_without_its_dates_in_the_name_is_a_clear_error(tmp_path: Path, weeks) -> None:  # type: ignore[no-untyped-def]
    data, picks = weeks[0]
    renamed = tmp_path / "no-dates.jsonl"
    renamed.write_text(data.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ConfigError, match="<since>_<until>"):
        read_week(renamed, picks)


def test_the_model_rates_an_unseen_item_like_the_picks_above_one_like_the_rest(weeks) -> None:  # type: ignore[no-untyped-def]
    model = fit_picks([read_week(*pair) for pair in weeks])

    def rate(title: str) -> dict[str, float]:
        return model.probabilities(terms(title, "", ["kind:issue", "length:short"], PICKED_TEXT), terms(title, ""))

    assert (
        rate("The barrier deadlocks when a stream pool overlaps")[PICKED] > rate("Bump the docs linter version")[PICKED]
    )
    # The high class tells the red story's words from the other picks'.
    red = rate("Half precision rounding silently loses stale values")[HIGH]
    assert red > rate("A design change of the compiler scheduler pass")[HIGH]


def test_the_written_model_carries_its_weeks_and_a_leave_one_week_out_score(tmp_path: Path, weeks) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "picks.json.gz"
    assert main([f"{data}={picks}" for data, picks in weeks] + ["--out", str(out)]) == 0
    model = read_picks(out)
    card = model.card
    assert card["weeks"] == [data.stem for data, _ in weeks]
    assert card["examples"] == 3 * (len(CHOSEN) + len(PASSED))
    assert card["positives"] == 3 * len(CHOSEN)
    evaluation = card["leave_one_week_out"]
    assert evaluation["weeks"] == 3 and evaluation["picks"] == 3 * len(CHOSEN)
    assert 0.5 < evaluation["auc"] <= 1.0
    assert card["high_positives"] == evaluation["highs"] == 9
    # Two weeks hold 6 high items, too few to learn the class from: it rates every item 0, no better.
    assert evaluation["high_auc"] == 0.5
    assert model.high is not None and model.picked.text_limit == PICKED_TEXT  # the three weeks hold 9
