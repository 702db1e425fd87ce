"""Refit the shipped pick model on every labelled week, and print its leave-one-week-out figures.

    python benchmarks/pick_model.py [--out PATH]

benchmarks/judgement.py ranks each week with a pick model fitted without that week; the shipped
one is fitted on all of them, so it is only ever judged on weeks outside this list.
"""

from __future__ import annotations

import sys

from judgement import periods

from pytorch_insight.learn.pick_model import main

if __name__ == "__main__":
    weeks = sorted({f"{period.data}={period.picks}" for period in periods()})
    sys.exit(main([*weeks, *sys.argv[1:]]))
