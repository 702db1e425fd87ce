from pytorch_insight.pipeline import assess
from tests.pipeline.helpers import PROFILE, item, run, texts


def test_severity_signals_raise_the_score_and_are_explained() -> None:
    plain = item(1, "torch.compile question about guards")
    severe = item(
        2,
        "torch.compile gives wrong results on H100",
        body="Silently wrong results; a segfault too.",
        labels=["high priority"],
    )
    result = run(plain, severe)
    assert result[severe.id].score > result[plain.id].score
    assert {"triaged high priority", "silent wrong results", "crash"} <= set(texts(result[severe.id].reasons))
    assert result[severe.id].priority == "high"


def test_engagement_fix_availability_and_key_contributors_count() -> None:
    quiet = item(10, "[dynamo] Graph break on generators")
    discussed = item(11, "[dynamo] Graph break on generators again", n_comments=8)
    fixed = item(12, "[dynamo] Graph break on dict views")
    fix = item(13, "[dynamo] Support dict views", body="Fixes #12", kind="pull_request")
    by_key = item(14, "[dynamo] Graph break on sets", author="ezyang")
    result = run(quiet, discussed, fixed, fix, by_key)
    base = result[quiet.id].score
    assert result[discussed.id].score > base and "8 comments" in texts(result[discussed.id].reasons)
    assert result[fixed.id].score > base and "fix PR exists: pytorch/pytorch#13" in texts(result[fixed.id].reasons)
    assert result[by_key.id].score > base and "by key contributor Edward Z. Yang (Compiler stack)" in texts(
        result[by_key.id].reasons
    )


def test_noise_is_penalised_but_a_fix_for_a_severe_bug_lifts_it() -> None:
    bug = item(20, "Wrong results from max_autotune", labels=["high priority", "module: correctness (silent)"])
    noisy_fix = item(21, "[ROCm][inductor][UT] Fix wrong results test", body="Fixes #20", kind="pull_request")
    noise = item(22, "[ROCm][inductor][UT] Adjust a tolerance", kind="pull_request")
    result = run(bug, noisy_fix, noise)
    assert result[noisy_fix.id].noise and result[noise.id].noise
    assert result[noisy_fix.id].score > result[noise.id].score
    assert any(reason.startswith("fixes pytorch/pytorch#20") for reason in texts(result[noisy_fix.id].reasons))


def test_the_reader_changes_the_ranking() -> None:
    compiler = item(30, "[inductor] Codegen emits a redundant load")
    distributed = item(31, "[FSDP2] Reshard emits a redundant all_gather")
    for_compiler = [a.id for a in assess([compiler, distributed], PROFILE, "compiler")]
    for_distributed = [a.id for a in assess([compiler, distributed], PROFILE, "distributed")]
    assert for_compiler == [compiler.id, distributed.id]
    assert for_distributed == [distributed.id, compiler.id]


def test_ties_are_broken_by_id_and_the_output_is_deterministic() -> None:
    items = [item(n, f"unrelated topic {n}", created=f"2026-04-{8 + n % 3:02d}T12:00:00Z") for n in (44, 41, 43, 42)]
    first = assess(items, PROFILE)
    again = assess(list(reversed(items)), PROFILE)
    assert [a.id for a in first] == [a.id for a in again] == sorted(a.id for a in first)
    assert [a.rank for a in first] == [1, 2, 3, 4]
    assert [(a.score, a.reasons, a.areas) for a in first] == [(a.score, a.reasons, a.areas) for a in again]


def test_priorities_follow_the_profile_thresholds() -> None:
    ranking = PROFILE.ranking
    for a in run(item(1, "x"), item(2, "torch.compile gives wrong results", labels=["high priority"])).values():
        expected = "high" if a.score >= ranking.high else "medium" if a.score >= ranking.medium else "low"
        assert a.priority == expected
