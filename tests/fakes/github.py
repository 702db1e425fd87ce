"""A local GitHub REST server on 127.0.0.1 that serves item JSONL rows in GitHub's real shapes.

It speaks the parts of the protocol the collector relies on: Link pagination, per-resource
rate limits with GitHub's headers, ETag / 304, 401 / 404, search qualifiers, issue timelines
(synthesised from the rows' mentions of each other, or a row's explicit `timeline`), and
injectable faults (5xx bursts, secondary limits, slow answers, truncated bodies, searches that
time out and answer `incomplete_results: true`). Start it by hand with
``python -m tests.fakes.github --data ../shared/data/raw/<file>.jsonl --port 8765``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
import zlib
from dataclasses import dataclass
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlencode, urlsplit

from tests.fakes.github_payloads import (
    Thread,
    comment_payload,
    commented_payload,
    commit_payload,
    cross_reference_payload,
    event_payload,
    explicit_event,
    file_payload,
    issue_payload,
    landed_sha,
    pull_payload,
    repo_payload,
    stamp,
    thread_from_row,
)
from tests.fakes.server import LocalServer

DOCS = "https://docs.github.com/rest"
# What GitHub turns into a cross-reference: `#N`, `owner/name#N` and links to an issue or PR.
SHORT_REF = re.compile(r"(?<![\w&/])(?:([\w.-]+/[\w.-]+))?#(\d+)(?!\d)")
URL_REF = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)(?!\d)")
# A day or a moment (`2026-04-07T09:14:02Z`), as GitHub's qualifiers take them.
MOMENT = r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}Z)?"
DATE_QUALIFIER = rf"(created|closed|updated):(?:({MOMENT})\.\.({MOMENT})|(<=|>=|<|>)({MOMENT}))"


@dataclass
class Fault:
    """Answer the next `times` requests whose path (and query, with `query`) matches with a failure."""

    path: str
    # "status", "secondary", "primary", "delay", "truncate"; "primary_no_reset" (the recorded 2013
    # answer: Remaining 0 and no reset header) and "primary_message_only" (no rate headers at all,
    # as behind a proxy that drops them: only GitHub's message says what happened), "incomplete" (a
    # search that timed out: 200, `incomplete_results: true`, only the matches found by then)
    kind: str
    times: int = 1
    status: int = 502
    retry_after: int = 60
    delay: float = 0.0
    body: Any = None  # the JSON a "status" fault answers with (a server's own error text)
    query: str = ""  # a pattern the raw query string must match too (one page of one search)


@dataclass
class Listing:
    """A listing's rows, in order, and how one becomes its payload: only the page served is shaped
    (shaping a busy repository's every issue for each page of it cost the stand-in ~10 ms a page,
    on the CPU the collector under test runs on)."""

    rows: list[Any]
    shape: Callable[[Any], dict[str, Any]]


@dataclass
class Bucket:
    limit: int
    period: float
    used: int = 0
    started: float = 0.0

    def refresh(self, now: float) -> None:
        if now >= self.started + self.period:
            self.started, self.used = now, 0

    @property
    def reset(self) -> int:
        return int(self.started + self.period)


class FakeGitHub(LocalServer):
    def __init__(
        self,
        rows: list[dict[str, Any]],
        *,
        tokens: set[str] | None = None,
        core_limit: int | None = None,
        search_limit: int | None = None,
        latency: float = 0.0,
        search_cap: int = 1000,
        now: Callable[[], float] = time.time,
        link_origin: str | None = None,
        incomplete_every: int = 0,
    ) -> None:
        self.threads: dict[str, dict[int, Thread]] = {}
        for row in rows:
            if row.get("number") is None or "/" not in str(row.get("repo")):
                continue  # events and other non-GitHub rows
            self.threads.setdefault(row["repo"], {})[row["number"]] = thread_from_row(row)
        self.mentions = _mentions(self.threads)
        super().__init__(latency)
        self.tokens = tokens or set()
        self.core_limit, self.search_limit = core_limit, search_limit
        self.search_cap, self.now = search_cap, now
        self.faults: list[Fault] = []
        self.user_agents: list[str] = []
        self.accepts: list[str] = []  # the Accept header of each request
        self.buckets: dict[tuple[str, str], Bucket] = {}
        # Where Link headers point (a misconfigured or hostile server sends clients elsewhere).
        self.link_origin = link_origin
        # Every n-th search times out (as GitHub's do under load), besides "incomplete" faults.
        self.incomplete_every = incomplete_every
        self.searches = 0

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return type("Handler", (_Handler,), {"fake": self})

    def add_fault(self, fault: Fault) -> None:
        with self.lock:
            self.faults.append(fault)

    # -- request handling --------------------------------------------------------------------------

    def take_fault(self, path: str, query: str = "") -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and re.search(fault.path, path) and re.search(fault.query, query):
                    fault.times -= 1
                    return fault
        return None

    def bucket(self, resource: str, token: str | None) -> Bucket:
        limits = {
            "core": (self.core_limit or (5000 if token else 60), 3600.0),
            "search": (self.search_limit or (30 if token else 10), 60.0),
        }
        key = (resource, token or "")
        with self.lock:
            if key not in self.buckets:
                limit, period = limits[resource]
                self.buckets[key] = Bucket(limit, period, started=self.now())
            bucket = self.buckets[key]
            bucket.refresh(self.now())
            return bucket

    def times_out(self) -> bool:
        """Whether this search is the n-th that times out (`incomplete_every`)."""
        with self.lock:
            self.searches += 1
            return bool(self.incomplete_every) and self.searches % self.incomplete_every == 0

    def route(
        self, path: str, query: dict[str, str], api: str, timed_out: bool = False
    ) -> tuple[int, Any, dict[str, str]]:
        """(status, body, extra headers) for a GET, before rate limits and validators."""
        if path == "/rate_limit":
            return 200, None, {}
        if path == "/search/issues":
            return self.search(query, api, timed_out)
        org = re.fullmatch(r"/orgs/([^/]+)/repos", path)
        if org:
            return self.org_repos(org.group(1), api)
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", path)
        if not match or match.group(1) not in self.threads:
            return (
                404,
                {"message": "Not Found", "documentation_url": f"{DOCS}/repos/repos#get-a-repository", "status": "404"},
                {},
            )
        repo, rest = match.group(1), match.group(2) or ""
        threads = self.threads[repo]
        if rest == "":
            return 200, repo_payload(repo, api), {}
        if rest == "/issues":
            return 200, Listing(self.list_threads(threads.values(), query), lambda t: issue_payload(t, api)), {}
        if rest == "/pulls":
            pulls = [t for t in threads.values() if t.is_pull]
            return 200, Listing(self.list_threads(pulls, query), lambda t: pull_payload(t, api)), {}
        if rest == "/issues/comments":
            return 200, self.repo_comments(threads.values(), query, api), {}
        if rest == "/commits":
            return 200, self.commits(threads.values(), query, api), {}
        files = re.fullmatch(r"/pulls/(\d+)/files", rest)
        if files and int(files.group(1)) in threads and threads[int(files.group(1))].is_pull:
            return (
                200,
                [file_payload(entry, repo, api) for entry in threads[int(files.group(1))].row.get("files", [])],
                {},
            )
        timeline = re.fullmatch(r"/issues/(\d+)/timeline", rest)
        if timeline and int(timeline.group(1)) in threads:
            return 200, self.timeline(threads[int(timeline.group(1))], api), {}
        found = re.fullmatch(r"/(issues|pulls)/(\d+)(/comments)?", rest)
        if found and int(found.group(2)) in threads:
            thread = threads[int(found.group(2))]
            if found.group(3):
                since = query.get("since")
                return (
                    200,
                    [
                        comment_payload(thread, cid, moment, comment, api)
                        for cid, moment, comment in thread.comments
                        if not since or stamp(moment) >= since
                    ],
                    {},
                )
            if found.group(1) == "pulls":
                if not thread.is_pull:
                    return 404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"}, {}
                return 200, pull_payload(thread, api, detailed=True), {}
            return 200, issue_payload(thread, api), {}
        return 404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"}, {}

    def org_repos(self, org: str, api: str) -> tuple[int, Any, dict[str, str]]:
        """An organisation's repositories by name, each with GitHub's `open_issues_count` (its open
        issues and pull requests together); an unknown organisation is a 404."""
        names = sorted(repo for repo in self.threads if repo.split("/")[0].lower() == org.lower())
        if not names:
            return 404, {"message": "Not Found", "documentation_url": f"{DOCS}/repos/repos", "status": "404"}, {}
        payloads = [
            {
                **repo_payload(repo, api),
                "archived": False,
                "open_issues_count": sum(1 for t in self.threads[repo].values() if t.closed is None),
            }
            for repo in names
        ]
        return 200, payloads, {}

    def timeline(self, thread: Thread, api: str) -> list[dict[str, Any]]:
        """The issue's events, oldest first. A row's explicit `timeline` replaces the synthesised
        ones: a `cross-referenced` event for every served issue or PR that mentions it (dated at
        the mention), a `referenced` event for every landed commit whose message mentions it,
        its comments, and `closed` when it is closed."""
        if "timeline" in thread.row:
            return [explicit_event(thread, entry, index, api) for index, entry in enumerate(thread.row["timeline"])]
        events: list[tuple[datetime, int, dict[str, Any]]] = []
        for moment, source, actor, by_commit in self.mentions.get((thread.repo, thread.number), []):
            if by_commit:
                sha = landed_sha(source)
                events.append((moment, 1, event_payload(thread, "referenced", moment, actor, api, sha, source.repo)))
            else:
                events.append((moment, 1, cross_reference_payload(source, moment, actor, api)))
        for cid, moment, comment in thread.comments:
            events.append((moment, 0, commented_payload(thread, cid, moment, comment, api)))
        if thread.closed:
            closer = thread.row.get("closed_by") or thread.row.get("author")
            events.append((thread.closed, 2, event_payload(thread, "closed", thread.closed, closer, api)))
        events.sort(key=lambda event: (event[0], event[1]))
        return [payload for _, _, payload in events]

    def list_threads(self, threads: Any, query: dict[str, str]) -> list[Thread]:
        state = query.get("state", "open")
        since = query.get("since")
        chosen = [t for t in threads if state == "all" or (state == "closed") == (t.closed is not None)]
        if since:
            chosen = [t for t in chosen if stamp(t.updated) >= since]
        if query.get("labels"):
            wanted = set(query["labels"].split(","))
            chosen = [t for t in chosen if wanted <= set(t.row.get("labels") or [])]
        sort = query.get("sort", "created")
        key = {"updated": lambda t: (t.updated, t.number), "comments": lambda t: (len(t.comments), t.number)}.get(
            sort, lambda t: (t.created, t.number)
        )
        return sorted(chosen, key=key, reverse=query.get("direction", "desc") == "desc")

    def repo_comments(self, threads: Any, query: dict[str, str], api: str) -> Listing:
        since = query.get("since")
        rows = [
            (moment, cid, thread, comment)
            for thread in threads
            for cid, moment, comment in thread.comments
            if not since or stamp(moment) >= since
        ]
        rows.sort(key=lambda row: (row[0], row[1]), reverse=query.get("direction", "asc") == "desc")
        return Listing(rows, lambda row: comment_payload(row[2], row[1], row[0], row[3], api))

    def commits(self, threads: Any, query: dict[str, str], api: str) -> Listing:
        since, until = query.get("since"), query.get("until")
        landed = [t for t in threads if t.landed and t.merged]
        landed = [
            t for t in landed if (not since or stamp(t.merged) >= since) and (not until or stamp(t.merged) <= until)
        ]
        landed.sort(key=lambda t: (t.merged, t.number), reverse=True)  # newest first, as GitHub lists them
        return Listing(landed, lambda t: commit_payload(t, api))

    def search(self, query: dict[str, str], api: str, timed_out: bool = False) -> tuple[int, Any, dict[str, str]]:
        """GitHub's issue search: `repo:` and `org:` qualifiers (several widen the scope, as on
        GitHub), `-repo:` narrows it, date qualifiers, `is:pr` / `is:issue`, `is:open` /
        `is:closed`, `label:`; items in the search item shape (no `closed_by`, a `score`), at most
        `search_cap` of them reachable. A search that `timed_out` answers as GitHub does: 200,
        `incomplete_results: true`, and only the matches found by then (the same two thirds of
        them each time), counted and paged as if they were all."""
        terms = query.get("q", "")
        repos = re.findall(r"(?<![\w-])repo:(\S+)", terms)
        orgs = re.findall(r"(?<![\w-])(?:org|user):(\S+)", terms)
        owners = {repo.split("/")[0].lower() for repo in self.threads}
        unknown = [r for r in repos if r not in self.threads] + [o for o in orgs if o.lower() not in owners]
        if unknown:
            return (
                422,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "message": "The listed users and repositories cannot be searched either because the resources do not "
                            "exist or you do not have permission to view them.",
                            "resource": "Search",
                            "field": "q",
                            "code": "invalid",
                        }
                    ],
                    "documentation_url": f"{DOCS}/search/search",
                },
                {},
            )
        excluded = set(re.findall(r"(?<![\w])-repo:(\S+)", terms))
        wanted_orgs = {org.lower() for org in orgs}
        threads = [
            t
            for repo, repo_threads in self.threads.items()
            if (not repos and not orgs) or repo in repos or repo.split("/")[0].lower() in wanted_orgs
            if repo not in excluded
            for t in repo_threads.values()
        ]
        for field, low, high, operator, day in re.findall(DATE_QUALIFIER, terms):
            threads = [t for t in threads if _matches(_moment(t, field), low, high, operator, day)]
        if "is:pr" in terms:
            threads = [t for t in threads if t.is_pull]
        if "is:issue" in terms:
            threads = [t for t in threads if not t.is_pull]
        if "is:open" in terms or "is:closed" in terms:
            threads = [t for t in threads if (t.closed is not None) == ("is:closed" in terms)]
        if timed_out:
            threads = [t for t in threads if zlib.crc32(f"{t.repo}#{t.number}".encode()) % 3]
        for quoted, bare in re.findall(r'(?<![\w-])label:(?:"([^"]+)"|(\S+))', terms):
            threads = [t for t in threads if (quoted or bare) in (t.row.get("labels") or [])]
        key = {
            "updated": lambda t: (t.updated, t.repo, t.number),
            "comments": lambda t: (len(t.comments), t.repo, t.number),
        }
        threads.sort(
            key=key.get(query.get("sort", ""), lambda t: (t.created, t.repo, t.number)),
            reverse=query.get("order", "desc") == "desc",
        )
        page, per_page = int(query.get("page", 1)), min(int(query.get("per_page", 30)), 100)
        if (page - 1) * per_page >= self.search_cap:
            return (
                422,
                {
                    "message": f"Only the first {self.search_cap} search results are available",
                    "documentation_url": f"{DOCS}/search/search",
                },
                {},
            )
        return (
            200,
            {
                "total_count": len(threads),
                "incomplete_results": timed_out,
                "items": threads[: self.search_cap],  # threads: the handler shapes only the page it serves
            },
            {},
        )

    def rate_limit_body(self, token: str | None) -> dict[str, Any]:
        resources = {}
        for resource in ("core", "search"):
            bucket = self.bucket(resource, token)
            resources[resource] = {
                "limit": bucket.limit,
                "used": bucket.used,
                "remaining": bucket.limit - bucket.used,
                "reset": bucket.reset,
            }
        return {"resources": resources, "rate": resources["core"]}


Mention = tuple[datetime, Thread, str | None, bool]  # when, by what, by whom, through a landed commit


def _mentions(threads: dict[str, dict[int, Thread]]) -> dict[tuple[str, int], list[Mention]]:
    """Who mentions which served issue: one entry per mentioning item (at its first mention) and
    per landed commit whose message names it, as GitHub records them."""
    found: dict[tuple[str, int], list[Mention]] = {}
    for repo_threads in threads.values():
        for source in repo_threads.values():
            texts = [(source.created, source.row.get("author"), source.row.get("body") or "")]
            texts += [(moment, c.get("author"), c.get("body") or "") for _, moment, c in source.comments]
            seen: set[tuple[str, int]] = set()
            for moment, actor, text in sorted(texts, key=lambda entry: entry[0]):
                for target in _references(text, source.repo) - seen:
                    if target != (source.repo, source.number) and target[1] in threads.get(target[0], {}):
                        seen.add(target)
                        found.setdefault(target, []).append((moment, source, actor, False))
            if source.landed and source.merged:
                message = f"{source.row.get('title') or ''}\n\n{(source.row.get('body') or '')[:500]}"
                for target in _references(message, source.repo):
                    if target != (source.repo, source.number) and target[1] in threads.get(target[0], {}):
                        found.setdefault(target, []).append((source.merged, source, "pytorchmergebot", True))
    return found


def search_item(thread: Thread, api: str) -> dict[str, Any]:
    """An issue as the search API returns it: the issue shape without `closed_by`, with a `score`."""
    payload = {key: value for key, value in issue_payload(thread, api).items() if key != "closed_by"}
    return {**payload, "score": 1.0}


def _references(text: str, repo: str) -> set[tuple[str, int]]:
    refs = {(match.group(1) or repo, int(match.group(2))) for match in SHORT_REF.finditer(text)}
    return refs | {(match.group(1), int(match.group(2))) for match in URL_REF.finditer(text)}


def _moment(thread: Thread, field: str) -> datetime | None:
    return {"created": thread.created, "closed": thread.closed, "updated": thread.updated}[field]


def _matches(moment: datetime | None, low: str, high: str, operator: str, day: str) -> bool:
    """GitHub's date qualifiers: ``A..B`` (inclusive; a bare day is the whole day) or ``<D``,
    ``<=D``, ``>D``, ``>=D``, each end a day or a moment to the second."""
    if moment is None:
        return False
    if low:
        return _bound(low, moment) >= 0 and _bound(high, moment) <= 0
    order = _bound(day, moment)  # -1: before the bound, 0: in it, 1: after it
    return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[operator]


def _bound(text: str, moment: datetime) -> int:
    """Where `moment` falls against a day or a second: -1 before, 0 within, 1 after."""
    if "T" in text:
        value, bound = moment.replace(microsecond=0), datetime.fromisoformat(text.replace("Z", "+00:00"))
    else:
        value, bound = moment.date(), date.fromisoformat(text)  # type: ignore[assignment]
    return (value > bound) - (value < bound)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle's algorithm the body waits for the
    # client's delayed ACK of the headers, 40 ms a small answer on Linux, which no real API adds.
    disable_nagle_algorithm = True
    server_version = "github.com"
    sys_version = ""

    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
        fake = self.fake
        parts = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        fake.user_agents.append(self.headers.get("User-Agent", ""))
        fake.accepts.append(self.headers.get("Accept", ""))
        if fake.latency:
            time.sleep(fake.latency)
        token = self.token()
        if token is not None and fake.tokens and token not in fake.tokens:
            return self.reply(401, {"message": "Bad credentials", "documentation_url": DOCS, "status": "401"}, {})
        resource = "search" if parts.path.startswith("/search/") else "core"
        bucket = fake.bucket(resource, token)
        fault = fake.take_fault(parts.path, parts.query)
        if fault and self.apply(fault, bucket, resource):
            return None
        timed_out = resource == "search" and ((fault is not None and fault.kind == "incomplete") or fake.times_out())
        if parts.path == "/rate_limit":
            return self.reply(200, fake.rate_limit_body(token), self.rate_headers(bucket, resource))
        if bucket.used >= bucket.limit:
            return self.primary_limit(bucket, resource)
        api = f"http://{self.headers.get('Host')}"
        status, body, headers = fake.route(parts.path, query, api, timed_out)
        links = fake.link_origin or api
        if status == 200 and isinstance(body, Listing):
            rows, headers = self.paginate(body.rows, parts.path, query, links)
            body = [body.shape(row) for row in rows]
        elif status == 200 and isinstance(body, list):
            body, headers = self.paginate(body, parts.path, query, links)
        elif status == 200 and parts.path == "/search/issues":
            body, headers = self.paginate_search(body, parts.path, query, api, links)
        encoded = json.dumps(body).encode()
        etag = 'W/"' + hashlib.sha256(encoded).hexdigest() + '"'
        if status == 200 and self.headers.get("If-None-Match") == etag:
            fake.log.append((self.path, 304))
            return self.send(304, b"", {"ETag": etag, **self.rate_headers(bucket, resource)})
        with fake.lock:
            bucket.used += 1
        extra = {"ETag": etag} if status == 200 else {}
        return self.reply(status, body, {**extra, **headers, **self.rate_headers(bucket, resource)}, encoded)

    def token(self) -> str | None:
        value = self.headers.get("Authorization")
        if not value:
            return None
        return value.split(" ", 1)[-1].strip()

    def apply(self, fault: Fault, bucket: Bucket, resource: str) -> bool:
        """Serve the fault; False when it only delays and the request then proceeds normally."""
        if fault.kind == "delay":
            time.sleep(fault.delay)
            return False
        if fault.kind == "incomplete":
            return False  # answered by the search, with what it found before timing out
        if fault.kind == "status":
            self.reply(fault.status, fault.body if fault.body is not None else {"error": "Server Error"}, {})
        elif fault.kind == "secondary":
            self.reply(
                403,
                {
                    "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
                    "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                },
                {"Retry-After": str(fault.retry_after), **self.rate_headers(bucket, resource)},
            )
        elif fault.kind == "primary":
            bucket.used = bucket.limit
            self.primary_limit(bucket, resource)
        elif fault.kind == "primary_no_reset":
            self.reply(
                403,
                {"message": "API Rate Limit Exceeded for 127.0.0.1"},
                {"X-RateLimit-Limit": str(bucket.limit), "X-RateLimit-Remaining": "0"},
            )
        elif fault.kind == "primary_message_only":
            self.reply(
                403,
                {
                    "message": "API rate limit exceeded for user ID 1.",
                    "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
                },
                {},
            )
        elif fault.kind == "truncate":
            body = json.dumps([{"message": "x" * 50}] * 20).encode()
            self.send(200, body[: len(body) // 2], {"Content-Type": "application/json; charset=utf-8"})
        return True

    def primary_limit(self, bucket: Bucket, resource: str) -> None:
        self.reply(
            403,
            {
                "message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated "
                "requests get a higher rate limit. Check out the documentation for more details.)",
                "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api",
            },
            self.rate_headers(bucket, resource),
        )

    def rate_headers(self, bucket: Bucket, resource: str) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(max(0, bucket.limit - bucket.used)),
            "X-RateLimit-Reset": str(bucket.reset),
            "X-RateLimit-Used": str(bucket.used),
            "X-RateLimit-Resource": resource,
        }

    def paginate(self, rows: list[Any], path: str, query: dict[str, str], api: str) -> tuple[list[Any], dict[str, str]]:
        page, per_page = max(1, int(query.get("page", 1))), max(1, min(int(query.get("per_page", 30)), 100))
        return rows[(page - 1) * per_page : page * per_page], self.links(len(rows), page, per_page, path, query, api)

    def paginate_search(
        self, body: dict[str, Any], path: str, query: dict[str, str], api: str, links: str
    ) -> tuple[Any, dict[str, str]]:
        rows, headers = self.paginate(body["items"], path, query, links)
        return {**body, "items": [search_item(thread, api) for thread in rows]}, headers

    def links(self, total: int, page: int, per_page: int, path: str, query: dict[str, str], api: str) -> dict[str, str]:
        last = max(1, -(-total // per_page))

        def href(number: int) -> str:
            return f"<{api}{path}?{urlencode({**query, 'page': number})}>"

        rels = []
        if page > 1:
            rels += [f'{href(page - 1)}; rel="prev"']
        if page < last:
            rels += [f'{href(page + 1)}; rel="next"', f'{href(last)}; rel="last"']
        if page > 1:
            rels += [f'{href(1)}; rel="first"']
        return {"Link": ", ".join(rels)} if rels else {}

    def reply(self, status: int, body: Any, headers: dict[str, str], encoded: bytes | None = None) -> None:
        self.fake.log.append((self.path, status))
        self.send(
            status,
            encoded if encoded is not None else json.dumps(body).encode(),
            {"Content-Type": "application/json; charset=utf-8", **headers},
        )

    def send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        base = {
            "Cache-Control": "private, max-age=60, s-maxage=60",
            "Vary": "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding",
            "X-GitHub-Media-Type": "github.v3; format=json",
            "x-github-api-version-selected": "2022-11-28",
            "X-GitHub-Request-Id": hashlib.md5(self.path.encode()).hexdigest()[:16].upper(),
            "Access-Control-Expose-Headers": "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, "
            "X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset",
            "Content-Length": str(len(payload)),
        }
        for name, value in {**base, **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        if payload:
            self.wfile.write(payload)


def load_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve item JSONL rows as a local GitHub REST API.")
    parser.add_argument("--data", type=Path, required=True, help="item JSONL file (e.g. ../shared/data/raw/*.jsonl)")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("--token", action="append", default=[], help="accepted token (others get 401)")
    args = parser.parse_args()
    fake = FakeGitHub(load_rows(args.data), tokens=set(args.token), latency=args.latency)
    url = fake.start(args.port)
    print(f"fake GitHub API on {url} (set GITHUB_API_URL to it); Ctrl-C stops", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
