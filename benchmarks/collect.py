"""Collection cost benchmark: the shared fortnight through the local GitHub server.

    python benchmarks/collect.py [--latency 0.05] [--data tests/data/raw/<file>.jsonl]

Two scenarios: the weekly run (collected the morning after the window ends, so "updated since"
listings are complete and cheap) and a backfill months later (searches bounded by the window).
For each it prints items, requests, 304s, requests per item and wall time for a first run and an
immediate re-run, and checks the targets: at most one list request per 50 items, comment
requests only for items that have comments, file-list and timeline requests only for the focus
candidates (at most 20 each), and a re-run charged at most 5 % of the first run (the re-run reads
the focus issues' timelines again, which come back 304 and cost nothing).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytorch_insight.clock import SystemClock  # noqa: E402
from pytorch_insight.collect import FOCUS_CANDIDATES, build_sources, run_collection  # noqa: E402
from pytorch_insight.config import load_settings  # noqa: E402
from pytorch_insight.model import SourceStatus  # noqa: E402
from pytorch_insight.sources import NoProgress  # noqa: E402
from pytorch_insight.store import Store  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402
from tests.fakes.github import FakeGitHub, load_rows  # noqa: E402

FORTNIGHT = Path("raw") / "pytorch-2026-04-07_2026-04-20.jsonl"
# The copy kept with the tests, else the project's shared data beside the clone.
CANDIDATES = (ROOT / "tests" / "data" / FORTNIGHT, ROOT.parent / "shared" / "data" / FORTNIGHT)
DEFAULT_DATA = next((path for path in CANDIDATES if path.exists()), CANDIDATES[0])
WINDOW = make_window("2026-04-07", "2026-04-20")


class ShiftedClock(SystemClock):
    """The real clock moved to another day, so a run behaves as if made then."""

    def __init__(self, day: datetime) -> None:
        self.offset = day.timestamp() - time.time()

    def now(self) -> float:
        return time.time() + self.offset


def one_run(api_url: str, db: str, clock: SystemClock) -> tuple[SourceStatus, float]:
    settings = load_settings(db=db, env={"GITHUB_API_URL": api_url})
    store = Store.open(db)
    started = time.perf_counter()
    with ExitStack() as stack:
        sources = build_sources(settings, store, stack, ("github",), clock=clock)
        [status] = run_collection(store, sources, WINDOW, NoProgress(), settings.profile.name, {})
    return status, time.perf_counter() - started


def scenario(name: str, clock: SystemClock, rows: list[dict], latency: float) -> bool:
    with tempfile.TemporaryDirectory() as folder, FakeGitHub(rows, latency=latency) as server:
        db = str(Path(folder) / "bench.db")
        first, first_time = one_run(server.url, db, clock)
        first_log = list(server.log)
        again, again_time = one_run(server.url, db, clock)
        again_log = server.log[len(first_log) :]
        items = list(Store.open(db).iter_items())
    comment_requests = sum(1 for path, _ in first_log if "/comments" in path)
    file_requests = sum(1 for path, _ in first_log if "/files" in path)
    timeline_requests = sum(1 for path, _ in first_log if "/timeline" in path)
    timeline_304s = sum(1 for path, status in again_log if "/timeline" in path and status == 304)
    timeline_again = sum(1 for path, _ in again_log if "/timeline" in path)
    list_requests = len(first_log) - comment_requests - file_requests - timeline_requests
    with_refs = sum(1 for item in items if "timeline_refs" in (item.model_extra or {}))
    with_comments = sum(1 for item in items if item.comment_count)
    print(f"\n{name}")
    print(f"  {'run':<8}{'items':>7}{'requests':>10}{'304s':>6}{'charged':>9}{'items/req':>11}{'wall s':>9}")
    for label, status, seconds in (("first", first, first_time), ("re-run", again, again_time)):
        charged = status.requests - status.not_modified
        print(
            f"  {label:<8}{status.items:>7}{status.requests:>10}{status.not_modified:>6}{charged:>9}"
            f"{status.items / max(1, status.requests):>11.1f}{seconds:>9.2f}"
        )
    list_ok = list_requests * 50 <= first.items
    comments_ok = comment_requests <= with_comments
    rerun_ok = again.requests - again.not_modified <= 0.05 * first.requests
    print(f"  list requests {list_requests} <= {first.items}/50 = {first.items / 50:.2f}: {_verdict(list_ok)}")
    print(f"  comment requests {comment_requests} <= {with_comments} items with comments: {_verdict(comments_ok)}")
    focus_ok = file_requests <= FOCUS_CANDIDATES and timeline_requests <= FOCUS_CANDIDATES
    print(f"  file-list requests for focus pull requests: {file_requests}")
    print(
        f"  timeline requests for focus issues: {timeline_requests} ({with_refs} issues with timeline_refs);"
        f" re-run {timeline_again}, of them 304: {timeline_304s}"
    )
    print(f"  focus requests <= {FOCUS_CANDIDATES} candidates each: {_verdict(focus_ok)}")
    print(f"  re-run charged {again.requests - again.not_modified} <= 5% of {first.requests}: {_verdict(rerun_ok)}")
    return list_ok and comments_ok and focus_ok and rerun_ok


def _verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="seconds of latency per request")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    rows = load_rows(args.data)
    print(f"window {WINDOW.since} .. {WINDOW.until}, {len(rows)} rows, {args.latency * 1000:.0f} ms per request")
    morning_after = datetime(2026, 4, 21, 6, 0, tzinfo=timezone.utc)
    weekly = scenario("weekly run (2026-04-21, updated-since listing)", ShiftedClock(morning_after), rows, args.latency)
    backfill = scenario("backfill (today, window-bounded searches)", SystemClock(), rows, args.latency)
    return 0 if weekly and backfill else 1


if __name__ == "__main__":
    sys.exit(main())
