"""`collect` over every kind of source of a profile, each served by its own local server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from pytorch_insight.config import load_profile
from pytorch_insight.pipeline import assess
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.fakes.discourse import FakeDiscourse, Post, Topic
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import FakeSlack, Message
from tests.fakes.static import StaticSite
from tests.sources.test_feed_and_events import ATOM, ical_of

WINDOW = ("--since", "2026-04-07", "--until", "2026-04-20")
TOKEN = "xoxb-collect-all"


def profile_toml(forum: str, site: str) -> str:
    return f"""
name = "local"
title = {{ zh = "本地社区报告", en = "Local community report" }}
[github]
repositories = ["pytorch/pytorch"]
[[forums]]
name = "dev-discuss"
url = "{forum}"
[[feeds]]
name = "blog"
url = "{site}/atom.xml"
[[events]]
name = "conference"
url = "{site}/events.ics"
[slack]
channels = ["C0COMPILE"]
"""


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    return int(exit_info.value.code or 0), capsys.readouterr().err


def tracked_issue(shared_rows: list[dict[str, Any]]) -> int:
    """The pytorch/pytorch issue the forum post links to: the first one of the shared rows."""
    return next(row["number"] for row in shared_rows if (row["repo"], row["kind"]) == ("pytorch/pytorch", "issue"))


@pytest.fixture
def community(shared_rows: list[dict[str, Any]]):  # noqa: ANN201
    number = tracked_issue(shared_rows)
    topic = Topic(
        7,
        "Thoughts on the tracked bug",
        [
            Post(
                "carol",
                "2026-04-18T10:00:00Z",
                f'<p>Tracking <a href="https://github.com/pytorch/pytorch/issues/{number}">#{number}</a> here.</p>',
            )
        ],
        category_id=1,
    )
    slack = FakeSlack(
        {"C0COMPILE": [Message("1775728800.000100", "U1", "nightly is slower on H100")]}, {"U1": "alice"}, TOKEN
    )
    with (
        FakeDiscourse([topic], [(1, "general", "General")]) as forum,
        StaticSite(
            {"/atom.xml": ("application/atom+xml", ATOM), "/events.ics": ("text/calendar", ical_of(shared_rows))}
        ) as site,
        slack,
    ):
        yield forum, site, slack


def test_every_source_collects_and_forum_posts_link_to_github(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shared_rows: list[dict[str, Any]],
    community,  # noqa: ANN001
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forum, site, slack = community
    profile = tmp_path / "local.toml"
    profile.write_text(profile_toml(forum.url, site.url))
    monkeypatch.setenv("GITHUB_API_URL", start_github(shared_rows).url)
    monkeypatch.setenv("SLACK_API_URL", slack.url)
    monkeypatch.setenv("SLACK_TOKEN", TOKEN)
    db = str(tmp_path / "insight.db")
    code, err = cli(capsys, "collect", "--db", db, "--profile", str(profile), *WINDOW)
    assert code == 0, err
    for row in ("github", "forum:dev-discuss", "blog:blog", "events:conference", "slack"):
        assert row in err
    assert TOKEN not in err
    items = list(Store.open(db).items_in_window(make_window("2026-04-07", "2026-04-20")))
    kinds = {item.kind for item in items}
    assert {"issue", "pull_request", "forum", "blog", "event", "slack"} <= kinds
    ranked = {a.id: a for a in assess(items, load_profile(str(profile)))}
    issue = ranked[f"github:pytorch/pytorch#{tracked_issue(shared_rows)}"]
    assert any(r.type == "discussed_in" and r.target.startswith("forum:127.0.0.1") for r in issue.relations)


def test_a_forum_that_is_down_leaves_the_rest_and_is_marked_failed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    shared_rows: list[dict[str, Any]],
    community,  # noqa: ANN001
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, site, slack = community
    profile = tmp_path / "local.toml"
    profile.write_text(profile_toml("http://127.0.0.1:9", site.url))
    monkeypatch.setenv("GITHUB_API_URL", start_github(shared_rows).url)
    monkeypatch.delenv("SLACK_TOKEN", raising=False)
    out, db = tmp_path / "site", str(tmp_path / "insight.db")
    code, err = cli(capsys, "run", "--db", db, "--profile", str(profile), *WINDOW, "--out", str(out), "--lang", "en")
    assert code == 1, err
    assert err.strip().splitlines()[-1].startswith("error: forum:dev-discuss: connection failed")
    stored = {item.kind for item in Store.open(db).iter_items()}
    assert {"issue", "pull_request", "blog", "event"} <= stored and "forum" not in stored
    markdown = (out / "2026-04-07_2026-04-20.en.md").read_text()
    assert "| forum:dev-discuss | ❌ failed | 0 |" in markdown
    assert "| slack | ⚠️ skipped | 0 | skipped: no SLACK\\_TOKEN |" in markdown
