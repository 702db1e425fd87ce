"""Each chat gets the markup its platform renders, from one document model: the overview's area
names bold in Slack's mrkdwn (`*x*`), Feishu's lark_md (`**x**`) and DingTalk's markdown
(`**x**`, paragraphs kept apart by a blank line); the report's own Markdown never arrives as
characters, and text from the sources (a title like `*stars*`) is never formatted. The messages
are the ones the local platforms accepted, read with each platform's documented syntax."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytorch_insight.config import load_profile
from pytorch_insight.deliver import slack
from tests.deliver.conftest import Platforms
from tests.deliver.test_deliver import deliver

AREA_NAMES = {name for area in load_profile("pytorch").areas for name in (area.name.zh, area.name.en)}
ZWSP = "\u200b"


def spans(mark: str, text: str) -> list[str]:
    """The spans Slack formats with `mark` (its documented rule: the opening mark at the start or
    after a space or an opening bracket, the closing one before a space, punctuation or the end,
    no space just inside either)."""
    m = re.escape(mark)
    pattern = rf"(?:(?<=^)|(?<=[\s(]))({m}(?=[^\s{m}])[^{m}\n]*?(?<=[^\s{m}]){m})(?=$|[\s.,;:!?)\]])"
    return [found[1:-1] for found in re.findall(pattern, text, re.MULTILINE)]


def themes(platforms: Platforms) -> list[dict[str, Any]]:
    return platforms.receiver.accepted[0]["overview"]["themes"]  # the zh report, as the webhook got it


def test_each_platform_gets_its_own_markup(capsys: pytest.CaptureFixture[str], platforms: Platforms) -> None:
    code, _, err = deliver(capsys, platforms)
    assert code == 0, err
    names = [theme["name"] for theme in themes(platforms)]
    assert names and all(name in AREA_NAMES for name in names)

    # Slack mrkdwn: bold is *single* asterisks; nothing else of the text is formatted.
    sections = [b["text"]["text"] for b in platforms.slack.accepted[0]["blocks"] if b["type"] == "section"]
    overview = sections[0]
    assert "**" not in "".join(sections)
    for name in names:
        assert f"*{name}*: " in overview
    allowed = set(names) | {"重点条目"}
    for text in sections:
        assert all(span in allowed or span.startswith("<https://") for span in spans("*", text)), text
        for mark in "_~`":
            assert spans(mark, text) == [], (mark, text)

    # Feishu lark_md: the lead-in bold in a lark_md element; the text plain, never Markdown.
    elements = platforms.feishu.accepted[0]["card"]["elements"]
    texts = [element["text"] for element in elements if element.get("tag") == "div"]
    plain = [text["content"] for text in texts if text["tag"] == "plain_text"]
    lark = [text["content"] for text in texts if text["tag"] == "lark_md"]
    assert not any("**" in content for content in plain)
    leads = [content for content in lark if content.startswith("**") and content.endswith("**")]
    assert all(lead.strip("*") in AREA_NAMES | {"Top items"} for lead in leads)
    assert len([lead for lead in leads if lead.strip("*") in AREA_NAMES]) == len(names)

    # DingTalk markdown: one paragraph per area, each opening with its bold name, unescaped.
    text = platforms.dingtalk.accepted[0]["markdown"]["text"]
    assert "\\*\\*" not in text
    paragraphs = text.split("\n\n")
    for name in names:
        assert any(paragraph.startswith(f"**{name}**：") for paragraph in paragraphs), name


@pytest.mark.parametrize("title", ["*stars* and _under_ ~strike~ `code`", "__init__ *", "a*b*c <x> & y"])
def test_a_source_title_is_never_formatted_in_slack(title: str) -> None:
    text = f"*#1005* {slack.escape(title)}"
    assert spans("*", text) == ["#1005"] and all(spans(mark, text) == [] for mark in "_~`")
    assert "<x>" not in text and "&lt;x&gt;" in slack.escape(title) if "<x>" in title else True
    assert (
        slack.escape(title).replace(ZWSP, "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == title
    )
