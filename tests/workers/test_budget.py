"""The GitHub budget the workers share: held in a real Redis, never exceeded per token, tokens
used in turn, no token written anywhere."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis

from pytorch_insight.errors import RateLimited
from pytorch_insight.workers.budget import Limit, SharedBudget
from tests.fakes.github import Bucket, FakeGitHub
from tests.workers.conftest import Workers, worker_config
from tests.workers.test_collect_workers import dispatch, in_process, profile_file, threads

TOKENS = {"TOKEN_A": "ghp_" + "a" * 36, "TOKEN_B": "ghp_" + "b" * 36}


class CountingGitHub(FakeGitHub):
    """The local GitHub with short rate-limit periods, noting when each request arrived, on what
    resource and with which token."""

    def __init__(self, rows: list[dict[str, Any]], limits: dict[str, Limit], **options: Any) -> None:
        super().__init__(rows, now=time.time, **options)
        self.limits = limits
        self.arrivals: list[tuple[float, str, str | None]] = []

    def bucket(self, resource: str, token: str | None) -> Bucket:
        key = (resource, token or "")
        with self.lock:
            self.arrivals.append((time.time(), resource, token))
            if key not in self.buckets:
                limit = self.limits[resource]
                self.buckets[key] = Bucket(limit.requests, limit.period, started=self.now())
            bucket = self.buckets[key]
            bucket.refresh(self.now())
            return bucket


def busiest(times: list[float], period: float) -> int:
    """The most requests within any `period` seconds."""
    times = sorted(times)
    most, start = 0, 0
    for end, moment in enumerate(times):
        while times[start] <= moment - period:
            start += 1
        most = max(most, end - start + 1)
    return most


def test_two_workers_hold_one_budget_per_token(
    shared_rows: list[dict[str, Any]], tmp_path: Path, redis_url: str, workers: Callable[..., Workers]
) -> None:
    profile = profile_file(tmp_path)
    expected = threads(in_process(shared_rows, profile, str(tmp_path / "expected.db"))[0])
    limits = {"core": Limit(5, 1.0), "search": Limit(2, 1.0)}
    fake = CountingGitHub(shared_rows, limits, tokens=set(TOKENS.values()), latency=0.02)
    fake.start()
    try:
        config = worker_config(
            tmp_path / "config.toml",
            redis_url,
            github_tokens=list(TOKENS),
            core_requests=limits["core"].requests,
            core_period=limits["core"].period,
            search_requests=limits["search"].requests,
            search_period=limits["search"].period,
        )
        db = str(tmp_path / "insight.db")
        group = workers(config, db, {"GITHUB_API_URL": fake.url, **TOKENS})
        group.start("one")
        group.start("two")
        job = dispatch(group, profile)
        stdout, stderr = job.communicate(timeout=180)
    finally:
        fake.stop()
    assert job.returncode == 0, stderr
    assert [status for _, status in fake.log if status in (403, 429)] == []
    for (resource, token), times in _by_key(fake.arrivals).items():
        assert busiest(times, limits[resource].period) <= limits[resource].requests, (resource, token)
    used = Counter(token for _, resource, token in fake.arrivals if resource == "core")
    assert set(used) == set(TOKENS.values())
    assert min(used.values()) >= sum(used.values()) // 4  # in turn, not one until it runs dry
    for name in ("one", "two"):
        log = group.log(name)
        assert "succeeded" in log  # both workers ran tasks under the one budget
        assert not any(token in log for token in TOKENS.values())
    [github] = json.loads(stdout)["sources"]
    assert github["status"] == "ok"
    from pytorch_insight.store import Store

    assert threads(Store.open(db)) == expected


def _by_key(arrivals: list[tuple[float, str, str | None]]) -> dict[tuple[str, str | None], list[float]]:
    found: dict[tuple[str, str | None], list[float]] = {}
    for moment, resource, token in arrivals:
        found.setdefault((resource, token), []).append(moment)
    return found


def test_threads_taking_from_one_budget_never_exceed_it(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    limit = Limit(4, 0.5)
    budget = SharedBudget(client, list(TOKENS.values()), {"core": limit}, max_wait=30)
    taken: list[tuple[float, str | None]] = []
    lock = threading.Lock()

    def take_some() -> None:
        for _ in range(8):
            token = budget.take("core")
            with lock:
                taken.append((time.time(), token))

    started = time.monotonic()
    pool = [threading.Thread(target=take_some) for _ in range(3)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    # 24 requests, 8 per half second on two tokens: at least a second of waiting.
    assert time.monotonic() - started >= 1.0
    by_token = Counter(token for _, token in taken)
    assert by_token == {TOKENS["TOKEN_A"]: 12, TOKENS["TOKEN_B"]: 12}
    for token in TOKENS.values():
        assert busiest([moment for moment, used in taken if used == token], limit.period) <= limit.requests
    keys = client.keys("*")
    logs = [key for key in keys if client.type(key) == b"zset"]
    stored = b" ".join(keys + [entry for key in logs for entry in client.zrange(key, 0, -1)])
    assert len(logs) == 2 and not any(token.encode() in stored for token in TOKENS.values())


def test_a_wait_beyond_the_maximum_is_a_rate_limit(redis_url: str) -> None:
    budget = SharedBudget(redis.Redis.from_url(redis_url), ["ghp_" + "c" * 36], {"core": Limit(1, 60.0)}, max_wait=2)
    budget.take("core")
    with pytest.raises(RateLimited, match="shared GitHub core budget"):
        budget.take("core")


def test_without_a_token_the_budget_is_githubs_anonymous_one(redis_url: str) -> None:
    budget = SharedBudget(redis.Redis.from_url(redis_url), [], {"core": Limit(5000, 3600.0)}, max_wait=0)
    assert budget.limits["core"].requests == 60
    assert budget.take("core") is None


def test_a_token_github_says_is_spent_is_skipped_without_counting_it(redis_url: str, tmp_path: Path) -> None:
    from pytorch_insight.clock import SystemClock
    from pytorch_insight.github_ledger import BudgetLedger

    client = redis.Redis.from_url(redis_url)
    ledger = BudgetLedger(tmp_path / "budget.sqlite3", "http://127.0.0.1:1", SystemClock())
    spent, fresh = TOKENS["TOKEN_A"], TOKENS["TOKEN_B"]
    # Another process (or a run before Redis was emptied) left token A nothing until its reset.
    assert ledger.take(spent, "core") == 0.0
    ledger.note(spent, "core", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 600)})
    budget = SharedBudget(client, [spent, fresh], {"core": Limit(100, 60.0)}, max_wait=30, ledger=ledger)
    assert [budget.take("core") for _ in range(4)] == [fresh] * 4
    counted = {key: client.zcard(key) for key in budget.keys("core")}
    assert list(counted.values()) == [0, 4]
