from pytorch_insight.pipeline import assess
from tests.pipeline.helpers import PROFILE, RULES, item, run, texts


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
    reasons = set(texts(result[severe.id].reasons))
    # Each fact is shown by what states it: the sentence, the label, the name mentioned; the
    # description's sentence rather than the title that says the same.
    assert {"triage label “high priority”", "the text says “Silently wrong results; a segfault too.”"} <= reasons
    assert "the text says “torch.compile gives wrong results on H100”" not in reasons
    assert "mentions “H100”" in reasons
    assert result[severe.id].priority == "high"


def test_engagement_fix_availability_and_key_contributors_count() -> None:
    quiet = item(10, "[dynamo] Graph break on generators")
    discussed = item(11, "[dynamo] Graph break on generators again", n_comments=8)
    fixed = item(12, "[dynamo] Graph break on dict views")
    fix = item(13, "[dynamo] Support dict views", body="Fixes #12", kind="pull_request")
    by_key = item(14, "[dynamo] Graph break on sets", author="ezyang")
    result = run(quiet, discussed, fixed, fix, by_key)
    base = result[quiet.id].score
    assert result[discussed.id].score > base and "8 comments in the window" in texts(result[discussed.id].reasons)
    assert result[fixed.id].score > base and "fix PR exists: pytorch/pytorch#13" in texts(result[fixed.id].reasons)
    listed = "author @ezyang is on the profile's key-contributor list"
    assert result[by_key.id].score > base and listed in texts(result[by_key.id].reasons)


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


def test_only_activity_inside_the_window_counts() -> None:
    from pytorch_insight.model import Comment
    from pytorch_insight.window import make_window

    late = [Comment(author=f"user{i}", date="2026-06-01T00:00:00Z", body="x") for i in range(9)]
    thread = item(50, "[dynamo] Graph break on generators", comments=late)
    # The rules' score alone: a week's red list raises its lone item to high by its floor, and the
    # models move the score of an item below high only, so the two scores would not compare.
    inside = assess([thread], RULES, window=make_window("2026-04-07", "2026-04-13"))[0]
    unbounded = assess([thread], RULES)[0]
    assert inside.activity == 0 and not any("comment" in r for r in texts(inside.reasons))
    assert unbounded.activity == 9 and inside.score < unbounded.score


def test_a_fix_takes_the_severity_its_issue_states_and_a_tracker_the_worst_it_tracks() -> None:
    bug = item(60, "Training crashes with a segfault on H100 when the graph is captured")
    fix = item(61, "[inductor] Handle captured graphs", body="Fixes #60", kind="pull_request")
    tracker = item(62, "[2.12] umbrella issue", body="1. [ ] #60\n2. [ ] #63\n3. [ ] #64\n")
    result = run(bug, fix, tracker)
    assert result[fix.id].severity == result[bug.id].severity > 0
    assert result[tracker.id].severity == result[bug.id].severity
    assert any(r.startswith("tracks pytorch/pytorch#60") for r in texts(result[tracker.id].reasons))


def test_a_fix_with_nothing_read_of_it_states_nothing_for_its_issue() -> None:
    odd = item(65, "Reshape of a zero-size view diverges", labels=["topic: fuzzer"])
    bare = item(66, "Project shapes for zero-size views", body="Fixes #65", kind="pull_request")
    result = run(odd, bare)
    assert not any("states:" in r for r in texts(result[odd.id].reasons))


def test_a_wrong_result_the_triagers_call_an_edge_case_is_not_high() -> None:
    # In PyTorch's labelled corpus few edge-case issues are high priority: the inputs that hit one
    # are rare. The triagers' own high priority still wins.
    body = "The compiled function returns a different value than eager for this input."
    ranked = run(
        item(1, "Compiled op differs from eager", body, labels=["module: correctness (silent)"]),
        # Titles of their own: reports titled alike are one story, which one member carries.
        item(2, "Softmax of a huge logit", body, labels=["module: correctness (silent)", "module: edge cases"]),
        item(
            3,
            "Cumprod near the float limits",
            body,
            labels=["module: correctness (silent)", "module: edge cases", "high priority"],
        ),
    )
    assert ranked["github:pytorch/pytorch#1"].priority == "high"
    edge = ranked["github:pytorch/pytorch#2"]
    assert edge.priority != "high" and edge.score < ranked["github:pytorch/pytorch#1"].score
    assert "triage label “module: edge cases”" in texts(edge.reasons)
    assert ranked["github:pytorch/pytorch#3"].priority == "high"


def test_a_change_that_closes_several_reported_issues_says_so_and_counts() -> None:
    body = "Keep the outputs alive across calls.\n\nFixes #9001 Fixes #9002\nFixes pytorch/vision#12"
    ranked = run(
        item(61, "Keep outputs alive across calls", body, kind="pull_request"),
        item(62, "Keep outputs alive across calls too", "Fixes #9003", kind="pull_request"),
    )
    several, one = ranked["github:pytorch/pytorch#61"], ranked["github:pytorch/pytorch#62"]
    assert "closes 3 reported issues: pytorch/pytorch#9001, pytorch/pytorch#9002, pytorch/vision#12" in texts(
        several.reasons
    )
    assert several.score > one.score and not any("reported issues" in r for r in texts(one.reasons))


def test_the_participant_count_says_whether_it_leaves_the_author_out_and_counts_the_window_only() -> None:
    from pytorch_insight.model import Comment
    from pytorch_insight.window import make_window

    known = item(70, "[dynamo] Graph break on sets", n_comments=2)
    unknown = item(71, "[dynamo] Graph break on dicts", n_comments=2, author=None)
    result = run(known, unknown)
    assert "2 people besides the author commented in the window" in texts(result[known.id].reasons)
    assert "2 people commented in the window" in texts(result[unknown.id].reasons)
    earlier = Comment(author="early", date="2025-01-02", body="x")  # a year before the window
    late = item(72, "[dynamo] Graph break on lists", n_comments=2, author=None)
    late.comments.append(earlier)
    (ranked,) = assess([late], PROFILE, window=make_window("2026-04-07", "2026-04-13"))
    assert "2 people commented in the window" in texts(ranked.reasons)


def test_the_author_commenting_under_another_case_of_their_login_is_no_other_participant() -> None:
    from pytorch_insight.model import Comment

    thread = item(72, "[dynamo] Graph break on frozensets", author="someone")
    thread = thread.model_copy(
        update={
            "comments": [
                Comment(author="Someone", date="2026-04-09", body="rebased"),
                Comment(author="reviewer", date="2026-04-09", body="lgtm"),
                Comment(author="Reviewer", date="2026-04-10", body="merging"),
            ]
        }
    )
    result = run(thread)
    assert not any("besides the author" in text for text in texts(result[thread.id].reasons))


def test_a_regression_that_names_a_release_is_high_whatever_its_score() -> None:
    named = item(50, "Exporting with dynamic shapes raises an error", body="This worked with torch 2.3 and fails now.")
    labelled = item(51, "Checkpoint loading fails after moving to PyTorch 2.5", labels=["module: regression"])
    unnamed = item(52, "Exporting with dynamic shapes raises an error", body="This used to work and fails now.")
    # A release named elsewhere (the reporter's setup) says nothing of the regression.
    elsewhere = item(
        53, "Tracing a module with hooks raises an error", body="This used to work.\n\nWe run PyTorch 2.5 on Linux."
    )
    result = run(named, labelled, unnamed, elsewhere)
    for high in (named, labelled):
        # The release, not the score, makes it high.
        assert result[high.id].priority == "high" and result[high.id].score < PROFILE.ranking.high
    assert "a regression, with the release “2.3” named" in texts(result[named.id].reasons)
    assert "a regression, with the release “2.5” named" in texts(result[labelled.id].reasons)
    for other in (unnamed, elsewhere):
        assert "regression" in result[other.id].facts.kinds()
        assert result[other.id].priority != "high"
    # a description that takes back the releases its title compares leaves the title naming none
    taken_back = item(
        54,
        "Grommet count fails with torch 3.2 but works with torch 3.1",
        body="Edit: not a regression from torch 3.1 to torch 3.2; see the comment below.",
    )
    assert "release_regression" not in run(taken_back)[taken_back.id].facts.kinds()
    assert "release_regression" in run(taken_back.model_copy(update={"body": ""}))[taken_back.id].facts.kinds()


def test_high_items_lead_whatever_their_points() -> None:
    release = item(
        55, "Exporting with dynamic shapes raises an error", body="This worked with torch 2.3 and fails now."
    )
    busy = item(56, "Dataloader workers crash when the iterator is deleted early", n_comments=9)
    # The rules' points: the models move the points of an item below high only.
    result = {a.id: a for a in assess([release, busy], RULES)}
    assert result[busy.id].score > result[release.id].score and result[busy.id].priority == "medium"
    assert result[release.id].priority == "high" and result[release.id].rank < result[busy.id].rank


def test_a_sentence_that_states_two_problems_is_quoted_once() -> None:
    both = item(60, "Compiled attention returns wrong values and then segfaults on exit")
    reasons = texts(run(both)[both.id].reasons)
    quote = "the text says “Compiled attention returns wrong values and then segfaults on exit”"
    assert reasons.count(quote) == 1


def test_a_long_sentence_that_states_two_problems_is_quoted_once_whatever_part_is_shown() -> None:
    sentence = (
        "After the scheduler change landed the fused kernel on the second stage of the pipeline returns "
        "wrong values for bf16 inputs, and a few steps later the whole process segfaults during the backward pass."
    )
    both = item(61, "Pipeline stage problems", body=sentence)
    quotes = [r for r in texts(run(both)[both.id].reasons) if r.startswith("the text says")]
    assert len(quotes) == 1, quotes
