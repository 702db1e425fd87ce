"""`deliver` end to end: every platform gets the report in its own shape, signed as it documents,
once; a failing target fails alone, says why in one line, and no secret is printed or stored."""

from __future__ import annotations

import json
import re
from email.message import EmailMessage

import pytest

from pytorch_insight.cli import main
from pytorch_insight.store import Store
from tests.deliver.conftest import WINDOW, Platforms, write_config


def deliver(capsys: pytest.CaptureFixture[str], platforms: Platforms, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(["deliver", "--db", platforms.db, "--config", str(platforms.config), *WINDOW, *args])
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def sent_counts(platforms: Platforms) -> list[int]:
    return [
        len(platforms.slack.accepted),
        len(platforms.feishu.accepted),
        len(platforms.dingtalk.accepted),
        len(platforms.receiver.accepted),
        len(platforms.mail.received),
    ]


def test_every_target_gets_the_report_once(capsys: pytest.CaptureFixture[str], platforms: Platforms) -> None:
    code, out, err = deliver(capsys, platforms, "--json")
    assert code == 0, err
    assert sent_counts(platforms) == [1, 1, 1, 1, 1]
    assert not any(server.rejected for server in (platforms.slack, platforms.feishu, platforms.dingtalk))
    outcomes = json.loads(out)["deliveries"]
    assert [(o["target"], o["status"]) for o in outcomes] == [
        ("team-slack", "sent"),
        ("feishu-group", "sent"),
        ("dingtalk-group", "sent"),
        ("archive", "sent"),
        ("mail", "sent"),
    ]
    link = "https://insight.example.org/weekly/2026-04-07_2026-04-13.html"

    slack = platforms.slack.accepted[0]
    assert slack["blocks"][0]["type"] == "header" and "2026-04-07 – 2026-04-13" in slack["blocks"][0]["text"]["text"]
    sections = [b["text"]["text"] for b in slack["blocks"] if b["type"] == "section"]
    assert any("<https://github.com/pytorch/pytorch/issues/1001|" in text and "高" in text for text in sections)
    # The hostile title arrives as text, its markup escaped for mrkdwn.
    assert not any("<script>" in text for text in sections)
    assert link in slack["blocks"][-1]["elements"][0]["text"]

    card = platforms.feishu.accepted[0]["card"]  # this target asked for English
    contents = json.dumps(card, ensure_ascii=False)
    assert "high" in contents and "[#1001](https://github.com/pytorch/pytorch/issues/1001)" in contents
    button = card["elements"][-1]["actions"][0]
    assert button["url"] == link.replace(".html", ".en.html") and button["text"]["content"] == "Full report"

    markdown = platforms.dingtalk.accepted[0]["markdown"]
    assert markdown["title"].startswith(platforms.dingtalk.accepted[0]["markdown"]["title"][:4])
    assert "(https://github.com/pytorch/pytorch/issues/1001)" in markdown["text"] and link in markdown["text"]
    assert "<script>" not in markdown["text"]

    document = platforms.receiver.accepted[0]
    assert document["window"] == {"since": "2026-04-07", "until": "2026-04-13"} and document["focus"]

    mail = platforms.mail.received[0]
    assert mail.sender == "insight@example.org" and mail.recipients == ["team@example.org", "lead@example.org"]
    assert platforms.mail.logins == ["insight-bot"]
    check_mail(mail.message)


def check_mail(message: EmailMessage) -> None:
    assert message.get_content_type() == "multipart/alternative"
    assert message["Date"] and message["Message-ID"] and "2026-04-07 – 2026-04-13" in message["Subject"]
    plain = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert plain is not None and html is not None
    assert "#1001" in plain.get_content()
    page = html.get_content()
    assert page.lstrip().lower().startswith("<!doctype html") and "<style" in page
    # Self-contained: no script, no stylesheet, image or frame fetched from anywhere.
    assert "<script" not in page.lower()
    assert not re.search(r"<(?:link|img|iframe|source|object|embed)\b[^>]*(?:src|href)\s*=", page, re.I)
    assert "url(" not in page.lower().replace("url(#", "")


def test_a_second_run_sends_nothing_new(capsys: pytest.CaptureFixture[str], platforms: Platforms) -> None:
    assert deliver(capsys, platforms)[0] == 0
    code, _, err = deliver(capsys, platforms)
    assert code == 0
    assert sent_counts(platforms) == [1, 1, 1, 1, 1]
    assert err.count("skipped") == 5 and "already sent at" in err
    # --to picks one target and --force sends it again.
    code, _, err = deliver(capsys, platforms, "--to", "team-slack", "--force")
    assert code == 0 and sent_counts(platforms) == [2, 1, 1, 1, 1]


def test_a_failing_target_fails_alone_without_revealing_secrets(
    capsys: pytest.CaptureFixture[str], platforms: Platforms
) -> None:
    # Feishu with a wrong signing secret (the bot answers 200 with code 19021), DingTalk with the
    # right one but a revoked token (errcode 300001), a webhook receiver that expects another secret.
    write_config(
        platforms.config,
        platforms,
        **{
            "feishu-group": 'type = "feishu"\nurl_env = "T_FEISHU_URL"\nsecret = "not-the-feishu-secret-77"',
            "archive": f'type = "webhook"\nurl = "{platforms.receiver.hook_url}"\nsecret = "another-secret-5555"',
        },
    )
    platforms.dingtalk.token = "revoked-token-0000000"
    code, out, err = deliver(capsys, platforms, "--json", "-vvv")  # the HTTP libraries' own log too
    assert code == 1
    assert sent_counts(platforms) == [1, 0, 0, 0, 1]
    failures = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(failures) == 3 and "HTTP Request: POST" in err
    assert any("feishu-group (feishu)" in line and "19021" in line and "sign match fail" in line for line in failures)
    assert any("dingtalk-group (dingtalk)" in line and "300001" in line for line in failures)
    assert any("archive (webhook)" in line and "401" in line for line in failures)
    printed = out + err
    secrets = [*platforms.secrets(), "not-the-feishu-secret-77", "another-secret-5555", "revoked-token-0000000"]
    for secret in secrets:
        assert secret not in printed
    store = Store.open(platforms.db, readonly=True)
    stored = json.dumps(store.deliveries())
    store.close()
    for secret in secrets:
        assert secret not in stored
    # The failed ones go out on the next run, once fixed; the delivered ones are not sent again.
    write_config(platforms.config, platforms)
    platforms.dingtalk.token = "dingtalkaccesstoken0001"
    code, _, err = deliver(capsys, platforms)
    assert code == 0, err
    assert sent_counts(platforms) == [1, 1, 1, 1, 1]


def test_a_missing_secret_or_unknown_target_is_one_line(
    capsys: pytest.CaptureFixture[str], platforms: Platforms, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("T_SMTP_PASSWORD")
    code, _, err = deliver(capsys, platforms)
    assert code == 1
    assert "error: delivery to mail (email) failed: environment variable T_SMTP_PASSWORD is not set" in err
    assert sent_counts(platforms) == [1, 1, 1, 1, 0]
    code, _, err = deliver(capsys, platforms, "--to", "nowhere")
    assert code == 2 and err.strip().splitlines() == [
        "error: unknown delivery target nowhere (configured: team-slack, feishu-group, dingtalk-group, archive, mail)"
    ]


def test_a_bad_url_or_ca_file_fails_its_target_only(capsys: pytest.CaptureFixture[str], platforms: Platforms) -> None:
    write_config(
        platforms.config,
        platforms,
        **{
            "team-slack": 'type = "slack"\nurl = "ftp://hooks.example.org/services/T/B/ftp-secret-token-1"',
            "archive": 'type = "webhook"\nurl = "https://"',
            "mail": 'type = "email"\nhost = "127.0.0.1"\nfrom = "a@example.org"\nto = ["b@example.org"]\n'
            'ca_file = "/nonexistent/ca.pem"',
        },
    )
    code, out, err = deliver(capsys, platforms)
    assert code == 1 and sent_counts(platforms) == [0, 1, 1, 0, 0]
    failures = sorted(line for line in err.splitlines() if line.startswith("error:"))
    assert failures == [
        "error: delivery to archive (webhook) failed: the target's URL is not an http(s) URL with a host",
        "error: delivery to mail (email) failed: cannot read ca_file /nonexistent/ca.pem: No such file or directory",
        "error: delivery to team-slack (slack) failed: the target's URL is not an http(s) URL with a host",
    ]
    assert "ftp-secret-token-1" not in out + err
