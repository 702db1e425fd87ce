"""Shared fixtures: the test data, a fake clock, a local GitHub server and settings pointing at it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.collect import build_sources, run_collection
from pytorch_insight.config import Settings, load_settings
from pytorch_insight.model import SourceStatus
from pytorch_insight.sources import NoProgress
from pytorch_insight.store import Store
from pytorch_insight.window import Window, make_window
from tests.fakes.github import FakeGitHub
from tests.servers import any_db, postgres_server, postgres_url  # noqa: F401  (fixtures for every test)

# Copies of the project's shared data (raw threads, recorded API samples, judgements, release
# notes) kept in the clone, so the tests need nothing beside it; provenance in tests/data/SOURCES.md.
DATA = Path(__file__).resolve().parent / "data"
RAW_WEEKS = DATA / "raw" / "pytorch-2026-04-07_2026-04-20.jsonl"
SAMPLES = DATA / "api-samples"
SHARED_WINDOW = make_window("2026-04-07", "2026-04-20")


# "Today" for the tests: months after the shared fortnight, so collection takes the search path
# unless a test moves the clock to the day after its window (the weekly run's path).
TODAY = datetime(2026, 11, 29, 9, 0, tzinfo=timezone.utc).timestamp()


class FakeClock:
    """Time that tests set and advance; sleeping only moves it forward."""

    def __init__(self, start: float = TODAY) -> None:
        self.current = start
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.current

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.current += seconds


@pytest.fixture(autouse=True)
def own_budget_ledger(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test (and each process it starts) its own cache folder, so GitHub budgets that one
    test's local server stated never hold up another's (github_ledger.py keeps them there)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="session")
def shared_rows() -> list[dict[str, Any]]:
    if not RAW_WEEKS.exists():
        pytest.fail(f"test data missing: {RAW_WEEKS} (tests/data/ is part of the repository; see its SOURCES.md)")
    return read_jsonl(RAW_WEEKS)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def start_github(clock: FakeClock) -> Iterator[Callable[..., FakeGitHub]]:
    """Start a fake GitHub on 127.0.0.1 serving the given rows; stopped after the test."""
    servers: list[FakeGitHub] = []

    def start(rows: list[dict[str, Any]], **options: Any) -> FakeGitHub:
        server = FakeGitHub(rows, now=clock.now, **options)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def make_settings(tmp_path: Path) -> Callable[..., Settings]:
    def make(api_url: str, token: str | None = None, profile: str | None = None, **http: Any) -> Settings:
        env = {"GITHUB_API_URL": api_url, **({"GITHUB_TOKEN": token} if token else {})}
        settings = load_settings(profile=profile, db=str(tmp_path / "insight.db"), config_file=None, env=env)
        settings.http = settings.http.model_copy(update={"timeout": 2.0, **http})
        return settings

    return make


def collect(settings: Settings, clock: FakeClock, window: Window = SHARED_WINDOW) -> tuple[Store, SourceStatus]:
    """One `collect` run of the GitHub source, as the CLI does it."""
    store = Store.open(settings.db)
    with ExitStack() as stack:
        sources = build_sources(settings, store, stack, ("github",), clock=clock)
        [status] = run_collection(store, sources, window, NoProgress(), settings.profile.name, {})
    return store, status


def pytorch_threads(rows: list[dict[str, Any]]) -> set[int]:
    return {row["number"] for row in rows if row["repo"] == "pytorch/pytorch"}
