"""Refit the shipped red model on every labelled week (run it after benchmarks/pick_model.py).

    python benchmarks/red_model.py [--out PATH] [--models DIR]

Each week's rows are read with a pick model fitted without that week, as in benchmarks/judgement.py,
which ranks each week with a red model fitted without it: the shipped one is fitted on all of them,
so it is only ever judged on weeks outside this list.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judgement import MODELS_HELP, held_out_picks, models_folder, periods, red_week

from pytorch_insight.config import load_profile
from pytorch_insight.learn.red_model import fit_red
from pytorch_insight.pipeline.red import write_red

OUT = Path(__file__).resolve().parents[1] / "src" / "pytorch_insight" / "models" / "red.json.gz"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--models", type=Path, help=MODELS_HELP)
    args = parser.parse_args()
    every = periods()
    profile = load_profile("pytorch")
    with models_folder(args.models) as folder:
        reds = [
            red_week(period, held_out_picks(period, folder, profile))
            for period in every
            if period.name.startswith("week")  # the fortnight counts as its two weeks
        ]
    red = profile.judgement.red
    model = fit_red(reds, (red.cap, red.floor))
    write_red(model, args.out)
    print(json.dumps({key: value for key, value in model.card.items() if key != "weeks"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
