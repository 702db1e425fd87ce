"""`collect --workers` run again and again: every run must end with exit code 0 and no traceback,
and store what an in-process collection stores.

    python benchmarks/workers_soak.py [--runs 30] [--workers 2] [--latency 0.02]

The recorded fortnight (tests/data/raw, 2026-04-07 – 04-20) over six repositories through the local GitHub server,
one Redis, `--workers` worker processes of this checkout (two tasks at a time each), a fresh
SQLite store per run; needs `redis-server`. Prints one line per run and a summary.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

import redis  # noqa: E402

from benchmarks.scale_out import start_redis  # noqa: E402
from pytorch_insight.store import Store  # noqa: E402
from tests.conftest import RAW_WEEKS, SHARED_WINDOW, read_jsonl  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.workers.conftest import Workers, worker_config  # noqa: E402
from tests.workers.test_collect_workers import TOKEN, in_process, profile_file, threads  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--latency", type=float, default=0.02)
    args = parser.parse_args()
    rows = read_jsonl(RAW_WEEKS)
    server, broker = start_redis()
    failures = 0
    try:
        with tempfile.TemporaryDirectory() as folder, FakeGitHub(rows, latency=args.latency, now=time.time) as fake:
            base = Path(folder)
            profile = profile_file(base)
            expected = threads(in_process(rows, profile, str(base / "expected.db"))[0])
            config = worker_config(base / "config.toml", broker, job_timeout=600.0)
            env = {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": TOKEN, "PYTHONPATH": str(ROOT / "src")}
            for run in range(1, args.runs + 1):
                db = str(base / f"run{run}.db")
                redis.Redis.from_url(broker).flushall()
                group = Workers(base, config, db, env)
                try:
                    for index in range(args.workers):
                        group.start(f"soak{index}")
                    started = time.perf_counter()
                    job = subprocess.run(
                        [
                            *group.command("collect", "--workers", "--source", "github", "--profile", str(profile)),
                            "--since",
                            SHARED_WINDOW.since.isoformat(),
                            "--until",
                            SHARED_WINDOW.until.isoformat(),
                        ],
                        capture_output=True,
                        text=True,
                        env={**os.environ, **env},
                        timeout=900,
                    )
                    seconds = time.perf_counter() - started
                finally:
                    group.stop()
                alike = threads(Store.open(db)) == expected
                good = job.returncode == 0 and "Traceback" not in job.stderr and alike
                failures += not good
                tail = "" if good else f": exit {job.returncode}, {job.stderr.strip().splitlines()[-1:]}"
                print(f"run {run:>3}: {'ok' if good else 'FAILED'} in {seconds:.1f}s, store alike: {alike}{tail}")
    finally:
        server.terminate()
    print(f"{args.runs - failures} of {args.runs} runs ended cleanly with the in-process store")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
