"""The one HTTP client every source uses.

It owns timeouts, jittered retries (tenacity) on 5xx / connection errors / truncated bodies,
both kinds of rate limit, conditional requests against stored validators, the User-Agent,
and the per-source request counts. Time comes from an injected clock, so tests never sleep.

The headers a client is given (tokens, API keys) belong to its configured origin, the scheme,
host and port of `base_url`: a request anywhere else, through a redirect or an absolute URL,
carries only the User-Agent, and paging never follows a Link to another origin.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from pytorch_insight.clock import Clock, SystemClock
from pytorch_insight.errors import (
    NotFound,
    RateLimited,
    RemoteError,
    Throttled,
    TransientError,
    Unauthorized,
)
from pytorch_insight.redact import safe_message

log = logging.getLogger(__name__)

# GitHub asks clients to wait at least a minute after a secondary limit that names no wait.
DEFAULT_SECONDARY_WAIT = 60.0
# GitHub's words for the primary limit, also when a proxy dropped the X-RateLimit-* headers.
PRIMARY_LIMIT_MESSAGE = "api rate limit exceeded"
MAX_REDIRECTS = 10
BOM = "\ufeff"

Origin = tuple[str, str, int | None]


class Unreachable(RemoteError):
    """The host name does not resolve (no network, a typo in a URL): final, never retried."""

    def __init__(self, host: str) -> None:
        super().__init__(f"cannot reach {host} (name resolution failed)")
        self.host = host


class CachedPage:
    """A response body kept with its validators, replayed when the server answers 304."""

    def __init__(self, body: str, links: dict[str, str], etag: str | None, last_modified: str | None) -> None:
        self.body = body
        self.links = links
        self.etag = etag
        self.last_modified = last_modified


class ValidatorCache(Protocol):
    def get_cached(self, url: str) -> CachedPage | None: ...

    def put_cached(self, url: str, page: CachedPage) -> None: ...


@dataclass
class RequestStats:
    """What one source spent: every request sent, and how many came back 304 (free on GitHub)."""

    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    # What the client declined to fetch (a next page on another origin): the source's coverage note.
    notes: list[str] = field(default_factory=list)

    @property
    def charged(self) -> int:
        return self.requests - self.not_modified


@dataclass(frozen=True)
class RateBudget:
    """A rate-limit bucket as the last answer from it said: what is left, of how many, until when."""

    limit: int
    remaining: int
    reset: float  # epoch seconds


@dataclass
class Page:
    data: Any
    links: dict[str, str] = field(default_factory=dict)
    status: int = 200
    from_cache: bool = False
    url: str = ""


def parse_link_header(value: str | None) -> dict[str, str]:
    """``<url>; rel="next", <url>; rel="last"`` -> {"next": url, "last": url}."""
    links: dict[str, str] = {}
    for part in (value or "").split(","):
        segments = part.split(";")
        target = segments[0].strip()
        if not (target.startswith("<") and target.endswith(">")):
            continue
        for param in segments[1:]:
            key, _, rel = param.strip().partition("=")
            if key.strip() == "rel":
                for name in rel.strip().strip('"').split():
                    links[name] = target[1:-1]
    return links


class HttpClient:
    def __init__(
        self,
        *,
        base_url: str = "",
        headers: Mapping[str, str] | None = None,
        user_agent: str,
        timeout: float = 30.0,
        max_attempts: int = 5,
        max_rate_limit_wait: float = 300.0,
        clock: Clock | None = None,
        cache: ValidatorCache | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.clock = clock or SystemClock()
        self.cache = cache
        self.max_attempts = max_attempts
        self.max_rate_limit_wait = max_rate_limit_wait
        # Without a base URL (feeds, calendars: public documents on any host) there is no origin
        # to tie headers to, so they go with every request.
        self._origin = _origin(httpx.URL(base_url)) if base_url else None
        self._origin_headers = dict(headers or {})
        self._unreachable: set[str] = set()
        # Rate-limit buckets as the server names them (X-RateLimit-Resource): which bucket each
        # path family draws from, and the reset time of those a response said are spent.
        self._buckets: dict[tuple[Origin, str], str] = {}
        self._spent: dict[str, float] = {}
        self._budgets: dict[str, RateBudget] = {}
        # Redirects are followed by hand, so credentials can be dropped when one leaves the origin.
        self._client = httpx.Client(
            base_url=base_url,
            headers={"User-Agent": user_agent},
            timeout=timeout,
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def get_json(
        self,
        url: str,
        stats: RequestStats,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Page:
        """GET a JSON document, retrying what is worth retrying; raises RemoteError subclasses."""
        return self._get(url, stats, params, headers, _parse_json)

    def get_text(
        self,
        url: str,
        stats: RequestStats,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Page:
        """GET a text document (a feed, a calendar, a page); `Page.data` is the text."""
        return self._get(url, stats, params, headers, _as_text)

    def _get(
        self,
        url: str,
        stats: RequestStats,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        parse: Callable[[str, str], Any],
    ) -> Page:
        retrying = Retrying(
            retry=retry_if_exception_type((TransientError, Throttled)),
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            sleep=self.clock.sleep,
            before_sleep=lambda _state: setattr(stats, "retries", stats.retries + 1),
            reraise=True,
        )
        return retrying(self._get_once, url, stats, params, headers, parse)

    def iter_pages(self, url: str, stats: RequestStats, params: Mapping[str, Any] | None = None) -> Iterator[Page]:
        """The first page and every page after it through Link ``rel="next"``, within the origin.

        A next page elsewhere is not fetched (it would need the credentials, or the listing it
        continues is not the API's): paging stops there, with a note in `stats`."""
        page = self.get_json(url, stats, params=params)
        yield page
        while "next" in page.links:
            current, target = httpx.URL(page.url), httpx.URL(page.url).join(page.links["next"])
            if _origin(target) != (self._origin or _origin(current)):
                stats.notes.append(
                    f"stopped paging {current.host}{current.path}: its next page is on another host "
                    f"({target.host}:{target.port or target.scheme}), which is never sent the credentials"
                )
                return
            page = self.get_json(page.links["next"], stats)
            yield page

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, Throttled):
            return error.retry_after
        return wait_random_exponential(multiplier=1, max=60)(state)

    def _get_once(
        self,
        url: str,
        stats: RequestStats,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        parse: Callable[[str, str], Any],
    ) -> Page:
        request = self._client.build_request("GET", url, params=params, headers=headers)
        if self._is_home(request.url):
            # Set, not defaulted: httpx has put its own `Accept: */*` there already, which hid the
            # API's media type (`application/vnd.github+json`); a header given for this call wins.
            given = httpx.Headers(headers or {})
            for name, value in self._origin_headers.items():
                if name not in given:
                    request.headers[name] = value
        key = str(request.url)
        if request.url.host in self._unreachable:
            raise Unreachable(request.url.host)  # found out once already: no request, no wait
        cached = self.cache.get_cached(key) if self.cache else None
        if cached:
            if cached.etag:
                request.headers["If-None-Match"] = cached.etag
            if cached.last_modified:
                request.headers["If-Modified-Since"] = cached.last_modified
        self._await_budget(request.url)
        stats.requests += 1
        response = self._send(request)
        log.info("GET %s -> %s", _describe(request), response.status_code)
        self._note_budget(request.url, response)
        if response.status_code == 304 and cached:
            stats.not_modified += 1
            return Page(parse(cached.body, _describe(request)), cached.links, 304, from_cache=True, url=key)
        self._raise_for_status(response)
        data = parse(response.text, _describe(request))
        links = parse_link_header(response.headers.get("Link"))
        etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
        if self.cache and (etag or modified):
            self.cache.put_cached(key, CachedPage(response.text, links, etag, modified))
        return Page(data, links, response.status_code, url=str(response.request.url))

    def _note_budget(self, url: httpx.URL, response: httpx.Response) -> None:
        """Remember a bucket an answer says is spent (`X-RateLimit-Remaining: 0`) until its reset."""
        resource = response.headers.get("X-RateLimit-Resource")
        if not resource or response.status_code >= 400:  # a refusal is handled where it is raised
            return
        self._buckets[_bucket_key(url)] = resource
        reset = _seconds(response.headers.get("X-RateLimit-Reset"), -1.0)
        limit = _seconds(response.headers.get("X-RateLimit-Limit"), -1.0)
        remaining = _seconds(response.headers.get("X-RateLimit-Remaining"), -1.0)
        if limit >= 0 and remaining >= 0:
            self._budgets[resource] = RateBudget(int(limit), int(remaining), reset)
        if response.headers.get("X-RateLimit-Remaining") == "0" and reset > 0:
            self._spent[resource] = reset
        else:
            self._spent.pop(resource, None)

    def budget(self, resource: str) -> RateBudget | None:
        """What the last answer from a bucket (`core`, `search`) said is left of it; a planner
        weighs its paths by it (GitHub's search allows 30 requests a minute, core 5,000 an hour)."""
        return self._budgets.get(resource)

    def _await_budget(self, url: httpx.URL) -> None:
        """Wait for the reset of a spent bucket before asking it again, rather than be refused
        (GitHub's search allows 30 requests a minute); stop when the reset is too far away."""
        resource = self._buckets.get(_bucket_key(url))
        reset = self._spent.get(resource, 0.0) if resource else 0.0
        wait = reset - self.clock.now() + 1.0
        if wait <= 0 or resource is None:
            return
        where = f"{url.host}{url.path}"
        if wait > self.max_rate_limit_wait:
            raise RateLimited(f"rate limit exhausted on {where}; it resets in {wait / 60:.0f} min", reset)
        log.info("%s rate limit spent on %s: waiting %.0fs for its reset", resource, where, wait)
        self.clock.sleep(wait)
        self._spent.pop(resource, None)

    def _send(self, request: httpx.Request) -> httpx.Response:
        """Send, following redirects; one that leaves the origin goes without the client's headers."""
        current = request
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send_one(current)
            following = response.next_request
            if following is None:
                return response
            if not self._is_home(following.url):
                for name in self._origin_headers:
                    following.headers.pop(name, None)
            current = following
        raise RemoteError(f"more than {MAX_REDIRECTS} redirects from {_describe(request)}")

    def _send_one(self, request: httpx.Request) -> httpx.Response:
        try:
            return self._client.send(request)
        except httpx.TimeoutException as exc:
            raise TransientError(f"timed out: {_describe(request)} ({type(exc).__name__})") from None
        except httpx.ConnectError as exc:
            if name_not_resolved(exc):  # no network, or a wrong host name: retrying cannot help
                self._unreachable.add(request.url.host)
                raise Unreachable(request.url.host) from None
            raise TransientError(f"connection failed: {_describe(request)} ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            raise TransientError(f"connection failed: {_describe(request)} ({type(exc).__name__})") from None

    def _is_home(self, url: httpx.URL) -> bool:
        """Whether `url` is on the configured origin (always, for a client without one)."""
        return self._origin is None or _origin(url) == self._origin

    def _raise_for_status(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        where = _describe(response.request)
        message = _message(response)
        if status == 401:
            raise Unauthorized(f"credentials rejected (401) by {where}: {message}", status)
        if status == 404:
            raise NotFound(f"not found (404): {where}", status)
        if status in (403, 429):
            self._raise_rate_limit(response, where, message)
        if status >= 500 or status in (408, 425):
            raise TransientError(f"server error {status} from {where}", status)
        raise RemoteError(f"HTTP {status} from {where}: {message}", status)

    def _raise_rate_limit(self, response: httpx.Response, where: str, message: str) -> None:
        status = response.status_code
        retry_after = response.headers.get("Retry-After")
        if retry_after is not None:
            self._throttle(_seconds(retry_after, DEFAULT_SECONDARY_WAIT), f"secondary rate limit on {where}", status)
        if response.headers.get("X-RateLimit-Remaining") == "0" or PRIMARY_LIMIT_MESSAGE in message.lower():
            self._raise_primary_limit(response, where, message)
        if status == 429 or "secondary rate limit" in message.lower() or "abuse" in message.lower():
            self._throttle(DEFAULT_SECONDARY_WAIT, f"secondary rate limit on {where}", status)
        raise RemoteError(f"forbidden ({status}) by {where}: {message}", status)

    def _raise_primary_limit(self, response: httpx.Response, where: str, message: str) -> None:
        """The budget is spent: wait for a close reset; without a reset time there is nothing to
        wait for (retrying would only spend attempts), so stop."""
        reset = _seconds(response.headers.get("X-RateLimit-Reset"), -1.0)
        if reset < 0:
            detail = f": {message}" if message else ""
            raise RateLimited(f"rate limit exhausted on {where}, no reset time given{detail}")
        wait = max(0.0, reset - self.clock.now()) + 1.0
        if wait > self.max_rate_limit_wait:
            raise RateLimited(f"rate limit exhausted on {where}; it resets in {wait / 60:.0f} min", reset)
        self._throttle(wait, f"rate limit reached on {where}", response.status_code)

    def _throttle(self, wait: float, what: str, status: int) -> None:
        if wait > self.max_rate_limit_wait:
            raise RateLimited(f"{what}: asked to wait {wait:.0f}s, more than the configured maximum")
        log.info("%s: waiting %.0fs", what, wait)
        raise Throttled(what, wait, status)


def _parse_json(text: str, where: str) -> Any:
    try:
        return json.loads(text.removeprefix(BOM))
    except ValueError:
        raise TransientError(f"truncated or invalid JSON from {where}") from None


def _as_text(text: str, where: str) -> str:
    """The document without a UTF-8 byte order mark: decoding keeps it as a character, and
    parsers (iCalendar's first of all) then fail on the very first line."""
    return text.removeprefix(BOM)


def _origin(url: httpx.URL) -> Origin:
    """Scheme, host and port, the port spelled out when it is the scheme's default."""
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, url.port or default


def _bucket_key(url: httpx.URL) -> tuple[Origin, str]:
    """A path family (`/search/...`, `/repos/...`): the unit a server's rate-limit buckets cover."""
    return _origin(url), url.path.lstrip("/").split("/", 1)[0]


def name_not_resolved(error: BaseException) -> bool:
    """Whether a connection failed because the host name did not resolve (socket.gaierror)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _describe(request: httpx.Request) -> str:
    return f"{request.url.host}{request.url.path}"


def _message(response: httpx.Response) -> str:
    """The server's own words about an error, as one plain line: they reach the terminal, the
    store and the reports, so escape sequences (a title set, a screen cleared) and anything
    shaped like a token are removed here, where they enter."""
    try:
        body = response.json()
    except ValueError:
        return safe_message(response.text[:1000], 200)
    if not isinstance(body, dict):
        return ""
    details = [
        str(error.get("message"))
        for error in body.get("errors") or []
        if isinstance(error, dict) and error.get("message")
    ]
    return safe_message(" ".join([str(body.get("message") or body.get("error") or ""), *details])[:1000], 300)


def _seconds(value: str | None, default: float) -> float:
    try:
        return float(value) if value is not None else default
    except ValueError:
        return default
