"""The focus list is made of stories: one slot per issue and its fixes, per stack, per change."""

from __future__ import annotations

from pytorch_insight.pipeline import assess, select_focus
from tests.pipeline.helpers import PROFILE, item


def test_an_issue_and_its_fix_take_one_slot_led_by_the_better_ranked() -> None:
    bug = item(1, "Compiled model gives wrong results on H100", labels=["high priority"])
    fix = item(2, "[inductor] Fix wrong results in the scheduler", body="Fixes #1", kind="pull_request")
    other = item(3, "Segfault in the allocator on exit")
    stories = select_focus(assess([bug, fix, other], PROFILE), PROFILE, 12)
    assert [set(s.members) for s in stories] == [{bug.id, fix.id}, {other.id}]


def test_duplicates_and_noise_never_lead_and_one_author_leads_at_most_the_profile_share() -> None:
    busy = [item(10 + n, f"[dynamo] Fix a crash in pass {n}", author="busy", kind="pull_request") for n in range(6)]
    noise = item(30, "DISABLED test_foo (__main__.TestBar)", body="segfault", author="pytorch-bot[bot]")
    stories = select_focus(assess([*busy, noise], PROFILE), PROFILE, 12)
    leads = [s.lead for s in stories]
    assert noise.id not in leads
    assert len(leads) == PROFILE.ranking.focus_per_author
