"""How close the ranking comes to the experts' picks, per period and per week.

    python benchmarks/judgement.py [--reader NAME] [--verbose]

The ground truth is tests/data/judgements/ (a copy of ../shared/data/judgements/): two PyTorch engineers' independent picks for the
shared fortnight (items) and for the March week (stories: an issue and its fix are one). For
every period this prints the recall of the consensus picks in the focus list and in the top 20,
the recall of the red picks among the high-priority items, and where each pick landed. The
fortnight is also judged as its two weeks, each a window of its own, so a rule that only works on
one week shows up.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytorch_insight.config import load_profile  # noqa: E402
from pytorch_insight.jsonl import item_from_line  # noqa: E402
from pytorch_insight.model import Item, github_item_id  # noqa: E402
from pytorch_insight.pipeline import assess, select_focus  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402

# The copies kept with the tests (a clone has them), else the project's shared data beside the clone.
SHARED = ROOT / "tests" / "data" if (ROOT / "tests" / "data" / "judgements").is_dir() else ROOT.parent / "shared" / "data"
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


def periods() -> list[Period]:
    raw, judged = SHARED / "raw", SHARED / "judgements"
    april = fortnight_stories(judged / "pytorch-2026-04-07_2026-04-20.editor-picks.json")
    march = theme_stories(judged / "pytorch-2026-03-16_2026-03-22.editor-picks.json")
    april_data = raw / "pytorch-2026-04-07_2026-04-20.jsonl"
    return [
        Period("fortnight 04-07..04-20", april_data, "2026-04-07", "2026-04-20", april),
        Period("week 04-07..04-13", april_data, "2026-04-07", "2026-04-13", april),
        Period("week 04-14..04-20", april_data, "2026-04-14", "2026-04-20", april),
        Period("week 03-16..03-22", raw / "pytorch-2026-03-16_2026-03-22.jsonl", "2026-03-16", "2026-03-22", march),
    ]


def load(path: Path) -> list[Item]:
    with path.open(encoding="utf-8") as handle:
        return [item_from_line(json.loads(line)) for line in handle if line.strip()]


def judge(period: Period, reader: str | None, verbose: bool) -> dict[str, float]:
    profile = load_profile("pytorch")
    window = make_window(period.since, period.until)
    items = [item for item in load(period.data) if item.active_in(window)]
    present = {item.id for item in items}
    stories = [s for s in period.stories if any(i in present for i in s.ids)]
    ranked = assess(items, profile, reader, window=window)
    focus = select_focus(ranked, profile, FOCUS)
    top = select_focus(ranked, profile, TOP)
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
    high_count = sum(1 for a in ranked if a.priority == "high" and not a.noise and not a.canonical)
    print(f"   high-priority items: {high_count}")
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
        "focus": in_focus / max(1, len(stories)),
        "top": in_top / max(1, len(stories)),
        "red": red_high / max(1, len(reds)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", default=None)
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--period", default=None, help="only periods whose name contains this")
    args = parser.parse_args()
    for period in periods():
        if args.period and args.period not in period.name:
            continue
        judge(period, args.reader, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
