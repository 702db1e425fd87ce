"""Only what cannot have been delivered is retried: a gateway error or 429 is, a 500 is not."""

from __future__ import annotations

import os

from pytorch_insight.config import load_settings
from pytorch_insight.deliver.dispatch import Status, deliver
from pytorch_insight.store import Store
from tests.conftest import FakeClock
from tests.deliver.conftest import Platforms
from tests.fakes.server import Reply, Trouble
from tests.report.fixtures import report_of, week


def send_to_slack(platforms: Platforms, clock: FakeClock) -> Status:
    settings = load_settings(db=platforms.db, config_file=str(platforms.config))
    target = next(target for target in settings.delivery if target.type == "slack")
    report = report_of(week(), "zh")
    store = Store.open(platforms.db)
    try:
        outcome = deliver(
            [target], lambda lang, reader: report, store, settings, env=os.environ, clock=clock, force=True
        )
    finally:
        store.close()
    return outcome[0].status


def test_a_gateway_error_and_a_rate_limit_are_retried(platforms: Platforms) -> None:
    clock = FakeClock()
    platforms.slack.add_trouble(Trouble("/services/", Reply(503, b"service unavailable")))
    platforms.slack.add_trouble(Trouble("/services/", Reply(429, b"rate_limited", {"Retry-After": "7"})))
    assert send_to_slack(platforms, clock) is Status.SENT
    assert [status for _, status in platforms.slack.log] == [503, 429, 200]
    assert len(platforms.slack.accepted) == 1 and clock.sleeps[1] == 7.0


def test_a_server_error_is_final(platforms: Platforms) -> None:
    clock = FakeClock()
    platforms.slack.add_trouble(Trouble("/services/", Reply(500, b"internal_error")))
    assert send_to_slack(platforms, clock) is Status.FAILED
    assert [status for _, status in platforms.slack.log] == [500] and clock.sleeps == []
