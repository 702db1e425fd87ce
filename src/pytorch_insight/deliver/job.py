"""What a platform module is given to send one report to one target."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pytorch_insight.clock import Clock
from pytorch_insight.config import DeliveryTarget
from pytorch_insight.deliver.credentials import Credentials
from pytorch_insight.deliver.message import Digest, shrinking
from pytorch_insight.deliver.post import PostSettings
from pytorch_insight.errors import InsightError
from pytorch_insight.report.model import Report


class DeliveryError(InsightError):
    """The target did not take the message; the text says why (never with a secret)."""


@dataclass(frozen=True)
class Job:
    target: DeliveryTarget
    credentials: Credentials
    report: Report
    digest: Digest
    http: PostSettings
    clock: Clock

    @property
    def url(self) -> str:
        assert self.credentials.url is not None  # the config requires a URL of every webhook target
        return self.credentials.url


def largest_fitting(digest: Digest, build: Callable[[Digest], Any], fits: Callable[[Any], bool]) -> Any:
    """The payload of the largest version of the digest that `fits` the platform's limits."""
    for candidate in shrinking(digest):
        payload = build(candidate)
        if fits(payload):
            return payload
    raise DeliveryError("the message exceeds the platform's size limit even when shortened to its title and link")


def joined(parts: Iterable[str], separator: str = "\n\n") -> str:
    return separator.join(part for part in parts if part)
