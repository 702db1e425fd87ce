"""`collect --workers` against a real Redis, real worker processes, a real database and the local
GitHub server: the store ends as complete as an in-process collection, also when a worker is
killed mid-task."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import redis
from kombu.transport.redis import Channel

from pytorch_insight.collect import build_sources, run_collection
from pytorch_insight.config import load_settings
from pytorch_insight.sources import NoProgress
from pytorch_insight.store import Store
from pytorch_insight.window import Window, make_window
from pytorch_insight.workers.app import celery_app
from tests.conftest import SHARED_WINDOW
from tests.fakes.github import FakeGitHub
from tests.workers.conftest import Workers, worker_config

REPOSITORIES = [
    "pytorch/pytorch",
    "pytorch/executorch",
    "pytorch/torchtitan",
    "pytorch/helion",
    "pytorch/kineto",
    "pytorch/test-infra",
]
TOKEN = "ghp_" + "w" * 36
WINDOW = ["--since", SHARED_WINDOW.since.isoformat(), "--until", SHARED_WINDOW.until.isoformat()]


def profile_file(folder: Path) -> Path:
    """The shipped PyTorch profile collecting six repositories (six GitHub tasks)."""
    from importlib import resources

    text = (resources.files("pytorch_insight") / "profiles" / "pytorch.toml").read_text(encoding="utf-8")
    listed = ", ".join(f'"{repo}"' for repo in REPOSITORIES)
    path = folder / "six.toml"
    path.write_text(text.replace('repositories = ["pytorch/pytorch"]', f"repositories = [{listed}]", 1))
    return path


def in_process(
    rows: list[dict[str, Any]], profile: Path, db: str, window: Window = SHARED_WINDOW, name: str = "pytorch"
) -> tuple[Store, list[tuple[str, int]]]:
    """The same collection run here, as `collect` without --workers does it: the expectation, and
    the requests it made."""
    with FakeGitHub(rows, now=time.time) as fake:
        settings = load_settings(profile=str(profile), db=db, env={"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": TOKEN})
        store = Store.open(db)
        with ExitStack() as stack:
            sources = build_sources(settings, store, stack, ("github",))
            run_collection(store, sources, window, NoProgress(), name, {})
        return store, list(fake.log)


def dispatch(group: Workers, profile: Path, *extra: str) -> subprocess.Popen[str]:
    command = group.command("collect", "--workers", "--source", "github", "--json", "--profile", str(profile))
    return subprocess.Popen(
        [*command, *WINDOW, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **group.env},
    )


def hold_restore_lock(redis_url: str, config: Path) -> None:
    """Leave the broker's restore lock as a worker killed while holding it leaves it."""
    settings = load_settings(config_file=str(config), env={})
    options = celery_app(settings.workers).conf.broker_transport_options
    client = redis.Redis.from_url(redis_url)
    try:
        key = options.get("unacked_mutex_key", Channel.unacked_mutex_key)
        client.set(key, "a killed worker's token", px=int(options["unacked_mutex_expire"] * 1000))
    finally:
        client.close()


def threads(store: Store) -> dict[str, int]:
    """Item id -> comments held: a task run twice must not hold a comment twice."""
    return {item.id: len(item.comments) for item in store.iter_items()}


def test_a_worker_killed_mid_task_loses_nothing(
    shared_rows: list[dict[str, Any]],
    tmp_path: Path,
    redis_url: str,
    any_db: str,
    workers: Callable[..., Workers],
) -> None:
    profile = profile_file(tmp_path)
    expected = threads(in_process(shared_rows, profile, str(tmp_path / "expected.db"))[0])
    # Slow answers keep the big repository's task busy for seconds, long enough to be killed in it.
    fake = FakeGitHub(shared_rows, now=time.time, tokens={TOKEN}, latency=0.1)
    fake.start()
    try:
        config = worker_config(tmp_path / "config.toml", redis_url, visibility_timeout=4.0, job_timeout=120.0)
        group = workers(config, any_db, {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": TOKEN})
        group.start("first")
        job = dispatch(group, profile)
        deadline = time.monotonic() + 30
        while sum(1 for path, _ in fake.log if "pytorch%2Fpytorch" in path or "/pytorch/pytorch/" in path) < 4:
            assert time.monotonic() < deadline, group.log("first")
            time.sleep(0.02)
        group.kill("first")
        # The worst moment to die: while holding the lock under which workers deliver dead
        # workers' tasks again (taken every second here). The lock stays until it expires.
        hold_restore_lock(redis_url, config)
        killed_at = len(fake.log)
        assert job.poll() is None, "the job ended before its worker was killed"
        group.start("second")
        stdout, stderr = job.communicate(timeout=120)
    finally:
        fake.stop()
    assert job.returncode == 0, stderr + group.log("second")
    first_search = [path for path, _ in fake.log if path.startswith("/search/") and "pytorch%2Fpytorch" in path]
    # The killed task ran again from its start on the second worker.
    assert len(set(first_search)) < len(first_search)
    assert len(fake.log) > killed_at
    store = Store.open(any_db)
    assert threads(store) == expected
    [github] = json.loads(stdout)["sources"]
    assert (github["name"], github["status"]) == ("github", "ok")
    run = store.runs()[-1]
    assert (run["status"], run["arguments"]["workers"]) == ("ok", True)
    assert [status.items for status in store.latest_statuses(SHARED_WINDOW)] == [github["items"]]


def test_without_a_worker_the_job_says_so(tmp_path: Path, redis_url: str, workers: Callable[..., Workers]) -> None:
    config = worker_config(tmp_path / "config.toml", redis_url)
    group = workers(config, str(tmp_path / "insight.db"), {})
    done = subprocess.run(
        [*group.command("collect", "--workers", "--source", "github"), *WINDOW],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: no worker answers on {redis_url}: start `pytorch-insight worker` (same --db and config)"
    )


def test_an_unreachable_broker_is_one_line_without_its_password(
    tmp_path: Path, workers: Callable[..., Workers]
) -> None:
    from tests.servers import free_port

    broker = f"redis://:hunter2secret@127.0.0.1:{free_port()}/0"
    group = workers(worker_config(tmp_path / "config.toml", broker), str(tmp_path / "insight.db"), {})
    done = subprocess.run(
        [*group.command("collect", "--workers", "--source", "github"), *WINDOW],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("error: cannot reach the workers' broker redis://:***@127.0.0.1:")
    assert "hunter2secret" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_without_a_broker_workers_is_a_config_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytorch_insight", "collect", "--workers", "--db", str(tmp_path / "x.db"), *WINDOW],
        capture_output=True,
        text=True,
        timeout=60,
        env={key: value for key, value in os.environ.items() if key != "PYTORCH_INSIGHT_BROKER"},
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: the workers need a broker: set [workers] broker")


def details(log: list[tuple[str, int]]) -> list[str]:
    """The focus details requested: file lists and timelines, in a stable order."""
    return sorted(path.split("?", 1)[0] for path, _ in log if path.split("?", 1)[0].endswith(("/files", "/timeline")))


def test_the_focus_details_are_picked_once_for_the_whole_window_as_in_process(
    shared_rows: list[dict[str, Any]], tmp_path: Path, redis_url: str, workers: Callable[..., Workers]
) -> None:
    # pytorch/pytorch's fortnight in three repositories: each has a focus list's worth of its own.
    rows = [
        {**row, "repo": repo, "url": (row.get("url") or "").replace("pytorch/pytorch", repo)}
        for repo in REPOSITORIES[:3]
        for row in shared_rows
        if row["repo"] == "pytorch/pytorch"
    ]
    rows += [row for row in shared_rows if row["repo"] in REPOSITORIES[3:]]
    profile = profile_file(tmp_path)
    expected_store, log = in_process(rows, profile, str(tmp_path / "in.db"))
    expected = details(log)
    assert expected  # the shared fortnight has focus PRs and issues
    db = str(tmp_path / "workers.db")
    with FakeGitHub(rows, now=time.time, tokens={TOKEN}) as fake:
        config = worker_config(tmp_path / "config.toml", redis_url, job_timeout=120.0)
        group = workers(config, db, {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": TOKEN})
        group.start("one")
        group.start("two")
        stdout, stderr = dispatch(group, profile).communicate(timeout=120)
        got = details(fake.log)
    assert json.loads(stdout)["sources"][0]["status"] == "ok", stderr
    # Each repository's task used to pick its own candidates: several times the requests.
    assert got == expected
    store = Store.open(db)
    extras = {item.id: sorted(set(item.model_extra or {}) & {"files", "timeline_refs"}) for item in store.iter_items()}
    assert extras == {
        item.id: sorted(set(item.model_extra or {}) & {"files", "timeline_refs"})
        for item in expected_store.iter_items()
    }
    assert threads(store) == threads(expected_store)


def test_an_organisations_threads_are_spread_over_the_workers_one_task_per_repository(
    tmp_path: Path, redis_url: str, workers: Callable[..., Workers]
) -> None:
    from tests.sources.test_github_org import organisation

    rows = organisation()
    for row in rows:  # threads in acme/b too: two repositories' thread tasks
        if row["repo"] == "acme/b" and row["number"] % 5 == 0:
            row["comments"] = [{"author": "y", "date": "2026-04-10", "kind": "comment", "body": "and here"}]
    profile = tmp_path / "acme.toml"
    profile.write_text('name = "acme"\ntitle = { zh = "Acme", en = "Acme" }\n[github]\norgs = ["acme"]\n')
    window = make_window("2026-04-07", "2026-04-13")
    expected_store, log = in_process(rows, profile, str(tmp_path / "in.db"), window, "acme")
    expected_requests = len(log)
    db = str(tmp_path / "workers.db")
    with FakeGitHub(rows, now=time.time, tokens={TOKEN}) as fake:
        config = worker_config(tmp_path / "config.toml", redis_url, job_timeout=120.0)
        group = workers(config, db, {"GITHUB_API_URL": fake.url, "GITHUB_TOKEN": TOKEN})
        group.start("one")
        group.start("two")
        command = group.command("collect", "--workers", "--source", "github", "--json", "--profile", str(profile))
        job = subprocess.run(
            [*command, "--since", "2026-04-07", "--until", "2026-04-13"],
            capture_output=True,
            text=True,
            env={**os.environ, **group.env},
            timeout=120,
        )
        requests = len(fake.log)
    assert job.returncode == 0, job.stderr
    assert "github acme/a threads: done (ok)" in job.stderr and "github acme/b threads: done (ok)" in job.stderr
    assert requests == expected_requests
    assert threads(Store.open(db)) == threads(expected_store)
