"""The fake GitHub must answer like the real one: same keys, types, headers and paging style.

Each test asks the fake for what a recorded real exchange in tests/data/api-samples/ asked
GitHub for, and compares the two answers' shapes (not their values).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.conftest import SAMPLES
from tests.fakes.github import FakeGitHub, Fault

Start = Callable[..., FakeGitHub]
REST = SAMPLES / "github-rest"
RATE_HEADERS = {
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-used",
    "x-ratelimit-resource",
}


def sample(name: str) -> dict[str, Any]:
    return json.loads((REST / name).read_text())


def sample_headers(exchange: dict[str, Any]) -> dict[str, str]:
    return {name.lower(): value for name, value in exchange["headers"]}


def shape_mismatches(real: Any, fake: Any, where: str = "$") -> list[str]:
    """Keys the real answer has and the fake lacks, and values of different JSON types."""
    if real is None or fake is None:
        return []
    if isinstance(real, bool) or isinstance(fake, bool):
        return [] if type(real) is type(fake) else [f"{where}: {type(real).__name__} vs {type(fake).__name__}"]
    if isinstance(real, (int, float)) and isinstance(fake, (int, float)):
        return []
    if type(real) is not type(fake):
        return [f"{where}: {type(real).__name__} vs {type(fake).__name__}"]
    if isinstance(real, dict):
        problems = [f"{where}.{key}: missing" for key in real if key not in fake]
        for key in real.keys() & fake.keys():
            problems += shape_mismatches(real[key], fake[key], f"{where}.{key}")
        return problems
    if isinstance(real, list) and real and fake:
        # Compare like with like: an issue with an issue, a pull request with a pull request.
        first = real[0]
        twin = max(fake, key=lambda entry: len(set(entry) & set(first)) if isinstance(entry, dict) else 0)
        return shape_mismatches(first, twin, f"{where}[0]")
    return []


ROWS = [
    {
        "repo": "o/r",
        "number": n,
        "kind": "pull_request" if n % 2 else "issue",
        "state": "closed" if n % 3 else "open",
        "title": f"item {n}",
        "author": "someone",
        "created": f"2026-04-{n:02d}",
        "labels": ["module: inductor"],
        "body": "text",
        "landed": n % 2 == 1 and n % 3 != 0,
        "comments": [{"author": "x", "date": f"2026-04-{n:02d}", "kind": "comment", "body": "hi"}] * 5,
        "url": f"https://github.com/o/r/{'pull' if n % 2 else 'issues'}/{n}",
    }
    for n in range(1, 25)
]


@pytest.fixture
def fake(start_github: Start) -> FakeGitHub:
    return start_github(ROWS)


def get(fake: FakeGitHub, path: str, **headers: str) -> httpx.Response:
    return httpx.get(fake.url + path, headers=headers, timeout=5)


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("issues_list__pygithub_2024_page1_link.json", "/repos/o/r/issues?state=all&per_page=10"),
        ("issues_list__octokit_2022_per_page3_page1_of5.json", "/repos/o/r/issues?per_page=3"),
        ("pulls_list__pygithub_2020.json", "/repos/o/r/pulls?state=all"),
        ("commits_list__pygithub_2026_per_page2_link.json", "/repos/o/r/commits?sha=main&per_page=2"),
        ("issue_comments__pygithub_2025_per_page4.json", "/repos/o/r/issues/1/comments?per_page=4"),
        (
            "repo_issue_comments_since__pygithub_2012_page1_link.json",
            "/repos/o/r/issues/comments?since=2026-04-01T00:00:00Z",
        ),
        ("pull_single__pygithub_2023.json", "/repos/o/r/pulls/1"),
        ("search_issues__octokit_2022.json", "/search/issues?q=repo:o/r+item"),
        ("search_issues__pygithub_2014_link.json", "/search/issues?q=repo:o/r&per_page=5&sort=comments&order=desc"),
        ("rate_limit_get__pygithub_2023.json", "/rate_limit"),
    ],
)
def test_fake_answers_have_the_recorded_shape(fake: FakeGitHub, name: str, path: str) -> None:
    real = sample(name)
    response = get(fake, path)
    assert response.status_code == real["status"] == 200
    fake_body = response.json()
    real_body = real["body"]
    if name.startswith("rate_limit"):
        real_body = {"rate": real_body["rate"], "resources": {k: real_body["resources"][k] for k in ("core", "search")}}
    assert shape_mismatches(real_body, fake_body) == []
    if isinstance(real_body, list) and any("pull_request" in entry for entry in real_body):
        fake_pull = next(entry for entry in fake_body if "pull_request" in entry)
        real_pull = next(entry for entry in real_body if "pull_request" in entry)
        assert shape_mismatches(real_pull, fake_pull) == []
    real_headers, fake_headers = sample_headers(real), {k.lower() for k in response.headers}
    expected = {"content-type", "etag", "link"} | RATE_HEADERS
    assert (set(real_headers) & expected) - fake_headers == set()
    assert response.headers["content-type"] == "application/json; charset=utf-8"


def test_link_pagination_walks_like_github(fake: FakeGitHub) -> None:
    """octokit recorded five pages of three issues each, linked by rel=next until the last page."""
    real_pages = [sample(f"issues_list__octokit_2022_per_page3_page{n}_of5.json") for n in range(1, 6)]
    real_rels = [set(httpx.Response(200, headers=dict(p["headers"])).links) for p in real_pages]
    url, fake_rels, sizes = f"{fake.url}/repos/o/r/issues?state=all&per_page=5", [], []
    while url:
        response = httpx.get(url, timeout=5)
        fake_rels.append(set(response.links))
        sizes.append(len(response.json()))
        url = response.links.get("next", {}).get("url")
    assert sizes == [5, 5, 5, 5, 4]
    assert fake_rels[0] == real_rels[0] == {"next", "last"}
    assert fake_rels[-1] == real_rels[-1] == {"prev", "first"}
    assert all(rels == real_rels[2] for rels in fake_rels[1:-1])


def test_etag_round_trip_gives_an_uncounted_304(fake: FakeGitHub) -> None:
    first = get(fake, "/repos/o/r/issues")
    second = get(fake, "/repos/o/r/issues", **{"If-None-Match": first.headers["ETag"]})
    assert second.status_code == 304 and second.content == b""
    assert second.headers["X-RateLimit-Remaining"] == first.headers["X-RateLimit-Remaining"]


def test_primary_limit_answer_matches_the_recorded_one(start_github: Start) -> None:
    fake = start_github(ROWS, core_limit=1)
    real = sample("error_403_primary_rate_limit__pygithub_2013.json")
    get(fake, "/repos/o/r")
    response = get(fake, "/repos/o/r")
    assert response.status_code == real["status"] == 403
    assert response.headers["x-ratelimit-remaining"] == sample_headers(real)["x-ratelimit-remaining"] == "0"
    assert shape_mismatches(real["body"], response.json()) == []
    assert "rate limit exceeded" in response.json()["message"].lower()


def test_secondary_limit_answer_matches_the_recorded_one(fake: FakeGitHub) -> None:
    real = sample("error_403_secondary_abuse_retry_after__pygithub_2018.json")
    fake.add_fault(Fault(path="/search/", kind="secondary", retry_after=60))
    response = get(fake, "/search/issues?q=x")
    assert response.status_code == real["status"] == 403
    assert response.headers["Retry-After"] == sample_headers(real)["retry-after"] == "60"
    assert shape_mismatches(real["body"], response.json()) == []


def test_server_error_answer_matches_the_recorded_one(fake: FakeGitHub) -> None:
    real = sample("error_500_server_error__pygithub_2018.json")
    fake.add_fault(Fault(path="/repos/o/r$", kind="status", status=500))
    response = get(fake, "/repos/o/r")
    assert response.status_code == real["status"] == 500
    assert shape_mismatches(real["body"], response.json()) == []


def test_search_reports_its_own_rate_limit_resource(fake: FakeGitHub) -> None:
    real = sample("search_issues__octokit_2022.json")
    response = get(fake, "/search/issues?q=repo:o/r")
    assert response.headers["X-RateLimit-Resource"] == sample_headers(real)["x-ratelimit-resource"] == "search"
    assert response.headers["X-RateLimit-Limit"] == "10"  # unauthenticated; the recorded one was authenticated (30)


def test_primary_limit_without_reset_matches_the_recorded_one(fake: FakeGitHub) -> None:
    """The 2013 recording: Remaining 0, no reset header, only a message."""
    real = sample("error_403_primary_rate_limit__pygithub_2013.json")
    fake.add_fault(Fault(path="/repos/o/r$", kind="primary_no_reset"))
    response = get(fake, "/repos/o/r")
    recorded = sample_headers(real)
    assert response.status_code == real["status"] == 403
    assert response.headers["x-ratelimit-remaining"] == recorded["x-ratelimit-remaining"] == "0"
    assert "x-ratelimit-reset" not in response.headers and "x-ratelimit-reset" not in recorded
    assert shape_mismatches(real["body"], response.json()) == []
    assert response.json().keys() == real["body"].keys()
