"""No network: every source whose host does not resolve fails at once, after one request, with a
note naming the host and the setting to check. Names under the reserved `.invalid` domain never
resolve, so this is what a machine without network sees."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

from pytorch_insight.collect import build_sources, run_collection
from pytorch_insight.config import EventsConfig, FeedConfig, ForumConfig
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources import NoProgress
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import FakeClock
from tests.sources.helpers import settings_for


def test_every_source_fails_fast_and_says_which_host_and_setting(tmp_path: Path) -> None:
    settings = settings_for(
        tmp_path,
        GITHUB_API_URL="https://api.github.invalid",
        SLACK_API_URL="https://slack.invalid/api",
        SLACK_TOKEN="xoxb-offline",
        DISCOURSE_API_KEY="k",
        DISCOURSE_API_USERNAME="system",
    )
    settings.http = settings.http.model_copy(update={"max_attempts": 5})
    profile = settings.profile.model_copy(
        update={
            "forums": [ForumConfig(name="dev-discuss", url="https://dev-discuss.pytorch.invalid")],
            "feeds": [FeedConfig(name="blog", url="https://blog.pytorch.invalid/feed.xml")],
            "events": [EventsConfig(name="conference", url="https://events.pytorch.invalid/all.ics")],
            "slack": settings.profile.slack.model_copy(update={"channels": ["C0COMPILE", "C0DISTRIBUTED"]}),
        }
    )
    settings.profile = profile
    store, clock = Store.open(settings.db), FakeClock()
    started = time.monotonic()
    with ExitStack() as stack:
        sources = build_sources(settings, store, stack, clock=clock)
        statuses = run_collection(store, sources, make_window("2026-04-07", "2026-04-13"), NoProgress(), "pytorch", {})
    assert time.monotonic() - started < 30 and clock.sleeps == []
    assert {status.name: (status.status, status.requests, status.note) for status in statuses} == {
        "github": (
            CoverageStatus.FAILED,
            1,
            "cannot reach api.github.invalid (name resolution failed): check the network or GITHUB_API_URL",
        ),
        "forum:dev-discuss": (
            CoverageStatus.FAILED,
            1,
            "cannot reach dev-discuss.pytorch.invalid (name resolution failed): "
            "check the network or the url of forum:dev-discuss in the profile",
        ),
        "blog:blog": (
            CoverageStatus.FAILED,
            1,
            "cannot reach blog.pytorch.invalid (name resolution failed): "
            "check the network or the url of blog:blog in the profile",
        ),
        "events:conference": (
            CoverageStatus.FAILED,
            1,
            "cannot reach events.pytorch.invalid (name resolution failed): "
            "check the network or the url of events:conference in the profile",
        ),
        "slack": (
            CoverageStatus.FAILED,
            1,
            "cannot reach slack.invalid (name resolution failed): check the network or SLACK_API_URL",
        ),
    }
