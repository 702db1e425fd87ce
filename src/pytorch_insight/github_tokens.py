"""Several GitHub tokens in one process: each request to the API takes the next token in turn
that has room in its per-resource budget (5,000 core requests an hour, 30 searches a minute), so
`GITHUB_TOKENS=a,b` doubles what one `collect` may ask an hour without any worker or Redis.

The workers' budget (workers/budget.py) keeps the same count in Redis for many processes; both
hand their token to `BudgetTransport`, which sets it on each request. In-process, a token also
has room only while GitHub's last word on it, shared with the other processes on this machine
(github_ledger.py), leaves some.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import httpx

from pytorch_insight.clock import Clock
from pytorch_insight.errors import RateLimited
from pytorch_insight.github_ledger import BudgetLedger

# GitHub's limits without a token: a budget above them would only collect 403s.
ANONYMOUS = {"core": 60, "search": 10}


@dataclass(frozen=True)
class Limit:
    requests: int
    period: float


class Budget(Protocol):
    tokens: list[str | None]

    def take(self, resource: str) -> str | None: ...


class LocalBudget:
    """Tokens used in turn, each within its per-resource limits, counted in this process (a
    sliding window of request times per token and resource) and, with a `ledger`, within what
    GitHub last said is left of it to every process on this machine."""

    def __init__(
        self,
        tokens: Sequence[str],
        limits: dict[str, Limit],
        *,
        max_wait: float,
        clock: Clock,
        ledger: BudgetLedger | None = None,
    ) -> None:
        self.tokens: list[str | None] = list(dict.fromkeys(tokens)) or [None]
        if self.tokens == [None]:
            limits = {name: Limit(min(cap.requests, ANONYMOUS[name]), cap.period) for name, cap in limits.items()}
        self.limits, self.max_wait, self.clock, self.ledger = limits, max_wait, clock, ledger
        self._sent: dict[tuple[str, int], deque[float]] = {}
        self._turn = 0
        self._lock = threading.Lock()

    def take(self, resource: str) -> str | None:
        """Wait for room on one of the tokens and count a request on it; returns that token.
        Raises RateLimited when the wait would be longer than `max_wait`."""
        index, wait = self._try(resource)
        while index is None:
            if wait > self.max_wait:
                raise RateLimited(
                    f"every GitHub token's {resource} budget is spent for {wait:.0f}s, more than the configured maximum"
                )
            self.clock.sleep(wait)
            index, wait = self._try(resource)
        return self.tokens[index]

    def _try(self, resource: str) -> tuple[int | None, float]:
        """(the token counted, 0), or (None, the seconds until one has room)."""
        limit = self.limits[resource]
        with self._lock:
            now = self.clock.now()
            wait = limit.period
            for offset in range(len(self.tokens)):
                index = (self._turn + offset) % len(self.tokens)
                sent = self._sent.setdefault((resource, index), deque())
                while sent and sent[0] <= now - limit.period:
                    sent.popleft()
                if len(sent) >= limit.requests:
                    wait = min(wait, sent[0] + limit.period - now)
                    continue
                shared_wait = self.ledger.take(self.tokens[index], resource) if self.ledger else 0.0
                if shared_wait > 0:  # another process spent it (or this one, as GitHub counts)
                    wait = min(wait, shared_wait)
                    continue
                sent.append(now)
                self._turn = index + 1
                return index, 0.0
            return None, max(wait, 0.01)


class BudgetTransport(httpx.BaseTransport):
    """Sends each request to the GitHub API origin under the budget, with the token it took;
    requests anywhere else go as they are (with no token).

    With several tokens, one token's `X-RateLimit-Remaining: 0` says nothing of the others, and
    the client would wait for its reset: the budget paces the tokens, so that header is dropped.

    An `inner` transport given is shared (a worker's connection pool, kept for all its tasks) and
    stays open when this one closes; one made here is closed with it. Each answer's rate-limit
    headers go to the `ledger` the budget took its request from, if any."""

    def __init__(
        self,
        api_url: str,
        budget: Budget,
        inner: httpx.BaseTransport | None = None,
        ledger: BudgetLedger | None = None,
    ) -> None:
        api = httpx.URL(api_url)
        self.origin = (api.scheme, api.host, api.port)
        self.base_path = api.path.rstrip("/")
        self.budget = budget
        self.ledger = ledger
        self._owns_inner = inner is None
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if (request.url.scheme, request.url.host, request.url.port) != self.origin:
            return self.inner.handle_request(request)
        path = request.url.path.removeprefix(self.base_path)
        resource = "search" if path.startswith("/search/") else "core"
        token = self.budget.take(resource)
        if token:
            request.headers["Authorization"] = f"Bearer {token}"
        try:
            response = self.inner.handle_request(request)
        except BaseException:
            if self.ledger:
                self.ledger.note(token, resource, {})  # no answer: no longer in flight
            raise
        if self.ledger:
            self.ledger.note(token, resource, response.headers)
        if len(self.budget.tokens) > 1 and response.status_code < 400:
            response.headers.pop("X-RateLimit-Remaining", None)
        return response

    def close(self) -> None:
        if self._owns_inner:
            self.inner.close()
