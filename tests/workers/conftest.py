"""A real Redis and real `pytorch-insight worker` processes for the distributed tests.

`redis_url` starts Debian's `redis-server` on a free loopback port for the session (no
persistence); without the binary the tests are skipped, except in CI (CI=true), where they fail.
`workers` starts worker subprocesses (their own sessions, so a test can SIGKILL one whole) and
stops those still running after the test.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from tests.servers import free_port

START_TIMEOUT_S = 30.0


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"Redis is required in CI: {reason}")
    pytest.skip(f"no Redis server: {reason} (apt-get install redis-server)")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        _unavailable("redis-server is not installed")
    port = free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                _unavailable(f"redis-server did not start: {server.stderr.read().decode(errors='replace')[-500:]}")
            time.sleep(0.05)
    client.close()
    yield url
    server.terminate()
    server.wait(10)


@pytest.fixture
def redis_url(redis_server: str) -> str:
    """The session's Redis, emptied: no queue, result or budget left by an earlier test."""
    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    return redis_server


class Workers:
    """`pytorch-insight worker` subprocesses on one config, database and environment."""

    def __init__(self, folder: Path, config: Path, db: str, env: dict[str, str]) -> None:
        self.folder, self.config, self.db, self.env = folder, config, db, env
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pytorch_insight", *args, "--db", self.db, "--config", str(self.config)]

    def start(self, name: str, concurrency: int = 2) -> subprocess.Popen[bytes]:
        log = (self.folder / f"{name}.log").open("ab")
        process = subprocess.Popen(
            self.command("worker", "--name", f"{name}@test", "--concurrency", str(concurrency), "-v"),
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **self.env},
            start_new_session=True,
        )
        self.running[name] = process
        self.wait_ready(name)
        return process

    def wait_ready(self, name: str) -> None:
        """Until the worker answers a ping through the broker."""
        from pytorch_insight.config import load_settings
        from pytorch_insight.workers.app import celery_app

        app = celery_app(load_settings(db=self.db, config_file=str(self.config), env=self.env).workers)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not app.control.ping(destination=[f"{name}@test"], timeout=0.5):
            if self.running[name].poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"worker {name} did not start:\n{self.log(name)[-4000:]}")
        app.close()

    def kill(self, name: str) -> None:
        """SIGKILL the worker and everything it started: no cleanup, no acknowledgement."""
        process = self.running.pop(name)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        for process in self.running.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.running.values():
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        self.running.clear()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Callable[..., Workers]]:
    made: list[Workers] = []

    def make(config: Path, db: str, env: dict[str, str]) -> Workers:
        made.append(Workers(tmp_path, config, db, env))
        return made[-1]

    yield make
    for group in made:
        group.stop()


def worker_config(path: Path, broker: str, **workers: Any) -> Path:
    """A config file whose [workers] section names the broker (and `workers`' other keys)."""
    lines = ["[workers]", f'broker = "{broker}"']
    for key, value in workers.items():
        lines.append(f"{key} = {value!r}".replace("'", '"'))
    lines += ["", "[http]", "timeout = 10.0", "max_rate_limit_wait = 60.0", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
