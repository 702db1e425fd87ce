"""No network: a host name that does not resolve is tried once, named, and never asked again.

Names under the reserved `.invalid` top-level domain never resolve (RFC 2606), so these tests
meet a real resolver's real answer, with or without a network."""

from __future__ import annotations

import time

import pytest

from pytorch_insight.errors import TransientError
from pytorch_insight.http import HttpClient, RequestStats, Unreachable
from tests.conftest import FakeClock

HOST = "api.pytorch-insight-test.invalid"


def test_a_host_that_does_not_resolve_is_tried_once_and_named(clock: FakeClock) -> None:
    stats = RequestStats()
    started = time.monotonic()
    with HttpClient(base_url=f"https://{HOST}", user_agent="tests", clock=clock, max_attempts=5) as client:
        with pytest.raises(Unreachable) as first:
            client.get_json("/repos/o/r", stats)
        with pytest.raises(Unreachable):  # known unreachable: not asked again
            client.get_json("/repos/o/r/issues", stats)
    assert (stats.requests, stats.retries, clock.sleeps) == (1, 0, [])
    assert time.monotonic() - started < 10
    assert str(first.value) == f"cannot reach {HOST} (name resolution failed)"
    assert first.value.host == HOST


def test_a_refused_connection_is_still_retried(clock: FakeClock) -> None:
    """Only name resolution is final: a refused or dropped connection may be a restarting server."""
    stats = RequestStats()
    with HttpClient(base_url="http://127.0.0.1:9", user_agent="tests", clock=clock, max_attempts=3) as client:
        with pytest.raises(TransientError) as error:
            client.get_json("/x", stats)
    assert not isinstance(error.value, Unreachable)
    assert (stats.requests, stats.retries) == (3, 2)
