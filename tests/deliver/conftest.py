"""A store holding the fixed week, the local platforms, and a config with a target for each."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytorch_insight.store import Store
from tests.fakes.chat_webhooks import FakeDingTalkRobot, FakeFeishuBot, FakeReceiver, FakeSlackWebhook
from tests.fakes.smtp import FakeSubmissionServer
from tests.report.fixtures import week

WINDOW = ("--since", "2026-04-07", "--until", "2026-04-13")
SECRETS = {
    "T_SLACK_URL": None,  # the hook URL: its path is the token
    "T_FEISHU_URL": None,
    "T_FEISHU_SECRET": "feishu-signing-secret-42",
    "T_DINGTALK_URL": None,
    "T_DINGTALK_SECRET": "SECdingtalk0123456789abcdef",
    "T_SMTP_USER": "insight-bot",
    "T_SMTP_PASSWORD": "smtp-password-xyz-987",
}
WEBHOOK_SECRET = "inline-webhook-secret-123"


@dataclass
class Platforms:
    slack: FakeSlackWebhook
    feishu: FakeFeishuBot
    dingtalk: FakeDingTalkRobot
    receiver: FakeReceiver
    mail: FakeSubmissionServer
    db: str
    config: Path
    env: dict[str, str]

    def secrets(self) -> list[str]:
        return [*self.env.values(), WEBHOOK_SECRET, self.slack.path.rsplit("/", 1)[1], self.dingtalk.token]


def write_config(path: Path, platforms: Platforms, **overrides: str) -> None:
    mail = platforms.mail
    entries = {
        "team-slack": 'type = "slack"\nurl_env = "T_SLACK_URL"',
        "feishu-group": 'type = "feishu"\nurl_env = "T_FEISHU_URL"\nsecret_env = "T_FEISHU_SECRET"\nlang = "en"',
        "dingtalk-group": 'type = "dingtalk"\nurl_env = "T_DINGTALK_URL"\nsecret_env = "T_DINGTALK_SECRET"',
        "archive": f'type = "webhook"\nurl = "{platforms.receiver.hook_url}"\nsecret = "{WEBHOOK_SECRET}"',
        "mail": (
            f'type = "email"\nhost = "127.0.0.1"\nport = {mail.port}\nsecurity = "starttls"\n'
            'username_env = "T_SMTP_USER"\npassword_env = "T_SMTP_PASSWORD"\n'
            'from = "insight@example.org"\nto = ["team@example.org", "lead@example.org"]\n'
            f'ca_file = "{mail.ca_file}"'
        ),
    } | overrides
    blocks = [f'[[delivery]]\nname = "{name}"\n{body}\n' for name, body in entries.items()]
    path.write_text('site_url = "https://insight.example.org/weekly/"\n\n' + "\n".join(blocks), encoding="utf-8")


@pytest.fixture
def platforms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Platforms]:
    db = str(tmp_path / "insight.db")
    store = Store.open(db)
    store.save_items(week())
    store.close()
    slack, feishu = FakeSlackWebhook(), FakeFeishuBot(SECRETS["T_FEISHU_SECRET"])
    dingtalk, receiver = FakeDingTalkRobot(SECRETS["T_DINGTALK_SECRET"]), FakeReceiver(WEBHOOK_SECRET)
    mail = FakeSubmissionServer(tmp_path, SECRETS["T_SMTP_USER"] or "", SECRETS["T_SMTP_PASSWORD"] or "")
    for server in (slack, feishu, dingtalk, receiver):
        server.start()
    with mail:
        env = {name: value for name, value in SECRETS.items() if value} | {
            "T_SLACK_URL": slack.hook_url,
            "T_FEISHU_URL": feishu.hook_url,
            "T_DINGTALK_URL": dingtalk.hook_url,
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        found = Platforms(slack, feishu, dingtalk, receiver, mail, db, tmp_path / "config.toml", env)
        write_config(found.config, found)
        yield found
    for server in (slack, feishu, dingtalk, receiver):
        server.stop()
