"""Reasons and conclusions show a fact by what states it: the sentence (shortened around the words
that state it, with an ellipsis), the triager's label, or the learned model's reading, said to be the
model's. A category named after one matched word ("memory growth (“oom”)") is never printed: the word
may mean something else where it stands."""

from __future__ import annotations

import pytest

from pytorch_insight.model import Item
from pytorch_insight.pipeline.facts import Fact
from pytorch_insight.pipeline.reasons import fact_reason
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.report.narrative import Narrator
from pytorch_insight.text import excerpt
from tests.pipeline.helpers import item
from tests.report.fixtures import report_of

LONG = (
    "We run the nightly build on a cluster of eight nodes with the default allocator settings and after "
    "about two hours the trainer memory grows by 2 GB per step until OOM kills the job on every rank."
)


def narrator(lang: str) -> Narrator:
    return Narrator(Catalogue(lang), lambda item_id: item_id, {}, {})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_stated_problem_is_quoted_not_named_after_its_word(lang: str) -> None:
    report = report_of([item(3001, "Trainer memory keeps growing", LONG, labels=["high priority"])], lang)
    entry = report.focus[0]
    for text in (entry.conclusion, entry.reason, report.overview.themes[0].text):
        assert "（“oom”）" not in text and "(“oom”)" not in text
        assert "内存增长" not in text and "memory growth" not in text
    assert "until OOM kills the job" in entry.conclusion and "until OOM kills the job" in entry.reason


def test_a_long_sentence_is_shortened_around_the_words_that_state_the_fact() -> None:
    quoted = excerpt(LONG, "oom", 100)
    assert quoted.startswith("…") and "until OOM kills the job" in quoted and len(quoted) <= 100
    assert excerpt("A short sentence.", "short") == "A short sentence."
    reason = fact_reason(Fact("memory", LONG, "oom"))
    assert reason.en == f"the text says “{excerpt(LONG, 'oom', 100)}”"
    assert reason.zh.startswith("原文称“…") and reason.code == "fact:memory"


def test_a_quoted_lead_in_marks_that_what_it_introduces_is_left_out() -> None:
    # "... fails with:" introduced a log the quote cannot hold: a quote ending in a colon points at nothing.
    lead = "Packing a grommet of two rows makes the sprocket kernel fail with:"
    assert excerpt(lead, "fail") == f"{lead} …"
    assert fact_reason(Fact("error", lead, "fail")).en == f"the text says “{lead} …”"
    long_lead = "After the sprocket table was resized on the second rank of four, packing a grommet fails with:"
    assert excerpt(long_lead, "fails", 60).endswith("fails with: …")
    assert excerpt("It fails: the table is full.", "fails") == "It fails: the table is full."


def test_a_label_fact_names_the_label() -> None:
    fact = Fact("crash", "label: module: crash", "module: crash", "label")
    assert fact_reason(fact).en == "triage label “module: crash”"
    assert fact_reason(fact).zh == "分诊标签“module: crash”"
    assert narrator("en").problem(fact) == "triaged as “module: crash”"
    assert narrator("zh").problem(fact) == "分诊标签“module: crash”"


def test_a_model_fact_says_it_is_the_models_reading() -> None:
    fact = Fact("wrong_result", "The loss curve of the compiled model drifts away from eager.", "p=0.82", "model", 0.82)
    assert fact_reason(fact).en == (
        "the learned triage model reads it as silent wrong results (p=0.82): "
        "“The loss curve of the compiled model drifts away from eager.”"
    )
    assert fact_reason(fact).zh.startswith("按分诊模型判断为静默错误结果（概率 0.82）")
    assert narrator("en").problem(fact).startswith("the learned triage model reads it as silent wrong results")
    assert narrator("zh").problem(fact).startswith("按分诊模型判断为静默错误结果")


def test_names_the_text_mentions_are_mentioned_not_asserted() -> None:
    assert fact_reason(Fact("hardware", "It works on H100 but not here.", "h100")).en == "mentions “H100”"
    assert fact_reason(Fact("measured", "It went from 2 GB to 4 GB.", "2 gb to 4 gb")).en == "measured “2 GB to 4 GB”"
    facts = [
        Fact("hardware", "Seen on H100 only.", "H100"),
        Fact("confirmed", "label: high priority", "high priority", "label"),
    ]
    assert narrator("en").context(facts) == ", triaged high priority, mentioning “H100”"
    assert narrator("zh").context(facts) == "，已被分诊标为高优先级，提及“H100”"


def issue_and_fix(number: int, title: str, fixed_words: str) -> list[Item]:
    """A high-priority issue and the PR that fixes it, whose description says `fixed_words`."""
    return [
        item(number, title, "```python\nrun()\n```", labels=["high priority"]),
        item(
            number + 1,
            "Check the batch size in the resize kernel",
            f"Fixes #{number}\n\n{fixed_words}",
            kind="pull_request",
        ),
    ]


def conclusion_of(items: list[Item], ref: str) -> str:
    from tests.report.fixtures import WINDOW

    return next(e.conclusion for e in report_of(items, window=WINDOW).focus if e.ref == ref)


def test_a_quote_or_a_name_another_item_of_the_story_states_is_credited_to_it() -> None:
    from pytorch_insight.pipeline import assess
    from pytorch_insight.report.narrative import held_by
    from tests.report.fixtures import PROFILE

    issue, fix = issue_and_fix(
        81,
        "Resize kernel with an empty batch",
        "With an empty batch the compiled kernel crashes at runtime.",
    )
    told = conclusion_of([issue, fix], "#81")
    assert "the compiled kernel crashes at runtime" in told and "(in #82)" in told  # the fix's words, credited
    # a fix's own words need no credit, nor its issue's in its "Fixes #81, a problem ...": only a
    # fact another item states names that item
    by_id = {a.id: a for a in assess([issue, fix], PROFILE)}
    assessed_issue, assessed_fix = by_id[issue.id], by_id[fix.id]
    assert {held_by(f, assessed_issue, by_id) for f in assessed_fix.facts.facts} == {fix.id}
    assert {held_by(f, assessed_fix, by_id) for f in [*assessed_fix.facts.facts, *assessed_issue.facts.facts]} == {""}


def test_a_report_that_states_its_problem_is_told_by_its_own_words_not_its_fix_s() -> None:
    items = issue_and_fix(
        91,
        "Compiled resize crashes at runtime with an index out of bounds",
        "With an empty batch, eager silently returns wrong values, while the compiled one crashes.",
    )
    told = conclusion_of(items, "#91")
    assert "crashes at runtime with an index out of bounds" in told
    assert "eager silently returns" not in told


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_report_whose_text_only_names_an_error_is_told_by_its_title(lang: str) -> None:
    vague = item(
        3301,
        "Sharded checkpoint save on the second rank",
        "When the second rank reaches the save call it prints the following error:\n\n```\ntimeout\n```",
        labels=["high priority"],
    )
    stated = item(
        3302,
        "Loading the sharded optimizer state",
        "Loading the state after a restart crashes with a segfault in the allocator.",
        labels=["high priority"],
    )
    # words of a design change in the title of a report that names an error do not make it one
    designed = item(
        3303,
        "Grommet counter fails when only the new API is used",
        "When the counter is read it prints the following error:\n\n```\nRuntimeError: grommet\n```",
        labels=["high priority"],
    )
    entries = {entry.ref: entry.conclusion for entry in report_of([vague, stated, designed], lang).focus}
    issue = {"en": "Issue: ", "zh": "Issue："}[lang]
    assert entries["#3301"].startswith(f"{issue}“Sharded checkpoint save on the second rank”")
    assert entries["#3303"].startswith(f"{issue}“Grommet counter fails when only the new API is used”")
    assert "following error" not in entries["#3301"]
    # A sentence that says what fails stays the quoted problem.
    assert "crashes with a segfault in the allocator" in entries["#3302"]


def test_a_request_is_not_quoted_as_the_reported_problem() -> None:
    from pytorch_insight.pipeline.facts import Fact
    from pytorch_insight.report.i18n import Catalogue
    from pytorch_insight.report.narrative import Narrator

    narrator = Narrator(Catalogue("en"), str, {}, {"blocker": 2.5, "regression": 2.0})
    asked = Fact("blocker", "Could someone suggest a way around it, since it blocks our upgrade to 3.2.", "blocks")
    stated = Fact("regression", "The grommet export works with 3.1 of the lathe but not with 3.2.", "works with 3.1")
    assert narrator.worst_problem([asked, stated]) == stated
    assert narrator.worst_problem([asked]) == asked  # quoted where no other sentence states a problem


def test_a_label_other_than_high_priority_is_named_as_it_is() -> None:
    facts = [Fact("confirmed", "label: ci: sev", "ci: sev", "label")]
    assert narrator("en").context(facts) == ", triage label “ci: sev”"
    assert narrator("zh").context(facts) == "，分诊标签“ci: sev”"


def test_one_number_of_a_before_and_after_comparison_is_not_stated_as_the_measurement() -> None:
    before = Fact("measured", "Before the upgrade warmup took 30 minutes, now it takes hours.", "30 minutes")
    assert "measured" not in narrator("en").context([before])
    both = Fact(
        "measured", "Warmup went from 30 minutes to 90 minutes after the upgrade.", "from 30 minutes to 90 minutes"
    )
    assert narrator("en").context([both]) == ", measured from 30 minutes to 90 minutes"


def test_a_closed_design_proposal_is_not_said_to_be_open_for_comments() -> None:
    from tests.pipeline.helpers import item
    from tests.report.fixtures import WINDOW, report_of

    proposal = "This proposal adds a new scheduling API and asks for feedback on its shape."
    entries = report_of(
        [item(71, "[RFC] A new scheduling API", proposal), item(72, "[RFC] Another API", proposal, state="closed")],
        window=WINDOW,
    ).focus
    by_ref = {entry.ref: entry for entry in entries}
    assert by_ref["#71"].conclusion.startswith("A design proposal open for comments")
    assert by_ref["#72"].conclusion.startswith("A design proposal, now closed")


def test_a_change_with_no_stated_problem_is_told_by_its_description_not_its_title_again() -> None:
    change = item(
        3101,
        "[inductor] Reorder the fusion queue",
        "This change lowers peak memory by freeing each buffer as soon as its last reader runs.",
        kind="pull_request",
        n_comments=2,
    )
    report_issue = item(3102, "Tutorial page for custom ops has a dead link", "The link is dead.", n_comments=2)
    entries = {e.ref: e for e in report_of([change, report_issue]).focus}
    assert entries["#3101"].conclusion.startswith("PR: “This change lowers peak memory by freeing each buffer")
    # A reporter's title is their own statement: it stays what the conclusion quotes.
    assert entries["#3102"].conclusion.startswith("Issue: “Tutorial page for custom ops has a dead link”")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_change_that_never_says_it_fixes_is_no_fix_of_the_problem_it_names(lang: str) -> None:
    feature = item(
        3101,
        "Multi-block reduction through a shared staging buffer",
        "Each block writes to its own staging slot: a single elected lane deadlocks there, waiting for the others.",
        kind="pull_request",
    )
    fix = item(
        3102,
        "Fix the reduction deadlock on large grids",
        "A single elected lane deadlocks waiting for the others on large grids.",
        kind="pull_request",
    )
    report = report_of([feature, fix], lang)
    entries = {entry.ref: entry.conclusion for entry in report.focus}
    assert set(entries) == {"#3101", "#3102"}, entries
    said = {"en": ("A change whose description says", "A fix for a problem"), "zh": ("改动，其描述提到", "修复改动")}
    mentions, fixes = said[lang]
    assert entries["#3101"].startswith(mentions) and fixes not in entries["#3101"]
    assert entries["#3102"].startswith(fixes)


@pytest.mark.parametrize(
    ("lang", "lead"), [("en", "PR whose description measures “"), ("zh", "PR，描述中的实测数据：“")]
)
def test_a_measured_gain_is_what_the_change_measures_not_what_the_change_is(lang: str, lead: str) -> None:
    faster = item(
        3201,
        "Install the dev tools with a faster resolver",
        "Switching the resolver cuts the setup of a fresh checkout: setup time 90s -> 31.5s on our runners.",
        kind="pull_request",
    )
    [entry] = report_of([faster], lang).focus
    assert entry.conclusion.startswith(lead) and "90s -> 31.5s" in entry.conclusion


def test_the_readers_lower_weight_of_an_area_is_no_reason_an_item_is_here() -> None:
    # Nothing states a problem, so the discussion is what speaks for the change; the reader's x0.9 for
    # its area only lowers its score.
    talked = item(3201, "[MPS] Rename the grommet kernels", "Renames them.", kind="pull_request", n_comments=3)
    entry = report_of([talked]).focus[0]
    assert "3 comments in the window" in entry.reason and "x0.9" not in entry.reason
