"""GitHub's primary rate limit in the shapes it really comes in: the recorded answer with
`X-RateLimit-Remaining: 0` and no reset header, and a 403 whose only clue is the message."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytorch_insight.errors import RateLimited
from pytorch_insight.http import HttpClient, RequestStats
from tests.conftest import SAMPLES, FakeClock
from tests.fakes.github import FakeGitHub, Fault
from tests.fakes.recorded import RecordedServer

REST = SAMPLES / "github-rest"


def client(url: str, clock: FakeClock) -> HttpClient:
    return HttpClient(base_url=url, user_agent="tests", clock=clock, timeout=2.0, max_attempts=5)


def test_the_recorded_limit_without_a_reset_header_stops_at_once(clock: FakeClock) -> None:
    stats = RequestStats()
    with RecordedServer(REST / "error_403_primary_rate_limit__pygithub_2013.json") as server:
        with client(server.url, clock) as http, pytest.raises(RateLimited, match="no reset time"):
            http.get_json("/users/jacquev6", stats)
    assert (stats.requests, stats.retries, clock.sleeps) == (1, 0, [])


def test_the_limit_message_alone_is_the_primary_limit(
    start_github: Callable[..., FakeGitHub], clock: FakeClock
) -> None:
    server = start_github([])
    server.add_fault(Fault(path="/rate_limit", kind="primary_message_only"))
    stats = RequestStats()
    with client(server.url, clock) as http, pytest.raises(RateLimited, match="API rate limit exceeded"):
        http.get_json("/rate_limit", stats)
    assert (stats.requests, clock.sleeps) == (1, [])


def test_the_secondary_limit_is_still_waited_out(start_github: Callable[..., FakeGitHub], clock: FakeClock) -> None:
    """Its message says "rate limit" too, but it names a wait and is retried after it."""
    server = start_github([])
    server.add_fault(Fault(path="/rate_limit", kind="secondary", retry_after=30))
    with client(server.url, clock) as http:
        http.get_json("/rate_limit", RequestStats())
    assert clock.sleeps == [30.0]
