"""Several GitHub tokens in one process (`GITHUB_TOKENS`), against the local server's per-token
limits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytorch_insight.config import load_settings
from pytorch_insight.errors import RateLimited
from pytorch_insight.github_tokens import Limit, LocalBudget
from pytorch_insight.model import CoverageStatus
from pytorch_insight.redact import redact
from tests.conftest import FakeClock, collect
from tests.fakes.github import FakeGitHub
from tests.sources.test_github_org import PROFILE, WEEK, row, stored

TOKENS = ("ghp_" + "a" * 36, "ghp_" + "b" * 36)


def test_two_tokens_in_one_process_share_the_searches_and_are_never_refused(
    start_github: Callable[..., FakeGitHub], tmp_path: Path, clock: FakeClock
) -> None:
    rows = [row("acme/a", n, created=f"2026-04-{7 + n % 7:02d}") for n in range(1, 451)]
    server = start_github(rows, search_limit=2, tokens=set(TOKENS))  # 2 searches a minute per token
    profile = tmp_path / "acme.toml"
    profile.write_text(PROFILE.format(github='orgs = ["acme"]'), encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text("[workers]\nsearch_requests = 2\n", encoding="utf-8")
    env = {"GITHUB_API_URL": server.url, "GITHUB_TOKENS": ",".join(TOKENS)}
    settings = load_settings(profile=str(profile), db=str(tmp_path / "i.db"), config_file=str(config), env=env)
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.OK, status.note
    assert len(stored(store)) == 450
    searches = [code for path, code in server.log if path.startswith("/search/")]
    assert searches == [200] * 6  # 5 pages created, 1 closed: 4 a minute with two tokens
    assert len([seconds for seconds in clock.sleeps if seconds > 1]) == 1  # one token would wait twice
    used = {token for (resource, token) in server.buckets if resource == "search"}
    assert used == set(TOKENS)


def test_the_budget_takes_tokens_in_turn_and_waits_for_the_first_with_room() -> None:
    clock = FakeClock(1000.0)
    budget = LocalBudget(list(TOKENS), {"search": Limit(2, 60.0)}, max_wait=120.0, clock=clock)
    assert [budget.take("search") for _ in range(4)] == [TOKENS[0], TOKENS[1], TOKENS[0], TOKENS[1]]
    assert budget.take("search") == TOKENS[0] and clock.sleeps == [60.0]
    short = LocalBudget([TOKENS[0]], {"search": Limit(1, 60.0)}, max_wait=10.0, clock=clock)
    short.take("search")
    with pytest.raises(RateLimited):
        short.take("search")


def test_every_token_of_the_list_is_kept_out_of_text(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not shaped like a GitHub token (an Enterprise server's may be anything): named, so hidden.
    monkeypatch.setenv("GITHUB_TOKENS", "first-plain-secret, second-plain-secret")
    assert redact("a second-plain-secret b") == "a [redacted] b"
