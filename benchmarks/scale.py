"""Scale of the deterministic pipeline: fuse + classify + rank 10,000 and 100,000 items.

    python benchmarks/scale.py [--sizes 10000,100000] [--distinct]

The shared fortnight is replicated with new ids and numbers (references inside bodies shift
with them, so links stay within each copy). With --distinct every sentence of a copy's description
and comments also starts with the copy's own mark, so no text repeats across copies: the reading
cannot gain from a window that repeats itself more than a real one does. Each size runs in a
fresh process; it prints the wall time of `assess` and the process's peak memory (its reading
processes' peak beside it).
Targets: 10,000 items in <= 3 s and <= 300 MB; 100,000 in <= 11x the 10,000 time.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "raw" / "pytorch-2026-04-07_2026-04-20.jsonl"
NUMBER = re.compile(r"(#|/issues/|/pull/)(\d{3,7})\b")
OFFSET = 1_000_000
SENTENCE_START = re.compile(r"(^|[.!?]\s+)(?=\S)", re.M)


def replicate(rows: list[dict], size: int, distinct: bool = False) -> list[dict]:
    copies = []
    for index in range(size):
        copy, row = divmod(index, len(rows))
        source = rows[row]
        shift = copy * OFFSET

        def moved(text: str | None, shift: int = shift) -> str | None:
            return NUMBER.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + shift}", text) if text else text

        def written(text: str | None, mark: str = f"v{copy} " if distinct and copy else "") -> str | None:
            """A description or comment of this copy: its references moved, each sentence marked."""
            text = moved(text)
            return SENTENCE_START.sub(lambda m: m.group(1) + mark, text) if text and mark else text

        number = source["number"] + shift if source["number"] is not None else None
        copies.append(
            {
                **source,
                "number": number,
                "title": f"{source['title'] or ''} (copy {copy})" if copy else source["title"],
                "body": written(source["body"]),
                "comments": [{**c, "body": written(c.get("body"))} for c in source.get("comments") or []],
                "url": f"{moved(source['url'])}?copy={copy}",
            }
        )
    return copies


def measure(size: int, data: Path, distinct: bool = False) -> dict[str, float]:
    from pytorch_insight.config import load_profile
    from pytorch_insight.jsonl import item_from_line
    from pytorch_insight.pipeline import assess

    with data.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    items = [item_from_line(row) for row in replicate(rows, size, distinct)]
    profile = load_profile("pytorch")
    started = time.perf_counter()
    ranked = assess(items, profile)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"size": size, "seconds": seconds, "peak_mb": peak_mb, "children_mb": children_mb, "kept": len(ranked)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--distinct", action="store_true", help="no sentence repeats across copies")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.data, args.distinct)))
        return 0
    results = {}
    for size in (int(part) for part in args.sizes.split(",")):
        output = subprocess.run(
            [sys.executable, __file__, "--one", str(size), "--data", str(args.data)]
            + (["--distinct"] if args.distinct else []),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        results[size] = json.loads(output)
        r = results[size]
        print(
            f"{size:>7} items: assess {r['seconds']:.2f} s, peak RSS {r['peak_mb']:.0f} MB"
            f" (a reading process {r['children_mb']:.0f} MB; {r['kept']} after fusion)"
        )
    ok = True
    if 10_000 in results:
        r = results[10_000]
        ok &= r["seconds"] <= 3.0 and r["peak_mb"] <= 300
        print(f"10,000 target (<= 3 s, <= 300 MB): {'met' if ok else 'MISSED'}")
    if 10_000 in results and 100_000 in results:
        ratio = results[100_000]["seconds"] / results[10_000]["seconds"]
        print(f"100,000 / 10,000 time ratio {ratio:.1f} (target <= 11): {'met' if ratio <= 11 else 'MISSED'}")
        ok &= ratio <= 11
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
