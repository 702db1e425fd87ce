"""Fitting the pick model: what experts choose for a week's report, learned from weeks they labelled.

    python -m pytorch_insight.learn.pick_model WEEK.jsonl=PICKS.json ... [--out PATH]

(benchmarks/pick_model.py passes every labelled week and writes the shipped model.)

Each week is a data file named `<name>-<since>_<until>.jsonl` (the threads `import` reads) and the
experts' picks of it (`*.editor-picks.json`, docs/EXPERT_BRIEF.md). An item is a positive when
either expert picked it. The phrase rules and the severity model read what a thread says happens;
this model reads what the experts' choices have in common over many weeks, which no rule names
(a new subsystem, a design change, a fix of a wrong result told in a PR's own words).

The card's evaluation is leave-one-week-out: each week scored by a model fitted on the others.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytorch_insight.dating import date_items
from pytorch_insight.errors import ConfigError
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.learn.fit import fit_linear
from pytorch_insight.pipeline.severity import SeverityModel, terms, write_model
from pytorch_insight.window import make_window

PICKED = "picked"
# A shipped model stays small: the most frequent terms, weights to 4 digits.
MAX_TERMS = 30_000
DIGITS = 4
OUT = Path(__file__).resolve().parents[1] / "models" / "picks.json.gz"
WEEK_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})$")
# Keys of an expert file that list what was considered and left out, not what was picked.
NOT_PICKED = ("near", "near_misses", "criteria")


@dataclass(frozen=True)
class LabelledWeek:
    name: str  # the data file's stem
    documents: list[list[str]]  # the model's terms of each item active in the week
    picked: list[bool]


def picked_numbers(path: Path) -> set[int]:
    """The item numbers anywhere in an expert file's picks: what at least one expert chose."""
    found: set[int] = set()
    stack: list[object] = [json.loads(path.read_text(encoding="utf-8"))]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                if key in ("number", "numbers", "also"):
                    found.update(n for n in (child if isinstance(child, list) else [child]) if isinstance(n, int))
                elif key not in NOT_PICKED:
                    stack.append(child)
        elif isinstance(value, list):
            stack.extend(value)
    return found


def read_week(data: Path, picks: Path) -> LabelledWeek:
    """The items of `data` active in the window its name gives, each marked picked or not."""
    named = WEEK_NAME.search(data.stem)
    if named is None:
        raise ConfigError(f"{data}: the name must end in <since>_<until> (YYYY-MM-DD_YYYY-MM-DD)")
    try:
        chosen = picked_numbers(picks)
        with data.open(encoding="utf-8") as handle:
            items, _ = date_items(item_from_line(json.loads(line)) for line in handle if line.strip())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the labelled week {data} / {picks}: {exc}") from None
    window = make_window(named[1], named[2])
    active = [item for item in items if item.active_in(window)]
    return LabelledWeek(
        data.stem,
        [terms(item.title, item.body) for item in active],
        [item.number in chosen for item in active],
    )


def fit_picks(weeks: Sequence[LabelledWeek], C: float = 4.0) -> SeverityModel:
    documents = [document for week in weeks for document in week.documents]
    targets = [{PICKED} if picked else set() for week in weeks for picked in week.picked]
    model, _ = fit_linear(documents, targets, [PICKED], C, MAX_TERMS, DIGITS)
    return model


def leave_one_week_out(weeks: Sequence[LabelledWeek]) -> dict[str, float | int]:
    """Each week scored by a model fitted on the others: the area under the ROC curve over all of
    them, and how many of the picks sit in the top fifth of their own week."""
    from sklearn.metrics import roc_auc_score

    truth: list[bool] = []
    scores: list[float] = []
    in_top, picks = 0, 0
    for held in weeks:
        model = fit_picks([week for week in weeks if week is not held])
        week_scores = [model.probabilities(document)[PICKED] for document in held.documents]
        bar = sorted(week_scores, reverse=True)[max(0, len(week_scores) // 5 - 1)] if week_scores else 1.0
        in_top += sum(1 for p, picked in zip(week_scores, held.picked, strict=True) if picked and p >= bar)
        picks += sum(held.picked)
        truth += held.picked
        scores += week_scores
    return {
        "weeks": len(weeks),
        "auc": round(float(roc_auc_score(truth, scores)), 3),
        "picks": picks,
        "picks_in_their_weeks_top_fifth": in_top,
    }


def card(weeks: Sequence[LabelledWeek], model: SeverityModel, evaluation: dict) -> dict:
    return {
        "trained": dt.date.today().isoformat(),
        "weeks": [week.name for week in weeks],
        "examples": sum(len(week.picked) for week in weeks),
        "positives": sum(sum(week.picked) for week in weeks),
        "target": "picked by at least one of a week's two experts (docs/EXPERT_BRIEF.md)",
        "features": "title and description words and word pairs (the severity model's terms)",
        "leave_one_week_out": evaluation,
        "terms": len(model.index),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weeks", nargs="+", metavar="WEEK.jsonl=PICKS.json")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    weeks = []
    for pair in args.weeks:
        data, sep, picks = pair.partition("=")
        if not sep:
            parser.error(f"{pair}: expected WEEK.jsonl=PICKS.json")
        weeks.append(read_week(Path(data), Path(picks)))
    evaluation = leave_one_week_out(weeks)
    model = fit_picks(weeks)
    model = SeverityModel(
        model.classes, model.index, model.idf, model.coef, model.intercept, model.platt, card(weeks, model, evaluation)
    )
    write_model(model, args.out)
    print(json.dumps(evaluation))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ConfigError as exc:
        sys.exit(f"error: {exc}")
