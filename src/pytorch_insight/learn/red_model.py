"""Fitting the red model (pipeline/red.py): which stories of a week the experts mark red, learned
from what the pipeline concluded of every item of the weeks they labelled.

Each week's rows must come from a ranking whose pick model never saw that week (the benchmarks
fit one per week, leaving it out): the shipped pick model has seen every labelled week, and on them
it is surer than on a week it meets in use. A row is red when its item belongs to a story both
experts marked red. The bar is the highest rate at which the red list, as `red.choose` takes it
with the profile's cap and floor, finds `RECALL` of the red stories of weeks whose model did not fit
on them (five folds of whole weeks).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytorch_insight.errors import ConfigError
from pytorch_insight.pipeline.red import RedModel, choose, feature_names

# The share of the experts' red stories the red list is to find: issue 17's bar for red stories
# marked high.
RECALL = 0.75
# Regularisation of the logistic regression; a few dozen features over thousands of rows.
C = 0.3
FOLDS = 5
# Bars tried, in steps of 0.01: below 0.02 every story is red, above 0.6 hardly any.
BARS = tuple(round(0.02 + step / 100, 2) for step in range(59))
DIGITS = 5


@dataclass(frozen=True)
class RedWeek:
    name: str
    rows: list[dict[str, float]]  # the features of each item the red list may hold (red.red_features)
    roots: list[str]  # the story (focus.story_groups' root) of each
    stories: list[str | None]  # the experts' red story each belongs to, if any
    red_stories: int  # the week's red stories, whether any item of them may be held or not


def found(weeks: Sequence[RedWeek], rates: Sequence[Sequence[float]], bar: float, limits: tuple[int, int]) -> int:
    """How many red stories the red list finds in `weeks`, given each row's rate."""
    total = 0
    for week, rated in zip(weeks, rates, strict=True):
        best: dict[str, float] = defaultdict(float)
        for root, rate in zip(week.roots, rated, strict=True):
            best[root] = max(best[root], rate)
        chosen, need = choose([(rate, root) for root, rate in best.items()], bar, *limits)
        taken = set(chosen)
        total += len(
            {
                story
                for story, root, rate in zip(week.stories, week.roots, rated, strict=True)
                if story is not None and root in taken and rate >= need
            }
        )
    return total


def fit_red(weeks: Sequence[RedWeek], limits: tuple[int, int], card: Mapping[str, object] | None = None) -> RedModel:
    """The model over every week's rows, with the bar found out of fold (`limits`: a week's cap and
    floor of red stories)."""
    try:
        import numpy
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import GroupKFold
        from sklearn.preprocessing import StandardScaler
    except ImportError:
        raise ConfigError("training needs scikit-learn: pip install 'pytorch-insight[learn]'") from None
    rows = [row for week in weeks for row in week.rows]
    names = feature_names(rows)
    matrix = numpy.array([[row.get(name, 0.0) for name in names] for row in rows], dtype=float)
    red = numpy.array([story is not None for week in weeks for story in week.stories])
    groups = numpy.array([n for n, week in enumerate(weeks) for _ in week.rows])
    if len(weeks) < FOLDS or red.all() or not red.any():
        raise ConfigError(f"the red model needs at least {FOLDS} weeks with red and other items")

    def fitted(part: numpy.ndarray) -> tuple[StandardScaler, LogisticRegression]:
        scaler = StandardScaler().fit(matrix[part])
        return scaler, LogisticRegression(C=C, max_iter=5000).fit(scaler.transform(matrix[part]), red[part])

    out_of_fold = numpy.zeros(len(rows))
    for train, test in GroupKFold(n_splits=FOLDS).split(matrix, red, groups):
        scaler, model = fitted(train)
        out_of_fold[test] = model.predict_proba(scaler.transform(matrix[test]))[:, 1]
    rates = [out_of_fold[groups == n].tolist() for n in range(len(weeks))]
    stories = sum(week.red_stories for week in weeks)
    # A higher bar never finds more: the highest that reaches the share is found by bisection.
    low, high = 0, len(BARS) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if found(weeks, rates, BARS[middle], limits) >= RECALL * stories:
            low = middle
        else:
            high = middle - 1
    bar = BARS[low]
    scaler, model = fitted(numpy.arange(len(rows)))
    return RedModel(
        names,
        tuple(round(float(v), DIGITS) for v in scaler.mean_),
        tuple(round(float(v), DIGITS) for v in scaler.scale_),
        tuple(round(float(v), DIGITS) for v in model.coef_[0]),
        round(float(model.intercept_[0]), DIGITS),
        bar,
        {
            "trained": dt.date.today().isoformat(),
            "weeks": [week.name for week in weeks],
            "rows": len(rows),
            "red_rows": int(red.sum()),
            "red_stories": stories,
            "target": "the item belongs to a story both of a week's experts marked red (docs/EXPERT_BRIEF.md)",
            "bar": f"the highest rate at which the red list (cap {limits[0]}, floor {limits[1]} a week) finds "
            f"{RECALL:.0%} of the red stories of weeks out of fold ({FOLDS} folds of whole weeks)",
            "recall": RECALL,
            "out_of_fold_found": found(weeks, rates, bar, limits),
            **(card or {}),
        },
    )
