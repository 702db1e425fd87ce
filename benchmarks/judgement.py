"""How close the ranking comes to the experts' picks, per period and per week.

    python benchmarks/judgement.py [--reader NAME] [--verbose] [--period NAME] [--models DIR]

The ground truth is two independent expert passes per period: ../shared/data/judgements/ (the
shared fortnight, items; a March and a June week, stories: an issue and its fix are one) or, in a
clone alone, their copies in tests/data/; and benchmarks/data/judgements/ (weeks this project
transcribed and had labelled). For every period this prints the recall of the consensus stories
in the focus list (red and yellow stories only) and in the first 20 stories of the report's order
(green ones too), the recall of the red ones among the high-priority items, the
high items neither expert picked, and where each pick landed. The fortnight is also judged as its
two weeks, each a window of its own, so a rule that only works on one week shows up.

The pick model (learn/pick_model.py) and the red model (learn/red_model.py) are learned from these
same picks, so each period is ranked with ones fitted anew on every other labelled week, never on
the period's own data; the red model's rows of each other week are read with a pick model that
never saw that week.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytorch_insight.config import Profile, load_profile  # noqa: E402
from pytorch_insight.dating import date_items  # noqa: E402
from pytorch_insight.jsonl import item_from_line  # noqa: E402
from pytorch_insight.learn.pick_model import LabelledWeek, fit_picks, picked_numbers, read_week  # noqa: E402
from pytorch_insight.learn.red_model import RedWeek, fit_red  # noqa: E402
from pytorch_insight.model import Item, github_item_id  # noqa: E402
from pytorch_insight.pipeline import assess, select_focus  # noqa: E402
from pytorch_insight.pipeline.focus import story_groups  # noqa: E402
from pytorch_insight.pipeline.picks import write_picks  # noqa: E402
from pytorch_insight.pipeline.red import red_features, write_red  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402

# The project's shared data beside the clone; a clone alone has the copies kept with the tests
# (periods whose files it lacks are left out and said so).
SHARED = ROOT.parent / "shared" / "data"
if not (SHARED / "judgements").is_dir():
    SHARED = ROOT / "tests" / "data"
HERE = ROOT / "benchmarks" / "data"
FOCUS, TOP = 12, 20


@dataclass
class Story:
    label: str
    ids: list[str]
    red: bool


@dataclass
class Period:
    name: str
    data: Path
    since: str
    until: str
    stories: list[Story]
    picks: Path  # the experts' file
    picked: set[int] | None = None  # every number either expert picked (their focus, split or own list)


def fortnight_stories(path: Path) -> list[Story]:
    picks = json.loads(path.read_text(encoding="utf-8"))
    red = {github_item_id(r["repo"], r["number"]) for r in picks["red"]}
    stories = []
    for pick in picks["focus"]:
        item_id = github_item_id(pick["repo"], pick["number"])
        stories.append(Story(f"{pick['repo']}#{pick['number']} {pick['title'][:60]}", [item_id], item_id in red))
    return stories


def theme_stories(path: Path, repo: str = "pytorch/pytorch") -> list[Story]:
    picks = json.loads(path.read_text(encoding="utf-8"))
    return [
        Story(theme["label"][:70], [github_item_id(repo, n) for n in theme["numbers"]], theme["red"])
        for theme in picks["themes"]
    ]


APRIL = "pytorch-2026-04-07_2026-04-20"


def periods() -> list[Period]:
    """The shared fortnight (whole and as its two weeks), then every week whose picks are stories."""
    found = []
    april = SHARED / "judgements" / f"{APRIL}.editor-picks.json"
    if april.exists():
        stories, picked, data = fortnight_stories(april), picked_numbers(april), SHARED / "raw" / f"{APRIL}.jsonl"
        found += [
            Period("fortnight 04-07..04-20", data, "2026-04-07", "2026-04-20", stories, april, picked),
            Period("week 04-07..04-13", data, "2026-04-07", "2026-04-13", stories, april, picked),
            Period("week 04-14..04-20", data, "2026-04-14", "2026-04-20", stories, april, picked),
        ]
    for folder in (SHARED, HERE):
        for picks in sorted((folder / "judgements").glob("*.editor-picks.json")):
            stem = picks.name.removesuffix(".editor-picks.json")
            data = folder / "raw" / f"{stem}.jsonl"
            if stem == APRIL or not data.exists():
                continue
            since, until = stem.removeprefix("pytorch-").split("_")
            # The March picks list the consensus only: who else picked what is not known there.
            picked = picked_numbers(picks) if "experts" in json.loads(picks.read_text(encoding="utf-8")) else None
            name = f"week {since[5:]}..{until[5:]}"
            if any(period.name == name for period in found):  # the same days of another year
                name = f"week {since}..{until[5:]}"
            found.append(Period(name, data, since, until, theme_stories(picks), picks, picked))
    return found


def load(path: Path) -> list[Item]:
    """The period's items as `import` stores them: undated threads dated by their numbers."""
    with path.open(encoding="utf-8") as handle:
        items, _ = date_items(item_from_line(json.loads(line)) for line in handle if line.strip())
    return items


@cache
def labelled_weeks() -> dict[Path, LabelledWeek]:
    """Every period's items as the pick model reads them, read once and only when a model is fitted
    (held-out models kept in a folder need none)."""
    return {period.data: read_week(period.data, period.picks) for period in periods()}


def held_out_picks(period: Period, folder: Path, base: Profile) -> Profile:
    """`base` with a pick model fitted on every labelled week but the period's own data (kept in
    `folder`), and no red model: the scores the red model reads, those from before the `high` class
    moves them."""
    path = folder / f"picks-without-{period.data.stem}.json.gz"
    if not path.exists():
        kept = [week for data, week in labelled_weeks().items() if data != period.data]
        # The card's weeks are what the reasons count ("learned ... in 45 labelled weeks").
        write_picks(replace(fit_picks(kept), card={"weeks": [week.name for week in kept]}), path)
    picks = base.judgement.picks.model_copy(update={"model": str(path), "high_weight": 0.0})
    red = base.judgement.red.model_copy(update={"cap": 0})
    judgement = base.judgement.model_copy(update={"picks": picks, "red": red})
    return base.model_copy(update={"judgement": judgement})


def red_week(period: Period, profile: Profile) -> RedWeek:
    """What the red model learns from a week: its items ranked by `profile` (whose pick model never
    saw the week), and which belong to the experts' red stories."""
    window = make_window(period.since, period.until)
    items = [item for item in load(period.data) if item.active_in(window)]
    present = {item.id for item in items}
    red = [story for story in period.stories if story.red and any(i in present for i in story.ids)]
    story_of = {i: f"{n}: {story.label}" for n, story in enumerate(red) for i in story.ids}  # labels may repeat
    groups = story_groups(assess(items, profile, None, window=window))
    root_of = {a.id: root for root, members in groups.items() for a in members}
    features = red_features(groups, profile.ranking.base)
    return RedWeek(
        f"{period.data.stem} {period.since}..{period.until}",
        list(features.values()),
        [root_of[i] for i in features],
        [story_of.get(i) for i in features],
        len(red),
    )


def held_out_profile(
    period: Period, profile: Profile, reds: dict[str, tuple[Path, RedWeek]], folder: Path, base: Profile
) -> Profile:
    """`profile` (its pick model held out of the period) with a red model fitted on every labelled
    week but the period's own data (kept in `folder`), and `base`'s weight of the `high` class back."""
    shipped = base.judgement
    path = folder / f"red-without-{period.data.stem}.json.gz"
    if not path.exists():
        kept = [week for data, week in reds.values() if data != period.data]
        write_red(fit_red(kept, (shipped.red.cap, shipped.red.floor)), path)
    red = shipped.red.model_copy(update={"model": str(path)})
    picks = profile.judgement.picks.model_copy(update={"high_weight": shipped.picks.high_weight})
    judgement = profile.judgement.model_copy(update={"picks": picks, "red": red})
    return profile.model_copy(update={"judgement": judgement})


def held_out_weeks(chosen: list[Period], folder: Path, base: Profile | None = None) -> dict[str, Profile]:
    """Each chosen period's profile (`base`, the pytorch profile by default) with both models held
    out of it; the red model learns from every week (the fortnight as its two weeks), each read with
    a pick model that never saw it. The red models are kept apart for each pick weight: they read
    the scores it moves, the pick models do not."""
    base = base or load_profile("pytorch")
    red_folder = folder / f"red-at-weight-{base.judgement.picks.weight:g}"
    red_folder.mkdir(parents=True, exist_ok=True)
    every = periods()
    picks = {period.name: held_out_picks(period, folder, base) for period in every}
    reds = {
        period.name: (period.data, red_week(period, picks[period.name]))
        for period in every
        if period.name.startswith("week")
    }
    return {period.name: held_out_profile(period, picks[period.name], reds, red_folder, base) for period in chosen}


def judge(period: Period, profile: Profile, reader: str | None, verbose: bool) -> dict[str, int | None]:
    window = make_window(period.since, period.until)
    items = [item for item in load(period.data) if item.active_in(window)]
    present = {item.id for item in items}
    stories = [s for s in period.stories if any(i in present for i in s.ids)]
    ranked = assess(items, profile, reader, window=window)
    focus = select_focus(ranked, profile, FOCUS)
    top = select_focus(ranked, profile, TOP, low=True)  # the report's first 20 stories, green ones too
    focus_ids = {i for entry in focus for i in entry.members}
    top_ids = {i for entry in top for i in entry.members}
    high = {a.id for a in ranked if a.priority == "high"}
    by_id = {a.id: a for a in ranked}
    in_focus = sum(any(i in focus_ids for i in s.ids) for s in stories)
    in_top = sum(any(i in top_ids for i in s.ids) for s in stories)
    reds = [s for s in stories if s.red]
    red_high = sum(any(i in high for i in s.ids) for s in reds)
    print(f"\n== {period.name}: {len(items)} items, {len(stories)} consensus stories ({len(reds)} red)")
    print(
        f"   focus {FOCUS}: {in_focus}/{len(stories)}   top {TOP}: {in_top}/{len(stories)}"
        f"   red high: {red_high}/{len(reds)}"
    )
    high_items = [a for a in ranked if a.priority == "high" and not a.noise and not a.canonical]
    unpicked = [a for a in high_items if period.picked is not None and a.item.number not in period.picked]
    print(
        f"   high-priority items: {len(high_items)}"
        + (f", {len(unpicked)} that neither expert picked" if period.picked is not None else "")
    )
    for story in stories:
        places = []
        for item_id in story.ids:
            if item_id in by_id:
                a = by_id[item_id]
                slot = next((n for n, e in enumerate(top, 1) if item_id in e.members), None)
                places.append(f"#{a.item.number} rank {a.rank} slot {slot or '-'} {a.priority} {a.score:.1f}")
        mark = "✓" if any(i in focus_ids for i in story.ids) else ("·" if any(i in top_ids for i in story.ids) else "✗")
        print(f"   {mark} {'RED ' if story.red else ''}{story.label}\n       {'; '.join(places)}")
    if verbose:
        print("   -- focus list")
        for n, entry in enumerate(top, 1):
            a = by_id[entry.lead]
            others = ", ".join(f"#{by_id[m].item.number}" for m in entry.members if m != entry.lead)
            print(
                f"   {n:>2}. [{a.priority:<6}] {a.score:>5.1f} #{a.item.number} {(a.item.title or '')[:70]}"
                + (f"  (+{others})" if others else "")
            )
            print(f"       {'; '.join(r.en for r in a.reasons)[:300]}")
    return {
        "stories": len(stories),
        "focus": in_focus,
        "top": in_top,
        "reds": len(reds),
        "red": red_high,
        "unpicked": len(unpicked) if period.picked is not None else None,
    }


MODELS_HELP = "keep the held-out models in this folder and reuse those already there (refit after a change they read)"


@contextlib.contextmanager
def models_folder(kept: Path | None) -> Iterator[Path]:
    """Where the held-out models are fitted: `kept` (made if missing, its models reused), or a
    temporary folder."""
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
        yield kept
        return
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", default=None)
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--period", default=None, help="only periods whose name contains this")
    parser.add_argument("--models", type=Path, help=MODELS_HELP)
    args = parser.parse_args()
    chosen = [period for period in periods() if not args.period or args.period in period.name]
    with models_folder(args.models) as folder:
        profiles = held_out_weeks(chosen, folder)
        scores = {period.name: judge(period, profiles[period.name], args.reader, args.verbose) for period in chosen}
    print_totals({name: found for name, found in scores.items() if name.startswith("week")})
    return 0


def print_totals(weeks: dict[str, dict[str, int | None]]) -> None:
    """The weeks summed (the fortnight counts as its two weeks, never twice), against issue 17's bars."""
    if not weeks:
        return
    total = {key: sum(found[key] or 0 for found in weeks.values()) for key in next(iter(weeks.values()))}
    stories, reds = max(1, total["stories"]), max(1, total["reds"])
    over = [f"{name} ({found['unpicked']})" for name, found in weeks.items() if (found["unpicked"] or 0) > 3]
    print(
        f"\n== {len(weeks)} weeks: focus {FOCUS} {total['focus']}/{total['stories']} ({total['focus'] / stories:.1%}),"
        f" top {TOP} {total['top']}/{total['stories']} ({total['top'] / stories:.1%}),"
        f" red high {total['red']}/{total['reds']} ({total['red'] / reds:.1%}),"
        f" high items neither expert picked {total['unpicked']}, weeks with at most 3 of them"
        f" {len(weeks) - len(over)}/{len(weeks)}" + (f"; over: {', '.join(over)}" if over else "")
    )


if __name__ == "__main__":
    sys.exit(main())
