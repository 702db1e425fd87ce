"""Peak memory of `report` per item of the window: the recorded fortnight replicated to each size
(as benchmarks/scale.py does) in a SQLite store, then the report built from the store as the
`report` command builds it (stored_report, the offline rules), traced with tracemalloc.

    python benchmarks/report_memory.py [--sizes 2000,12000]

The target (issue 20): at most 10 KB per window item at 12,000 items.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from benchmarks.scale import replicate  # noqa: E402
from pytorch_insight.config import load_profile  # noqa: E402
from pytorch_insight.jsonl import import_lines  # noqa: E402
from pytorch_insight.report.build import ReportOptions  # noqa: E402
from pytorch_insight.report.stored import stored_report  # noqa: E402
from pytorch_insight.store import Store  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402

DATA = ROOT / "tests" / "data" / "raw" / "pytorch-2026-04-07_2026-04-20.jsonl"
TARGET_KB = 10.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,12000")
    args = parser.parse_args()
    with DATA.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    window, profile = make_window("2026-04-07", "2026-04-20"), load_profile("pytorch")
    print(f"{'items':>8}{'in window':>11}{'peak MB':>9}{'KB/item':>9}{'wall s':>8}")
    met = True
    for size in (int(value) for value in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            store = Store.open(str(Path(folder) / "bench.db"))
            import_lines(store, [json.dumps(row) for row in replicate(rows, size)])
            reader = profile.reader(None)
            tracemalloc.start()
            started = time.perf_counter()
            _, items = stored_report(store, window, profile, reader, ReportOptions(lang="en"), follow=False)
            seconds = time.perf_counter() - started
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            per_item = peak / 1024 / max(1, len(items))
            met = met and (size < 12_000 or per_item <= TARGET_KB)
            print(f"{size:>8}{len(items):>11}{peak / 1e6:>9.0f}{per_item:>9.1f}{seconds:>8.1f}", flush=True)
            store.close()
    print(f"at most {TARGET_KB:g} KB per item at 12,000: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
