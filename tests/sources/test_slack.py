"""Slack through a local Web API server: windows, threads, names, errors, limits."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from pytorch_insight.config import SlackConfig
from pytorch_insight.model import CoverageStatus
from pytorch_insight.sources.slack import SlackSource
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import SAMPLES, FakeClock
from tests.fakes.server import Reply, Trouble
from tests.fakes.slack import FakeSlack, Message
from tests.sources.helpers import collect_one, http_client, settings_for
from tests.test_fake_contract import shape_mismatches

WEEK = make_window("2026-04-07", "2026-04-13")
TS_IN = "1775728800.000100"  # 2026-04-09 10:00 UTC
TS_REPLY = "1775732400.000200"  # 2026-04-09 11:00 UTC
TS_BEFORE = "1775210400.000300"  # 2026-04-03 10:00 UTC
TOKEN = "xoxb-test-token-value"


def workspace() -> FakeSlack:
    channels = {
        "C0COMPILE": [
            Message(
                TS_IN,
                "U1",
                "Compiled decoder nightly is 9% slower on A10G\nnotes: https://github.com/pytorch/pytorch/issues/4321",
                replies=[Message(TS_REPLY, "U2", "bisected to #4307")],
            ),
            Message("1775736000.000400", "U2", "joined", subtype="channel_join"),
            Message(TS_BEFORE, "U1", "last week's message"),
            Message("1775739600.000500", "", "Build 1234 is green"),
        ],
    }
    return FakeSlack(channels, {"U1": "alice", "U2": "bob"}, TOKEN)


def collect(tmp_path: Path, url: str | None, channels: list[str], token: str = TOKEN, clock: FakeClock | None = None):  # noqa: ANN201
    settings = settings_for(tmp_path)
    store = Store.open(settings.db)
    config = SlackConfig(channels=channels, workspace_url="https://pytorch.slack.com")
    if url is None:
        return store, collect_one(store, SlackSource(None, config), WEEK)
    with http_client(settings, store, clock or FakeClock(), url, {"Authorization": f"Bearer {token}"}) as client:
        return store, collect_one(store, SlackSource(client, config), WEEK)


def test_without_a_token_slack_is_skipped_and_says_why(tmp_path: Path) -> None:
    _, status = collect(tmp_path, None, ["C0COMPILE"])
    assert (status.status, status.note) == (CoverageStatus.SKIPPED, "skipped: no SLACK_TOKEN")


def test_messages_of_the_window_with_their_threads_and_names(tmp_path: Path) -> None:
    with workspace() as slack:
        store, status = collect(tmp_path, slack.url, ["C0COMPILE"])
    item, bot = sorted(store.iter_items(), key=lambda i: i.created or "")
    assert bot.author == "B0001[bot]"
    assert status.status is CoverageStatus.OK and status.items == 2
    assert (item.kind, item.author, item.title, item.created) == (
        "slack",
        "alice",
        "Compiled decoder nightly is 9% slower on A10G",
        "2026-04-09T10:00:00Z",
    )
    assert [(c.author, c.body) for c in item.comments] == [("bob", "bisected to #4307")]
    assert item.url == "https://pytorch.slack.com/archives/C0COMPILE/p1775728800000100"


def test_an_unknown_channel_is_reported_and_the_others_collected(tmp_path: Path) -> None:
    with workspace() as slack:
        _, status = collect(tmp_path, slack.url, ["C0COMPILE", "C0MISSING"])
    assert (status.status, status.items, status.note) == (CoverageStatus.PARTIAL, 2, "#C0MISSING: channel_not_found")


def test_a_rejected_token_fails_the_source_without_echoing_it(tmp_path: Path) -> None:
    with workspace() as slack:
        store, status = collect(tmp_path, slack.url, ["C0COMPILE"], token="xoxb-wrong")
    assert status.status is CoverageStatus.FAILED and "invalid_auth" in status.note and "xoxb" not in status.note


def test_slack_rate_limits_are_honoured(tmp_path: Path) -> None:
    clock = FakeClock()
    with workspace() as slack:
        slack.add_trouble(
            Trouble(
                r"^/conversations\.history$",
                Reply.json(429, {"ok": False, "error": "ratelimited"}, **{"Retry-After": "3"}),
            )
        )
        _, status = collect(tmp_path, slack.url, ["C0COMPILE"], clock=clock)
    assert status.status is CoverageStatus.OK and clock.sleeps == [3.0]


def test_the_fake_answers_in_the_recorded_shapes() -> None:
    recorded = {
        name: json.loads((SAMPLES / "slack" / name).read_text())
        for name in (
            "conversations.history_page2_last__perceval.json",
            "error_channel_not_found__perceval.json",
            "users.info__perceval.json",
        )
    }
    with workspace() as slack:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        history = httpx.get(
            f"{slack.url}/conversations.history", params={"channel": "C0COMPILE"}, headers=headers
        ).json()
        missing = httpx.get(f"{slack.url}/conversations.history", params={"channel": "C0NONE"}, headers=headers).json()
        user = httpx.get(f"{slack.url}/users.info", params={"user": "U1"}, headers=headers).json()
    real_history = recorded["conversations.history_page2_last__perceval.json"]
    plain = [m for m in real_history["messages"] if set(m) <= {"text", "ts", "type", "user"}]
    assert shape_mismatches({"has_more": real_history["has_more"], "messages": plain[:1]}, history) == []
    assert shape_mismatches(recorded["error_channel_not_found__perceval.json"], missing) == []
    real_user = recorded["users.info__perceval.json"]
    assert (
        shape_mismatches(
            {"ok": real_user["ok"], "user": {k: real_user["user"][k] for k in ("id", "name", "deleted", "is_bot")}},
            user,
        )
        == []
    )


def test_the_token_never_follows_a_redirect_to_another_host(tmp_path: Path) -> None:
    with workspace() as slack, workspace() as elsewhere:
        slack.add_trouble(
            Trouble("^/conversations.history$", Reply(302, b"", {"Location": f"{elsewhere.url}/conversations.history"}))
        )
        _, status = collect(tmp_path, slack.url, ["C0COMPILE"])
    assert [path.split("?")[0] for path, _ in elsewhere.log] == ["/conversations.history"]
    assert not any("Authorization" in headers for headers in elsewhere.headers_seen)
    assert TOKEN not in status.note


def test_a_thread_answered_later_counts_for_the_window_of_its_replies(tmp_path: Path) -> None:
    with workspace() as slack:
        store, _ = collect(tmp_path, slack.url, ["C0COMPILE"])
    thread = next(item for item in store.iter_items() if item.comments)
    assert thread.updated == "2026-04-09T11:00:00Z"  # Slack's latest_reply
    assert thread.active_in(WEEK)
