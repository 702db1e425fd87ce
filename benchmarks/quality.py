"""Quality of the deterministic pipeline on the shared fortnight.

    python benchmarks/quality.py [--data FILE.jsonl] [--reader NAME]

(a) area classification with the labels hidden, against the triagers' own `module:` / `oncall:`
    labels (mapped to areas by the profile), per area and micro-averaged; once more with the
    `cc @...` lines hidden too, since PyTorch's bot writes those from the labels;
(b) fix links found against the explicit references in the data (closing keywords and issue
    URLs in PR bodies, found here by an independent pattern);
(c) resubmitted duplicates and relands/reverts found;
(d) the top 20 for the reader, with reasons, for a human read;
(e) agreement with the release team's categories (../shared/data/release-notes/): for the PRs of
    the shared weeks that the release team categorised, whether our areas include theirs; and,
    at a larger scale, the same from the release team's (rephrased) titles alone;
(f) the reports of each week (the fortnight's two weeks and the March week): how many deep items
    carry three or more of summary / root cause / impact / workaround / fix state, and the share
    of the Chinese report's own text that is Chinese (report/language.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytorch_insight.config import Profile, load_profile  # noqa: E402
from pytorch_insight.jsonl import item_from_line  # noqa: E402
from pytorch_insight.model import Item  # noqa: E402
from pytorch_insight.pipeline import Assessment, assess  # noqa: E402
from pytorch_insight.report.build import ReportOptions, build_report  # noqa: E402
from pytorch_insight.report.language import chinese_share  # noqa: E402
from pytorch_insight.report.model import FocusEntry, Report  # noqa: E402
from pytorch_insight.report.render import render_markdown  # noqa: E402
from pytorch_insight.window import Window, make_window  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
DEFAULT_DATA = SHARED / "raw" / "pytorch-2026-04-07_2026-04-20.jsonl"
WEEKS = sorted((SHARED / "raw").glob("pytorch-*.jsonl"))
RELEASE_NOTES = SHARED / "release-notes" / "pytorch-release-notes-categories.json"
# The release team's categories in the profile's areas ("distributed (...)" are all distributed;
# what is not listed is core).
RELEASE_AREAS = {
    "inductor": "compiler",
    "inductor (aoti)": "compiler",
    "dynamo": "compiler",
    "fx": "compiler",
    "export": "compiler",
    "aotdispatcher": "compiler",
    "composability": "compiler",
    "mps": "mps",
    "rocm": "rocm",
    "xpu": "xpu",
    "cuda": "cuda",
}
IGNORED_CATEGORIES = {"skip", "not needed"}
EXPLICIT_FIX = re.compile(r"(?i)\b(?:fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)\b:?\s+#(\d+)")
ISSUE_URL = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/issues/(\d+)")
CC_LINE = re.compile(r"(?im)^\s*cc:?\s+@.*$")


def truth_areas(item: Item, profile: Profile) -> set[str]:
    """Areas the triagers' module:/oncall: labels put the item in, through the profile's map."""
    areas = set()
    for label in item.labels:
        if not label.startswith(("module:", "oncall:")):
            continue
        areas |= {area.id for area in profile.areas if label.lower() in {x.lower() for x in area.labels}}
    return areas


def area_scores(items: list[Item], profile: Profile, hide_cc: bool) -> dict[str, tuple[int, int, int]]:
    if hide_cc:
        items = [item.model_copy(update={"body": CC_LINE.sub("", item.body or "")}) for item in items]
    predicted = {a.id: set(a.areas) for a in assess(items, profile, use_labels=False)}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tp, fp, fn
    for item in items:
        truth = truth_areas(item, profile)
        if not truth or item.id not in predicted:
            continue
        guess = predicted[item.id]
        for area in truth | guess:
            counts[area][0 if area in truth and area in guess else 1 if area in guess else 2] += 1
    return {area: (tp, fp, fn) for area, (tp, fp, fn) in counts.items()}


def f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def print_areas(title: str, scores: dict[str, tuple[int, int, int]]) -> float:
    print(f"\n{title}")
    print(f"  {'area':<12}{'tp':>5}{'fp':>5}{'fn':>5}{'precision':>11}{'recall':>8}{'f1':>7}")
    for area in sorted(scores):
        p, r, f = f1(*scores[area])
        print(f"  {area:<12}{scores[area][0]:>5}{scores[area][1]:>5}{scores[area][2]:>5}{p:>11.3f}{r:>8.3f}{f:>7.3f}")
    total = tuple(sum(values[i] for values in scores.values()) for i in range(3))
    p, r, f = f1(*total)
    print(f"  {'micro':<12}{total[0]:>5}{total[1]:>5}{total[2]:>5}{p:>11.3f}{r:>8.3f}{f:>7.3f}")
    return f


def fix_links(items: list[Item], ranked: list[Assessment]) -> tuple[int, int, list[str]]:
    linked = {(a.id, r.target) for a in ranked for r in a.relations if r.type == "fixes"}
    expected = set()
    for item in items:
        if item.kind != "pull_request" or not item.body or not item.repo:
            continue
        expected |= {(item.id, f"github:{item.repo}#{n}") for n in EXPLICIT_FIX.findall(item.body)}
        expected |= {(item.id, f"github:{repo}#{n}") for repo, n in ISSUE_URL.findall(item.body)}
    missing = sorted(f"{source} -> {target}" for source, target in expected - linked)
    return len(expected & linked), len(expected), missing


def duplicates(items: list[Item], ranked: list[Assessment]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    by_title: dict[tuple[str | None, str], list[str]] = defaultdict(list)
    for item in items:
        if item.kind == "pull_request" or item.kind == "issue":
            title = re.sub(r"\s*\(#\d*…?\)?\s*$", "", item.title or "").strip().lower()
            by_title[(item.repo, item.kind, title)].append(item.id)
    expected = {(a, b) for ids in by_title.values() for a in ids for b in ids if a < b}
    cluster = {a.id: a.canonical or a.id for a in ranked}  # duplicates point at their canonical item
    found = {(a, b) for a, b in expected if cluster.get(a) == cluster.get(b)}
    return sorted(found), sorted(expected - found)


def release_area(category: str) -> str:
    if category.startswith("distributed"):
        return "distributed"
    return RELEASE_AREAS.get(category, "core")


def release_agreement(profile: Profile) -> tuple[int, int, int, int]:
    """(agree, total) on the shared weeks' categorised PRs, then on the release team's titles."""
    categories = {
        int(number): entries[0]["category"]
        for number, entries in json.loads(RELEASE_NOTES.read_text(encoding="utf-8"))["prs"].items()
        if entries[0]["category"] not in IGNORED_CATEGORIES
    }
    agree = total = 0
    for week in WEEKS:
        with week.open(encoding="utf-8") as handle:
            items = [item_from_line(json.loads(line)) for line in handle if line.strip()]
        predicted = {a.id: a.areas for a in assess(items, profile, use_labels=False)}
        for item in items:
            if item.repo != "pytorch/pytorch" or item.number not in categories or item.id not in predicted:
                continue
            total += 1
            if release_area(categories[item.number]) in predicted[item.id]:
                agree += 1
            else:
                print(f"  #{item.number} [{categories[item.number]}] got {predicted[item.id]}: {item.title[:70]}")
    entries = json.loads(RELEASE_NOTES.read_text(encoding="utf-8"))["prs"]
    titles = [
        Item(
            id=f"github:pytorch/pytorch#{n}",
            source="github",
            kind="pull_request",
            repo="pytorch/pytorch",
            number=int(n),
            title=e[0]["title"],
        )
        for n, e in entries.items()
        if e[0]["category"] not in IGNORED_CATEGORIES
    ]
    predicted = {a.item.number: a.areas for a in assess(titles, profile, use_labels=False)}
    by_title = sum(release_area(categories[n]) in areas for n, areas in predicted.items())
    return agree, total, by_title, len(predicted)


WEEK_WINDOWS = (
    ("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-07", "2026-04-13"),
    ("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-14", "2026-04-20"),
    ("pytorch-2026-03-16_2026-03-22.jsonl", "2026-03-16", "2026-03-22"),
)


def filled_fields(entry: FocusEntry) -> int:
    analysis = entry.analysis
    return sum(
        bool(field)
        for field in (
            analysis.summary,
            analysis.root_cause,
            analysis.impact or analysis.facts.comparisons,
            analysis.workaround,
            analysis.fix_state != "none",
        )
    )


def window_report(items: list[Item], window: Window, profile: Profile, lang: str, generated_at: datetime) -> Report:
    """The report of the window's items as `report` builds it, for the generalist, with the rules."""
    ranked = assess(items, profile, window=window)
    return build_report(
        ranked,
        window=window,
        profile=profile,
        reader=profile.reader(None),
        statuses=[],
        collected=len(items),
        options=ReportOptions(lang=lang, generated_at=generated_at),
    )


def report_quality(profile: Profile) -> bool:
    ok = True
    for name, since, until in WEEK_WINDOWS:
        window = make_window(since, until)
        with (SHARED / "raw" / name).open(encoding="utf-8") as handle:
            items = [item_from_line(json.loads(line)) for line in handle if line.strip()]
        items = [item for item in items if item.active_in(window)]
        report = window_report(items, window, profile, "zh", datetime(2026, 5, 1, tzinfo=timezone.utc))
        deep = [entry for entry in report.focus if entry.deep]
        full = sum(filled_fields(entry) >= 3 for entry in deep)
        share = chinese_share(render_markdown(report))
        print(
            f"  {since}..{until}: deep items with >= 3 fields {full}/{len(deep)}; "
            f"Chinese share of the report's own text {share.share:.1%} ({share.native} CJK, {share.foreign} Latin)"
        )
        ok = ok and full >= 0.8 * len(deep) and share.share >= 0.8
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--reader", default=None)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    profile = load_profile("pytorch")
    with args.data.open(encoding="utf-8") as handle:
        items = [item_from_line(json.loads(line)) for line in handle if line.strip()]
    labelled = sum(1 for item in items if truth_areas(item, profile))
    print(f"{len(items)} items, {labelled} with area labels")
    micro = print_areas("(a) areas with labels hidden", area_scores(items, profile, hide_cc=False))
    print_areas("(a') areas with labels and cc lines hidden", area_scores(items, profile, hide_cc=True))

    ranked = assess(items, profile, args.reader)
    found, expected, missing = fix_links(items, ranked)
    print(f"\n(b) explicit fix references linked: {found}/{expected}")
    for line in missing:
        print(f"  missing: {line}")
    pairs, unlinked = duplicates(items, ranked)
    print(f"\n(c) duplicate pairs in one cluster: {len(pairs)}/{len(pairs) + len(unlinked)}")
    for pair in pairs:
        print(f"  {pair[0]} = {pair[1]}")
    for pair in unlinked:
        print(f"  UNLINKED {pair[0]} = {pair[1]}")
    others = [
        (a.id, r.type, r.target) for a in ranked for r in a.relations if r.type in ("relands", "reverts", "stack")
    ]
    print(f"  relands / reverts / stack links: {Counter(kind for _, kind, _ in others)}")

    counted = [a for a in ranked if not a.noise and not a.canonical]
    shares = Counter(a.priority for a in counted)
    overall = Counter(a.priority for a in ranked)
    print(
        f"\npriorities over {len(counted)} non-noise canonical items: "
        + ", ".join(f"{p} {shares[p]} ({shares[p] / max(1, len(counted)):.0%})" for p in ("high", "medium", "low"))
    )
    print(
        f"priorities over all {len(ranked)} items: "
        + ", ".join(f"{p} {overall[p]} ({overall[p] / len(ranked):.0%})" for p in ("high", "medium", "low"))
    )
    print(f"\n(d) top {args.top} for reader {profile.reader(args.reader).id}")
    for a in ranked[: args.top]:
        print(f"  {a.rank:>2}. [{a.priority:<6}] {a.score:>6.2f} {a.id}  {(a.item.title or '')[:70]}")
        print(f"      areas: {', '.join(a.areas)}; reasons: {'; '.join(r.en for r in a.reasons)}")
    print("\n(e) agreement with the release team's categories")
    agree, total, by_title, titles = release_agreement(profile)
    print(f"  PRs of the shared weeks: {agree}/{total} ({agree / max(1, total):.1%})")
    print(f"  release-notes titles alone: {by_title}/{titles} ({by_title / max(1, titles):.1%})")
    print("\n(f) the weekly reports")
    written = report_quality(profile)
    ok = micro >= 0.85 and found == expected and not unlinked and agree >= 0.95 * total and written
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
