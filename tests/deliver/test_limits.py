"""Each platform's size limits: a week too large for a chat message is shortened (conclusions, then
the overview, then items) until the platform takes it, and the link to the full report stays."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytorch_insight.config import load_settings
from pytorch_insight.deliver import dingtalk, feishu, slack
from pytorch_insight.deliver.dispatch import Status, deliver
from pytorch_insight.deliver.message import digest_of, shrinking
from pytorch_insight.report.model import Report
from pytorch_insight.store import Store
from tests.deliver.conftest import Platforms
from tests.report.fixtures import report_of, week

LINK = "https://insight.example.org/weekly/2026-04-07_2026-04-13.html"


def huge_report() -> Report:
    """The fixed week with 45 focus stories of long titles and conclusions and a long overview,
    in the Chinese report (3 bytes a character in UTF-8)."""
    report = report_of(week(), "zh")
    first = report.focus[0]
    focus = [
        first.model_copy(
            update={
                "rank": n,
                "ref": f"#{2000 + n}",
                "url": f"https://github.com/pytorch/pytorch/issues/{2000 + n}",
                "title": f"编译器在大模型训练中的回归问题 <b>&</b> {n} " + "长标题" * 120,
                "conclusion": "需要尽快跟进修复并验证 " * 40,
            }
        )
        for n in range(1, 46)
    ]
    overview = report.overview.model_copy(update={"narrative": "本周社区动态概述。" * 600})
    return report.model_copy(update={"focus": focus, "overview": overview})


def test_shrinking_keeps_the_title_and_link_to_the_end() -> None:
    digest = digest_of(huge_report(), 30, LINK)
    versions = list(shrinking(digest))
    assert versions[0] is digest and versions[-1].entries == () and versions[-1].overview == ()
    assert all(version.link == LINK and version.title == digest.title for version in versions)
    assert [len(v.entries) for v in versions][-3:] == [3, 1, 0]


def test_every_chat_platform_takes_the_largest_version_that_fits(
    platforms: Platforms, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(db=platforms.db, config_file=str(platforms.config))
    targets = [target for target in settings.delivery if target.type in ("slack", "feishu", "dingtalk")]
    targets = [target.model_copy(update={"items": 30, "lang": "zh"}) for target in targets]
    report = huge_report()
    store = Store.open(platforms.db)
    outcomes = deliver(targets, lambda lang, reader: report, store, settings, env=os.environ)
    store.close()
    assert [outcome.status for outcome in outcomes] == [Status.SENT] * 3, outcomes
    assert not (platforms.slack.rejected or platforms.feishu.rejected or platforms.dingtalk.rejected)

    message = platforms.slack.accepted[0]
    blocks = message["blocks"]
    assert len(blocks) <= slack.MAX_BLOCKS and all(
        len(b["text"]["text"]) <= 3000 for b in blocks if b["type"] == "section"
    )
    assert len(json.dumps(blocks, ensure_ascii=False)) <= slack.BLOCKS_BUDGET
    assert LINK in blocks[-1]["elements"][0]["text"] and "其余" in blocks[-1]["elements"][0]["text"]
    # Escaped for mrkdwn, never cut inside an entity.
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in json.dumps(blocks, ensure_ascii=False)

    body = json.dumps(platforms.feishu.accepted[0], ensure_ascii=False).encode()
    assert len(body) <= feishu.BODY_LIMIT
    assert platforms.feishu.accepted[0]["card"]["elements"][-1]["actions"][0]["url"] == LINK

    sent = platforms.dingtalk.accepted[0]
    assert len(json.dumps(sent, ensure_ascii=False).encode()) <= dingtalk.BODY_LIMIT
    assert LINK in sent["markdown"]["text"] and "\\<b\\>" in sent["markdown"]["text"]


def test_the_fakes_reject_what_breaks_the_limits(platforms: Platforms) -> None:
    """The limits are the platforms', not the sender's own: an unshortened message is refused."""
    import httpx

    digest = digest_of(huge_report(), 30, LINK)
    assert not slack.fits(slack.payload(digest))
    section = slack.section("x" * 3000)
    for blocks in ([section] * 51, [slack.section("x" * 3001)]):
        answer = httpx.post(platforms.slack.hook_url, json={"text": "t", "blocks": blocks})
        assert (answer.status_code, answer.text) == (400, "invalid_blocks")
    assert httpx.post(platforms.slack.hook_url, json={"text": "t", "blocks": [section] * 50}).text == "ok"
    answer = httpx.post(platforms.dingtalk.hook_url, json=dingtalk.markdown(digest))
    assert answer.json()["errcode"] != 0  # unsigned, and too long
    answer = httpx.post(
        platforms.feishu.hook_url, content=json.dumps({"msg_type": "interactive", "card": feishu.card(digest)}).encode()
    )
    assert answer.status_code == 200 and answer.json()["code"] == 9499
