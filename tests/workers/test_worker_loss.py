"""A job whose only worker is killed says so while it waits (instead of waiting the visibility
timeout in silence), and goes on once a worker is back; the default timeout is no longer an hour."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytorch_insight.config import WorkerSettings
from pytorch_insight.workers.dispatch import WORKER_CHECK_S
from tests.fakes.github import FakeGitHub
from tests.workers.conftest import Workers, worker_config
from tests.workers.test_collect_workers import TOKEN, dispatch, profile_file


def test_the_default_visibility_timeout_is_minutes_not_an_hour() -> None:
    assert WorkerSettings().visibility_timeout <= 900


def test_a_job_whose_worker_died_says_so_while_it_waits(
    shared_rows: list[dict[str, Any]], tmp_path: Path, redis_url: str, workers: Callable[..., Workers]
) -> None:
    profile = profile_file(tmp_path)
    fake = FakeGitHub(shared_rows, now=time.time, tokens={TOKEN}, latency=0.1)
    fake.start()
    try:
        config = worker_config(tmp_path / "config.toml", redis_url, visibility_timeout=4.0, job_timeout=120.0)
        group = workers(config, str(tmp_path / "insight.db"), {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": TOKEN})
        group.start("first")
        job = dispatch(group, profile)
        deadline = time.monotonic() + 30
        while len(fake.log) < 4:
            assert time.monotonic() < deadline, group.log("first")
            time.sleep(0.02)
        group.kill("first")
        time.sleep(WORKER_CHECK_S * 2 + 1)  # long enough for the job to find no worker
        assert job.poll() is None, "the job ended before its worker was killed"
        group.start("second")
        _, stderr = job.communicate(timeout=120)
    finally:
        fake.stop()
    assert job.returncode == 0, stderr
    assert "no worker answers while" in stderr and "visibility_timeout" in stderr, stderr
