"""Report speed: build the report model and render Markdown, HTML and JSON for 10,000 items.

    python benchmarks/render.py [--size 10000]

The items are the shared fortnight replicated (see scale.py) and ranked first; the timed part is
what `report` does after ranking: analysis of the focus items, the model, and the three
renderings. Target: <= 3 s for 10,000 items.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from scale import DEFAULT_DATA, replicate  # noqa: E402

from pytorch_insight.config import load_profile  # noqa: E402
from pytorch_insight.jsonl import item_from_line  # noqa: E402
from pytorch_insight.pipeline import assess  # noqa: E402
from pytorch_insight.report.build import ReportOptions, build_report  # noqa: E402
from pytorch_insight.report.render import render_html, render_markdown  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    with args.data.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    items = [item_from_line(row) for row in replicate(rows, args.size)]
    profile = load_profile("pytorch")
    ranked = assess(items, profile)
    timings = {}
    started = time.perf_counter()
    report = build_report(
        ranked,
        window=make_window("2026-04-07", "2026-04-20"),
        profile=profile,
        reader=profile.reader(None),
        statuses=[],
        collected=len(items),
        options=ReportOptions(),
    )
    timings["build"] = time.perf_counter() - started
    for name, render in (
        ("markdown", render_markdown),
        ("html", render_html),
        ("json", lambda r: r.model_dump_json(indent=2)),
    ):
        begin = time.perf_counter()
        size = len(render(report))
        timings[name] = time.perf_counter() - begin
        print(f"  {name:<9} {timings[name]:6.2f} s  {size / 1e6:6.1f} MB")
    total = sum(timings.values())
    print(f"  build     {timings['build']:6.2f} s")
    print(f"{args.size} items: build + render {total:.2f} s (target <= 3 s): {'met' if total <= 3 else 'MISSED'}")
    return 0 if total <= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
