"""E-mail through a local submission server: TLS verified against the configured CA only, the
login never in the clear, the server's SIZE respected, refusals reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytorch_insight.config import DeliveryTarget, Settings, load_settings
from pytorch_insight.deliver.dispatch import Outcome, Status, deliver
from pytorch_insight.store import Store
from tests.deliver.conftest import Platforms
from tests.fakes.smtp import FakeSubmissionServer


def mail_target(platforms: Platforms) -> tuple[Settings, DeliveryTarget]:
    settings = load_settings(db=platforms.db, config_file=str(platforms.config))
    return settings, next(target for target in settings.delivery if target.type == "email")


def send(platforms: Platforms, target: DeliveryTarget, settings: Settings) -> Outcome:
    store = Store.open(platforms.db)
    from tests.report.fixtures import report_of, week

    report = report_of(week(), "en")
    try:
        return deliver([target], lambda lang, reader: report, store, settings, env=os.environ, force=True)[0]
    finally:
        store.close()


def test_an_untrusted_certificate_fails_and_sends_nothing(platforms: Platforms) -> None:
    settings, target = mail_target(platforms)
    outcome = send(platforms, target.model_copy(update={"ca_file": None}), settings)
    assert outcome.status is Status.FAILED and "TLS with 127.0.0.1" in outcome.note
    # The project's words for it, not OpenSSL's reason code (which follows them).
    assert "certificate is not trusted" in outcome.note and "ca_file" in outcome.note
    assert platforms.mail.received == [] and platforms.mail.logins == []


def test_no_login_over_an_unencrypted_connection(platforms: Platforms) -> None:
    settings, target = mail_target(platforms)
    outcome = send(platforms, target.model_copy(update={"security": "none"}), settings)
    assert outcome.status is Status.FAILED and "unencrypted" in outcome.note
    assert platforms.mail.received == []


def test_a_rejected_login_names_the_code_not_the_password(
    platforms: Platforms, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("T_SMTP_PASSWORD", "wrong-password-123")
    settings, target = mail_target(platforms)
    outcome = send(platforms, target, settings)
    assert outcome.status is Status.FAILED and outcome.note == "127.0.0.1 rejected the SMTP login (535)"


def test_a_small_size_limit_gets_the_short_message(platforms: Platforms, tmp_path: Path) -> None:
    settings, target = mail_target(platforms)
    small = tmp_path / "small"
    small.mkdir()
    with FakeSubmissionServer(small, "insight-bot", "smtp-password-xyz-987", size_limit=6000) as server:
        update = {"port": server.port, "ca_file": server.ca_file}
        outcome = send(platforms, target.model_copy(update=update), settings)
        assert outcome.status is Status.SENT, outcome
        message = server.received[0].message
    assert message.get_content_type() == "text/plain"
    text = message.get_content()
    assert "https://insight.example.org/weekly/2026-04-07_2026-04-13.en.html" in text and "#1001" in text


def test_a_refused_recipient_is_reported_and_the_others_are_not_sent_twice(platforms: Platforms) -> None:
    platforms.mail.store.refuse.add("lead@example.org")
    settings, target = mail_target(platforms)
    outcome = send(platforms, target, settings)
    assert outcome.status is Status.FAILED
    assert outcome.note.startswith("127.0.0.1 refused lead@example.org (550 ")
    assert [mail.recipients for mail in platforms.mail.received] == [["team@example.org"]]
    store = Store.open(platforms.db, readonly=True)
    assert store.delivered("mail", "2026-04-07", "2026-04-13", "pytorch", "generalist", "en")
    store.close()
