"""Scale-out benchmark: collecting a whole organisation, and (later sections) the workers and the
database at that size.

    python benchmarks/scale_out.py [--section collection] [--latency 0.05] [--repos 40] [--items 3000]

Each section is a function that prints its own table; `--section` picks some (default: all).

`collection`: a synthetic organisation (`synth`, 40 repositories, ~3,000 items active in one
week, sized like a long-tailed organisation: a few busy repositories, many quiet ones) served by
the local GitHub server with latency per request. Its texts are the recorded PyTorch threads of
tests/data/raw, renumbered. It is collected three ways: one repository at a time as the weekly
run does (the morning after the window: "updated since" listings) and as a backfill (window-bounded
searches per repository), and as one organisation through the search API. For each: items,
requests split into lists (listings, searches, commits), comment threads and focus details (file
lists, timelines), wall time and the rate-limit wait (the search API allows 30 requests a minute;
the wait is simulated, so it is reported beside the wall time, not inside it). The target: the
organisation search spends at most one list request per 50 items.

`database`: the store's part of the pipeline (import, re-import, window read, assess, export) on
100,000 items, SQLite against PostgreSQL (a throwaway local server, or `--pg URL`).

`workers` (needs `redis-server`; the analysis the `llm-local` extra): the same organisation, its
dates moved so the window ends yesterday, collected in-process and by 1, 2 and 4 `pytorch-insight
worker` processes (`--workers`; one task at a time each, one task per repository, one SQLite
store, one Redis), then the focus items' model calls (`--llm-focus`) as tasks on 1, 2 and 4
workers, each worker with its own SmolLM2-135M server: items, requests, wall time, speed-up.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from pytorch_insight.clock import SystemClock  # noqa: E402
from pytorch_insight.collect import build_sources, run_collection  # noqa: E402
from pytorch_insight.config import load_settings  # noqa: E402
from pytorch_insight.model import SourceStatus  # noqa: E402
from pytorch_insight.sources import NoProgress  # noqa: E402
from pytorch_insight.store import Store  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402

TEMPLATES = ROOT / "tests" / "data" / "raw"
ORG = "synth"
WINDOW = make_window("2026-04-07", "2026-04-13")
MORNING_AFTER = datetime(2026, 4, 14, 6, 0, tzinfo=timezone.utc)
LATER = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


class SimulatedClock(SystemClock):
    """Real time, except that waiting (for a rate limit, a retry) moves the clock instead of
    sleeping; the local server reads the same clock, so its rate-limit windows move with it."""

    def __init__(self, day: datetime) -> None:
        self.offset = day.timestamp() - time.time()
        self.waited = 0.0

    def now(self) -> float:
        return time.time() + self.offset

    def sleep(self, seconds: float) -> None:
        self.offset += seconds
        self.waited += seconds


# -- the synthetic organisation --------------------------------------------------------------------


def templates() -> list[dict[str, Any]]:
    rows = []
    for path in sorted(TEMPLATES.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            rows += [json.loads(line) for line in handle if line.strip()]
    return [row for row in rows if row.get("number") is not None and row.get("kind") in ("issue", "pull_request")]


def organisation(repos: int, items: int, seed: int = 13) -> list[dict[str, Any]]:
    """`items` rows active in WINDOW over `repos` repositories (sizes falling as 1/rank), plus
    a tenth more that were only commented on in the window (they are not active in it, but an
    "updated since" listing returns them) and comment threads on a quarter of them."""
    rng = random.Random(seed)
    texts = templates()
    weights = [1 / rank for rank in range(1, repos + 1)]
    names = [f"{ORG}/repo{index:02d}" for index in range(repos)]
    numbers = dict.fromkeys(names, 1000)
    rows = []
    for index in range(items + items // 10):
        repo = rng.choices(names, weights)[0]
        numbers[repo] += 1
        text = texts[index % len(texts)]
        kind = "pull_request" if rng.random() < 0.55 else "issue"
        active = index < items
        older = not active or rng.random() < 0.15  # created before the window, closed in it
        created = WINDOW.since - timedelta(days=rng.randint(8, 60)) if older else _day(rng)
        row = {
            "repo": repo,
            "number": numbers[repo],
            "kind": kind,
            "state": "open",
            "title": text["title"],
            "author": text.get("author") or "someone",
            "created": created.isoformat(),
            "labels": text.get("labels") or [],
            "body": text.get("body") or "",
            "url": f"https://github.com/{repo}/{'pull' if kind == 'pull_request' else 'issues'}/{numbers[repo]}",
        }
        if active and (older or rng.random() < 0.4):
            closed = _day(rng) if older else min(WINDOW.until, created + timedelta(days=rng.randint(0, 3)))
            row["closed"] = closed.isoformat()
            row["state"] = "merged" if kind == "pull_request" and rng.random() < 0.7 else "closed"
        start = max(created, WINDOW.since)
        commented = not active or rng.random() < 0.25
        row["comments"] = [
            {
                "author": f"reviewer{rng.randint(1, 40)}",
                "date": min(WINDOW.until, start + timedelta(days=rng.randint(0, 3))).isoformat(),
                "kind": "comment",
                "body": f"Looked at this ({n}).",
            }
            for n in range(rng.randint(1, 6) if commented else 0)
        ]
        rows.append(row)
    return rows


def _day(rng: random.Random) -> date:
    return WINDOW.since + timedelta(days=rng.randint(0, (WINDOW.until - WINDOW.since).days))


def profile_file(folder: Path, github: str) -> Path:
    """The PyTorch profile (areas, ranking, merge rules) over the synthetic organisation."""
    text = (ROOT / "src" / "pytorch_insight" / "profiles" / "pytorch.toml").read_text(encoding="utf-8")
    text = re.sub(r"^optional_repositories = \[.*?\]\n", "", text, flags=re.M | re.S)
    text = re.sub(r"^repositories = \[.*?\]\n", lambda _: github + "\n", text, flags=re.M)
    path = folder / "synth.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- section: collection ---------------------------------------------------------------------------


@dataclass
class Collected:
    name: str
    status: SourceStatus
    lists: int
    threads: int
    focus: int
    commits: int
    seconds: float
    waited: float


@dataclass
class Run:
    """One in-process collection of the window against the stand-in: what it stored and asked."""

    status: SourceStatus
    stored: list[tuple[str | None, int | None, str]]  # (repo, number, kind) of every stored item
    paths: list[str]  # the request paths, without their queries
    seconds: float
    waited: float  # simulated seconds spent waiting for rate-limit resets


def run_once(rows: list[dict[str, Any]], github: str, day: datetime, latency: float, **server_options: Any) -> Run:
    """`server_options` go to the stand-in (`incomplete_every=7`: every seventh search times out)."""
    clock = SimulatedClock(day)
    with (
        tempfile.TemporaryDirectory() as folder,
        FakeGitHub(rows, latency=latency, now=clock.now, **server_options) as server,
    ):
        profile = profile_file(Path(folder), github)
        env = {"GITHUB_API_URL": server.url, "GITHUB_TOKEN": "benchmark-token"}
        settings = load_settings(profile=str(profile), db=str(Path(folder) / "bench.db"), env=env)
        store = Store.open(settings.db)
        started = time.perf_counter()
        with ExitStack() as stack:
            sources = build_sources(settings, store, stack, ("github",), clock=clock)
            [status] = run_collection(store, sources, WINDOW, NoProgress(), settings.profile.name, {})
        seconds = time.perf_counter() - started
        stored = [(item.repo, item.number, item.kind) for item in store.iter_items()]
        paths = [path.split("?", 1)[0] for path, _ in server.log]
    return Run(status, stored, paths, seconds, clock.waited)


def collect_once(name: str, rows: list[dict[str, Any]], github: str, day: datetime, latency: float) -> Collected:
    run = run_once(rows, github, day, latency)
    commits = sum(kind == "commit" for _, _, kind in run.stored)
    threads = sum(path.endswith("/comments") for path in run.paths)
    focus = sum(path.endswith(("/files", "/timeline")) for path in run.paths)
    lists = len(run.paths) - threads - focus
    return Collected(name, run.status, lists, threads, focus, commits, run.seconds, run.waited)


def collection(args: argparse.Namespace) -> bool:
    rows = organisation(args.repos, args.items)
    repos = sorted({row["repo"] for row in rows})
    listed = "repositories = [" + ", ".join(f'"{repo}"' for repo in repos) + "]"
    print(f"\ncollection: {ORG}, {len(repos)} repositories, {len(rows)} threads served, {WINDOW.label}")
    print(f"  {args.latency * 1000:.0f} ms per request, authenticated (search: 30 requests a minute)")
    runs = [
        collect_once("per repository, weekly", rows, listed, MORNING_AFTER, args.latency),
        collect_once("per repository, backfill", rows, listed, LATER, args.latency),
        collect_once("organisation search", rows, f'orgs = ["{ORG}"]', MORNING_AFTER, args.latency),
    ]
    columns = ("items", "commits", "requests", "lists", "threads", "focus", "items/list", "wall s", "wait s")
    widths = (7, 9, 10, 7, 9, 7, 12, 8, 8)
    print(f"  {'how':<26}" + "".join(f"{name:>{width}}" for name, width in zip(columns, widths, strict=True)))
    for run in runs:
        values = (
            run.status.items,
            run.commits,
            run.status.requests,
            run.lists,
            run.threads,
            run.focus,
            f"{run.status.items / max(1, run.lists):.1f}",
            f"{run.seconds:.2f}",
            f"{run.waited:.0f}",
        )
        print(f"  {run.name:<26}" + "".join(f"{value:>{width}}" for value, width in zip(values, widths, strict=True)))
    org = runs[-1]
    for run in runs[:-1]:
        print(
            f"  {run.name} / organisation: requests x{run.status.requests / org.status.requests:.2f}, "
            f"list requests x{run.lists / org.lists:.2f}"
        )
    met = org.lists * 50 <= org.status.items and org.status.status.value == "ok"
    print(
        f"  organisation list requests {org.lists} <= {org.status.items}/50 = {org.status.items / 50:.1f}: "
        f"{'met' if met else 'MISSED'}"
    )
    return met


# -- section: workers ------------------------------------------------------------------------------


def shifted(rows: list[dict[str, Any]], days: int) -> list[dict[str, Any]]:
    """The rows with every date moved by `days` (workers run on the real clock, so the window is
    moved to end yesterday, the weekly run's case)."""

    def move(value: str | None) -> str | None:
        if not value:
            return value
        moment = datetime.fromisoformat(value) if "T" in value else date.fromisoformat(value)
        return (moment + timedelta(days=days)).isoformat()

    return [
        {
            **row,
            "created": move(row["created"]),
            **({"closed": move(row["closed"])} if "closed" in row else {}),
            "comments": [{**comment, "date": move(comment["date"])} for comment in row["comments"]],
        }
        for row in rows
    ]


def start_redis() -> tuple[subprocess.Popen[bytes], str]:
    import redis

    from tests.servers import free_port

    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(200):
        try:
            redis.Redis.from_url(url).ping()
            return server, url
        except redis.ConnectionError:
            time.sleep(0.05)
    server.kill()
    sys.exit("redis-server did not start (apt-get install redis-server)")


def workers(args: argparse.Namespace) -> bool:
    """Wall time of the collection, and of the focus items' analysis with the local model, on 1, 2
    and 4 worker processes (one task at a time each) against one Redis and one SQLite store."""
    import redis

    from pytorch_insight.workers.dispatch import collect_with_workers
    from tests.workers.conftest import Workers, worker_config

    yesterday = datetime.fromtimestamp(time.time(), timezone.utc).date() - timedelta(days=1)
    days = (yesterday - WINDOW.until).days
    window = make_window((WINDOW.since + timedelta(days=days)).isoformat(), yesterday.isoformat())
    rows = shifted(organisation(args.repos, args.items), days)
    repos = sorted({row["repo"] for row in rows})
    listed = "repositories = [" + ", ".join(f'"{repo}"' for repo in repos) + "]"
    counts = [int(count) for count in args.workers.split(",")]
    redis_server, broker = start_redis()
    print(f"\nworkers: {ORG}, {len(repos)} repositories (one task each), {len(rows)} threads served")
    print(f"  {args.latency * 1000:.0f} ms per request; each worker runs one task at a time; SQLite store")
    print(f"  {'collection':<22}{'items':>7}{'requests':>10}{'wall s':>8}{'speed-up':>10}")
    ok, base = True, 0.0
    try:
        with tempfile.TemporaryDirectory() as folder:
            profile = profile_file(Path(folder), listed)
            config = worker_config(Path(folder) / "config.toml", broker, concurrency=1)
            with config.open("a") as handle:
                handle.write(f'[llm]\nmodel = "smollm2"\ntimeout = 300.0\nmax_output_tokens = {args.max_tokens}\n')
            results: dict[str, int] = {}
            for count in [0, *counts]:
                db = str(Path(folder) / f"collect{count}.db")
                with FakeGitHub(rows, latency=args.latency, now=time.time) as server:
                    env = {"GITHUB_API_URL": server.url, "GITHUB_TOKEN": "benchmark-token"}
                    settings = load_settings(profile=str(profile), db=db, config_file=str(config), env=env)
                    redis.Redis.from_url(broker).flushall()
                    # The workers run this checkout's code, whatever the environment has installed.
                    group = Workers(Path(folder), config, db, {**env, "PYTHONPATH": str(ROOT / "src")})
                    try:
                        for index in range(count):
                            group.start(f"w{index}", concurrency=1)
                        store = Store.open(db)
                        started = time.perf_counter()
                        if count:
                            [status] = collect_with_workers(settings, store, window, ("github",), NoProgress(), {})
                        else:
                            with ExitStack() as stack:
                                sources = build_sources(settings, store, stack, ("github",))
                                [status] = run_collection(store, sources, window, NoProgress(), "synth", {})
                        seconds = time.perf_counter() - started
                    finally:
                        group.stop()
                base = base or seconds
                name = f"{count} worker{'s' if count > 1 else ''}" if count else "in-process"
                results[name] = store.count_items()
                ok = ok and status.status.value == "ok"
                print(f"  {name:<22}{status.items:>7}{status.requests:>10}{seconds:>8.1f}{base / seconds:>9.1f}x")
            ok = ok and len(set(results.values())) == 1
            print(f"  stores alike ({', '.join(f'{k}: {v}' for k, v in results.items())} items): {ok}")
            if args.llm_focus:
                ok = analysis_on_workers(args, Path(folder), config, broker, window, counts) and ok
    finally:
        redis_server.terminate()
    return ok


def analysis_on_workers(
    args: argparse.Namespace, folder: Path, config: Path, broker: str, window: Any, counts: list[int]
) -> bool:
    """The focus items' model calls as tasks, one local model server per worker (they share the
    machine's cores), each run from an empty model cache."""
    import redis

    from benchmarks.llm import start_server
    from pytorch_insight.config import LLMSettings, load_profile
    from pytorch_insight.pipeline import assess
    from pytorch_insight.report.build import ReportOptions, build_report
    from pytorch_insight.store import LLMLedger
    from pytorch_insight.workers.analysis import WorkerAnalyser
    from pytorch_insight.workers.dispatch import Dispatcher
    from tests.workers.conftest import Workers

    db = str(folder / f"collect{counts[-1]}.db")
    store = Store.open(db)
    settings = load_settings(db=db, config_file=str(config), env={})
    profile = load_profile(str(folder / "synth.toml"))
    ranked = assess(store.items_in_window(window), profile, window=window)
    servers = [start_server() for _ in range(max(counts))]
    print(f"  {'analysis (SmolLM2-135M)':<22}{'calls':>7}{'tokens':>10}{'wall s':>8}{'speed-up':>10}")
    ok, base = True, 0.0
    try:
        for count in counts:
            with store.engine.begin() as connection:
                connection.exec_driver_sql("DELETE FROM llm_cache")
            redis.Redis.from_url(broker).flushall()
            group = Workers(folder, config, db, {"PYTHONPATH": str(ROOT / "src")})
            try:
                for index in range(count):
                    group.env = {"OPENAI_BASE_URL": servers[index][1], "PYTHONPATH": str(ROOT / "src")}
                    group.start(f"a{index}", concurrency=1)
                tokens = args.max_tokens
                llm = LLMSettings(model="smollm2", base_url=servers[0][1], timeout=300, max_output_tokens=tokens)
                dispatcher = Dispatcher(settings)
                analyser = WorkerAnalyser(llm, LLMLedger(store), lang="en", role="an engineer", dispatcher=dispatcher)
                started = time.perf_counter()
                report = build_report(
                    ranked,
                    window=window,
                    profile=profile,
                    reader=profile.reader(None),
                    statuses=[],
                    collected=len(ranked),
                    options=ReportOptions(
                        lang="en", focus_size=args.llm_focus, deep_size=min(5, args.llm_focus), analyser=analyser
                    ),
                )
                seconds = time.perf_counter() - started
            finally:
                group.stop()
            base = base or seconds
            usage = analyser.usage
            ok = ok and usage.calls >= len(report.focus)
            name = f"{count} worker{'s' if count > 1 else ''}"
            print(f"  {name:<22}{usage.calls:>7}{usage.tokens:>10}{seconds:>8.1f}{base / seconds:>9.1f}x")
    finally:
        for server, _ in servers:
            server.terminate()
    return ok


# -- section: database -----------------------------------------------------------------------------


def database(args: argparse.Namespace) -> bool:
    """The store's part of the pipeline on SQLite and on PostgreSQL: the recorded fortnight
    replicated to `--db-items` items as benchmarks/scale.py does, imported (new rows), imported
    again (every row exists: read, merge the comment threads, update), the window read back,
    assessed (fuse, classify, rank: the same work whatever the store) and exported. PostgreSQL is
    a local server with its durable defaults (fsync on), or `--pg URL`; SQLite its WAL file."""
    from benchmarks.scale import replicate
    from pytorch_insight.config import load_profile
    from tests.servers import start_postgres

    with (TEMPLATES / "pytorch-2026-04-07_2026-04-20.jsonl").open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    lines = [json.dumps(row) for row in replicate(rows, args.db_items)]
    window, profile = make_window("2026-04-07", "2026-04-20"), load_profile("pytorch")
    print(f"\ndatabase: {len(lines):,} items (the recorded fortnight replicated), {window.label}")
    steps = ("import", "re-import", "read window", "assess", "export")
    print(f"  {'store':<12}" + "".join(f"{step + ' s':>15}" for step in steps) + f"{'size MB':>10}")
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        server = None if args.pg else start_postgres(durable=True)
        if server is not None:
            stack.callback(server.close)
        targets = {"SQLite": str(Path(folder) / "bench.db"), "PostgreSQL": args.pg or server.database("insight_bench")}
        for name, db in targets.items():
            results[name] = store_pipeline(db, lines, window, profile)
            seconds = results[name]["seconds"]
            print(
                f"  {name:<12}"
                + "".join(f"{seconds[step]:>15.2f}" for step in steps)
                + f"{results[name]['size'] / 1e6:>10.0f}"
            )
    sqlite, postgres = results["SQLite"], results["PostgreSQL"]
    ratios = ", ".join(f"{step} x{postgres['seconds'][step] / sqlite['seconds'][step]:.2f}" for step in steps)
    print(f"  PostgreSQL / SQLite: {ratios}")
    alike = all(sqlite[key] == postgres[key] for key in ("imported", "window", "ranked", "exported"))
    print(f"  same items, order and ranking on both: {alike}")
    return alike and sqlite["imported"] == len(lines)


def store_pipeline(db: str, lines: list[str], window: Any, profile: Any) -> dict[str, Any]:
    import os

    from pytorch_insight.jsonl import export_items, import_lines
    from pytorch_insight.pipeline import assess

    seconds: dict[str, float] = {}

    def timed(step: str, work: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        result = work()
        seconds[step] = time.perf_counter() - started
        return result

    store = Store.open(db)
    imported = timed("import", lambda: import_lines(store, lines)).imported
    timed("re-import", lambda: import_lines(store, lines))
    found = timed("read window", lambda: list(store.items_in_window(window)))
    ranked = timed("assess", lambda: assess(found, profile, window=window))
    with open(os.devnull, "w", encoding="utf-8") as sink:
        exported = timed("export", lambda: export_items(store.iter_items(), sink))
    if store.engine.dialect.name == "postgresql":
        with store.engine.connect() as connection:
            size = int(connection.exec_driver_sql("SELECT pg_database_size(current_database())").scalar_one())
    store.close()  # SQLite folds its WAL back into the file
    if store.engine.dialect.name == "sqlite":
        size = Path(db).stat().st_size
    return {
        "seconds": seconds,
        "imported": imported,
        "window": [item.id for item in found],
        "ranked": [assessment.item.id for assessment in ranked],
        "exported": exported,
        "size": size,
    }


SECTIONS: dict[str, Callable[[argparse.Namespace], bool]] = {
    "collection": collection,
    "workers": workers,
    "database": database,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--section", action="append", choices=sorted(SECTIONS), help="run only this section (repeatable)"
    )
    parser.add_argument("--latency", type=float, default=0.05, help="seconds of latency per request")
    parser.add_argument("--repos", type=int, default=40, help="repositories of the synthetic organisation")
    parser.add_argument("--items", type=int, default=3000, help="items active in the window")
    parser.add_argument("--workers", default="1,2,4", help="worker processes to compare (workers section)")
    parser.add_argument("--max-tokens", type=int, default=200, help="model output per call (workers section)")
    parser.add_argument(
        "--llm-focus", type=int, default=6, help="focus items analysed (workers section; 0: collection only)"
    )
    parser.add_argument("--db-items", type=int, default=100_000, help="items in the store (database section)")
    parser.add_argument("--pg", help="PostgreSQL URL to use (database section; default: a local throwaway server)")
    args = parser.parse_args()
    results = [SECTIONS[name](args) for name in args.section or SECTIONS]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
