"""How the report words a fix state: an umbrella by what it tracks, an open PR as itself, a field
quoted from a linked item with that item named."""

import pytest

from pytorch_insight.model import Comment, Item
from pytorch_insight.report.asof import as_of
from pytorch_insight.report.model import FocusEntry
from pytorch_insight.report.render import render_html, render_markdown
from tests.pipeline.helpers import item
from tests.report.fixtures import WINDOW, report_of, report_of_week

FORTNIGHT = "pytorch-2026-04-07_2026-04-20.jsonl"
HANG = "All-reduce hangs with the new communication library"
HANG_BODY = "The job hangs in the first all_reduce on 16 GPUs."


def focus_entry(items: list[Item], number: int) -> FocusEntry:
    """The focus entry of item #`number` in the report of `items`."""
    [entry] = [e for e in report_of(items, window=WINDOW).focus if e.ref == f"#{number}"]
    return entry


def closed_report(number: int, *said: str, title: str = HANG, body: str = HANG_BODY) -> Item:
    """A closed issue whose thread is the maintainer's comments `said`, in order."""
    comments = [Comment(author="maintainer", date="2026-04-09", body=text) for text in said]
    return item(number, title, body, state="closed", comments=comments)


def closed_fix(number: int, comment: str) -> tuple[Item, FocusEntry]:
    """A closed PR fixing a crash whose thread holds one comment, and its focus entry."""
    pr = item(
        number,
        "Fix a crash in the allocator on exit",
        "The allocator crashes with a segfault on exit when a stream is still pending.",
        kind="pull_request",
        state="closed",
        comments=[Comment(author="maintainer", date="2026-04-09", body=comment)],
    )
    return pr, focus_entry([pr], number)


def test_an_umbrella_counts_what_it_tracks() -> None:
    # A release umbrella listing eight issues, half of them collected: open, each stating a cause of its own.
    tracked = list(range(201, 209))
    collected = [
        item(
            number,
            f"[serving] Startup test {name} fails with the new release",
            f"## Summary\n\nThe {name} startup test fails because the warm cache key changed in the new release.",
        )
        for number, name in zip(tracked[:4], ["alpha", "beta", "gamma", "delta"], strict=True)
    ]
    body = (
        "WHEN ARE THE KEY DATES FOR THE NEXT RELEASE?\n\n- M1: Release announcement (1/6/26)\n"
        "- M2: Release branch cut (15/6/26)\n- M3: Release day (10/7/26)\n\n"
        "April 8, 2026: https://ci.example/serving/builds/101\n\n"
        + "".join(f"{i + 1}. [ ] https://github.com/pytorch/pytorch/issues/{n}\n" for i, n in enumerate(tracked))
        + "\ncc @dave @erin"
    )
    comment = Comment(author="frank", date="2026-04-09", body="Taking the first four of these.")
    items = [item(200, "[release 2.13] umbrella issue - serving CI failures", body, comments=[comment]), *collected]
    report = report_of(items, window=WINDOW)
    [umbrella] = [entry for entry in report.focus if entry.ref == "#200"]
    assert any(entry.analysis.root_cause for entry in report.focus if entry.ref != "#200")  # causes to borrow
    in_window = {item.number for item in items}
    missing = sum(number not in in_window for number in tracked)
    # every tracked issue in the window is open and none has a fix PR linked
    assert umbrella.analysis.fix_state == "tracking"
    assert f"tracks 8: 0 closed, 0 with a fix PR, {8 - missing} open ({missing} not in the collected data)" in (
        umbrella.conclusion
    )
    assert "root_cause" not in umbrella.quoted_refs  # one tracked report's cause is not the umbrella's


def test_a_borrowed_quote_names_its_source() -> None:
    report, _ = report_of_week(FORTNIGHT, "2026-04-07", "2026-04-13")
    borrowed = [(entry, field, source) for entry in report.focus for field, source in entry.quoted_refs.items()]
    assert borrowed
    markdown, html = render_markdown(report), render_html(report)
    for _, _, source in borrowed:
        assert f"(quoted from {source})" in markdown
        # named once in the HTML, as text above the quote, not again in the quote's own label
        assert f'<p class="muted quote-label">quoted from {source}</p><blockquote class="quote">' in html
        assert f'title="quoted from {source}"' not in html


def test_what_a_fix_does_is_no_account_of_the_report_it_fixes() -> None:
    def entry_of(fix_body: str) -> FocusEntry:
        bug = item(70, "Compiled sampler accepts probabilities above one", "", labels=["high priority"])
        fix = item(71, "[inductor] Lower the sampler explicitly", fix_body, kind="pull_request")
        [entry] = [e for e in report_of([bug, fix], window=WINDOW).focus if e.ref == "#70"]
        return entry

    change = entry_of("This updates the sampler lowering to check its range. Fixes #70")
    assert "summary" not in change.quoted_refs and "root_cause" not in change.quoted_refs
    problem = entry_of("The decomposition never checks that probabilities lie in [0, 1]. Fixes #70")
    assert problem.quoted_refs.get("summary") == "#71"


def test_an_open_pull_request_is_said_to_be_open_not_a_fix_pr_with_no_name() -> None:
    report, _ = report_of_week(FORTNIGHT, "2026-04-14", "2026-04-20")
    open_prs = [entry for entry in report.focus if entry.kind == "pull_request" and entry.analysis.fix_state == "open"]
    assert open_prs
    markdown = render_markdown(report)
    assert "fix PR open: ." not in markdown and "fix PR open: \n" not in markdown
    assert all("PR open, not merged yet" in entry.conclusion for entry in open_prs if not entry.analysis.fix_refs)


def test_the_comments_a_fix_state_quotes_are_its_evidence() -> None:
    # A merge asked for in a closed PR's thread: the fix state quotes it, and the entry's evidence
    # names the thread and the words, as for every other claim.
    pr, entry = closed_fix(21, "@pytorchbot merge\nthanks")
    assert "; maintainer asked for a merge (“@pytorchbot merge”)" in entry.fix_text
    assert {(e.item, e.quote) for e in entry.evidence} >= {(pr.id, "comment: maintainer: @pytorchbot merge")}


def test_a_partial_fix_is_not_called_a_fix_and_a_closed_report_is_not_asked_whether_it_landed() -> None:
    bug = item(30, "Compiled model leaks memory and crashes with a segfault on H100", state="closed")
    body = (
        "Partially fixes #{}\n\nThe cache keeps every tensor alive after compile, so host memory grows and it crashes."
    )
    partial = item(
        31, "Release the cache that keeps tensors alive", body.format(30), kind="pull_request", state="closed"
    )
    [story] = report_of([bug, partial], window=WINDOW).focus
    assert story.ref == "#30" and story.relations == ["partial fix PR: #31"]
    # Its issue outside the window: the change leads, and says it fixes only part of it.
    alone = item(32, "Release the cache that keeps tensors alive", body.format(29), kind="pull_request", state="closed")
    [entry] = report_of([alone], window=WINDOW).focus
    assert entry.conclusion.startswith("Partly fixes #29, a problem stated as") and entry.relations == [
        "partly fixes #29"
    ]
    # the overview says so too
    overview = render_markdown(report_of([alone], window=WINDOW)).split("## 2.")[0]
    assert "fixes #29 (in part) and is closed on GitHub" in overview
    # A report closed with no fix in the data: whether it "landed" is no question for it.
    lone = item(40, "Segfault in the allocator on exit", state="closed")
    [entry] = [e for e in report_of([lone], window=WINDOW).focus if e.ref == "#40"]
    assert entry.fix_text == "closed on GitHub; no fix PR referenced in the collected data"


def test_a_closed_pr_its_thread_calls_superseded_is_said_to_be_so_and_left_alone() -> None:
    pr, entry = closed_fix(22, "Superseded by #25, which keeps the fallback.")
    assert "a comment says it was superseded or abandoned (“Superseded by #25" in entry.fix_text
    _, passed_over = closed_fix(28, "Thanks, but we went with the other PR.")
    assert "superseded or abandoned (“Thanks, but we went with the other PR.”)" in passed_over.fix_text
    assert entry.action == "ignore" and (pr.id, "comment: Superseded by #25, which keeps the fallback.") in {
        (e.item, e.quote) for e in entry.evidence
    }


def test_a_closed_pr_a_comment_closes_with_its_reason_is_said_to_be_abandoned() -> None:
    _, entry = closed_fix(31, "Closing as the sprocket rewrite already covers the grommet case.")
    assert "superseded or abandoned (“Closing as the sprocket rewrite already covers the grommet case.”)" in (
        entry.fix_text
    )
    _, alone = closed_fix(32, "Closing this old draft.")
    assert "superseded or abandoned (“Closing this old draft.”)" in alone.fix_text
    # closed because it landed elsewhere, or pointing at where: no abandonment
    for said in ("Closing as this was landed internally.", "Closing via the sprocket train."):
        _, landed = closed_fix(33, said)
        assert "abandoned" not in landed.fix_text


def test_a_report_whose_fix_was_replaced_asks_about_the_report_not_the_replaced_fix() -> None:
    pr, _ = closed_fix(26, "Thanks! We'll land #29 instead, it keeps the fallback.")
    pr = pr.model_copy(update={"body": f"Fixes #27\n\n{pr.body}"})
    # the report ranks above its fix (a triager's high priority, a discussion), so it leads their story
    report = item(
        27,
        "Segfault in the allocator on exit",
        "The allocator segfaults on exit.",
        state="closed",
        labels=["high priority"],
        n_comments=3,
    )
    [entry] = [e for e in report_of([report, pr], window=WINDOW).focus if e.ref == "#27"]
    assert entry.fix_text == (
        "closed on GitHub; linked PRs: #26; a comment on #26 says it was superseded or abandoned "
        "(“We'll land #29 instead, it keeps the fallback.”)"
    )
    assert "whether #26 landed" not in entry.reason and "#27" in entry.reason
    assert "a comment says its linked PR was superseded or abandoned" in entry.action_text


def test_a_closed_pr_its_thread_says_landed_is_said_to_be_so() -> None:
    _, entry = closed_fix(23, "Thanks, this was merged internally as D123.")
    assert (
        entry.fix_text
        == "closed on GitHub, and a comment says it landed (“Thanks, this was merged internally as D123.”)"
    )
    assert entry.action == "track" and "check that your build contains the fix #23" in entry.reason


def test_a_closed_pr_its_thread_says_broke_something_landed_and_a_hedge_says_nothing() -> None:
    _, entry = closed_fix(28, "This PR caused two failures in the nightly vision tests, see the linked run.")
    assert entry.fix_text.startswith("closed on GitHub, and a comment says it landed (“This PR caused two failures")
    _, hedged = closed_fix(29, "This PR may have caused the nightly failures, not sure yet.")
    assert "does not show whether it landed" in hedged.fix_text


def test_an_undated_close_is_read_with_the_later_comment_saying_it_landed() -> None:
    # The close carries no date, so "closed" may come from after the window: so may how it closed.
    pr, _ = closed_fix(24, "Stamped as the diff has been landed D123")
    pr = pr.model_copy(update={"comments": [c.model_copy(update={"date": "2026-04-16"}) for c in pr.comments]})
    then = as_of(pr, WINDOW.end)
    assert then.comments == [] and then.state == "closed"
    report = report_of([then], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#24"]
    assert (
        entry.fix_text == "closed on GitHub, and a comment says it landed (“Stamped as the diff has been landed D123”)"
    )
    assert "#24 “Fix a crash in the allocator on exit” was closed on GitHub, and a comment says it landed" in (
        render_markdown(report)
    )
    dated = pr.model_copy(update={"closed": "2026-04-10T09:00:00Z"})  # closed in the window: later words are later
    [entry] = [e for e in report_of([as_of(dated, WINDOW.end)], window=WINDOW).focus if e.ref == "#24"]
    assert "a comment says it landed" not in entry.fix_text


def test_the_overview_says_a_closed_pr_had_a_merge_asked_for_not_that_none_was_confirmed() -> None:
    pr, _ = closed_fix(25, "@pytorchbot merge -f")
    overview = render_markdown(report_of([pr], window=WINDOW)).split("## 2.")[0]
    assert "#25 “Fix a crash in the allocator on exit” was closed on GitHub; a comment asked for a merge" in overview
    assert "without a confirmed merge" not in overview


def test_a_comment_that_another_pr_landed_says_nothing_of_this_one() -> None:
    _, entry = closed_fix(26, "https://github.com/pytorch/pytorch/pull/9101 has been landed. Please rebase.")
    assert "a comment says it landed" not in entry.fix_text
    assert "does not show whether it landed" in entry.fix_text


def test_a_closed_report_its_thread_says_fixed_is_said_to_be_so() -> None:
    def entry_of(number: int, comment: str) -> FocusEntry:
        return focus_entry([closed_report(number, comment)], number)

    said = entry_of(60, "Confirmed: this is fixed in the 2.27.3 release of the library. Closing.")
    assert said.fix_text == (
        "closed on GitHub; no fix PR in the collected data, and a comment says it is fixed "
        "(“Confirmed: this is fixed in the 2.27.3 release of the library.”)"
    )
    assert "a comment says it is fixed" in said.action_text and "no landed fix" not in said.action_text
    # A change it names as what ended it, or its fix said to have landed, says so too.
    for number, comment in ((64, "Addressed in #700, closing."), (65, "The fix has landed on main, so closing this.")):
        assert entry_of(number, comment).fix_text.endswith(f"a comment says it is fixed (“{comment}”)")
    # Beside a PR the thread names, the data holding no fix PR is not said: only that it links none.
    named = focus_entry(
        [
            closed_report(
                66,
                "https://github.com/pytorch/pytorch/pull/901 to fix it.",
                "The fix has landed on main, so closing this.",
            )
        ],
        66,
    )
    assert "a comment says it is fixed" in named.action_text and "no fix PR" not in named.action_text
    assert "a comment speaks of a PR, which the data does not link to the issue" in named.action_text
    assert named.fix_text.endswith(
        "a comment names a PR (maintainer: “https://github.com/pytorch/pytorch/pull/901 to fix it.”); "
        "a comment says it is fixed (“The fix has landed on main, so closing this.”)"
    )
    # a hope, a question or a condition says nothing
    for comment in (
        "This should be fixed in the next release.",
        "Is this fixed on nightly?",
        "Once the fix has landed we can close this.",
    ):
        assert "a comment says it is fixed" not in entry_of(61, comment).fix_text
    # With a closed fix PR whose landing the data does not show, the comment is said too.
    bug = closed_report(62, "This is fixed in the 2.27.3 release.")
    fix = item(63, "Work around the all-reduce hang", "Fixes #62", kind="pull_request", state="closed")
    linked = focus_entry([bug, fix], 62)
    assert linked.fix_text == (
        "closed on GitHub; the data does not show whether its linked PRs (#63) landed, and a comment says it is "
        "fixed (“This is fixed in the 2.27.3 release.”)"
    )
    assert "a comment says it is fixed" in linked.action_text and "no landed fix" not in linked.action_text


def test_a_revert_asked_for_replaces_the_unknown_landing() -> None:
    pr, entry = closed_fix(24, '@pytorchmergebot revert -m "breaks the nightly build" -c nosignal')
    assert entry.fix_text == (
        "closed on GitHub; maintainer asked the merge tooling to revert it "
        '(“@pytorchmergebot revert -m "breaks the nightly build" -c nosignal”)'
    )
    assert "asks the merge tooling to revert it" in entry.action_text
    assert "check whether #24 was reverted, whether it landed again since" in entry.reason


def test_a_pr_a_comment_names_is_quoted_instead_of_no_fix_pr_being_referenced() -> None:
    said = "The vendored solver bump (https://github.com/pytorch/pytorch/pull/900) should address it."
    bug = closed_report(
        50,
        f"Looked into it.\n\n{said}",
        title="The pooling layer uses far more memory since the upgrade",
        body="Peak memory doubled after upgrading.",
    )
    entry = focus_entry([bug], 50)
    assert entry.fix_text == (
        f"closed on GitHub; no fix PR linked to it in the collected data; a comment names a PR (maintainer: “{said}”)"
    )
    assert (bug.id, f"comment: maintainer: “{said}”") in {(e.item, e.quote) for e in entry.evidence}


def test_a_closed_report_a_pr_of_the_data_names_is_not_said_to_have_no_fix_pr() -> None:
    # The PR names the issue without presenting itself as a fix; a comment names another PR.
    said = "A wider index type is in https://github.com/pytorch/pytorch/pull/930 now."
    bug = closed_report(
        56,
        said,
        title="Prefix sums of a very long tensor come out wrong",
        body="The running total is wrong past two billion elements.",
    )
    # A triager's high priority makes the report carry its story whatever the models make of the PR.
    bug = bug.model_copy(update={"labels": ["high priority"]})
    change = item(57, "Use a 64-bit index in the scan kernel", "For #56\n\nThe index type is a template parameter.")
    change = change.model_copy(update={"kind": "pull_request", "state": "closed"})
    entry = focus_entry([bug, change], 56)
    assert entry.fix_text == (
        f"closed on GitHub; PRs that reference it: #57 (closed, landing unconfirmed); a comment names a PR "
        f"(maintainer: “{said}”)"
    )


def test_a_fix_a_comment_names_by_its_bare_number_is_quoted_too() -> None:
    said = "A fix is in #905; please try it on the nightly."
    bug = closed_report(
        51,
        said,
        title="Pooling on the new accelerator fails for long inputs",
        body="Pooling a long input raises an error.",
    )
    entry = focus_entry([bug], 51)
    assert entry.fix_text.endswith(f"a comment names a PR (maintainer: “{said}”)")


def test_the_last_comment_naming_a_pr_is_the_one_quoted() -> None:
    # An early comment names the change that caused the problem, a later one the change that fixes it.
    cause = "It started with https://github.com/pytorch/pytorch/pull/700 which changed the pool."
    fix = "https://github.com/pytorch/pytorch/pull/910 adds the missing fallback path."
    bug = item(
        53,
        "The pooling layer fails on the new accelerator",
        "Pooling raises an error on the new accelerator.",
        comments=[
            Comment(author="triager", date="2026-04-08", body=cause),
            Comment(author="vendor", date="2026-04-10", body=f"{fix}\n\nAll 24 tests pass here."),
        ],
    )
    [entry] = [e for e in report_of([bug], window=WINDOW).focus if e.ref == "#53"]
    assert entry.fix_text == f"no fix PR linked to it in the collected data; a comment names a PR (vendor: “{fix}”)"


def test_a_pr_named_only_after_the_window_bounds_the_no_fix_pr_said_by_its_end() -> None:
    # Told as of the window's end, the issue has no fix; the data holds a comment two weeks later
    # naming one, so "no fix PR in the collected data" would read false beside it.
    fix = "https://github.com/pytorch/pytorch/pull/930 adds the missing fallback path."
    bug = item(
        54,
        "The pooling layer fails on the new accelerator",
        "Pooling raises an error on the new accelerator.",
        comments=[
            Comment(author="triager", date="2026-04-09", body="Reproduced on the nightly."),
            Comment(author="vendor", date="2026-04-27", body=f"{fix}\n\nAll 24 tests pass here."),
        ],
    )
    then = as_of(bug, WINDOW.end)
    assert [c.author for c in then.comments] == ["triager"]  # the later comment is no part of the week
    report = report_of([then], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#54"]
    assert entry.fix_text == (
        f"no fix PR linked to it by the window's end; a later comment names a PR (vendor, 2026-04-27: “{fix}”)"
    )
    assert "its thread mentions a PR" in " ".join(theme.text for theme in report.overview.themes)
    # without a later comment naming one, the plain wording stands
    quiet = as_of(bug.model_copy(update={"comments": bug.comments[:1]}), WINDOW.end)
    [entry] = [e for e in report_of([quiet], window=WINDOW).focus if e.ref == "#54"]
    assert entry.fix_text == "no fix PR referenced in the collected data"


def test_a_test_that_closes_a_report_is_named_with_what_it_says_of_the_fix() -> None:
    # A PR adding only a test says "Fixes #N" and that the problem is gone: the closed report is
    # not said to have no fix PR, and the words are quoted as that PR's, not a comment's.
    gone = "The shutdown race was removed on main last week, so the hang no longer happens."
    bug = item(70, "The profiler hangs on exit with two streams", "The profiler hangs at exit.", state="closed")
    test = item(
        71,
        "Add a regression test for the profiler exit",
        f"Fixes #70\n\n{gone} This keeps a test of it.",
        kind="pull_request",
        state="closed",
    )
    report = report_of([bug, test], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#70"]
    assert entry.fix_text == (
        f"closed on GitHub; PRs that reference it: #71 (closed, landing unconfirmed); #71 says it is fixed (“{gone}”)"
    )
    assert "PRs reference it, but no fix is shown landing" in entry.action_text
    assert "no fix PR" not in entry.action_text
    overview = " ".join(theme.text for theme in report.overview.themes)
    assert "and was closed; #71 says it is fixed" in overview


ALLOCATOR_CRASH = "The allocator crashes with a segfault on exit when a stream is still pending."


def closed_allocator_fix(number: int) -> Item:
    return item(number, "Fix a crash in the allocator on exit", ALLOCATOR_CRASH, kind="pull_request", state="closed")


def test_a_closed_pr_a_later_pr_relands_is_said_to_be_relanded() -> None:
    original = closed_allocator_fix(60)
    reland = item(61, "[Reland] Fix a crash in the allocator on exit", ALLOCATOR_CRASH, kind="pull_request")
    entry = focus_entry([original, reland], 60)
    assert entry.fix_text == "closed on GitHub; #61 relands it"
    assert "does not show whether it landed" not in entry.conclusion
    assert "follow #61, which relands it, and check whether it landed" in entry.reason
    assert "a later PR relands it" in entry.action_text


def test_a_closed_pr_whose_cherry_pick_merged_is_said_to_have_it_merged() -> None:
    def merged_pick(number: int, title: str, body: str) -> Item:
        return item(number, title, body, kind="pull_request", state="merged")

    original = closed_allocator_fix(62)
    pick = merged_pick(63, "[release/9.1] Fix a crash in the allocator on exit", "Cherry-pick of #62 to the release.")
    entry = focus_entry([original, pick], 62)
    assert entry.fix_text == "closed on GitHub; its cherry-pick #63 is merged"
    assert "does not show whether it landed" not in entry.conclusion
    assert "a cherry-pick of it is merged" in entry.action_text
    assert "check that your build contains the fix #63" in entry.reason
    # A merged pick of several changes at once says the same of each change its list names.
    batch = merged_pick(
        64,
        "[Cherry-pick] Allocator fixes for the release",
        "Cherry-pick of the changes below to the release branch:\n"
        "- **Fix a crash in the allocator on exit (#62)**\n- **Another allocator fix (#99)**\n",
    )
    report = report_of([original, batch], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#62"]
    assert entry.fix_text == "closed on GitHub; its cherry-pick #64 is merged"
    assert "cherry-picked in #64" in entry.relations
    [line] = [theme.text for theme in report.overview.themes if "#62" in theme.text]
    assert "its cherry-pick #64 is merged" in line and "without a confirmed merge" not in line


def test_only_the_fixes_that_landed_are_said_to_have_landed() -> None:
    hangs = "The scheduler hangs forever on exit with two workers."
    bug = item(64, "The scheduler deadlocks on exit", hangs, labels=["high priority"])
    first = item(65, "Fix the scheduler deadlock on exit", "Fixes #64", kind="pull_request", state="closed")
    second = item(66, "Fix the scheduler deadlock on exit, take two", "Fixes #64", kind="pull_request", state="merged")
    third = item(67, "Join the scheduler workers before exit", "Fixes #64", kind="pull_request", state="merged")
    report = report_of([bug, first, second], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#64"]
    assert entry.fix_text == "fix landed: #66"
    assert "its fix #66 has landed" in " ".join(theme.text for theme in report.overview.themes)
    report = report_of([bug, first, second, third], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#64"]
    assert entry.fix_text == "fix landed: #66, #67"
    assert "its fixes #66, #67 have landed" in " ".join(theme.text for theme in report.overview.themes)


def test_several_fixes_under_review_or_closed_are_said_in_the_plural() -> None:
    hangs = "The loader hangs forever when a worker exits early."
    bug = item(90, "The loader deadlocks when a worker exits", hangs, labels=["high priority"])
    fixes = [
        item(n, f"Fix the loader deadlock, take {n - 90}", "Fixes #90", kind="pull_request", state=state)
        for n, state in ((91, "open"), (92, "open"))
    ]
    report = report_of([bug, *fixes], window=WINDOW)
    assert "its fixes #91, #92 are still under review" in " ".join(theme.text for theme in report.overview.themes)
    closed = [fix.model_copy(update={"state": "closed"}) for fix in fixes]
    report = report_of([bug, *closed], window=WINDOW)
    said = " ".join(theme.text for theme in report.overview.themes)
    assert "its fixes #91, #92 are closed on GitHub, landing not shown in the data" in said


def test_a_problem_named_by_a_label_is_said_to_be_triaged_not_stated() -> None:
    # The change's own words state no problem the rules read: its triage label names it.
    fix = item(52, "Check the index before the gather", "Fixes #51", kind="pull_request", labels=["module: crash"])
    [entry] = [e for e in report_of([fix], window=WINDOW).focus if e.ref == "#52"]
    assert entry.conclusion.startswith("Fixes #51, a problem triaged as “module: crash”")


def test_a_workaround_triagers_label_is_said_where_no_sentence_states_one() -> None:
    from pytorch_insight.report.render import render_html

    said = "The compiled gather silently returns wrong values for its last row."
    labelled = item(80, "Compiled gather drops its last row", said, labels=["high priority", "has workaround"])
    report = report_of([labelled], window=WINDOW)
    [entry] = report.focus
    assert entry.analysis.workaround == "" and entry.analysis.workaround_label == "has workaround"
    assert "read the thread; it carries the triage label “has workaround”" in render_markdown(report)
    assert "it carries the triage label “has workaround”" in render_html(report)
    # a sentence that states one is the workaround, and the label adds nothing
    stated = labelled.model_copy(update={"body": f"{said}\n\nA workaround is to gather in two steps."})
    [entry] = report_of([stated], window=WINDOW).focus
    assert entry.analysis.workaround and entry.analysis.workaround_label == ""


@pytest.mark.parametrize("fixer", ["someone", "another"])  # the reporter's own PR, or someone else's
def test_a_report_with_a_pr_titled_after_it_is_never_said_to_have_no_fix(fixer: str) -> None:
    report = item(31, "The resize kernel bypasses the guard logic", "The result is silently wrong.", author="someone")
    fix = item(
        32, "[inductor] Fix the resize kernel bypassing guard logic", kind="pull_request", state="closed", author=fixer
    )
    built = report_of([report, fix], window=WINDOW)
    [entry] = [e for e in built.focus if e.ref == "#31"]
    assert entry.fix_text == (
        "no PR in the collected data names it as fixed; a PR with a similar title: #32 (closed, landing unconfirmed)"
    )
    overview = " ".join(theme.text for theme in built.overview.themes)
    assert "no PR names it as fixed, but #32 has a similar title" in overview
    assert "shows no fix PR" not in overview


def test_a_relation_by_a_shared_name_says_which_name() -> None:
    rocm = item(70, "[ROCm] flex_attention returns NaN", "Calling flex_attention with a block mask gives NaN on MI300.")
    xpu = item(71, "[XPU] flex_attention returns NaN too", "Same with flex_attention on XPU: the output is NaN.")
    report = report_of([rocm, xpu], window=WINDOW)
    [entry] = [e for e in report.focus if e.ref == "#70"]
    assert "related to #71 (both mention `flex_attention`)" in entry.relations
    [zh] = [e for e in report_of([rocm, xpu], "zh", WINDOW).focus if e.ref == "#70"]
    assert "相关：#71（两者都提到 `flex_attention`）" in zh.relations


def test_one_author_s_series_is_one_entry_that_says_why() -> None:
    common = {"kind": "pull_request", "author": "maker"}
    first = item(
        72, "[ROCm] Fix flex_attention NaN on MI300", "flex_attention returned NaN with a block mask.", **common
    )
    second = item(73, "[ROCm] Test flex_attention block masks", "Covers flex_attention with block masks.", **common)
    for lang, said in (
        ("en", "same author's series: #73 (both mention `flex_attention`)"),
        ("zh", "同一作者的相关改动：#73（两者都提到 `flex_attention`）"),
    ):
        [entry] = [e for e in report_of([first, second], lang, WINDOW).focus if "#73" in (e.ref, *e.story)]
        assert entry.ref == "#72" and said in entry.relations


def test_a_report_filed_twice_names_its_other_filing_as_a_report_not_a_change() -> None:
    # the same bug reported twice by its author: no change was submitted twice
    first = item(50, HANG, HANG_BODY, labels=["high priority"])
    again = item(51, HANG, HANG_BODY, state="closed")
    entry = focus_entry([first, again], 50)
    assert "also reported as #51" in entry.relations and not any("submitted" in r for r in entry.relations)


def test_a_report_closed_while_its_fix_is_open_says_both() -> None:
    wraps = "The grommet counter silently returns wrong counts after 255 increments."
    issue = item(3501, "Grommet counter gives wrong counts", wraps, labels=["high priority"], state="closed")
    fix = item(3502, "Widen the grommet counter", "Fixes #3501", kind="pull_request", state="open")
    entry = focus_entry([issue, fix], 3501)
    assert "#3502" in entry.fix_text and "the report itself is closed on GitHub" in entry.fix_text
    # an open report with an open fix says only where the fix stands
    reopened = issue.model_copy(update={"state": "open"})
    assert "itself is closed" not in focus_entry([reopened, fix], 3501).fix_text
