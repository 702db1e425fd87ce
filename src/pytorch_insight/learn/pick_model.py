"""Fitting the pick model: what experts choose for a week's report, learned from weeks they labelled.

    python -m pytorch_insight.learn.pick_model WEEK.jsonl=PICKS.json ... [--out PATH]

(benchmarks/pick_model.py passes every labelled week and writes the shipped model.)

Each week is a data file named `<name>-<since>_<until>.jsonl` (the threads `import` reads) and the
experts' picks of it (`*.editor-picks.json`, docs/EXPERT_BRIEF.md). The model has two classes, each
fitted on its own terms (pipeline/picks.py says which): an item is `picked` when either expert picked
it, and `high` when either expert gave it high priority (a pick marked high, or a story marked red).
The phrase rules and the severity model read what a thread says happens; this model reads what the
experts' choices have in common over many weeks, which no rule names (a new subsystem, a design
change, a fix of a wrong result told in a PR's own words).

The card's evaluation is leave-one-week-out: each week scored by a model fitted on the others.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from pytorch_insight.config import load_profile
from pytorch_insight.dating import date_items
from pytorch_insight.errors import ConfigError
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.learn.fit import fit_linear
from pytorch_insight.pipeline.picks import HIGH, PICKED, TRIAGE_TAG, PickModel, pick_tags, reading_tags, write_picks
from pytorch_insight.pipeline.read import ItemReader
from pytorch_insight.pipeline.severity import SeverityModel, terms
from pytorch_insight.window import make_window

# A shipped model stays small: the most frequent terms, weights to 4 digits.
MAX_TERMS = 30_000
DIGITS = 4
# Leave-one-week-out, the `picked` class ranks best reading 1,500 characters of a description (what
# makes a design or a new subsystem worth a report often comes after its first paragraph; the
# labelled weeks show at most ~1,500) at C=2; the `high` class best as the severity model reads (600)
# at C=4.
PICKED_TEXT, PICKED_C = 1500, 2.0
HIGH_C = 4.0
OUT = Path(__file__).resolve().parents[1] / "models" / "picks.json.gz"
WEEK_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})$")
# Keys of an expert file that list what was considered and left out, not what was picked.
NOT_PICKED = ("near", "near_misses", "criteria")


@dataclass(frozen=True)
class LabelledWeek:
    name: str  # the data file's stem
    documents: list[list[str]]  # the `picked` class's terms of each item active in the week
    plain: list[list[str]]  # the `high` class's terms of each
    picked: list[bool]
    high: list[bool]


def expert_numbers(path: Path) -> tuple[set[int], set[int]]:
    """The item numbers anywhere in an expert file's picks (what at least one expert chose), and
    those it gives high priority: a pick marked `"priority": "high"`, a story marked `"red": true`,
    or an entry of a `red` list."""
    chosen: set[int] = set()
    high: set[int] = set()
    stack: list[tuple[object, bool]] = [(json.loads(path.read_text(encoding="utf-8")), False)]
    while stack:
        value, marked = stack.pop()
        if isinstance(value, dict):
            marked = marked or value.get("priority") == "high" or value.get("red") is True
            for key, child in value.items():
                if key in ("number", "numbers", "also"):
                    numbers = {n for n in (child if isinstance(child, list) else [child]) if isinstance(n, int)}
                    chosen |= numbers
                    if marked:
                        high |= numbers
                elif key not in NOT_PICKED:
                    stack.append((child, marked or key == "red"))
        elif isinstance(value, list):
            stack.extend((child, marked) for child in value)
    return chosen, high


def picked_numbers(path: Path) -> set[int]:
    """The item numbers anywhere in an expert file's picks: what at least one expert chose."""
    return expert_numbers(path)[0]


@lru_cache(maxsize=4)
def item_reader(profile: str = "pytorch") -> ItemReader:
    """What reads an item as the report does (facts, triage classes) for the pick model's tags,
    without a pick model of its own."""
    quiet = load_profile(profile).model_copy(deep=True)
    quiet.judgement.picks.weight = 0.0
    return ItemReader(quiet, quiet.reader(None))


def read_week(data: Path, picks: Path, profile: str = "pytorch") -> LabelledWeek:
    """The items of `data` active in the window its name gives, each marked picked or not, read by
    `profile`'s rules and triage model."""
    named = WEEK_NAME.search(data.stem)
    if named is None:
        raise ConfigError(f"{data}: the name must end in <since>_<until> (YYYY-MM-DD_YYYY-MM-DD)")
    try:
        chosen, high = expert_numbers(picks)
        with data.open(encoding="utf-8") as handle:
            items, _ = date_items(item_from_line(json.loads(line)) for line in handle if line.strip())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the labelled week {data} / {picks}: {exc}") from None
    window = make_window(named[1], named[2])
    active = [item for item in items if item.active_in(window)]
    reader = item_reader(profile)
    read = [reading_tags(reader.read(item)) for item in active]
    return LabelledWeek(
        data.stem,
        [
            terms(item.title, item.body, pick_tags(item, tags), PICKED_TEXT)
            for item, tags in zip(active, read, strict=True)
        ],
        [terms(item.title, item.body, tags) for item, tags in zip(active, read, strict=True)],
        [item.number in chosen for item in active],
        [item.number in high for item in active],
    )


def fit_picks(weeks: Sequence[LabelledWeek]) -> PickModel:
    picked = _fit_class(
        [(d, yes) for w in weeks for d, yes in zip(w.documents, w.picked, strict=True)], PICKED, PICKED_C
    )
    try:
        high = _fit_class([(d, yes) for w in weeks for d, yes in zip(w.plain, w.high, strict=True)], HIGH, HIGH_C)
    except ConfigError:  # too few high items to learn from: the class is left out and rates 0
        high = None
    return PickModel(replace(picked, text_limit=PICKED_TEXT), high)


def _fit_class(marked: Sequence[tuple[list[str], bool]], name: str, C: float) -> SeverityModel:
    """One class over (terms, is it one) pairs."""
    model, _ = fit_linear(
        [document for document, _ in marked],
        [{name} if yes else set() for _, yes in marked],
        [name],
        C,
        MAX_TERMS,
        DIGITS,
    )
    return model


def leave_one_week_out(weeks: Sequence[LabelledWeek]) -> dict[str, float | int | None]:
    """Each week scored by a model fitted on the others: the area under the ROC curve of each class
    over all of them, and how many of the picks sit in the top fifth of their own week."""
    from sklearn.metrics import roc_auc_score

    truth: dict[str, list[bool]] = {PICKED: [], HIGH: []}
    scores: dict[str, list[float]] = {PICKED: [], HIGH: []}
    in_top = 0
    for held in weeks:
        model = fit_picks([week for week in weeks if week is not held])
        rated = [model.probabilities(*pair) for pair in zip(held.documents, held.plain, strict=True)]
        week_scores = [p[PICKED] for p in rated]
        bar = sorted(week_scores, reverse=True)[max(0, len(week_scores) // 5 - 1)] if week_scores else 1.0
        in_top += sum(1 for p, picked in zip(week_scores, held.picked, strict=True) if picked and p >= bar)
        for name, marks in ((PICKED, held.picked), (HIGH, held.high)):
            truth[name] += marks
            scores[name] += [p.get(name, 0.0) for p in rated]  # a class too rare to learn rates 0
    auc = {
        name: round(float(roc_auc_score(truth[name], scores[name])), 3) if len(set(truth[name])) == 2 else None
        for name in truth
    }
    return {
        "weeks": len(weeks),
        "auc": auc[PICKED],
        "picks": sum(truth[PICKED]),
        "picks_in_their_weeks_top_fifth": in_top,
        "high_auc": auc[HIGH],
        "highs": sum(truth[HIGH]),
    }


def card(weeks: Sequence[LabelledWeek], model: PickModel, evaluation: dict) -> dict:
    return {
        "trained": dt.date.today().isoformat(),
        "weeks": [week.name for week in weeks],
        "examples": sum(len(week.picked) for week in weeks),
        "positives": sum(sum(week.picked) for week in weeks),
        "high_positives": sum(sum(week.high) for week in weeks),
        "target": {
            PICKED: "picked by at least one of a week's two experts (docs/EXPERT_BRIEF.md)",
            HIGH: "given high priority (or a red story) by at least one of them",
        },
        "features": {
            PICKED: f"title and description words and word pairs of the first {PICKED_TEXT} characters, the "
            "item's kind, its labels, its description's length and its reading (fact kinds, triage classes at "
            f"p >= {TRIAGE_TAG})",
            HIGH: "title and description words and word pairs (the severity model's terms) and the item's reading",
        },
        "leave_one_week_out": evaluation,
        "terms": {
            name: len(part.index) for name, part in ((PICKED, model.picked), (HIGH, model.high)) if part is not None
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weeks", nargs="+", metavar="WEEK.jsonl=PICKS.json")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--profile", default="pytorch", help="the profile whose rules and triage model read the items")
    args = parser.parse_args(argv)
    weeks = []
    for pair in args.weeks:
        data, sep, picks = pair.partition("=")
        if not sep:
            parser.error(f"{pair}: expected WEEK.jsonl=PICKS.json")
        weeks.append(read_week(Path(data), Path(picks), args.profile))
    evaluation = leave_one_week_out(weeks)
    model = fit_picks(weeks)
    model = replace(model, card=card(weeks, model, evaluation))
    write_picks(model, args.out)
    print(json.dumps(evaluation))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ConfigError as exc:
        sys.exit(f"error: {exc}")
