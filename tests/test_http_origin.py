"""Credentials stay with the configured API origin (scheme, host, port): never sent to another
host, whether a Link header, a redirect or an absolute URL points there; paging stops instead."""

from __future__ import annotations

from collections.abc import Callable

from pytorch_insight.http import HttpClient, RequestStats
from tests.conftest import FakeClock
from tests.fakes.github import FakeGitHub
from tests.fakes.server import Reply, Trouble
from tests.fakes.static import StaticSite
from tests.test_http import ROWS

SECRETS = {"Authorization": "Bearer ghp_secret", "Api-Key": "k-123", "Api-Username": "system"}


def test_paging_stops_at_a_link_to_another_origin(start_github: Callable[..., FakeGitHub], clock: FakeClock) -> None:
    elsewhere = start_github(ROWS)
    api = start_github(ROWS, link_origin=elsewhere.url)
    stats = RequestStats()
    with HttpClient(base_url=api.url, headers=SECRETS, user_agent="tests", clock=clock) as client:
        pages = list(client.iter_pages("/repos/o/r/issues", stats, params={"per_page": 3, "state": "all"}))
    assert [len(page.data) for page in pages] == [3]
    assert elsewhere.log == [] and elsewhere.user_agents == []
    [note] = stats.notes
    assert "/repos/o/r/issues" in note and elsewhere.url.removeprefix("http://") in note


def test_an_absolute_url_elsewhere_gets_no_credentials(clock: FakeClock) -> None:
    with StaticSite({"/a": ("text/plain", "a")}) as api, StaticSite({"/b": ("text/plain", "b")}) as other:
        with HttpClient(base_url=api.url, headers=SECRETS, user_agent="tests", clock=clock) as client:
            assert client.get_text("/a", RequestStats()).data == "a"
            assert client.get_text(f"{other.url}/b", RequestStats()).data == "b"
    [at_api], [at_other] = api.headers_seen, other.headers_seen
    assert all(at_api.get(name) == value for name, value in SECRETS.items())
    assert not set(SECRETS) & set(at_other) and at_other["User-Agent"] == "tests"


def test_a_redirect_to_another_origin_is_followed_without_credentials(clock: FakeClock) -> None:
    with StaticSite({}) as api, StaticSite({"/moved": ("application/json", '{"ok": true}')}) as other:
        api.add_trouble(Trouble("^/old$", Reply(302, b"", {"Location": f"{other.url}/moved"})))
        with HttpClient(base_url=api.url, headers=SECRETS, user_agent="tests", clock=clock) as client:
            assert client.get_json("/old", RequestStats()).data == {"ok": True}
    assert all(api.headers_seen[0].get(name) == value for name, value in SECRETS.items())
    [at_other] = other.headers_seen
    assert not set(SECRETS) & set(at_other)


def test_a_redirect_within_the_origin_keeps_the_credentials(clock: FakeClock) -> None:
    with StaticSite({"/new": ("application/json", "[1]")}) as api:
        api.add_trouble(Trouble("^/old$", Reply(301, b"", {"Location": "/new"})))
        with HttpClient(base_url=api.url, headers=SECRETS, user_agent="tests", clock=clock) as client:
            assert client.get_json("/old", RequestStats()).data == [1]
    assert len(api.headers_seen) == 2
    assert all(seen.get(name) == value for seen in api.headers_seen for name, value in SECRETS.items())
