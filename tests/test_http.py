"""The shared HTTP client against the local GitHub server: retries, limits, validators."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.errors import NotFound, RateLimited, TransientError, Unauthorized
from pytorch_insight.http import HttpClient, RequestStats, parse_link_header
from pytorch_insight.store import Store
from tests.conftest import FakeClock
from tests.fakes.github import FakeGitHub, Fault

ROWS = [
    {
        "repo": "o/r",
        "number": n,
        "kind": "issue",
        "state": "open",
        "title": f"issue {n}",
        "author": "a",
        "created": "2026-04-08",
        "labels": [],
        "body": "",
        "comments": [],
        "url": f"https://github.com/o/r/issues/{n}",
    }
    for n in range(1, 8)
]


@pytest.fixture
def server(start_github: Callable[..., FakeGitHub]) -> FakeGitHub:
    return start_github(ROWS)


def client_for(server: FakeGitHub, clock: FakeClock, tmp_path: Path | None = None, **options: Any) -> HttpClient:
    cache = Store.open(str(tmp_path / "cache.db")) if tmp_path else None
    return HttpClient(
        base_url=server.url,
        user_agent="pytorch-insight-tests",
        clock=clock,
        cache=cache,
        timeout=options.pop("timeout", 2.0),
        **options,
    )


def test_link_header_parsing() -> None:
    header = '<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://x/?page=5>; rel="last"'
    assert parse_link_header(header) == {
        "next": "https://api.github.com/repositories/1/issues?page=2",
        "last": "https://x/?page=5",
    }
    assert parse_link_header(None) == {} and parse_link_header("garbage") == {}


def test_pages_follow_link_headers(server: FakeGitHub, clock: FakeClock) -> None:
    stats = RequestStats()
    with client_for(server, clock) as client:
        pages = list(client.iter_pages("/repos/o/r/issues", stats, params={"per_page": 3, "state": "all"}))
    assert [len(page.data) for page in pages] == [3, 3, 1]
    assert stats.requests == 3


def test_a_burst_of_502s_is_retried_with_jittered_backoff(server: FakeGitHub, clock: FakeClock) -> None:
    server.add_fault(Fault(path="/repos/o/r$", kind="status", status=502, times=3))
    stats = RequestStats()
    with client_for(server, clock) as client:
        assert client.get_json("/repos/o/r", stats).data["full_name"] == "o/r"
    assert (stats.requests, stats.retries, len(clock.sleeps)) == (4, 3, 3)
    assert all(0 <= wait <= 60 for wait in clock.sleeps)


def test_persistent_5xx_gives_up_after_the_configured_attempts(server: FakeGitHub, clock: FakeClock) -> None:
    server.add_fault(Fault(path="/repos/o/r$", kind="status", status=503, times=10))
    stats = RequestStats()
    with client_for(server, clock, max_attempts=3) as client, pytest.raises(TransientError, match="503"):
        client.get_json("/repos/o/r", stats)
    assert stats.requests == 3


def test_secondary_limit_waits_exactly_retry_after(server: FakeGitHub, clock: FakeClock) -> None:
    server.add_fault(Fault(path="/repos/o/r$", kind="secondary", retry_after=42))
    with client_for(server, clock) as client:
        client.get_json("/repos/o/r", RequestStats())
    assert clock.sleeps == [42.0]


def test_secondary_limit_longer_than_the_maximum_wait_stops(server: FakeGitHub, clock: FakeClock) -> None:
    server.add_fault(Fault(path="/repos/o/r$", kind="secondary", retry_after=3600))
    with client_for(server, clock, max_rate_limit_wait=300) as client, pytest.raises(RateLimited):
        client.get_json("/repos/o/r", RequestStats())
    assert clock.sleeps == []


def test_primary_limit_waits_for_the_reset_when_it_is_close(
    start_github: Callable[..., FakeGitHub], clock: FakeClock
) -> None:
    server = start_github(ROWS, core_limit=1)
    stats = RequestStats()
    with client_for(server, clock, max_rate_limit_wait=4000) as client:
        client.get_json("/repos/o/r", stats)
        assert client.get_json("/repos/o/r/issues/1", stats).data["number"] == 1
    assert len(clock.sleeps) == 1 and 3590 <= clock.sleeps[0] <= 3602


def test_primary_limit_beyond_the_maximum_wait_raises(
    start_github: Callable[..., FakeGitHub], clock: FakeClock
) -> None:
    server = start_github(ROWS, core_limit=1)
    with client_for(server, clock, max_rate_limit_wait=60) as client:
        client.get_json("/repos/o/r", RequestStats())
        with pytest.raises(RateLimited, match="resets in 60 min"):
            client.get_json("/repos/o/r/issues/1", RequestStats())


def test_timeouts_and_truncated_bodies_are_retried(server: FakeGitHub, clock: FakeClock) -> None:
    server.add_fault(Fault(path="/repos/o/r$", kind="delay", delay=0.6))
    server.add_fault(Fault(path="/repos/o/r/issues/1$", kind="truncate"))
    stats = RequestStats()
    with client_for(server, clock, timeout=0.2) as client:
        assert client.get_json("/repos/o/r", stats).data["full_name"] == "o/r"
        assert client.get_json("/repos/o/r/issues/1", stats).data["number"] == 1
    assert stats.retries == 2


def test_401_and_404_are_told_apart(start_github: Callable[..., FakeGitHub], clock: FakeClock) -> None:
    server = start_github(ROWS, tokens={"good"})
    with client_for(server, clock) as client, pytest.raises(NotFound):
        client.get_json("/repos/o/missing", RequestStats())
    with client_for(server, clock, headers={"Authorization": "Bearer bad"}) as client, pytest.raises(Unauthorized):
        client.get_json("/repos/o/r", RequestStats())


def test_unchanged_pages_come_back_304_from_the_stored_validators(
    server: FakeGitHub, clock: FakeClock, tmp_path: Path
) -> None:
    first, second = RequestStats(), RequestStats()
    with client_for(server, clock, tmp_path) as client:
        fresh = list(client.iter_pages("/repos/o/r/issues", first, params={"per_page": 3, "state": "all"}))
    with client_for(server, clock, tmp_path) as client:
        again = list(client.iter_pages("/repos/o/r/issues", second, params={"per_page": 3, "state": "all"}))
    assert [page.data for page in again] == [page.data for page in fresh]
    assert (second.requests, second.not_modified, second.charged) == (3, 3, 0)
    assert all(page.from_cache for page in again)


def test_requests_carry_the_user_agent(server: FakeGitHub, clock: FakeClock) -> None:
    with client_for(server, clock) as client:
        client.get_json("/repos/o/r", RequestStats())
    assert server.user_agents == ["pytorch-insight-tests"]
