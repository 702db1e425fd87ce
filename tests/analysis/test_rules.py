"""The rule analyser on hand-written threads shaped like the shared fortnight's (an environment section,
an umbrella, a fix and its issue, a reland), on bodies that lack facts, and on every real body of the
fortnight at once."""

from __future__ import annotations

from typing import Any

import pytest

from pytorch_insight.analysis.causes import root_causes
from pytorch_insight.analysis.figures import comparisons, facts
from pytorch_insight.analysis.model import Analysis, AnalysisContext
from pytorch_insight.analysis.rules import Adjacency, RuleAnalyser, quoted_source, summarise
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.model import Comment, Item
from pytorch_insight.pipeline import assess
from pytorch_insight.text import join_sentences, lead_in, parse_body, prose
from tests.analysis.helpers import PROFILE, analyse
from tests.pipeline.helpers import item


@pytest.fixture(scope="module")
def analysed(shared_rows: list[dict[str, Any]]) -> dict[int, Any]:
    ranked = assess([item_from_line(row) for row in shared_rows], PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    analyser = RuleAnalyser()
    return {a.item.number: analyser.analyse(a, context, deep=True) for a in ranked if a.item.number is not None}


def test_versions_and_hardware_from_an_environment_section() -> None:
    report = item(
        101,
        "[serving] Shape guards recompile on every call with the new release",
        "## Summary\n\nUnder torch 2.13.0, the serving suite's `test_shape_guards` recompiles on every call and "
        "then fails its recompile-count check.\n\n## Environment\n\n- `torch`: 2.13.0+cu128\n- `triton`: 3.6.1\n"
        "- CUDA: 12.8\n- Python: 3.11\n- GPU: 2× B200\n",
    )
    facts = analyse(report)[101].facts
    assert facts.versions == ["torch 2.13.0+cu128", "CUDA 12.8", "Python 3.11", "triton 3.6.1"]
    assert facts.hardware == ["B200"]


def test_a_version_the_text_says_works_is_not_the_problem_s_setup() -> None:
    body = "The grommet loss raises a cuDNN error.\n\n### Versions\n\nI tried a few. On torch 2.4 it runs fine"
    assert facts(item(103, "Grommet loss fails", body), parse_body(body)).versions == []
    both = "It works in torch 2.4 but fails in torch 2.5.1."
    assert facts(item(104, "Grommet loss fails", both), parse_body(both)).versions == ["torch 2.4", "torch 2.5.1"]


def test_a_pre_release_version_keeps_its_tag() -> None:
    body = "The grommet loss fails on torch 2.9.0a0+gitabc1234 and on torch 2.8.0rc2."
    assert facts(item(105, "Grommet loss fails", body), parse_body(body)).versions == [
        "torch 2.9.0a0+gitabc1234",
        "torch 2.8.0rc2",
    ]


def test_a_link_s_line_anchor_is_no_hardware() -> None:
    body = "The check at https://github.com/o/r/blob/main/pool.cu#L12-L40 skips it; it fails on an L40S."
    assert facts(item(102, "Pooling skips the check", body), parse_body(body)).hardware == ["L40S"]


def test_error_messages_are_quoted_verbatim() -> None:
    report = item(
        102,
        "[serving] Warm cache writes nothing and lookups fail in the startup tests",
        "## Summary\n\nThe startup tests of the serving suite fail with the new release:\n\n"
        "- `startup/test_warm.py::test_model_warm[small]` → `AssertionError: cached_graphs_written: got 0`\n"
        "- `startup/test_warm.py::test_model_warm[large]` → `AssertionError: cached_graphs_written: got 0`\n"
        "- `startup/test_warm.py::test_expert_warm[0]` → `KeyError: None`\n\n"
        "The same tests pass on the previous release.",
    )
    assert analyse(report)[102].facts.errors[:2] == ["AssertionError: cached_graphs_written: got 0", "KeyError: None"]
    wrapped = item(103, "Loader fails", "On CPU builds this raises `AssertionError: Torch not\ncompiled with CUDA`.")
    assert analyse(wrapped)[103].facts.errors == ["AssertionError: Torch not compiled with CUDA"]


def test_a_measured_range_is_one_figure() -> None:
    report = item(104, "Int matmul is slow on the new GPU", "The int8 kernel runs 2.1-3.7x slower than the reference.")
    assert analyse(report)[104].facts.numbers == ["2.1-3.7x"]


def two_fixes_of_an_open_issue() -> dict[int, Analysis]:
    """An open report whose thread offers a workaround, and two closed PRs that say they fix it: the
    first links it by URL and says, in its own description, what it changes "to avoid the issue"."""
    issue = item(
        301,
        "[compile] Custom Function gives zero gradients after an in-place update",
        "### 🐛 Describe the bug\n\nA custom autograd Function whose forward updates its input in place returns "
        "all-zero gradients once compiled.\n\n```python\nimport torch\n```",
        comments=[
            Comment(
                author="helper",
                date="2026-04-09",
                body="I reduced it to a smaller script. Passing `prune_alias_outputs=True` mutes this issue here, "
                "so the extra alias output looks like the culprit.",
            )
        ],
    )
    first_fix = item(
        302,
        "[dynamo] Prune alias outputs in custom Function tracing",
        "An in-place update inside a custom Function's forward makes the tracer keep a stale alias as an extra "
        "output. Because the alias shares storage with the returned tensor, its gradient goes to the wrong slot."
        "\n\nPrune alias outputs on the custom Function path too, to avoid the issue there.\n\n"
        "https://github.com/pytorch/pytorch/issues/301",
        kind="pull_request",
        state="closed",
        comments=[Comment(author="reviewer", date="2026-04-10", body="Could a lint have caught this earlier?")],
    )
    second_fix = item(
        303,
        "[dynamo] Drop duplicate alias outputs of a custom Function",
        "Fix #301\n\n## Summary\nThe forward tracing can surface hidden outputs that alias the real ones.",
        kind="pull_request",
        state="closed",
    )
    return analyse(issue, first_fix, second_fix)


def test_a_workaround_offered_in_the_thread() -> None:
    assert "`prune_alias_outputs=True` mutes this issue" in two_fixes_of_an_open_issue()[301].workaround


def test_failing_code_that_is_itself_a_way_around_another_limit_is_no_workaround() -> None:
    from pytorch_insight.analysis.workaround import names_workaround

    assert not names_workaround("Users batch the frames by hand, which was the usual workaround for the slow 3-D path.")
    assert names_workaround("A common workaround is to copy the weight to a contiguous tensor first.")
    assert not names_workaround("Found one workaround for you.")  # it announces one; the next sentence gives it
    # a pointer to a tool is no way around the problem; what to use instead is
    assert not names_workaround("You can use https://github.com/example/gym/blob/main/benchmarks/perf.py")
    assert names_workaround("You can use the eager backend until the kernel is fixed.")
    # a workaround in the code's history explains the code; a user applies none
    assert not names_workaround("The path still passes no workspace, from an earlier FP16 workaround in the library.")
    # someone else's workaround named and not told; told, it is one
    assert not names_workaround("A downstream package asked for this report to learn whether its workaround can go.")
    assert names_workaround("Their workaround is to pin the previous wheel until the fix lands.")


def test_a_fix_pr_takes_the_workaround_of_its_issue_never_its_own_description() -> None:
    analysed = two_fixes_of_an_open_issue()
    assert analysed[302].workaround == analysed[301].workaround  # from the issue's thread
    assert "Prune alias" not in analysed[302].workaround


def test_a_suggestion_in_a_fix_s_review_is_no_workaround_of_its_issue() -> None:
    issue = item(340, "Building a sparse tensor from empty arrays fails", "```python\nbuild([])\n```")
    review = Comment(author="reviewer", date="2026-04-09", body="You can use the following tensor as an input:")
    fix = item(341, "Accept empty arrays", "Fixes #340", kind="pull_request", state="closed")
    fix = fix.model_copy(update={"comments": [review]})
    assert analyse(issue, fix)[340].workaround == ""
    # the same words in the issue's own thread are offered to its users
    offered = issue.model_copy(update={"comments": [review.model_copy(update={"body": "You can use dense arrays."})]})
    assert analyse(offered, fix)[340].workaround == "You can use dense arrays."


def test_a_fix_that_only_names_its_issue_is_summarised_by_the_issue_s_title() -> None:
    issue = item(330, "Strided copy gives wrong values for long rows", "```python\nrun()\n```")
    fix = item(331, "[backend] strided copy fix", "Fixes #330", kind="pull_request", state="closed")
    analysed = analyse(issue, fix)
    assert analysed[331].summary == "Strided copy gives wrong values for long rows"
    assert analysed[331].quoted_from["summary"] == "github:pytorch/pytorch#330"
    # a fix with words of its own is summarised by them
    told = item(
        332,
        "[backend] strided copy fix",
        "Fixes #330\n\nThe inner loop now splits long rows.",
        kind="pull_request",
    )
    assert "summary" not in analyse(issue, told)[332].quoted_from


def test_fix_state_follows_the_linked_pr() -> None:
    issue = item(
        310,
        "[compile] Graph capture fails when the function forks a stream",
        "### 🐛 Describe the bug\n\nCapturing a function that forks a side stream fails at capture time.",
        state="closed",
    )
    fix = item(
        311,
        "[streams] Keep graph capture on the current stream",
        "Fixes https://github.com/pytorch/pytorch/issues/310",
        kind="pull_request",
        state="merged",
    )
    analysed = analyse(issue, fix)
    assert (analysed[310].fix_state, analysed[310].fix_refs) == ("landed", ["github:pytorch/pytorch#311"])
    # Both fix PRs closed and nothing says they landed, but the issue itself is open: never "closed".
    assert two_fixes_of_an_open_issue()[301].fix_state == "unconfirmed"


def test_a_pr_that_names_an_issue_without_saying_it_fixes_it_references_it() -> None:
    from tests.report.fixtures import report_of

    report = "The sparse gather silently returns wrong gradients in backward on the accelerator."
    issue = item(340, "Sparse gather ignores its weighting flag on the accelerator", report, labels=["high priority"])
    pr = item(
        341,
        "Honour two sparse gather flags",
        "**weight_by_count** (#340): the flag reached the backward kernel but was never used.",
        kind="pull_request",
    )
    analysed = analyse(issue, pr)
    assert analysed[340].fix_state == "referenced"
    assert analysed[340].fix_ref_states == {"github:pytorch/pytorch#341": "open"}
    # closed, the report stays closed, and says which PRs name it instead of "no fix PR referenced"
    closed = issue.model_copy(update={"state": "closed"})
    assert analyse(closed, pr)[340].fix_state == "closed"
    [entry] = [e for e in report_of([closed, pr]).focus if e.ref.endswith("#340")]
    assert entry.fix_text == "closed on GitHub; PRs that reference it: #341 (open)"


def test_nothing_is_invented_for_a_bare_ci_issue() -> None:
    # The CI bot's template: a platform line, one sentence, a CI link and a cc list; closed by a PR
    # that skips the test.
    issue = item(
        320,
        "DISABLED test_resize_grows (__main__.WidgetResizeTest)",
        "Platforms: rocm\n\nThis test was disabled because it is failing on main branch ([recent examples]"
        "(https://torch-ci.com/failure?failureCaptures=%5B%22widgets%2Ftest_resize.py%3A%3AWidgetResizeTest"
        "%3A%3Atest_resize_grows%22%5D)).\n\ncc @alice @bob @carol",
        state="closed",
        author="pytorch-bot[bot]",
    )
    skip = item(
        321,
        "Skip the widget resize tests on drivers older than 5.1",
        "Added conditional skips for test_resize_grows and test_resize_shrinks on drivers older than 5.1\n\n"
        "Fixes: #322\nFixes: #320",
        kind="pull_request",
        state="closed",
        comments=[Comment(author="maintainer", date="2026-04-10", body="@pytorchbot merge -i")],
    )
    analysed = analyse(issue, skip)
    bare = analysed[320]
    assert bare.fix_refs == ["github:pytorch/pytorch#321"]  # the skip is in its story
    # "disabled because it is failing" says why a test was switched off, not why anything fails: the
    # role model does not read it as a cause, and the fix's description does not stand in for one
    assert bare.summary.startswith("This test was disabled because it is failing on main branch")
    assert bare.root_cause == ""
    assert (bare.impact, bare.workaround, bare.details) == ("", "", "")
    assert bare.facts.versions == [] and bare.facts.errors == [] and bare.facts.comparisons == []


def test_every_extracted_sentence_occurs_in_the_sources(
    shared_rows: list[dict[str, Any]], analysed: dict[int, Any]
) -> None:
    def words(row: dict[str, Any]) -> str:
        parts = [row["title"], row["body"], *[c["body"] for c in row["comments"]]]
        return " ".join(" ".join(prose(part).split()) for part in parts if part)

    text_of = {row["number"]: words(row) for row in shared_rows if row["number"] is not None}
    ranked = {a.item.number: a for a in assess([item_from_line(row) for row in shared_rows], PROFILE)}
    for number, analysis in analysed.items():
        story = [r.target.rsplit("#", 1)[1] for r in ranked[number].relations if r.type in ("fixes", "fixed_by")]
        for field in ("root_cause", "workaround"):
            quoted = analysis.quoted_from.get(field, "").rsplit("#", 1)[-1]
            linked = [*story, quoted]
            source = " ".join([text_of[number], *(text_of.get(int(n), "") for n in linked if n.isdigit())])
            value = getattr(analysis, field)
            if value:
                head = value.rstrip("…")[:60].split(". ")[0]  # a field joins up to two quoted sentences
                assert head.replace("`", "") in source.replace("`", ""), (number, field)


def test_a_quote_that_opens_on_the_title_and_goes_on_in_the_fix_is_the_fixs() -> None:
    report = item(340, "Grommets spin loose under load when the sprocket is oiled twice")
    said = "Grommets spin loose under load when the sprocket is oiled twice in a row, so the lathe stalls at speed."
    fix = item(341, "Oil the sprocket once", f"Fixes #340.\n\n{said}", kind="pull_request")
    assert quoted_source(said, report, [fix]) == fix.id
    # the report's own words, however its opening reads in the fix, are its own
    assert quoted_source(report.title or "", report, [fix]) == ""


def test_two_sentences_the_source_does_not_write_one_after_the_other_are_joined_by_an_ellipsis() -> None:
    body = (
        "Root cause: The grommet cache keeps stale sprockets. Because the key omits the lathe id, two lathes "
        "share one entry.\n\nUnrelated notes follow here.\n\n- The counter wraps at 255.\n- Each wrap drops a row."
    )
    adjacent = Adjacency([body])
    # a lead-in cut off, and a list's marker, are no gap
    assert adjacent(
        "The grommet cache keeps stale sprockets.", "Because the key omits the lathe id, two lathes share one entry."
    )
    assert adjacent("The counter wraps at 255.", "Each wrap drops a row.")
    joined = join_sentences(["The grommet cache keeps stale sprockets.", "The counter wraps at 255."], adjacent)
    assert joined == "The grommet cache keeps stale sprockets. … The counter wraps at 255."


def test_comparisons_compute_the_change() -> None:
    [change] = comparisons("The step takes 12.4 ms vs 13.9 ms on main.")
    assert (change.before, change.after, change.unit, change.change_pct) == (12.4, 13.9, "ms", 12.1)
    assert comparisons("12 ms and later 13 ms") == []


def test_a_fix_outside_the_window_is_stated_from_the_issue_timeline() -> None:
    issue = Item(
        id="github:pytorch/pytorch#5",
        source="github",
        kind="issue",
        repo="pytorch/pytorch",
        number=5,
        title="Compiled model crashes on exit",
        state="closed",
        timeline_refs=[
            {
                "event": "cross-referenced",
                "repo": "pytorch/pytorch",
                "number": 9,
                "kind": "pull_request",
                "state": "merged",
                "title": "Fix the exit crash",
                "date": "2026-03-01T00:00:00Z",
                "url": None,
            },
            {
                "event": "cross-referenced",
                "repo": "pytorch/pytorch",
                "number": 7,
                "kind": "issue",
                "state": "open",
                "title": "Another report",
                "date": "2026-03-02T00:00:00Z",
                "url": None,
            },
        ],
    )
    ranked = assess([issue], PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    analysis = RuleAnalyser().analyse(ranked[0], context, deep=False)
    assert analysis.fix_state == "referenced"
    assert analysis.fix_ref_states == {"github:pytorch/pytorch#9": "merged"}  # an issue that mentions it is no fix


def test_an_umbrella_states_where_its_tracked_issues_stand_and_borrows_no_cause() -> None:
    # Each tracked report states a cause of its own.
    tracked = [
        item(
            331 + i,
            f"[serving] Startup test {name} fails with the new release",
            f"## Summary\n\nThe {name} startup test fails because the warm cache key changed in the new release.",
        )
        for i, name in enumerate(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"])
    ]
    # Its body: a milestone list, two CI links and the list of tracked issues.
    body = (
        "WHEN ARE THE KEY DATES FOR THE NEXT RELEASE?\n\n- M1: Release announcement (1/6/26)\n"
        "- M2: All changes landed (12/6/26)\n- M3: Release branch cut (15/6/26)\n- M4: Release day (10/7/26)\n\n"
        "June 20, 2026: https://ci.example/serving/builds/101\nJune 21, 2026: https://ci.example/serving/builds/102\n\n"
        + "".join(f"{i + 1}. [ ] https://github.com/pytorch/pytorch/issues/{331 + i}\n" for i in range(8))
        + "\ncc @dave @erin"
    )
    comment = Comment(author="frank", date="2026-04-09", body="Taking the first four of these.")
    issue = item(330, "[release 2.13] umbrella issue - serving CI failures", body, comments=[comment])
    analysed = analyse(issue, *tracked)
    assert all(analysed[t.number].root_cause for t in tracked)  # causes there were to borrow
    umbrella = analysed[330]
    assert umbrella.summary == ""  # the milestones are no description of the problem
    assert umbrella.fix_state == "tracking"
    assert len(umbrella.fix_refs) == 8
    assert umbrella.root_cause == "" and "root_cause" not in umbrella.quoted_from  # one report's cause is not its


def test_a_release_tracker_s_criteria_are_no_cause() -> None:
    # a cherry-pick request in the tracker's thread, in the release process's own words
    said = Comment(
        author="grace",
        date="2026-04-09",
        body="Link to release branch PR:\n* #350\n\n"
        "Criteria Category: Critical - crash in torch.streams.copy (introduced in 3.1) fix",
    )
    [tracker] = analyse(item(340, "[v3.1.0] Release Tracker", "", comments=[said])).values()
    [report] = analyse(item(341, "The new device API crashes on start", "", comments=[said])).values()
    assert tracker.root_cause == "" and report.root_cause  # the same words, read as a cause elsewhere


def test_a_bare_reland_reference_is_no_summary() -> None:
    first = item(
        340,
        "[inductor] Keep the weight padding of a fused conv in tuning mode (#340)",
        "Summary: Pull Request resolved: https://github.com/pytorch/pytorch/pull/340\n\n"
        "Previously `pad_weights` was always run on `conv_weight` in tuning mode, even when the vendor "
        "kernel was picked. This can slow whole models down. Instead, the weight is now left unpadded.\n\n"
        "Test Plan: `test_conv_weight_left_unpadded`\n\nDifferential Revision: D4242\n\ncc @alice @bob",
        kind="pull_request",
        state="closed",
    )
    reland = item(
        341,
        "[inductor] Keep the weight padding of a fused conv in tuning mode (#341)",
        "Summary:\n\nRelanding D4242\n\nTest Plan: `test_conv_weight_left_unpadded`\n\nDifferential Revision: D4343"
        "\n\ncc @alice @bob",
        kind="pull_request",
        state="closed",
        comments=[Comment(author="carol", date="2026-04-10", body='@pytorchbot merge -i "the test failure is fixed"')],
    )
    analysed = analyse(first, reland)
    # The export's Summary is "Relanding D4242": the summary comes from the prose of the change it lands again.
    assert "Relanding" not in analysed[341].summary
    assert analysed[341].summary.startswith("Previously `pad_weights` was always run")


def test_the_version_of_what_built_torch_is_no_torch_version_and_thousands_stay_one_number() -> None:
    body = "Collected:\nROCM used to build PyTorch: 6.9.40404\nPyTorch version: 3.1.0a0\n\nThe grommet is 1,000x wide."
    found = facts(item(106, "Grommet count is off", body), parse_body(body))
    assert found.versions == ["torch 3.1.0a0"]
    assert found.numbers == ["1,000x"]


def test_a_score_after_the_word_torch_is_no_version() -> None:
    body = "Speedup over torch 0.3265 on the suite; tested on torch 2.12.0 and PyTorch 2.11."
    assert facts(item(1, "t", body), parse_body(body)).versions == ["torch 2.12.0", "torch 2.11"]


def merge_thread(*comments: tuple[str, str], state: str = "closed") -> Any:
    pr = item(
        11,
        "Fix the exit crash",
        "Fixes #10",
        kind="pull_request",
        state=state,
        comments=[Comment(author=author, date="2026-04-09", body=body) for author, body in comments],
    )
    issue = item(10, "Compiled model crashes on exit", "It crashes on exit.", state="open")
    ranked = assess([pr, issue], PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    by_number = {a.item.number: a for a in ranked}
    analyser = RuleAnalyser()
    return analyser.analyse(by_number[11], context, deep=False), analyser.analyse(by_number[10], context, deep=False)


def test_a_merge_requested_before_a_pr_closed_is_stated_with_its_words() -> None:
    pr, issue = merge_thread(("reviewer", "Looks good"), ("maintainer", '@pytorchbot merge -f "CI is green"\nthanks'))
    assert pr.fix_state == "closed" and pr.merge_requested == 'maintainer: @pytorchbot merge -f "CI is green"'
    assert issue.fix_state == "unconfirmed" and issue.merge_requested == pr.merge_requested  # its fix's request
    # Both name the thread the words stand in: the PR's.
    assert pr.said_in["merge_requested"] == issue.said_in["merge_requested"] == "github:pytorch/pytorch#11"


def test_a_revert_requested_in_a_closed_prs_thread_is_stated_with_its_words() -> None:
    pr, _ = merge_thread(("maintainer", '@pytorchmergebot revert -m "breaks the nightly build" -c nosignal'))
    assert pr.revert_requested == 'maintainer: @pytorchmergebot revert -m "breaks the nightly build" -c nosignal'
    assert pr.said_in["revert_requested"] == "github:pytorch/pytorch#11" and pr.merge_requested == ""
    assert merge_thread(("maintainer", "we may need to revert this later"))[0].revert_requested == ""


@pytest.mark.parametrize(
    ("comments", "state"),
    [
        ((("maintainer", "@pytorchbot merge"), ("pytorchmergebot", "Merge failed: a required check failed")), "closed"),
        ((("pytorchmergebot", "@pytorchbot merge"),), "closed"),  # the bot's own echo asks nothing
        ((("maintainer", "Please don't @pytorchbot merge yet"),), "closed"),  # not a command line
        ((("maintainer", "@pytorchbot merge"),), "open"),  # an open PR's state says it all
    ],
)
def test_no_merge_request_is_read_where_none_stands(comments: tuple[tuple[str, str], ...], state: str) -> None:
    pr, _ = merge_thread(*comments, state=state)
    assert pr.merge_requested == ""


def test_a_pr_the_thread_announces_without_naming_it_is_said_to_exist() -> None:
    issue = item(
        12,
        "argmax returns a wrong index",
        "It returns 7 for a tie.",
        comments=[Comment(author="contributor", date="2026-04-09", body="I opened a pull request for this.")],
    )
    ranked = assess([issue], PROFILE)
    analysis = RuleAnalyser().analyse(
        ranked[0], AnalysisContext(PROFILE, PROFILE.reader(None), {ranked[0].id: ranked[0]}), False
    )
    assert analysis.fix_state == "none" and analysis.pr_mentioned == "contributor: “opened a pull request”"
    assert analysis.said_in["pr_mentioned"] == ranked[0].id
    at_hand = Comment(author="maintainer", date="2026-04-09", body="Thanks! We've got a draft PR that pads the input.")
    [ranked] = assess([issue.model_copy(update={"comments": [at_hand]})], PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {ranked.id: ranked})
    assert RuleAnalyser().analyse(ranked, context, False).pr_mentioned == "maintainer: “We've got a draft PR”"


def test_a_remark_after_the_repro_is_no_summary_of_a_description_that_opens_with_none() -> None:
    body = "Seen on nightly, Linux\n```python\nimport torch\n```\nWill look into it next week, noting it here."
    assert summarise(parse_body(body)) == ""
    stated = "The reduction returns wrong values on CPU.\n```python\nimport torch\n```\nIt started in 2.9."
    assert summarise(parse_body(stated)).startswith("The reduction returns wrong values")
    # what the repro shows going wrong is the summary; a sentence the capture cut off is not
    seen = "On the shared build machine I observe a large discrepancy between the CPU and GPU outputs."
    more = "It only happens with batched inputs on that machine."
    shown = f"Run the following script on a CI runner:\n```python\nimport torch\n```\nThe run took a minute.\n\n{seen}"
    assert summarise(parse_body(f"{shown} {more}")) == f"{seen} {more}"
    assert summarise(parse_body(f"{shown}\n\nThe kernel gives incorrect val")) == seen


def test_an_opening_note_on_the_report_itself_is_no_summary() -> None:
    stated = "On the laptop GPU, matmul returns wrong values for transposed inputs."
    note = "*Quick note: this report comes from a user,\nwe will not be able to follow up on it.*"
    assert summarise(parse_body(f"{note}\n\n{stated}")) == stated
    assert summarise(parse_body(f"Disclaimer: found by a fuzzer.\n\n{stated}")) == stated
    alone = "Note: the nightly build of this week fails to import on every platform we tried."
    assert summarise(parse_body(alone)) == alone  # a note that is all there is stays


def test_a_setup_step_is_no_summary() -> None:
    body = (
        "Install the plugin with `pip install acme-plugin --no-deps`\n\n"
        "git clone https://example.com/acme.git && cd acme && pip install -e .\n\n"
        "Human note: I found this while porting the scheduler to the new runtime.\n\n"
        "The compiled step hangs on the second call when the cache is warm."
    )
    assert summarise(parse_body(body)) == "The compiled step hangs on the second call when the cache is warm."


def test_how_to_reproduce_is_no_summary() -> None:
    body = "## Fixes #40\n\n## tiny repro\n* Simply paste the sprocket snippet from the report to reproduce.\n"
    assert summarise(parse_body(body)) == ""


def test_a_note_on_how_a_check_of_the_change_went_is_no_summary() -> None:
    run = "Run: https://example.com/runs/7\n\nOn the sprocket benchmark this change stays within noise:\n\n<img>"
    assert summarise(parse_body(run)) == ""
    stated = "The sprocket dashboard shows a 20% slowdown in the compiled step since the update."
    assert summarise(parse_body(stated)) == stated  # a problem a dashboard shows is one


def test_a_request_for_a_workaround_is_neither_a_workaround_nor_a_cause() -> None:
    from pytorch_insight.analysis.workaround import find_workaround

    asked = "Once someone reproduces this, a workaround would be appreciated because the bug stalls our release branch."
    assert root_causes([asked], "") == []
    assert find_workaround([parse_body(asked)], [parse_body(asked)], []) == ("", "")
    given = "As a workaround, set the flag to False before compiling."
    assert find_workaround([parse_body(given)], [parse_body(given)], [])[0] == given


def test_a_change_that_keeps_the_problem_away_is_a_workaround() -> None:
    from pytorch_insight.analysis.workaround import find_workaround, keeps_problem_away

    for stated in (
        "Calling `torch.cuda.synchronize()` before the copy prevents the hang.",
        "Pinning the allocator to one arena may avoid the slowdown",
        "The leak does not occur with a single data-loader worker.",
        "The same kernel runs correctly with a padded input, so only odd sizes fail.",
        "The same model works with the debug backend.",  # another backend is a way around it
        "The reference backend produces correct results, so only the fused path is wrong.",
        "The error goes away without the autotuning flag.",
        "It works again after downgrading to the previous release.",
        "Also, wrapping the call in a lock avoids the race.",
        "Drop the scale tensor from the region's inputs and everything compiles.",
        "The same call is fine on fp32 and on a contiguous copy of the weight.",
        "The hang is gone once the prefetch thread is disabled.",
        "The export succeeds when the graph cache is disabled.",
        "Pinning the older kernel returns correct values.",
        "Calling `.contiguous()` on the input first restores correct output.",
        "Both reference backends work.",
        # the change named first, then the problem gone
        "With `sprocket.config.fold_loops = False` it's right, which may be why the old release is.",
        "Without the grommet flag everything passes.",
        "Turning off the grommet rewrite (`grommet.rewrite = False`) makes compiled output match eager.",
    ):
        assert keeps_problem_away(stated), stated
    for other in (
        "Calling `torch.cuda.synchronize()` before the copy does not prevent the hang.",
        "Setting the flag never avoids the error for us.",
        "The fallback path does not run correctly with a pinned arena.",
        "The same script runs correctly with:",
        "Does disabling the cache avoid the crash?",
        "It does not work with the debug backend either.",
        "The loss goes to NaN after a few steps.",
        "The error does not go away without the autotuning flag.",
        "It still fails after downgrading to the previous release.",
        "Drop the scale tensor from the region's inputs and it still fails.",
        "The hang is not gone once the prefetch thread is disabled.",
        "Not all backends work.",
        # fine in one release and failing in the next is the regression itself
        "The same script runs fine on the previous release but OOMs at once on the new one.",
        # where else it is absent (another device, another kind of tensor) is how far it reaches
        "The allocator grows without bound on XPU; this does not occur with CUDA.",
        "It also hits two other subclasses, and doesn't happen with non-subclassed tensors.",
        "With CUDA it works.",
        "With the old wheel it works, but the new one crashes.",
        "With not a single change it works.",
        "With the default settings, the sprocket model is slow.",
    ):
        assert not keeps_problem_away(other), other
    report = parse_body("The export hangs on large graphs.\n\nThe export does not hang when the graph is split first.")
    assert find_workaround([report], [report], []) == ("The export does not hang when the graph is split first.", "")
    # A workaround named as one, in a comment, goes before a change that only keeps the problem away.
    named = "A workaround is to export each submodule on its own."
    assert find_workaround([report], [report], [named])[0] == named


def test_a_lead_in_that_keeps_the_problem_away_is_quoted_with_what_it_introduces() -> None:
    from pytorch_insight.analysis.workaround import find_workaround, keeps_problem_away

    for stated in (
        "Each of the following makes the result exactly correct.",
        "Half-precision inputs allow the kernel to run correctly.",
    ):
        assert keeps_problem_away(stated), stated

    def found(text: str) -> str:
        report = parse_body(text)
        return find_workaround([report], [report], [])[0]

    # the change is named before the colon; what follows only shows it working
    shown = (
        "The export fails on the new release.\n\nIt works fine after downgrading to the previous release:\n```\nok\n```"
    )
    assert found(shown) == "It works fine after downgrading to the previous release"
    # the change is named only in the list below the colon
    listed = "The sum is wrong.\n\nThe same script is correct with:\n\n- a contiguous input\n- `bias=None`\n"
    assert found(listed) == "The same script is correct with: a contiguous input; `bias=None`"
    # a lead-in with neither names nothing
    assert found("The sum is wrong.\n\nThe same script is correct with:\n```\nrun()\n```") == ""


def test_a_comment_line_of_a_code_block_is_no_heading() -> None:
    body = parse_body(
        "It fails.\n```python\n# Replay - may cause the failure\nrun()\n```\n## Root cause\nThe buffer is freed early."
    )
    assert list(body.sections) == ["", "root cause"]


def test_a_summary_that_opens_with_a_lead_in_keeps_its_whole_list_of_conditions() -> None:
    body = (
        "The loader hangs at the end of an epoch when:\n\n- workers > 0\n- pin_memory is on\n"
        "- the dataset yields dicts whose tensors have very long key names\n\nIt does not hang otherwise."
    )
    assert summarise(parse_body(body)) == (
        "The loader hangs at the end of an epoch when: workers > 0; pin_memory is on; "
        "the dataset yields dicts whose tensors have very long key names"
    )
    shapes = "".join(f"- the shape number {n} with strides\n" for n in range(8))
    long_list = "The kernel launch fails for these shapes:\n\n" + shapes
    assert summarise(parse_body(long_list)).endswith("the shape number 5 with strides; …")
    stacked = (
        "Stack from [ghstack](https://github.com/example/ghstack) (oldest at bottom):\n* __->__ #11\n* #10\n\n"
        "The slicing kernel is lowered into:\n```\nx = y[::2]\n```\nIts stride is then read from the wrong buffer."
    )
    assert summarise(parse_body(stacked)) == (
        "The slicing kernel is lowered into: … Its stride is then read from the wrong buffer."
    )  # another lead-in's list is not this one's, and the code it introduced is marked as left out


def test_a_quoted_ghstack_list_of_linked_changes_is_no_summary() -> None:
    url = "https://github.com/example/repo/pull"
    body = (
        "> Stack from [ghstack](https://github.com/example/ghstack) (oldest at bottom):\n>\n"
        f"> * [[Build] Raise the sprocket standard #10]({url}/10)\n"
        f"> * **->** [[BE] Fix the grommet copy #11]({url}/11)\n>\n"
        "> The copy writes through a read-only pointer, so it now takes the mutable one."
    )
    told = "The copy writes through a read-only pointer, so it now takes the mutable one."
    assert summarise(parse_body(body)) == told


def test_a_summary_across_a_skipped_code_block_marks_the_gap() -> None:
    body = (
        "The op is lowered into:\n\n```python\ny = torch.cumsum(x, 0)\n```\n\n"
        "The search then returns the position after the matching elements."
    )
    assert summarise(parse_body(body)) == (
        "The op is lowered into: … The search then returns the position after the matching elements."
    )
    # A lead-in whose list follows it keeps the list, and one followed by prose has no gap to mark.
    assert "…" not in summarise(parse_body("It fails when:\n- the batch is empty\n- the input is on the CPU"))
    assert "…" not in summarise(parse_body("Two numbers differ: the first is 3 and the second is 4. It is wrong."))


def test_a_summary_that_ends_in_a_lead_in_quotes_its_list_or_marks_what_it_left_out() -> None:
    code = "The grommet sampler repeats its first draw. Here is the code to reproduce:\n\n```python\nrun()\n```\n"
    assert summarise(parse_body(code)) == (
        "The grommet sampler repeats its first draw. Here is the code to reproduce: …"
    )
    listed = "The sprocket cache misses on the second call. It misses for these shapes:\n\n- (2, 3)\n- (4, 5)\n"
    assert summarise(parse_body(listed)) == (
        "The sprocket cache misses on the second call. It misses for these shapes: (2, 3); (4, 5)"
    )
    alone = "The sprocket cache crashes during its lookup with:\n\n```\nRuntimeError: boom\n```\n"
    assert summarise(parse_body(alone)) == "The sprocket cache crashes during its lookup with: …"
    # the mark keeps the sentence a lead-in for every reader of the summary
    assert lead_in(summarise(parse_body(alone)))


def test_the_code_quoted_with_a_workaround_is_a_whole_fenced_block() -> None:
    from pytorch_insight.analysis.workaround import find_workaround

    offered = "A common workaround is to call ```spin()``` on the grommet before each step."
    text = (
        f"{offered}\n```python\ngrommet.spin()\nstep()\n```\nThe wheel then keeps its speed.\n```python\nstep()\n```\n"
    )
    assert find_workaround([], [parse_body(text)], []) == (offered, "grommet.spin()\nstep()")
    cut = f"{offered}\n```python\n" + "step()\n" * 120 + "```\n"
    assert find_workaround([], [parse_body(cut)], [])[1] == ""
    # the block another sentence introduces is that sentence's (here the failing code), not the workaround's
    fine = "The stall goes away when the sprocket is copied with its teeth packed first."
    failing = f"{fine}\n\nThe gear trains in our lab stall too. A typical setup:\n\n```python\nspin(sprocket.T)\n```\n"
    assert find_workaround([], [parse_body(failing)], []) == (fine, "")


def test_a_label_of_a_link_or_of_code_is_no_statement() -> None:
    from pytorch_insight.analysis.rules import says_something

    assert not says_something("Trace of the slow grommet run: https://example.com/t/1?run=2 .")
    assert not says_something("Command ```spin --grommet --steps 40 --seed 3 --fast```")
    assert says_something("`Grommet.spin()` stops after the third step on every rank.")
    assert says_something("`Grommet.spin()` crashes during sprocket evaluation with: …")
    assert says_something(
        "The sprocket loop in `spin.cu` reads past the end of its tile: https://example.com/spin.cu#L10"
    )
