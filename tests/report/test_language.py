"""The report writes its own sentences in the report's language: Chinese in the zh report (quotes,
code, names and references set aside), and no Chinese in the en report."""

from __future__ import annotations

import pytest

from pytorch_insight.report.language import CJK, chinese_share, own_text
from pytorch_insight.report.render import render_markdown
from tests.report.fixtures import report_of_week


def markdown(data: str, since: str, until: str, lang: str) -> str:
    return render_markdown(report_of_week(data, since, until, lang)[0])


@pytest.mark.parametrize(
    ("data", "since", "until"),
    [
        ("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-14", "2026-04-20"),
        ("pytorch-2026-03-16_2026-03-22.jsonl", "2026-03-16", "2026-03-22"),
    ],
)
def test_the_chinese_report_writes_chinese_and_the_english_one_english(data: str, since: str, until: str) -> None:
    share = chinese_share(markdown(data, since, until, "zh"))
    assert share.share >= 0.85, share  # quotes, code and names set aside
    assert not CJK.search(own_text(markdown(data, since, until, "en")))


def test_the_measure_sets_aside_quotes_code_names_and_references() -> None:
    text = "## 1. 概览\n\n报告的问题：崩溃（“segfaults on exit”），涉及硬件 H100，见 #123 与 `torch.compile`。\n"
    share = chinese_share(text)
    assert share.foreign == 0 and share.native > 10
    assert chinese_share("## 2. Focus\n\nthis sentence was left in English\n").share == 0.0
