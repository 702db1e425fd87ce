"""The impact of a focus entry: the sentences of its story that state what goes wrong, quoted, never
composed; empty where the sources state none."""

from __future__ import annotations

import pytest

from pytorch_insight.analysis.impact import consequence, harm_told, impact_sentences
from pytorch_insight.analysis.model import AnalysisContext
from pytorch_insight.analysis.rules import RuleAnalyser
from pytorch_insight.pipeline import assess
from tests.analysis.helpers import PROFILE, analyse
from tests.pipeline.helpers import item


def test_a_benchmark_table_row_is_no_impact() -> None:

    table = "| size | old us | new us | ratio |\n|---|---|---|---|\n| (96, 48) | 21.6 | 21.9 | 0.98x |"
    body = f"The kernel crashes with an illegal memory access on large inputs.\n\n{table}"
    [assessed] = assess([item(40, "Fix the kernel crash", body, kind="pull_request")], PROFILE)
    assert all(sentence.count("|") < 3 for sentence in impact_sentences([assessed]))


def test_how_many_models_a_report_finds_slower_is_the_breadth_of_its_problem() -> None:
    said = "Comparing the two nights, 17/40 models are more than 20% slower."
    body = f"The nightly dashboard shows compilation 35% slower on the new GPU since Monday.\n\n{said}"
    [report] = assess([item(60, "Compile latency regressed on the new GPU", body)], PROFILE)
    assert said in impact_sentences([report])


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


def test_harm_that_is_supposed_or_the_reason_for_a_removal_is_no_impact() -> None:
    body = (
        "The loader aborts on exit on the new driver.\n\n"
        "We dropped the exit guard because it was causing more trouble than it saved: it hid every failure. "
        "That meant that if a nightly job hit errors on 64 GPUs, it still reported success."
    )
    [assessed] = assess([item(83, "Loader aborts on exit", body)], PROFILE)
    assert consequence([assessed]) == ""
    assert not any("if a nightly job" in sentence for sentence in impact_sentences([assessed]))
    design = "The kernel is templated to prevent branching causing a slowdown on small inputs."
    [kept] = assess([item(87, "Template the gather kernel", design, kind="pull_request")], PROFILE)
    assert consequence([kept]) == ""
    reuse = "The pool reuses grommets so that we don't free a grommet early, which causes a hang on exit."
    [reused] = assess([item(88, "Reuse grommets by default", reuse, kind="pull_request")], PROFILE)
    assert consequence([reused]) == ""
    # Harm stated in the main clause, with its condition, is the impact.
    stated = "The loader crashes if a nightly job runs on 64 GPUs."
    [real] = assess([item(84, "Loader crashes on exit", f"{stated}\n\nIt started last week.")], PROFILE)
    assert stated in impact_sentences([real])


def test_what_a_change_s_test_shows_now_is_no_impact() -> None:
    result = "The repro from the issue now exits cleanly where it previously died with SIGABRT."
    body = f"Join the watchdog thread before the store is torn down.\n\n{result}"
    [change] = assess([item(85, "Join the watchdog before teardown", body, kind="pull_request")], PROFILE)
    assert result not in impact_sentences([change])
    # A report's own words on what happens now are its harm.
    told = "The worker now dies with SIGABRT on every exit."
    [report] = assess([item(86, "Worker aborts on exit", f"{told}\n\nIt started last week.")], PROFILE)
    assert told in impact_sentences([report])


def test_a_lead_in_to_a_repro_is_no_impact() -> None:
    lead = "The process crashes after about 300 iterations of the following loop:"
    body = f"{lead}\n\n```python\nfor _ in range(300):\n    step()\n```"
    [assessed] = assess([item(85, "Long loops on the new GPU", body)], PROFILE)
    assert lead not in impact_sentences([assessed])


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


def test_a_report_s_opening_that_names_harm_is_its_impact() -> None:
    for opening in (
        "Exporting the model with two heads produces different results from eager on CPU.",
        "A dtype-converting copy to the host can silently overwrite the source tensor.",
        "When `torch.compile` wraps the loop, the output is inconsistent with eager.",
        "Compiling the fold after a transpose causes native heap corruption.",
        "Running ops from two threads at the same time kills the process; there is no exception.",
        "Writing into a view of a padded buffer does nothing on the accelerator.",
        "The `dtype` argument of the reduction is silently ignored when the input is a view.",
    ):
        assert harm_told(f"{opening} It may be the fusion pass.", 200) == opening
    for opening in (
        "I ran the training script overnight on eight GPUs.",  # harm only later, where guesses go
        "The error happens inside the compiler module.",  # harm named elsewhere
        "Calling `leaky_relu` after the view keeps the old strides.",  # harm words only inside code
        "The export no longer fails after the upgrade.",  # harm avoided
        "Fix the crash in the loader when workers exit.",  # what a change does
        "This test was disabled because it is failing on the main branch.",  # harm explains the rest
    ):
        assert harm_told(f"{opening} Then the loss goes to NaN.", 200) == "", opening
    assert harm_told("It fails with:", 200) == ""  # a lead-in to a log
    long = "With the cache on " + "and the flag set " * 20 + "the kernel returns wrong values on CUDA."
    cut = harm_told(long, 120)
    assert "wrong values" in cut and len(cut) <= 121


def test_an_issue_s_opening_is_its_impact_when_no_fact_quotes_it_and_a_change_s_is_not() -> None:
    opening = "Saving the optimizer state twice silently overwrites the first checkpoint's shards."
    body = f"{opening}\n\n```python\nimport torch\n```"
    analyses = analyse(
        item(90, "Optimizer state checkpoint shards", body),
        item(91, "Keep the first checkpoint's shards", body, kind="pull_request"),
    )
    assert analyses[90].impact == opening
    assert analyses[91].impact != opening  # a change's opening says what it changes


@pytest.mark.parametrize(
    ("opening", "told"),
    [
        ("Fixes `Unpool` crash when the input tensors are small.", True),
        ("This PR fixes the cases where the op suite crashes when it is enabled for the new backend.", True),
        ("Fix the dtype of the reduction output to match eager.", False),  # what it changes, no harm named
        ("Fixes #4242 - the pool crashes on small inputs.", False),  # a closing reference restates its issue
        ("Add a fallback so the pool no longer crashes.", False),  # what the change does
        ("Fix the loader to avoid a crash on empty files.", False),  # harm avoided, which is the change's aim
        # harm named and pointed at, never stated
        ("Fix the memory leak shown in https://github.com/org/repo/issues/12#issuecomment-3", False),
        ("Fixes the crash.", False),
    ],
)
def test_a_change_s_opening_is_its_impact_only_as_the_harm_it_fixes(opening: str, told: bool) -> None:
    assert harm_told(opening, 200, change=True) == (opening if told else "")


def test_the_author_s_aside_is_neither_summary_nor_impact() -> None:
    body = (
        "Apologies for posting a generated report, but a user hit the segfault on two GPUs under Windows.\n\n"
        "That was a fun one :)\n\nI lost a whole day to this bug. The store crashes with a segfault in the first "
        "all_reduce."
    )
    found = analyse(item(70, "Store crashes in all_reduce on Windows", body))[70]
    for field in (found.summary, found.impact, found.root_cause):
        assert "Apologies" not in field and "lost a whole day" not in field and "fun" not in field
    assert found.summary.startswith("The store crashes with a segfault")


def test_the_opening_line_that_names_harm_is_read_alone() -> None:
    # lines kept apart by "; ": a change log's entry that mentions an error is no impact
    logged = (
        "Sprockets wider than the frame; Add a regression test where each grommet path must error out Rename `spin`"
    )
    assert harm_told(logged, 200) == ""
    stated = "Without the `teeth` argument the spinner stops with an unreadable grommet error."
    assert harm_told(f"Sprockets cut from brass sheet; {stated}", 200) == stated
