"""Actions aimed at the item to act on, and urgency that follows from harm and fix state: a fix PR is
reviewed and landed itself, an open issue is tracked, an open unfixed wrong result outranks a fixed
edge case, and every urgency is stated with its reason."""

from __future__ import annotations

import pytest

from pytorch_insight.report.model import FocusEntry
from tests.pipeline.helpers import item
from tests.report.fixtures import report_of

WRONG = "Under torch.compile the gradients are wrong: `x.grad` differs from eager by 1e-1 on every step."
EDGE = "Calling `torch.empty` with a size of -1 in a nested tensor crashes the interpreter with a segfault."


def focus(*items, lang: str = "en") -> dict[str, FocusEntry]:  # noqa: ANN002 (items)
    return {entry.ref: entry for entry in report_of(list(items), lang).focus}


def week() -> dict[str, FocusEntry]:
    return focus(
        item(4001, "Wrong gradients from compiled backward", WRONG, labels=["high priority"]),
        item(4002, "Segfault on a negative size in nested tensors", EDGE, labels=["high priority"], state="closed"),
        item(4003, "Reject negative sizes in nested tensors", "Fixes #4002", kind="pull_request", state="merged"),
        item(4004, "Crash in the flex attention backward", "The backward crashes with an illegal memory access."),
        item(4005, "Fix the flex attention backward crash", "Fixes #4004", kind="pull_request"),
    )


def test_a_fix_pr_is_reviewed_itself_not_its_issue() -> None:
    # Its issue is outside the window, so the PR leads its story whatever the ranking.
    entry = focus(
        item(
            4006, "Fix the flex attention backward crash", "Fixes #3999: an illegal memory access.", kind="pull_request"
        )
    )["#4006"]
    assert "review this PR (#4006)" in entry.reason
    assert "review #3999" not in entry.reason and entry.action == "follow"


def test_an_open_unfixed_issue_is_tracked() -> None:
    entry = week()["#4001"]
    assert entry.action == "track" and "track #4001" in entry.reason


def test_an_open_wrong_result_outranks_a_fixed_edge_case() -> None:
    entries = week()
    open_wrong = entries["#4001"]
    fixed_edge = next(e for e in entries.values() if "#4002" in (e.ref, *e.story))  # its story, led by its fix
    assert open_wrong.urgency == "P0"
    assert fixed_edge.urgency in ("P1", "P2")
    assert "check that your build contains the fix #4003" in fixed_edge.reason


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_urgency_is_stated_with_its_reason(lang: str) -> None:
    entries = focus(
        item(4001, "Wrong gradients from compiled backward", WRONG, labels=["high priority"]),
        item(4002, "Segfault on a negative size in nested tensors", EDGE, labels=["high priority"], state="closed"),
        item(4003, "Reject negative sizes in nested tensors", "Fixes #4002", kind="pull_request", state="merged"),
        lang=lang,
    )
    separator = "：" if lang == "zh" else ": "
    for entry in entries.values():
        assert separator in entry.action_text and entry.action_text.split(separator, 1)[1].strip()
    because = entries["#4001"].action_text
    assert (
        ("错误结果" in because and "仍开放" in because)
        if lang == "zh"
        else ("still open" in because and "a wrong result" in because)
    )


def test_a_closed_fix_pr_is_checked_for_having_landed() -> None:
    """PyTorch closes the PRs it lands: a closed fix of a wrong result is neither dropped to "watch"
    nor called open; the reader checks whether it landed."""
    entries = focus(
        item(
            4101,
            "Fix wrong fp8 values on Blackwell",
            "This produces incorrect values when converting.",
            kind="pull_request",
            state="closed",
            labels=["high priority"],
        ),
    )
    entry = entries["#4101"]
    assert entry.urgency == "P1" and "check whether #4101 landed" in entry.reason
    assert entry.action_text.endswith("the problem it fixes is a wrong result")


def test_a_closed_issue_with_a_closed_fix_is_checked_at_its_fix() -> None:
    entries = focus(
        item(4201, "Wrong results from compiled floor_divide", WRONG, state="closed", labels=["high priority"]),
        item(4202, "Guard floor_divide by zero in codegen", "Fixes #4201", kind="pull_request", state="closed"),
    )
    entry = next(e for e in entries.values() if "#4201" in (e.ref, *e.story))
    assert "check whether #4202 landed" in entry.reason
    assert "still open" not in entry.action_text


def test_an_open_issue_whose_fix_pr_closed_unconfirmed_is_not_said_to_have_no_fix() -> None:
    # The PR closed; whether it landed the data cannot tell: check that PR, and never say the issue
    # has no landed fix.
    entries = focus(
        item(4010, "Wrong gradients from compiled backward", WRONG, labels=["high priority"]),
        item(4011, "Fix the compiled backward gradients", "Fixes #4010", kind="pull_request", state="closed"),
    )
    entry = next(e for e in entries.values() if "#4010" in (e.ref, *e.story))
    assert "no landed fix" not in entry.reason
    assert "#4011" in entry.reason and entry.urgency == "P1"


def test_an_issue_titled_as_a_proposal_is_read_and_discussed_and_once_closed_read_for_its_outcome() -> None:
    told = "This proposal adds a plugin API for data loaders and asks for feedback on its shape."
    entries = focus(
        item(4101, "[RFC] A plugin API for data loaders", told),
        item(4102, "[RFC] Support for the next interpreter release", told, state="closed"),
    )
    assert (entries["#4101"].action, entries["#4101"].urgency) == ("follow", "P1")
    assert "read #4101 and comment" in entries["#4101"].reason
    # closed, it asks for no comments, and no fix is missing: "no landed fix" would call it a bug
    assert "read #4102 to see how it ended" in entries["#4102"].reason
    assert "no landed fix" not in entries["#4102"].reason


def test_a_landed_revert_is_no_fix_to_check_for() -> None:
    reverted = item(
        4101, "[ROCm] Make hipBLASLt the default BLAS library", "Switches the default.", kind="pull_request"
    )
    revert = item(
        4102,
        'Revert "[ROCm] Make hipBLASLt the default BLAS library"',
        "This reverts commit 0123abc. It breaks the nightly wheels.",
        kind="pull_request",
        state="merged",
        labels=["high priority"],
    )
    entry = next(e for e in focus(reverted, revert).values() if "#4102" in (e.ref, *e.story))
    assert "contains the fix" not in entry.reason and "#4102" in entry.reason
