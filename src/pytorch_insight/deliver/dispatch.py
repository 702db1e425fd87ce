"""Send a window's report to every target: each target on its own, so one failure never stops the
others; a target that already has this window's report (same profile, reader and language) is
skipped unless forced; every attempt is recorded in the store, with a note that holds no secret."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pytorch_insight.clock import Clock, SystemClock
from pytorch_insight.config import DeliveryTarget, Settings
from pytorch_insight.deliver import dingtalk, email, feishu, slack, webhook
from pytorch_insight.deliver.credentials import credentials
from pytorch_insight.deliver.job import Job
from pytorch_insight.deliver.message import content_digest, digest_of, report_link
from pytorch_insight.deliver.post import PostSettings
from pytorch_insight.errors import ConfigError, InsightError
from pytorch_insight.redact import redact
from pytorch_insight.report.model import Report
from pytorch_insight.store import Store
from pytorch_insight.text import strip_controls

log = logging.getLogger(__name__)

SENDERS: dict[str, Callable[[Job], str]] = {
    "slack": slack.send,
    "feishu": feishu.send,
    "dingtalk": dingtalk.send,
    "webhook": webhook.send,
    "email": email.send,
}
DEFAULT_LANG = "zh"


class Status(StrEnum):
    SENT = "sent"
    SKIPPED = "skipped"
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    target: str
    kind: str
    status: Status
    note: str

    def as_json(self) -> dict[str, str]:
        return {"target": self.target, "type": self.kind, "status": self.status.value, "note": self.note}


# (lang, reader or None for the default) -> the window's report for it
ReportFor = Callable[[str, str | None], Report]


def select_targets(settings: Settings, names: Sequence[str]) -> list[DeliveryTarget]:
    """The targets named (all of them when none is); an unknown name is a configuration error."""
    if not settings.delivery:
        raise ConfigError("no [[delivery]] targets in the config file: see the README's Delivery section")
    if not names:
        return list(settings.delivery)
    known = {target.name: target for target in settings.delivery}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigError(f"unknown delivery target {', '.join(unknown)} (configured: {', '.join(known)})")
    return [known[name] for name in dict.fromkeys(names)]


def deliver(
    targets: Sequence[DeliveryTarget],
    report_for: ReportFor,
    store: Store,
    settings: Settings,
    *,
    default_lang: str = DEFAULT_LANG,
    force: bool = False,
    env: Mapping[str, str],
    clock: Clock | None = None,
) -> list[Outcome]:
    clock = clock or SystemClock()
    return [_deliver_one(target, report_for, store, settings, default_lang, force, env, clock) for target in targets]


def _deliver_one(
    target: DeliveryTarget,
    report_for: ReportFor,
    store: Store,
    settings: Settings,
    default_lang: str,
    force: bool,
    env: Mapping[str, str],
    clock: Clock,
) -> Outcome:
    secrets: list[str] = []
    try:
        creds = credentials(target, env)
        secrets = creds.values()
        report = report_for(target.lang or default_lang, target.reader)
        key = {
            "target": target.name,
            "since": report.window.since,
            "until": report.window.until,
            "profile": report.profile,
            "reader": report.reader,
            "lang": report.lang,
        }
        if not force:
            sent_at = store.delivered(**key)
            if sent_at:
                return Outcome(
                    target.name, target.type, Status.SKIPPED, f"already sent at {sent_at} (--force sends again)"
                )
        default_reader = settings.profile.reader(None).id
        link = report_link(report, settings.site_url, default_reader)
        job = Job(
            target=target,
            credentials=creds,
            report=report,
            digest=digest_of(report, target.items, link),
            http=PostSettings(settings.http.user_agent, target.timeout, settings.http.max_attempts),
            clock=clock,
        )
    except InsightError as exc:
        return Outcome(target.name, target.type, Status.FAILED, _public(str(exc), secrets))
    status, note = Status.SENT, ""
    try:
        note = SENDERS[target.type](job)
    except email.PartialDelivery as exc:
        status, note = Status.FAILED, _public(str(exc), secrets)
        recorded = Status.SENT  # the message went out: a re-run must not send it again
    except InsightError as exc:
        status, note = Status.FAILED, _public(str(exc), secrets)
        recorded = Status.FAILED
    else:
        recorded = Status.SENT
    store.record_delivery(**key, kind=target.type, digest=content_digest(report), status=recorded.value, note=note)
    log.info("delivery %s (%s): %s %s", target.name, target.type, status.value, note)
    return Outcome(target.name, target.type, status, note)


def _public(text: str, secrets: Sequence[str]) -> str:
    """A failure note as printed and stored: one line, no secret of this target or any other."""
    return " ".join(redact(strip_controls(text), secrets).split())
