"""The focus list is made of stories: one slot per issue and its fixes, per stack, per change."""

from __future__ import annotations

from pytorch_insight.pipeline import assess, select_focus
from tests.pipeline.helpers import PROFILE, item


def test_an_issue_and_its_fix_take_one_slot() -> None:
    bug = item(1, "Compiled model gives wrong results on H100", labels=["high priority"])
    fix = item(2, "[inductor] Fix wrong results in the scheduler", body="Fixes #1", kind="pull_request")
    other = item(3, "Segfault in the allocator on exit")
    stories = select_focus(assess([bug, fix, other], PROFILE), PROFILE, 12)
    assert [set(s.members) for s in stories] == [{bug.id, fix.id}, {other.id}]


def test_a_pr_that_names_an_issue_without_a_closing_word_shares_its_slot() -> None:
    bug = item(1, "The histogram kernel reads past the end of its bins")
    change = item(2, "Guard the bin loop in the histogram kernel", body="See #1 for the repro.", kind="pull_request")
    other = item(3, "Segfault in the allocator on exit")
    stories = select_focus(assess([bug, change, other], PROFILE), PROFILE, 12, low=True)
    assert {bug.id, change.id} in [set(s.members) for s in stories] and len(stories) == 2


def test_an_issue_leads_the_fix_that_outranks_it_unless_the_fix_alone_is_high() -> None:
    bug = item(1, "Compiled model gives wrong results on H100")
    fix = item(2, "[inductor] Fix wrong results in the scheduler", body="Fixes #1", kind="pull_request")
    by_id = {a.id: a for a in assess([bug, fix], PROFILE)}
    ranked = [by_id[fix.id], by_id[bug.id]]  # the fix restates the problem and adds its own text
    for assessment in ranked:
        assessment.priority = "medium"
    assert [s.members for s in select_focus(ranked, PROFILE, 12)] == [(bug.id, fix.id)]
    by_id[fix.id].priority = "high"
    assert [s.members for s in select_focus(ranked, PROFILE, 12)] == [(fix.id, bug.id)]
    by_id[bug.id].priority = "high"
    by_id[bug.id].canonical = "elsewhere"  # a duplicate never leads
    assert [s.members for s in select_focus(ranked, PROFILE, 12)] == [(fix.id,)]


def test_duplicates_and_noise_never_lead_and_one_author_leads_at_most_the_profile_share() -> None:
    busy = [item(10 + n, f"[dynamo] Fix a crash in pass {n}", author="busy", kind="pull_request") for n in range(6)]
    noise = item(30, "DISABLED test_foo (__main__.TestBar)", body="segfault", author="pytorch-bot[bot]")
    # The red model may make any of them high, and the cap is on stories below high priority: left
    # out, the six stay below.
    profile = PROFILE.model_copy(deep=True)
    profile.judgement.red.cap = 0
    ranked = assess([*busy, noise], profile)
    leads = [s.lead for s in select_focus(ranked, profile, 12)]
    assert noise.id not in leads
    assert all(a.priority != "high" for a in ranked)
    assert len(leads) == profile.ranking.focus_per_author


def test_a_quiet_week_still_fills_its_focus_list_with_its_best_stories() -> None:
    profile = PROFILE.model_copy(deep=True)
    profile.ranking.focus_fill = 3
    profile.judgement.picks.weight = 0.0  # the fill alone orders the discussed changes (test_picks: the model's order)
    bug = item(1, "Segfault in the allocator on exit with a sharded model on H100")
    topics = ("Tidy the scheduler pass", "Rename a lowering helper", "Document the cache layout")
    discussed = [item(2 + n, f"[inductor] {topic}", n_comments=2, author=f"a{n}") for n, topic in enumerate(topics)]
    silent = item(9, "[inductor] Rename a helper", author="quiet")
    ranked = assess([bug, *discussed, silent], profile)
    by_id = {a.id: a for a in ranked}
    assert by_id[bug.id].priority != "low"
    focus = select_focus(ranked, profile, 12)
    assert len(focus) == 3  # the bug and the two best-discussed changes, not more than focus_fill
    raised = [by_id[s.lead] for s in focus if s.lead != bug.id]
    assert all(a.priority == "medium" and a.reasons[-1].code == "focus-fill" for a in raised)
    assert by_id[silent.id].priority == "low"  # nothing speaks for it, and the list is full anyway


def test_a_story_nothing_speaks_for_is_not_raised_to_fill_the_list() -> None:
    profile = PROFILE.model_copy(deep=True)
    profile.ranking.focus_fill = 12
    plain = item(1, "[inductor] Rename a helper", kind="pull_request")
    event = item(2, "PyTorch Conference keynote", kind="event", n_comments=3)
    ranked = assess([plain, event], profile)
    assert {a.id: a.priority for a in ranked} == {plain.id: "low", event.id: "low"}
    assert select_focus(ranked, profile, 12) == []
