"""The overview tells the week's stories per area in sentences of the report's language, composed from
the claims: each story by its number and its quoted title, what is fixed and by which change, what is
still open, and the story to act on first with the reason for its urgency; never a list of category
words in front of quotes."""

from __future__ import annotations

import re

import pytest

from pytorch_insight.pipeline.reasons import FACT_NAMES
from pytorch_insight.report.language import CJK, chinese_share
from tests.pipeline.helpers import item
from tests.report.fixtures import fixed_report, report_of, report_of_week

WRONG = "Under torch.compile the gradients are wrong: `x.grad` differs from eager on every step."


def test_a_story_says_what_happened_and_what_is_fixed() -> None:
    zh, en = fixed_report("zh").overview.themes[0].text, fixed_report("en").overview.themes[0].text
    title = "“torch.compile max-autotune gives wrong results for SDPA”"
    assert zh == f"编译器栈：本周有 1 项重点动态。#1001 报告了{title}（提及 H100），修复 #1002 已合入。"
    assert en == (
        f"Compiler stack: one story in focus this week. #1001 reported {title} (mentioning H100), "
        "and its fix #1002 has landed."
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_open_problem_is_named_as_the_one_to_act_on_with_its_reason(lang: str) -> None:
    report = report_of(
        [
            item(5001, "Wrong gradients from compiled backward", WRONG, labels=["high priority"]),
            item(5002, "Inductor codegen cleanup", "Refactors the wrapper codegen.", kind="pull_request"),
        ],
        lang,
    )
    text = next(theme.text for theme in report.overview.themes if "#5001" in theme.text)
    if lang == "zh":
        assert "#5001 报告了“Wrong gradients from compiled backward”，收集到的数据中未见修复 PR" in text
        assert "最需要立即处理的是 #5001：问题仍开放，且来源报告的是错误结果" in text
    else:
        assert (
            "#5001 reported “Wrong gradients from compiled backward”; the collected data shows no fix PR for it" in text
        )
        assert "Act now on #5001: still open, and its sources report a wrong result" in text


@pytest.mark.parametrize("lang", ["zh", "en"])
# Which one states the problem: the fix alone, or the issue (either may lead the story: the red list
# marks the whole story's members).
@pytest.mark.parametrize("states", ["#5102", "#5101"])
def test_a_closed_fix_is_never_told_as_pending_nor_its_issue_as_without_one(lang: str, states: str) -> None:
    from pytorch_insight.model import Comment

    talk = [Comment(author=f"user{n}", date="2026-04-09T10:00:00Z", body="Same here.") for n in range(4)]
    report = report_of(
        [
            item(5101, "pow on XPU", WRONG, comments=talk) if states == "#5101" else item(5101, "pow on XPU"),
            item(
                5102,
                "Fix the pow dispatch",
                "Fixes #5101" + ("" if states == "#5101" else f"\n\n{WRONG}"),
                kind="pull_request",
                state="closed",
            ),
        ],
        lang,
    )
    text = " ".join(theme.text for theme in report.overview.themes)
    closed = {"zh": "已在 GitHub 上关闭", "en": "closed on GitHub"}[lang]
    assert re.search(r"#510[12] (?:报告了|是|reported|“[^”]*” fixes)", text) and closed in text
    assert {"zh": "没有修复 PR", "en": "no fix PR"}[lang] not in text
    assert {"zh": "尚待审阅合入", "en": "not yet landed"}[lang] not in text


@pytest.mark.parametrize("state", ["open", "closed"])
def test_an_issue_linked_with_a_pr_by_url_is_never_told_as_without_one(state: str) -> None:
    report = report_of(
        [
            item(
                5201,
                "Wrong values from pow on XPU",
                f"{WRONG} Folded into https://github.com/pytorch/pytorch/pull/5202",
                state=state,
            ),
            item(5202, "Rework the pow dispatch", "Reworks how pow picks its kernel.", kind="pull_request"),
        ],
        "en",
    )
    entry = next(e for e in report.focus if e.ref == "#5201")
    assert entry.fix_text.endswith("PRs linked with it: #5202 (open)") and "no" not in entry.fix_text
    overview = " ".join(theme.text for theme in report.overview.themes)
    assert "no fix PR" not in overview and "links no fix PR" not in entry.action_text
    if state == "open":
        assert "#5201 reported “Wrong values from pow on XPU”; it is linked with #5202" in overview


def test_a_pr_its_description_links_outside_the_window_is_named_as_not_collected() -> None:
    body = f"{WRONG}\n\nBump PR: https://github.com/pytorch/pytorch/pull/5301"
    report = report_of([item(5300, "Wrong values from pow on XPU", body, state="closed")], "en")
    (entry,) = [e for e in report.focus if e.ref == "#5300"]
    assert entry.fix_text == "closed on GitHub; PRs linked with it: #5301 (not in the collected data)"


def test_a_pr_a_report_names_as_its_problems_origin_is_not_listed_with_its_fix_state() -> None:
    body = (
        f"{WRONG}\n\nSince https://github.com/pytorch/pytorch/pull/5401 the kernel rounds down. "
        "The check was recently added in https://github.com/pytorch/pytorch/pull/5402 for other shapes. "
        "https://github.com/pytorch/pytorch/pull/5403 introduced the second path. "
        "torch 2.9 switched the kernel to a new tiling ([#5405](https://github.com/pytorch/pytorch/pull/5405)). "
        # the words before a Markdown link lead to its text, which stands between them and its target
        "torch 2.9 moved the integer reduction onto a new pairwise tree ([#5406](https://github.com/pytorch/pytorch/pull/5406))."
        "\n\nI added a fix in https://github.com/pytorch/pytorch/pull/5404"
    )
    report = report_of([item(5400, "Wrong values from pow on XPU", body, state="open")], "en")
    (entry,) = [e for e in report.focus if e.ref == "#5400"]
    assert "#5404 (not in the collected data)" in entry.fix_text
    assert not any(f"#{n}" in entry.fix_text for n in (5401, 5402, 5403, 5405, 5406))


WEEKS = [
    ("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-14", "2026-04-20"),
    ("pytorch-2026-03-16_2026-03-22.jsonl", "2026-03-16", "2026-03-22"),
]


@pytest.mark.parametrize(("data", "since", "until"), WEEKS)
def test_the_real_weeks_overview_is_prose_in_the_reports_language(data: str, since: str, until: str) -> None:
    zh = report_of_week(data, since, until, "zh")[0]
    en = report_of_week(data, since, until, "en")[0]
    for theme in zh.overview.themes:
        told = [e for e in zh.focus if e.id in theme.items][:3]
        assert all(entry.ref in theme.text for entry in told)  # stories are named by number
        assert len(re.findall("。", theme.text)) >= 2  # an introduction and the stories, as sentences
        assert not any(f"{name['zh']}（“" in theme.text for name in FACT_NAMES.values())  # no category + quote
        own = theme.text.removeprefix(theme.name)  # the profile's area names keep their technical words
        assert chinese_share(f"## 1. 概览\n\n{own}\n").share >= 0.85, theme.text
    for theme in en.overview.themes:
        assert not CJK.search(theme.text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_story_says_whom_its_sources_name(lang: str) -> None:
    body = "Since the upgrade vLLM serving crashes with a segfault on H100 in the compiled decode step."
    report = report_of([item(5101, "Segfault in compiled decode", body, labels=["high priority"])], lang)
    text = report.overview.themes[0].text
    assert ("（提及 vLLM、H100）" if lang == "zh" else " (mentioning vLLM, H100)") in text


def test_a_story_is_told_in_the_area_its_title_tag_names() -> None:
    # The CUDA words (the caching allocator) would put it first in CUDA / NVIDIA, which the profile
    # lists before AMD ROCm; its "[ROCm]" tag says whose story it is.
    report = report_of(
        [
            item(
                5301,
                "[ROCm] the CUDA caching allocator hands out stale blocks after a graph replay",
                WRONG,
                labels=["module: rocm", "module: CUDACachingAllocator"],
            )
        ],
        "en",
    )
    (theme,) = [theme for theme in report.overview.themes if "#5301" in theme.text]
    assert theme.area == "rocm"


def test_a_story_without_a_title_tag_is_told_in_the_area_a_triager_labelled() -> None:
    # Copied compiler people would put it in the compiler stack, first in the profile's order.
    report = report_of(
        [
            item(
                5302,
                "Resharded checkpoint loads write shard two into shard one",
                f"{WRONG}\n\ncc @ezyang @zou3519",
                labels=["oncall: distributed checkpointing"],
            )
        ],
        "en",
    )
    (theme,) = [theme for theme in report.overview.themes if "#5302" in theme.text]
    assert theme.area == "distributed"


def test_every_area_holding_a_high_priority_story_keeps_its_paragraph() -> None:
    tags = ["MPS", "ROCm", "XPU", "inductor", "distributed"]
    report = report_of(
        [
            item(5400 + n, f"[{tag}] Wrong values after the update", WRONG, labels=["high priority"])
            for n, tag in enumerate(tags)
        ],
        "en",
    )
    told = " ".join(theme.text for theme in report.overview.themes)
    assert len(report.overview.themes) == len(tags)
    assert all(f"#{5400 + n}" in told for n in range(len(tags)))


def test_a_pr_opened_before_the_report_is_background_not_a_fix_it_is_linked_with() -> None:
    body = (
        f"{WRONG}\n\nThe grommet path was sped up earlier in https://github.com/pytorch/pytorch/pull/5450; "
        "some shapes are still slow. See also https://github.com/pytorch/pytorch/pull/5460."
    )
    earlier = item(5460, "Tile the grommet kernel", "Tiles the grommet kernel.", kind="pull_request")
    report = report_of([item(5500, "Wrong values from the grommet path", body, state="open"), earlier], "en")
    (entry,) = [e for e in report.focus if e.ref == "#5500"]
    assert "#5450" not in entry.fix_text and "#5460" not in entry.fix_text
    assert "linked with" not in " ".join(theme.text for theme in report.overview.themes)
    # a reporter may send the PR first: words before its link that call it a fix keep it
    sent_first = f"{WRONG}\n\nMy patch for the grommet path: https://github.com/pytorch/pytorch/pull/5590"
    report = report_of([item(5600, "Wrong values from the grommet path", sent_first, state="open")], "en")
    (entry,) = [e for e in report.focus if e.ref == "#5600"]
    assert "#5590 (not in the collected data)" in entry.fix_text
