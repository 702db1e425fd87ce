"""An open issue is never called closed: its fix PRs' state is theirs, not the issue's (the
week's P0 issue, open, was described as "closed, landing unconfirmed" in the overview and in
every chat message because its fix PRs were closed)."""

from __future__ import annotations

from pytorch_insight.deliver.message import digest_of
from pytorch_insight.model import Comment
from tests.report.fixtures import report_of, week

ISSUE = "github:pytorch/pytorch#1001"


def with_closed_fix(issue_state: str = "open") -> list:
    items = week()
    for index, item in enumerate(items):
        if item.number == 1002:  # the fix PR: closed, no merge time, no landed commit
            items[index] = item.model_copy(update={"state": "closed", "merged": None})
        if item.number == 1001:
            items[index] = item.model_copy(update={"state": issue_state})
    return [item for item in items if item.kind != "commit"]


def test_an_open_issue_with_closed_fix_prs_is_still_open_everywhere() -> None:
    for lang, closed in (("en", "closed, landing unconfirmed"), ("zh", "已关闭，合入未确认")):
        report = report_of(with_closed_fix(), lang)
        entry = next(entry for entry in report.focus if entry.id == ISSUE)
        assert entry.analysis.fix_state == "unconfirmed"
        assert closed not in report.overview and closed not in entry.conclusion
        assert ("still open" if lang == "en" else "仍开放") in entry.conclusion
        digest = digest_of(report, 10, None)
        line = next(e.line for e in digest.entries if e.ref == "#1001")
        assert closed not in line and closed not in digest.overview


def test_an_open_issue_a_comment_says_a_pr_addressed_quotes_it_instead_of_an_unknown_landing() -> None:
    items = with_closed_fix()
    said = Comment(id=7, author="maintainer", date="2026-04-10T09:00:00Z", body="Addressed in #1002, so this can go.")
    for index, item in enumerate(items):
        if item.number == 1001:
            items[index] = item.model_copy(update={"comments": [*item.comments, said]})
    for lang, unknown in (("en", "does not show whether"), ("zh", "无法确认是否已合入")):
        entry = next(entry for entry in report_of(items, lang).focus if entry.id == ISSUE)
        assert entry.analysis.fix_state == "unconfirmed"
        assert "Addressed in #1002" in entry.conclusion and unknown not in entry.conclusion
        assert ("still open" if lang == "en" else "仍开放") in entry.conclusion


def test_a_closed_issue_with_closed_fix_prs_is_closed() -> None:
    report = report_of(with_closed_fix("closed"))
    entry = next(entry for entry in report.focus if entry.id == ISSUE)
    assert entry.analysis.fix_state == "closed"
