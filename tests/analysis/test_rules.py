"""The rule analyser on real bodies from the shared fortnight, and on bodies that lack facts."""

from __future__ import annotations

from typing import Any

import pytest

from pytorch_insight.analysis.impact import impact_sentences
from pytorch_insight.analysis.model import AnalysisContext
from pytorch_insight.analysis.rules import RuleAnalyser, comparisons, facts, root_causes, summarise
from pytorch_insight.config import load_profile
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.pipeline import assess
from pytorch_insight.text import parse_body, prose
from tests.pipeline.helpers import item

PROFILE = load_profile("pytorch")


@pytest.fixture(scope="module")
def analysed(shared_rows: list[dict[str, Any]]) -> dict[int, Any]:
    ranked = assess([item_from_line(row) for row in shared_rows], PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    analyser = RuleAnalyser()
    return {a.item.number: analyser.analyse(a, context, deep=True) for a in ranked if a.item.number is not None}


def test_versions_and_hardware_from_an_environment_section(analysed: dict[int, Any]) -> None:
    facts = analysed[180913].facts
    assert facts.versions == ["torch 2.12.0+cu130", "CUDA 13.0", "Python 3.12", "triton 3.7.0"]
    assert facts.hardware == ["H100"]


def test_error_messages_are_quoted_verbatim(analysed: dict[int, Any]) -> None:
    assert analysed[180912].facts.errors[:2] == ["AssertionError: warm_artifacts_saved: got 0", "KeyError: None"]


def test_root_cause_from_a_root_cause_section_and_from_a_because_sentence(analysed: dict[int, Any]) -> None:
    assert analysed[2044].root_cause.startswith("The config used for this testing kernel is")
    assert analysed[180921].root_cause.startswith(
        "Because the alias shares the same TensorImpl as the real return value"
    )


def test_a_workaround_offered_in_the_thread(analysed: dict[int, Any]) -> None:
    assert "`filter_aliased_intermediates=True` mutes this issue" in analysed[180642].workaround


def test_a_fix_pr_takes_the_workaround_of_its_issue_never_its_own_description(analysed: dict[int, Any]) -> None:
    assert analysed[180921].workaround == analysed[180642].workaround  # from the issue's thread
    assert "Filter aliased" not in analysed[180921].workaround


def test_fix_state_follows_the_linked_pr(analysed: dict[int, Any]) -> None:
    assert (analysed[180396].fix_state, analysed[180396].fix_refs) == ("landed", ["github:pytorch/pytorch#180916"])
    # Both fix PRs closed and nothing says they landed, but the issue itself is open: never "closed".
    assert analysed[180642].fix_state == "unconfirmed"


def test_nothing_is_invented_for_a_bare_ci_issue(analysed: dict[int, Any]) -> None:
    bare = analysed[179950]  # "DISABLED test_suspend": platform line, one sentence, CI link and cc list
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


def test_comparisons_compute_the_change() -> None:
    [change] = comparisons("The step takes 12.4 ms vs 13.9 ms on main.")
    assert (change.before, change.after, change.unit, change.change_pct) == (12.4, 13.9, "ms", 12.1)
    assert comparisons("12 ms and later 13 ms") == []


def test_a_fix_outside_the_window_is_stated_from_the_issue_timeline() -> None:
    from pytorch_insight.model import Item

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


def test_a_cause_inside_the_summary_sentence_is_given_as_its_clause() -> None:
    sentence = "Startup tests fail because the kernel cache is keyed on the device index alone."
    assert root_causes([sentence], sentence) == ["because the kernel cache is keyed on the device index alone."]


def test_an_umbrella_states_where_its_tracked_issues_stand_and_borrows_no_cause(
    analysed: dict[int, Any],
) -> None:
    umbrella = analysed[180899]  # its body: a milestone list, two CI links and the list of tracked issues
    assert umbrella.summary == ""  # the milestones are no description of the problem
    assert umbrella.fix_state == "tracking"
    assert len(umbrella.fix_refs) == 8
    assert umbrella.root_cause == "" and "root_cause" not in umbrella.quoted_from  # one report's cause is not its


@pytest.mark.parametrize(
    "sentence",
    [
        "The slowdown is not caused by a change in the set of benchmarked models.",
        "This is not due to the allocator, which behaves the same on both versions.",
        "It shares its root cause with #4242.",
        "This is the reverse-mode counterpart of #4242 and shares its root cause.",
        "Other spellings hit it too, and #4242 is the crashing manifestation of the same root cause.",
        # why other callers are hit too, not what goes wrong
        "The Conv modules hit it the same way, because they call the functional form.",
        "Pooling is also affected because it shares the same dispatch path.",
        # why the reporter expected otherwise
        "This is surprising because the flag asks the engine to keep the history.",
        "The call should succeed because both tensors live on the same device.",
        # why the tests cost what they do
        "The new tests need a lot of host memory due to the sizes that trigger the overflow.",
    ],
)
def test_a_cause_ruled_out_or_pointed_elsewhere_is_no_root_cause(sentence: str) -> None:
    assert root_causes([sentence], "") == []


def test_a_stated_cause_is_still_one() -> None:
    sentence = "The kernel reads past the buffer because the stride is computed from the padded size."
    assert root_causes([sentence], "") == [sentence]


def test_a_bare_reland_reference_is_no_summary(analysed: dict[int, Any]) -> None:
    # The export's Summary is "Relanding D100157470": the summary comes from the prose that follows.
    assert "Relanding" not in analysed[180270].summary
    assert analysed[180270].summary.startswith("Previously `reinterpret_tensor` was always added")


def test_a_score_after_the_word_torch_is_no_version() -> None:
    body = "Speedup over torch 0.3265 on the suite; tested on torch 2.12.0 and PyTorch 2.11."
    assert facts(item(1, "t", body), parse_body(body)).versions == ["torch 2.12.0", "torch 2.11"]


def test_a_first_guess_and_an_unaffected_path_are_no_root_cause() -> None:
    found = root_causes(
        [
            "At first it looked to be caused by the allocator rework that landed the same day.",
            "The int8 path is unaffected because it never takes the vectorised branch.",
            "The real problem turned out to be that the pooling kernel read one element past its window.",
        ],
        summary="",
    )
    assert found == ["The real problem turned out to be that the pooling kernel read one element past its window."]


def merge_thread(*comments: tuple[str, str], state: str = "closed") -> Any:
    from pytorch_insight.model import Comment

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
    from pytorch_insight.model import Comment

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


def test_a_remark_after_the_repro_is_no_summary_of_a_description_that_opens_with_none() -> None:
    body = "Seen on nightly, Linux\n```python\nimport torch\n```\nWill look into it next week, noting it here."
    assert summarise(parse_body(body)) == ""
    stated = "The reduction returns wrong values on CPU.\n```python\nimport torch\n```\nIt started in 2.9."
    assert summarise(parse_body(stated)).startswith("The reduction returns wrong values")


def test_a_lead_in_to_a_repro_is_no_root_cause() -> None:
    lead_in = "This script shows the failure (it needs a few runs because the timing varies):"
    assert root_causes([lead_in], "") == []
    assert root_causes(["It fails because the buffer is freed before the copy ends."], "")


def test_a_cause_the_author_has_not_found_is_no_root_cause() -> None:
    assert root_causes(["So far I do not know where to start looking for the root cause of the growth."], "") == []
    offer = "If you have an idea what the root cause could be, I can run more tests, but I do not know where to start."
    assert root_causes([offer], "") == []
    assert root_causes(["It grows because every step keeps a reference to the graph."], "")


def test_a_fix_that_opens_with_what_it_changes_is_no_cause_of_its_issue() -> None:
    fix = item(
        31,
        "Make the rounding op keep the sign of zero",
        "Match the reference by computing the result as x - trunc(x), keeping the sign of zero.\n\nFixes #30",
        kind="pull_request",
        state="closed",
    )
    issue = item(30, "Rounding op drops the sign of zero when compiled", "```python\nimport torch\n```")
    ranked = assess([fix, issue], PROFILE)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    analysis = RuleAnalyser().analyse(next(a for a in ranked if a.item.number == 30), context, deep=True)
    assert analysis.root_cause == ""


def test_a_benchmark_table_row_is_no_impact() -> None:

    table = "| shape | before us | after us | speedup |\n|---|---|---|---|\n| (128, 64) | 39.3 | 39.7 | 0.99x |"
    body = f"The kernel crashes with an illegal memory access on large inputs.\n\n{table}"
    [assessed] = assess([item(40, "Fix the kernel crash", body, kind="pull_request")], PROFILE)
    assert all(sentence.count("|") < 3 for sentence in impact_sentences([assessed]))


def test_an_impact_only_the_summary_states_is_quoted_not_left_empty() -> None:
    stated = "On every step the compiled model returns wrong values for the second output on CUDA."
    [assessed] = assess(
        [item(50, "Compiled model output differs", f"{stated}\n\n```python\nimport torch\n```")], PROFILE
    )
    analysis = RuleAnalyser().analyse(
        assessed, AnalysisContext(PROFILE, PROFILE.reader(None), {assessed.id: assessed}), True
    )
    assert analysis.summary == stated and analysis.impact == stated
    # A title is no impact: the field then says the sources do not state one.
    [bare] = assess([item(51, "Compiled model returns wrong values on CUDA", "```python\nimport torch\n```")], PROFILE)
    assert (
        RuleAnalyser().analyse(bare, AnalysisContext(PROFILE, PROFILE.reader(None), {bare.id: bare}), True).impact == ""
    )


def test_what_a_failure_leads_to_is_its_impact_and_harm_avoided_is_not() -> None:
    from pytorch_insight.analysis.impact import consequence

    body = (
        "The autotuner runs the candidate kernels in the main process.\n\n"
        "A bad candidate corrupts the context, causing all later CUDA calls in the process to fail."
    )
    [assessed] = assess([item(80, "Run the candidates in a subprocess", body, kind="pull_request")], PROFILE)
    assert consequence([assessed]) == "causing all later CUDA calls in the process to fail."
    spared = "Run the candidates in a subprocess, resulting in fewer failures of the main process."
    [gain] = assess([item(81, "Isolate the autotuner", spared, kind="pull_request")], PROFILE)
    assert consequence([gain]) == ""
    lead_in = "The guard fires too late, leading to this error:\n\n```\nRuntimeError: boom\n```"
    [log] = assess([item(82, "Move the guard", lead_in, kind="pull_request")], PROFILE)
    assert consequence([log]) == ""


def test_a_fix_s_author_saying_what_they_changed_is_no_cause() -> None:
    from pytorch_insight.analysis.rules import describes_change

    assert describes_change("I've fixed this by adding a check that rejects a negative epsilon.")
    assert describes_change("We have added the missing guard to the loader.")
    assert not describes_change("The loader reads the file twice when the cache is cold.")


def test_why_an_attempt_failed_or_why_it_was_filed_is_no_cause() -> None:
    assert root_causes(["Pinning the buffer does not stop the hang because the copy runs on another stream."], "") == []
    assert root_causes(["I filed it as a correctness bug because the smaller repro shows a dtype change."], "") == []
    # The mechanism itself still is one.
    stated = "The hang happens because the copy runs on another stream and is never awaited."
    assert root_causes([stated], "") == [stated]


def test_the_change_a_regression_was_bisected_to_is_its_cause() -> None:
    assert root_causes(["The slowdown was introduced in #1234, and the run before it was fine."], "")
    assert root_causes(["I bisected the failure to #5678 with the script above."], "")
    from pytorch_insight.analysis.causes import ROOT_CAUSE

    assert not ROOT_CAUSE.search("Introduced a new flag in this PR to control the behaviour.")


def test_a_request_for_a_workaround_is_neither_a_workaround_nor_a_cause() -> None:
    from pytorch_insight.analysis.workaround import find_workaround

    asked = "If this is confirmed, a workaround would be appreciated because it blocks our upgrade."
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
    ):
        assert keeps_problem_away(stated), stated
    for other in (
        "Calling `torch.cuda.synchronize()` before the copy does not prevent the hang.",
        "Setting the flag never avoids the error for us.",
        "The fallback path does not run correctly with a pinned arena.",
        "The same script runs correctly with:",
        "Does disabling the cache avoid the crash?",
        "The loss goes to NaN after a few steps.",
    ):
        assert not keeps_problem_away(other), other
    report = parse_body("The export hangs on large graphs.\n\nThe export does not hang when the graph is split first.")
    assert find_workaround([report], [report], []) == ("The export does not hang when the graph is split first.", "")
    # A workaround named as one, in a comment, goes before a change that only keeps the problem away.
    named = "A workaround is to export each submodule on its own."
    assert find_workaround([report], [report], [named])[0] == named


def test_a_comment_line_of_a_code_block_is_no_heading() -> None:
    body = parse_body(
        "It fails.\n```python\n# Replay - may cause the failure\nrun()\n```\n## Root cause\nThe buffer is freed early."
    )
    assert list(body.sections) == ["", "root cause"]


def test_a_sentence_led_by_the_impact_s_name_is_the_impact() -> None:

    body = (
        "The cached value skips the mask, so the fill value is silently dropped.\n\n"
        "Observable effect: padding a reduced tensor returns ones where it should return zeros."
    )
    [assessed] = assess([item(60, "Fix the dropped mask", body, kind="pull_request")], PROFILE)
    assert impact_sentences([assessed]) == ["padding a reduced tensor returns ones where it should return zeros."]


def test_a_title_that_states_the_problem_gives_way_to_the_description_s_sentence() -> None:
    body = (
        "Thanks for looking.\n\nWhen more blocks are launched than the device can hold at once, some never "
        "start, so the all-reduce hangs.\n\nAn example of the hang:"
    )
    [assessed] = assess([item(70, "Fix the all-reduce hang with many ranks", body, kind="pull_request")], PROFILE)
    stated = (
        "When more blocks are launched than the device can hold at once, some never start, so the all-reduce hangs."
    )
    # The fact is quoted from the description (the title alone restates the entry), and so is the impact.
    assert assessed.facts.first("hang").evidence == stated
    assert impact_sentences([assessed]) == [stated]


def test_a_fix_s_impact_is_the_problem_its_report_states_in_its_title() -> None:
    issue = item(80, "Compiled backward returns a wrong gradient for a masked fill", "```python\nimport torch\n```")
    fix = item(81, "Route the masked fill backward through the decomposition", "Fixes #80", kind="pull_request")
    ranked = assess([issue, fix], PROFILE)
    by_id = {a.item.number: a for a in ranked}
    assert impact_sentences([by_id[81], by_id[80]]) == [issue.title]
    # The report's own entry does not restate its title as its impact.
    assert issue.title not in impact_sentences([by_id[80], by_id[81]])


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
        "Stack from [ghstack](https://github.com/ezyang/ghstack) (oldest at bottom):\n* __->__ #11\n* #10\n\n"
        "The slicing kernel is lowered into:\n```\nx = y[::2]\n```\nIts stride is then read from the wrong buffer."
    )
    assert summarise(parse_body(stacked)) == (
        "The slicing kernel is lowered into: Its stride is then read from the wrong buffer."
    )  # another lead-in's list is not this one's
