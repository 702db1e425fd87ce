"""The pick model's two weights, chosen by nested leave-one-week-out.

    python benchmarks/pick_weights.py [--weights 1,1.5,2] [--high-weights 0,0.25,0.5,0.75]
                                      [--models DIR]

`[judgement.picks] weight` moves the score of an item below high by the `picked` log-odds before
the red list is set (so the red model, which reads that score, is refitted for each weight), and
`high_weight` by the `high` log-odds after it. Every labelled week is ranked at each pair, by pick
and red models that never saw it (as benchmarks/judgement.py ranks it). Each week is then scored at
the pair that put the most of the experts' stories in the focus 12 and the first 20 together over
all the other weeks (of those, the most in the first 20, then the smaller weights), so the totals
printed first are what weights chosen without a week do on it. Each pair's own totals, and how
many weeks chose it, follow.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections import Counter
from pathlib import Path

from judgement import MODELS_HELP, held_out_weeks, judge, models_folder, periods

from pytorch_insight.config import Profile, load_profile

Pair = tuple[float, float]


def with_picks(profile: Profile, **settings: float) -> Profile:
    picks = profile.judgement.picks.model_copy(update=settings)
    return profile.model_copy(update={"judgement": profile.judgement.model_copy(update={"picks": picks})})


def numbers(text: str) -> list[float]:
    return [float(value) for value in text.split(",")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=numbers, default=[1.0, 1.5, 2.0])
    parser.add_argument("--high-weights", type=numbers, default=[0.0, 0.25, 0.5, 0.75])
    parser.add_argument("--models", type=Path, help=MODELS_HELP)
    args = parser.parse_args()
    weeks = [period for period in periods() if period.name.startswith("week")]
    shipped = load_profile("pytorch")
    found: dict[Pair, dict[str, dict[str, int | None]]] = {}
    with models_folder(args.models) as folder:
        for weight in args.weights:
            base = with_picks(shipped, weight=weight)
            profiles = held_out_weeks(weeks, folder, base)
            for high in args.high_weights:
                found[weight, high] = {}
                for period in weeks:
                    with contextlib.redirect_stdout(io.StringIO()):  # judge's per-story lines
                        found[weight, high][period.name] = judge(
                            period, with_picks(profiles[period.name], high_weight=high), None, False
                        )

    def total(pair: Pair, names: list[str], key: str) -> int:
        return sum(found[pair][name][key] or 0 for name in names)

    names = [period.name for period in weeks]
    stories = sum(found[next(iter(found))][name]["stories"] or 0 for name in names)

    def both(pair: Pair, kept: list[str]) -> tuple[int, int, float, float]:
        top = total(pair, kept, "top")
        return (total(pair, kept, "focus") + top, top, -pair[0], -pair[1])

    chosen: Counter[Pair] = Counter()
    nested = Counter[str]()
    for name in names:
        best = max(found, key=lambda pair: both(pair, [other for other in names if other != name]))
        chosen[best] += 1
        nested.update({key: total(best, [name], key) for key in ("focus", "top")})
    share = {key: f"{nested[key]}/{stories} ({nested[key] / max(1, stories):.1%})" for key in nested}
    print(f"nested over {len(names)} weeks: focus 12 {share['focus']}, top 20 {share['top']}")
    for pair in found:
        focus, top, red, unpicked = (total(pair, names, key) for key in ("focus", "top", "red", "unpicked"))
        over = sum((found[pair][name]["unpicked"] or 0) > 3 for name in names)
        print(
            f"  weight {pair[0]:g}, high_weight {pair[1]:g}: focus 12 {focus}, top 20 {top}, red high {red},"
            f" high items no expert picked {unpicked} (weeks over 3: {over}); chosen by {chosen[pair]} weeks"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
