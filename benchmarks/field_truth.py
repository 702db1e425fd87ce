"""Are the report's own statements true? Fields of the focus entries, judged by independent readers.

    python benchmarks/field_truth.py extract      # write each week's fields and their sources
    python benchmarks/field_truth.py pending      # the fields no reader has judged yet, per week
    python benchmarks/field_truth.py score        # precision per field and per week

`extract` builds the English report of every labelled week (the rule analyser, no model) and
writes `benchmarks/data/field-truth/<week>.fields.jsonl`: one line per statement the report makes
about a focus entry (its conclusion, its reason, and for the deep entries the summary, root cause,
impact, workaround and fix state), each with the source threads it may rest on (the entry's item
and the linked items it quotes). A reader who sees only a line's sources and its text writes a
verdict into `<week>.verdicts.jsonl` (`{"key", "verdict", "why"}`): `true`, `false`, `restated`
(says nothing the title does not), `unsupported` (the sources do not say it), `empty` (the field is
empty or says the sources do not state it; `missed` when they do state it after all).

`score` matches verdicts to the current fields by key (a hash of week, item, field and text), so a
field whose text changed since it was judged counts as unjudged, never as judged. Precision per
field is true / (true + false + restated + unsupported); the weeks judged before any tuning
(HELD_OUT) are reported apart.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from judgement import Period, load, periods  # noqa: E402
from quality import window_report  # noqa: E402

from pytorch_insight.config import load_profile  # noqa: E402
from pytorch_insight.model import Item  # noqa: E402
from pytorch_insight.report.model import FocusEntry  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402

OUT = ROOT / "benchmarks" / "data" / "field-truth"
# Weeks whose first reading was judged before any wording was tuned on them: August from the
# start, the others since they were transcribed (their later fixes are general ones, measured on
# every week).
HELD_OUT = (
    "week 08-10..08-16",
    "week 11-10..11-16",
    "week 02-09..02-15",
    "week 05-11..05-17",
    "week 12-08..12-14",
    "week 07-13..07-19",
    "week 09-15..09-21",
    "week 10-13..10-19",
    "week 08-18..08-24",
    "week 03-02..03-08",
    "week 07-14..07-20",
    "week 09-14..09-20",
    "week 04-27..05-03",
    "week 06-16..06-22",
    "week 05-12..05-18",
    "week 06-22..06-28",
    "week 2025-04-14..04-20",
    "week 01-05..01-11",
    "week 10-27..11-02",
    "week 08-24..08-30",
    "week 03-10..03-16",
    "week 09-01..09-07",
    "week 02-23..03-01",
    "week 07-27..08-02",
    "week 01-13..01-19",
    "week 02-10..02-16",
    "week 02-24..03-02",
    "week 12-01..12-07",
    "week 06-02..06-08",
    "week 12-15..12-21",
    "week 10-21..10-27",
    "week 10-28..11-03",
    "week 11-04..11-10",
    "week 11-11..11-17",
    "week 11-18..11-24",
    "week 12-02..12-08",
    "week 12-09..12-15",
    "week 10-07..10-13",
    "week 10-14..10-20",
    "week 12-16..12-22",
    "week 05-25..05-31",
    "week 03-23..03-29",
    "week 11-24..11-30",
    "week 06-08..06-14",
    "week 01-26..02-01",
    "week 08-04..08-10",
    "week 08-03..08-09",
    "week 03-24..03-30",
    "week 09-07..09-13",
    "week 10-06..10-12",
    "week 07-06..07-12",
    "week 04-28..05-04",
    "week 03-03..03-09",
    "week 11-03..11-09",
    "week 02-02..02-08",
    "week 06-15..06-21",
    "week 01-12..01-18",
    "week 08-17..08-23",
    "week 09-22..09-28",
    "week 05-26..06-01",
    "week 05-04..05-10",
    "week 07-28..08-03",
    "week 01-20..01-26",
    "week 2025-04-07..04-13",
    "week 06-23..06-29",
    "week 03-09..03-15",
    "week 07-20..07-26",
    "week 02-03..02-09",
    "week 03-17..03-23",
    "week 05-05..05-11",
    "week 06-09..06-15",
    "week 07-07..07-13",
    "week 08-25..08-31",
    "week 09-08..09-14",
    "week 11-17..11-23",
    "week 02-16..02-22",
    "week 03-30..04-05",
    "week 05-18..05-24",
    "week 06-29..07-05",
    "week 09-21..09-27",
)
REF = re.compile(r"(?<![\w/])(?:[\w.-]+/[\w.-]+)?#\d+\b")
SOURCE_LIMIT = 6000  # characters of each source thread a reader gets (bodies are cut at ~2,000 anyway)
JUDGED = ("true", "false", "restated", "unsupported")


def week_periods() -> list[Period]:
    """Every labelled week once (the fortnight is judged as its two weeks)."""
    return [p for p in periods() if p.name.startswith("week")]


def key(week: str, item: str, field: str, text: str) -> str:
    return hashlib.sha256(f"{week}\n{item}\n{field}\n{text}".encode()).hexdigest()[:16]


def statements(entry: FocusEntry) -> list[tuple[str, str]]:
    analysis = entry.analysis
    found = [("conclusion", entry.conclusion), ("reason", entry.reason)]
    if entry.deep:
        found += [
            ("summary", analysis.summary),
            ("root_cause", analysis.root_cause),
            ("impact", analysis.impact),
            ("workaround", analysis.workaround),
            ("fix_state", entry.fix_text),
            ("action", entry.action_text),
        ]
    return found


def source(item: Item) -> dict[str, Any]:
    comments = "\n\n".join(f"{c.author} ({(c.date or '')[:10]}): {c.body or ''}" for c in item.comments)
    return {
        "ref": f"{item.repo}#{item.number}",
        "author": item.author,  # a reason may name its author: the reader must see who it is
        "state": item.state,
        "labels": item.labels,
        "title": item.title,
        "body": (item.body or "")[:SOURCE_LIMIT],
        "comments": comments[:SOURCE_LIMIT],
    }


def extract() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    profile = load_profile("pytorch")
    for period in week_periods():
        window = make_window(period.since, period.until)
        items = [item for item in load(period.data) if item.active_in(window)]
        by_id = {item.id: item for item in items}
        # An entry names the other items of its story as the report shows them ("#123", "o/r#4").
        main_repo = profile.github.repositories[0] if profile.github.repositories else None
        by_ref = {
            (f"#{item.number}" if item.repo == main_repo else f"{item.repo}#{item.number}"): item.id
            for item in items
            if item.number is not None
        }
        report = window_report(items, window, profile, "en", datetime(2026, 12, 1, tzinfo=timezone.utc))
        lines = []
        for entry in report.focus:
            story = [by_ref.get(ref, ref) for ref in entry.story]
            # Each item a statement names is a source too ("a PR linked with it: #12 (closed)").
            named = [by_ref[ref] for _, text in statements(entry) for ref in REF.findall(text) if ref in by_ref]
            linked = [entry.id, *story, *(e.item for e in entry.evidence), *named]
            sources = [source(by_id[i]) for i in dict.fromkeys(linked) if i in by_id]
            for field, text in statements(entry):
                lines.append(
                    {
                        "key": key(period.name, entry.id, field, text),
                        "week": period.name,
                        "item": entry.ref,
                        "deep": entry.deep,
                        "field": field,
                        "text": text,
                        "sources": sources,
                    }
                )
        path = OUT / f"{period.since}_{period.until}.fields.jsonl"
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
        print(f"{period.name}: {len(lines)} statements of {len(report.focus)} focus entries -> {path.name}")


def verdicts_of(fields_path: Path) -> dict[str, str]:
    path = fields_path.with_name(fields_path.name.replace(".fields.", ".verdicts."))
    if not path.exists():
        return {}
    lines = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {data["key"]: data["verdict"] for data in lines}


def pending() -> None:
    """`<week>.pending.jsonl`: the statements whose text no reader has judged (new or changed)."""
    for fields_path in sorted(OUT.glob("*.fields.jsonl")):
        judged = verdicts_of(fields_path)
        lines = [
            line
            for line in fields_path.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["key"] not in judged
        ]
        out = fields_path.with_name(fields_path.name.replace(".fields.", ".pending."))
        if lines:
            out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        elif out.exists():
            out.unlink()
        print(f"{fields_path.name}: {len(lines)} to judge")


def score() -> None:
    per_week: dict[str, Counter[str]] = defaultdict(Counter)
    per_field: dict[tuple[bool, str], Counter[str]] = defaultdict(Counter)
    for fields_path in sorted(OUT.glob("*.fields.jsonl")):
        verdicts = verdicts_of(fields_path)
        for line in fields_path.read_text(encoding="utf-8").splitlines():
            data = json.loads(line)
            verdict = verdicts.get(data["key"], "unjudged")
            per_week[data["week"]][verdict] += 1
            per_field[(data["week"] in HELD_OUT, data["field"])][verdict] += 1

    def precision(counts: Counter[str]) -> str:
        judged = sum(counts[v] for v in JUDGED)
        return f"{counts['true'] / judged:.0%} of {judged}" if judged else "-"

    print("| week | true | false | restated | unsupported | empty | missed | unjudged | precision |")
    print("|---|---|---|---|---|---|---|---|---|")
    for week, counts in per_week.items():
        cells = " | ".join(str(counts[v]) for v in (*JUDGED, "empty", "missed", "unjudged"))
        print(f"| {week} | {cells} | {precision(counts)} |")
    for held in (False, True):
        print(f"\n{'held-out weeks' if held else 'weeks tuned on'}: precision per field")
        for (is_held, field), counts in sorted(per_field.items()):
            if is_held == held:
                print(
                    f"  {field:<11} {precision(counts):>12}   false {counts['false']}, unsupported "
                    f"{counts['unsupported']}, restated {counts['restated']}, empty {counts['empty']}, "
                    f"missed {counts['missed']}"
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("extract", "pending", "score"))
    args = parser.parse_args()
    {"extract": extract, "pending": pending, "score": score}[args.command]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
