"""The GitHub request budget all workers share, held in Redis.

Each token has a sliding-window log per rate-limit resource (core, search): a request may go when
fewer than the budget's requests went in the last period, counted on Redis's clock, so every
worker on every host sees one count. With several tokens a request takes the next token in turn
that has room. The check and the entry are one Lua script, so two workers never both take the
last request of a period. With a `ledger` a token also needs room in what GitHub last said is
left of it (github_ledger.py): requests made with it elsewhere, or counted before Redis was
emptied, are waited for instead of refused.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Sequence

import redis

from pytorch_insight.errors import RateLimited
from pytorch_insight.github_ledger import BudgetLedger
from pytorch_insight.github_tokens import ANONYMOUS, BudgetTransport, Limit

__all__ = ["BudgetTransport", "Limit", "SharedBudget", "fingerprint"]

KEY_PREFIX = "pytorch-insight:github-budget"
# Added to each period: a request is counted when it takes its place here, but GitHub counts it
# when it arrives, a little later and not always equally later.
SAFETY_S = 0.25
# Longest sleep before asking again: another worker's failed requests may free nothing, but a
# changed configuration or a flushed Redis should not leave a worker asleep for an hour.
MAX_NAP_S = 5.0

# KEYS: one sorted set per token. ARGV: limit, period (ms), member id. Returns {index, 0} for the
# token taken (0-based) or {-1, ms to wait until the earliest of them has room}.
TAKE = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) * 1000 + math.floor(tonumber(now_parts[2]) / 1000)
local limit, period = tonumber(ARGV[1]), tonumber(ARGV[2])
local count = #KEYS
local start = redis.call('INCR', KEYS[1] .. ':turn') % count
local wait = -1
for offset = 0, count - 1 do
  local index = (start + offset) % count
  local key = KEYS[index + 1]
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - period)
  if redis.call('ZCARD', key) < limit then
    redis.call('ZADD', key, now, ARGV[3])
    redis.call('PEXPIRE', key, period)
    return {index, 0}
  end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local ready = tonumber(oldest[2]) + period - now
  if wait < 0 or ready < wait then wait = ready end
end
return {-1, wait}
"""


def fingerprint(token: str | None) -> str:
    """What names a token in Redis: a short hash, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()[:16] if token else "anonymous"


class SharedBudget:
    """Tokens used in turn, each within its per-resource limits, across every worker."""

    def __init__(
        self,
        client: redis.Redis,
        tokens: Sequence[str],
        limits: dict[str, Limit],
        *,
        max_wait: float,
        sleep: Callable[[float], None] = time.sleep,
        ledger: BudgetLedger | None = None,
    ) -> None:
        self.tokens: list[str | None] = list(dict.fromkeys(tokens)) or [None]
        if self.tokens == [None]:
            limits = {name: Limit(min(cap.requests, ANONYMOUS[name]), cap.period) for name, cap in limits.items()}
        self.limits = limits
        self.max_wait = max_wait
        self.sleep = sleep
        self.ledger = ledger
        self._client = client
        self._take = client.register_script(TAKE)

    def keys(self, resource: str) -> list[str]:
        return [f"{KEY_PREFIX}:{resource}:{fingerprint(token)}" for token in self.tokens]

    def take(self, resource: str) -> str | None:
        """Wait for room on one of the tokens and count a request on it; returns that token (None
        without tokens). Raises RateLimited when the wait would be longer than `max_wait`."""
        limit = self.limits[resource]
        period_ms = int((limit.period + SAFETY_S) * 1000)
        waited = 0.0
        spent: list[float] = []  # how long the tokens GitHub says are spent stay so
        while True:
            member = uuid.uuid4().hex
            keys = self.keys(resource)
            index, wait_ms = self._take(keys=keys, args=[limit.requests, period_ms, member])
            if index >= 0:
                token = self.tokens[index]
                spent_for = self.ledger.take(token, resource) if self.ledger else 0.0
                if spent_for <= 0:
                    return token
                self._client.zrem(keys[index], member)  # not sent after all
                spent.append(spent_for)
                if len(spent) < len(self.tokens):
                    continue  # the script starts each try at the next token
                wait_ms, spent = min(spent) * 1000, []
            wait = max(0.01, wait_ms / 1000)
            if waited + wait > self.max_wait:
                raise RateLimited(
                    f"the workers' shared GitHub {resource} budget ({limit.requests} requests per "
                    f"{limit.period:g}s per token) has no room for {wait:.0f}s, more than the configured maximum wait"
                )
            nap = min(wait, MAX_NAP_S)
            self.sleep(nap)
            waited += nap
