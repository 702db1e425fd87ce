"""The ground truth of a week from two independent expert passes (../shared/docs/EXPERT_BRIEF.md):
the stories both put in their focus, red when both marked them high.

    python benchmarks/consensus.py A.json B.json --window 2026-01-19..2026-01-25 --out picks.json

A story of one pass matches a story of the other when they share an item number (its own or an
`also`); the consensus story carries the numbers of both and both reasons.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def numbers(pick: dict) -> set[int]:
    return {int(pick["number"]), *(int(n) for n in pick.get("also", []) if str(n).isdigit())}


def consensus(first: dict, second: dict) -> dict:
    themes, split, used = [], [], set()
    for a in first["focus"]:
        match = next((n for n, b in enumerate(second["focus"]) if n not in used and numbers(a) & numbers(b)), None)
        if match is None:
            split.append({"pass": "A", **a})
            continue
        used.add(match)
        b = second["focus"][match]
        themes.append(
            {
                "label": f"#{a['number']} " + a["reason"][:70],
                "numbers": sorted(numbers(a) | numbers(b)),
                "red": a.get("priority") == "high" and b.get("priority") == "high",
                "reasons": [a["reason"], b["reason"]],
            }
        )
    split += [{"pass": "B", **b} for n, b in enumerate(second["focus"]) if n not in used]
    return {"themes": themes, "split": split}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--window", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    first, second = (json.loads(p.read_text(encoding="utf-8")) for p in (args.first, args.second))
    result = {
        "window": args.window,
        "method": "two independent passes given only ../shared/docs/EXPERT_BRIEF.md and the week's data; "
        "themes are the stories both picked (matched by a shared item number), red when both marked them high",
        **consensus(first, second),
        "experts": {"A": first, "B": second},
    }
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    themes = result["themes"]
    print(f"{len(themes)} common stories, {sum(t['red'] for t in themes)} red, {len(result['split'])} split")
    return 0


if __name__ == "__main__":
    sys.exit(main())
