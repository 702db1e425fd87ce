"""One JSON POST to a webhook, as the project's HTTP client does its GETs: a timeout, the
User-Agent, retries with jittered backoff, and errors that name the host only (a webhook URL
carries its token in the path or the query, so it is never printed).

Only what cannot have been delivered is retried: a connection that failed, 429 (after its
Retry-After) and the gateway errors 502/503/504. Any other answer is final, so a message is never
sent twice. Redirects are not followed: the body and its signature are for this host alone."""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from pytorch_insight.clock import Clock, SystemClock
from pytorch_insight.errors import RemoteError
from pytorch_insight.http import name_not_resolved
from pytorch_insight.redact import redact

log = logging.getLogger(__name__)


class _RedactingFilter(logging.Filter):
    """httpx logs each request's full URL (with -vvv): here the URL is a credential."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        return True


logging.getLogger("httpx").addFilter(_RedactingFilter())

RETRIED_STATUS = frozenset({429, 502, 503, 504})
MAX_WAIT = 60.0


@dataclass(frozen=True)
class PostSettings:
    user_agent: str
    timeout: float = 30.0
    attempts: int = 3


def host_of(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.host}:{parsed.port}" if parsed.port else parsed.host


def post(
    url: str,
    body: bytes,
    settings: PostSettings,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
    clock: Clock | None = None,
) -> httpx.Response:
    """POST `body` (JSON) to `url` and return the final answer, whatever its status; RemoteError when
    no answer came."""
    clock = clock or SystemClock()
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        raise RemoteError("the target's URL is not a valid URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise RemoteError("the target's URL is not an http(s) URL with a host")
    host = host_of(url)
    # Added to the URL's own query (a DingTalk URL carries its access token there); httpx's
    # `params=` would replace that query instead.
    target = parsed.copy_merge_params(params) if params else parsed
    request_headers = {"Content-Type": "application/json; charset=utf-8", **(headers or {})}
    with httpx.Client(
        timeout=settings.timeout, headers={"User-Agent": settings.user_agent}, follow_redirects=False
    ) as client:
        for attempt in range(1, settings.attempts + 1):
            last = attempt == settings.attempts
            try:
                response = client.post(target, content=body, headers=request_headers)
            except httpx.ConnectError as exc:
                if name_not_resolved(exc):
                    raise RemoteError(f"cannot reach {host} (name resolution failed)") from None
                if last:
                    raise RemoteError(f"cannot connect to {host} ({type(exc).__name__})") from None
                clock.sleep(_backoff(attempt))
                continue
            except httpx.TimeoutException as exc:
                # The message may have arrived: trying again could post it twice.
                raise RemoteError(
                    f"no answer from {host} within {settings.timeout:g}s ({type(exc).__name__})"
                ) from None
            except httpx.TransportError as exc:
                raise RemoteError(f"connection to {host} failed ({type(exc).__name__})") from None
            log.info("POST %s -> %s", host, response.status_code)
            if response.status_code not in RETRIED_STATUS or last:
                return response
            clock.sleep(_retry_after(response, attempt))
    raise AssertionError("unreachable")


def _backoff(attempt: int) -> float:
    return min(MAX_WAIT, random.uniform(0.5, 1.0) * 2**attempt)


def _retry_after(response: httpx.Response, attempt: int) -> float:
    try:
        return min(MAX_WAIT, max(0.0, float(response.headers["Retry-After"])))
    except (KeyError, ValueError):
        return _backoff(attempt)


def answer_text(response: httpx.Response, limit: int = 200) -> str:
    """The start of an answer's body on one line, for a failure note."""
    return " ".join(response.text[:limit].split())
