"""Scale without loss or waste: the synthetic organisation of benchmarks/scale_out.py and the
variants that used to lose items or waste requests, collected four ways.

    python benchmarks/scale_variants.py [--latency 0] [--repos 40] [--items 3000] [--variant NAME ...]

Variants (each on top of the organisation's ordinary week):
  base           the organisation's week as it is
  busy-day       1,200 PRs opened in one repository on one day, 104 issues in others that day
                 (1,304 in one day: past search's 1,000 cap), spread over the day
  burst          1,150 PRs of one repository and 30 items of ten others created in the same second
                 (a bot's burst: past the cap even within one second)
  dominant       one repository opens 2,400 more items over the week (one every four minutes):
                 it holds most of the organisation's week, as pytorch/pytorch does its own
  long-threads   30 of the week's items with 160 comments each
  late-comments  a third of the commented items commented on again in the two days after the
                 week, collected two days after it
  incomplete     the base week, every seventh search answered as timed out (200 with
                 `incomplete_results: true` and only two thirds of the matches)

Ways: one repository at a time as the weekly run does ("updated since" listings, the morning or,
for late comments, two days after the week) and as a backfill (window searches per repository),
and the organisation through the search API, weekly and backfill. For each: the items active in
the window that were not stored (lost), items stored that are not active in it (extra), requests,
the floor and their ratio.

The floor is the issue's: one list request per 100 items active in the window, plus the thread,
file and timeline requests the report needs. Threads: per repository the cheaper of the comment
listing's pages for the comments on the window's items alone (as if no other comment shared the
listing) and one request per 100 comments of each commented thread of the window. Files and
timelines: one request per focus candidate (the collector's picks: the report's focus list and a
margin for other readers, the same in every way), however often it was asked. The plan's counting
requests, listing pages holding items of other windows, retries and searches read again are all
above the floor.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from benchmarks.scale_out import (  # noqa: E402
    LATER,
    MORNING_AFTER,
    ORG,
    WINDOW,
    organisation,
    run_once,
)

LATE_RUN = datetime(2026, 4, 16, 6, 0, tzinfo=timezone.utc)
BUSY_DAY = datetime(2026, 4, 9, tzinfo=timezone.utc)
BURST = datetime(2026, 4, 10, 3, 0, tzinfo=timezone.utc)


def extra_row(repo: str, number: int, kind: str, created: datetime, title: str) -> dict[str, Any]:
    return {
        "repo": repo,
        "number": number,
        "kind": kind,
        "state": "open",
        "title": title,
        "author": f"dev{number % 97}",
        "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "labels": [],
        "body": "Routine change.",
        "comments": [],
        "url": f"https://github.com/{repo}/{'pull' if kind == 'pull_request' else 'issues'}/{number}",
    }


def busy_day(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    added = [
        extra_row(f"{ORG}/repo00", 50_000 + n, "pull_request", BUSY_DAY + timedelta(seconds=60 * n + 7), f"bump {n}")
        for n in range(1200)
    ]
    added += [
        extra_row(f"{ORG}/repo{1 + n % 12:02d}", 60_000 + n, "issue", BUSY_DAY + timedelta(minutes=13 * n), f"ask {n}")
        for n in range(104)
    ]
    return rows + added


def burst(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    added = [extra_row(f"{ORG}/repo01", 70_000 + n, "pull_request", BURST, f"sync {n}") for n in range(1150)]
    added += [extra_row(f"{ORG}/repo{2 + n % 10:02d}", 80_000 + n, "issue", BURST, f"report {n}") for n in range(30)]
    return rows + added


def dominant(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = datetime.combine(WINDOW.since, datetime.min.time(), timezone.utc)
    added = [
        extra_row(
            f"{ORG}/repo03",
            90_000 + n,
            "pull_request" if n % 2 else "issue",
            start + timedelta(minutes=4 * n, seconds=n % 60),
            f"change {n}",
        )
        for n in range(2400)
    ]
    return rows + added


def long_threads(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rng = random.Random(5)
    chosen = rng.sample([row for row in rows if active(row)], 30)
    for row in chosen:
        start = max(day(row["created"]), WINDOW.since)
        row["comments"] = [
            {
                "author": f"reviewer{n % 40}",
                "date": min(WINDOW.until, start + timedelta(days=n % 4)).isoformat(),
                "kind": "comment",
                "body": f"Round {n}.",
            }
            for n in range(160)
        ]
    return rows


def late_comments(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rng = random.Random(7)
    for row in rows:
        if row["comments"] and active(row) and rng.random() < 1 / 3:
            row["comments"] = row["comments"] + [
                {"author": "late", "date": f"2026-04-{rng.choice((14, 15))}", "kind": "comment", "body": "And now?"}
                for _ in range(rng.randint(1, 4))
            ]
    return rows


VARIANTS = {
    "base": lambda rows: rows,
    "busy-day": busy_day,
    "burst": burst,
    "dominant": dominant,
    "long-threads": long_threads,
    "late-comments": late_comments,
    "incomplete": lambda rows: rows,
}
# What a variant changes in the GitHub stand-in rather than in the rows.
SERVER_OPTIONS: dict[str, dict[str, Any]] = {"incomplete": {"incomplete_every": 7}}


def day(text: str) -> Any:
    return (
        datetime.fromisoformat(text.replace("Z", "+00:00")).date()
        if "T" in text
        else datetime.fromisoformat(text).date()
    )


def active(row: dict[str, Any]) -> bool:
    """Created or closed in the window (the rows hold no other activity the model counts)."""
    dates = [row["created"], row.get("closed")]
    return any(value and WINDOW.since <= day(value) <= WINDOW.until for value in dates)


def floor(rows: list[dict[str, Any]], focus: int) -> int:
    """One list request per 100 active items; per repository, the cheaper of its comment
    listing's pages and one request per 100 comments of each commented thread; `focus`, one
    request per focus candidate's file list or timeline."""
    window_rows = [row for row in rows if active(row)]
    by_repo: dict[str, list[int]] = {}
    for row in window_rows:
        if row["comments"]:
            by_repo.setdefault(row["repo"], []).append(len(row["comments"]))
    threads = sum(
        min(math.ceil(sum(counts) / 100), sum(math.ceil(count / 100) for count in counts))
        for counts in by_repo.values()
    )
    return math.ceil(len(window_rows) / 100) + threads + focus


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds of latency per request")
    parser.add_argument("--repos", type=int, default=40)
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS))
    args = parser.parse_args()
    print(
        f"{'variant':<14}{'way':<26}{'active':>7}{'lost':>6}{'extra':>6}{'requests':>9}{'lists':>7}{'threads':>10}"
        f"{'focus':>6}{'floor':>6}{'x floor':>8}{'wait s':>8}{'wall s':>8}  note"
    )
    ok = True
    for name in args.variant or VARIANTS:
        rows = VARIANTS[name](organisation(args.repos, args.items))
        expected = {(row["repo"], row["number"]) for row in rows if active(row)}
        repos = sorted({row["repo"] for row in rows})
        listed = "repositories = [" + ", ".join(f'"{repo}"' for repo in repos) + "]"
        weekly = LATE_RUN if name == "late-comments" else MORNING_AFTER
        ways = (
            ("per repository, weekly", listed, weekly),
            ("per repository, backfill", listed, LATER),
            ("organisation, weekly", f'orgs = ["{ORG}"]', weekly),
            ("organisation, backfill", f'orgs = ["{ORG}"]', LATER),
        )
        for way, github, clock_day in ways:
            got = run_once(rows, github, clock_day, args.latency, **SERVER_OPTIONS.get(name, {}))
            stored = {(repo, number) for repo, number, kind in got.stored if kind != "commit"}
            paths = got.paths
            threads = sum(path.endswith("/comments") for path in paths)
            listing = sum(path.endswith("/issues/comments") for path in paths)
            details = [path for path in paths if path.endswith(("/files", "/timeline"))]
            focus = len(details)
            lists = len(paths) - threads - focus
            lost, extra = len(expected - stored), len(stored - expected)
            least = floor(rows, len(set(details)))
            status = got.status
            ok = ok and lost == extra == 0
            print(
                f"{name:<14}{way:<26}{len(expected):>7}{lost:>6}{extra:>6}{status.requests:>9}{lists:>7}"
                f"{f'{listing}+{threads - listing}':>10}"
                f"{focus:>6}{least:>6}{status.requests / least:>8.2f}{got.waited:>8.0f}{got.seconds:>8.1f}"
                f"  {status.status.value}{': ' + status.note[:100] if status.note else ''}",
                flush=True,
            )
    print(f"nothing lost or extra in any variant: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
