"""Root causes read by the rule analyser: the sentences that explain a failure's mechanism, and the
many sentences that carry a causal word yet state something else."""

from __future__ import annotations

import pytest

from pytorch_insight.analysis.causes import root_cause_sentences, root_causes
from pytorch_insight.analysis.change_words import describes_change, measures
from pytorch_insight.text import parse_body
from tests.analysis.helpers import analyse
from tests.pipeline.helpers import item


def test_root_cause_from_a_root_cause_section_and_from_a_because_sentence() -> None:
    headed = item(
        21,
        "Kernel slower on the current main branch with settings tuned on the last release",
        "### Issue\nI see a slowdown for a matmul kernel after moving to the current main branch. The settings "
        "were tuned with the last release. Other users of tuned settings may see it too.\n\n"
        '### Root cause\nThe setting picked for this sample kernel is \n```\n{"tile": [16, 32], "warps": 4}\n```\n'
        "and the new default ignores its tile order.",
        repo="pytorch/helion",
    )
    fix = item(
        23,
        "[dynamo] Drop stale view outputs in custom Function tracing",
        "A resize inside a custom Function's forward together with a print call makes the tracer keep a stale "
        "view as an extra graph output. Because the stale view points at the same storage as the returned tensor, "
        "the edge setup replaces its output index, sending the gradient to the wrong input and giving all-zero "
        "gradients.\n\nApply the existing view filter to the custom Function path too.\n\n"
        "https://github.com/pytorch/pytorch/issues/22",
        kind="pull_request",
    )
    found = analyse(headed, fix)
    assert found[21].root_cause.startswith("The setting picked for this sample kernel is")
    assert found[23].root_cause.startswith("Because the stale view points at the same storage as the returned tensor")


def test_a_cause_inside_the_summary_sentence_is_given_as_its_clause() -> None:
    sentence = "Startup tests fail because the kernel cache is keyed on the device index alone."
    assert root_causes([sentence], sentence) == ["because the kernel cache is keyed on the device index alone."]


def test_a_sentence_the_marker_opens_is_quoted_whole() -> None:
    # the summary quotes it too; the cause is the whole sentence, not its words from "root cause" on
    sentence = "The root cause is that the grommet cache is keyed on the device index alone."
    assert root_causes([sentence], f"The lathe fails on the second device. {sentence}") == [sentence]


def test_a_link_to_the_lines_at_fault_is_no_cause_sentence() -> None:
    body = parse_body(
        "**Root cause:** the grommet cache assumes every key grows.\n\n"
        "https://github.com/example/repo/blob/main/grommet.py#L10-L12\n\n"
        "A shrinking key then writes before the buffer's start."
    )
    found, headed = root_cause_sentences([body], [])
    assert headed and root_causes(found, "", None, headed) == [
        "the grommet cache assumes every key grows.",
        "A shrinking key then writes before the buffer's start.",
    ]


def test_a_cause_inside_a_side_clause_of_the_summary_sentence_is_no_cause_of_the_problem() -> None:
    # The summary's problem is the wrong row count; the "because" explains why one case of it crashes.
    sentence = (
        "The exported graph returns too few rows for odd batch sizes, the smallest of them included, "
        "which crashes in the attention kernel because the computed batch is zero."
    )
    assert root_causes([sentence], sentence) == []
    alone = "The attention kernel crashes because the computed batch is zero."
    assert root_causes([alone], alone) == ["because the computed batch is zero."]


@pytest.mark.parametrize(
    "sentence",
    [
        "The slowdown is not caused by a change in the set of benchmarked models.",
        "This is not due to the allocator, which behaves the same on both versions.",
        "It shares its root cause with #4242.",
        "This is the sparse-layout counterpart of #4242 and shares its root cause.",
        "Other entry points hit it too, and #4242 is the hanging variant of the same root cause.",
        # a link to some lines of code points at the cause without naming it
        "The failed check is caused by: https://github.com/example/lib/blob/0a1b2c/src/fuse.py#L40-L44; Notes",
        # a label over the cause, not the cause
        "Root cause & analysis",
        # why other callers are hit too, not what goes wrong
        "The pooling wrappers hit it the same way, because each wrapper forwards to the shared helper.",
        "Pooling is also affected because it shares the same dispatch path.",
        # why the reporter expected otherwise
        "This is surprising because the flag asks the engine to keep the history.",
        "The call should succeed because both tensors live on the same device.",
        "This looks odd to me because the grommet sheet lists eight teeth as the limit.",
        # why the tests cost what they do
        "The new tests need a lot of host memory due to the sizes that trigger the overflow.",
        # why a repro's check fails: the symptom again
        "Run it on four ranks and the assertion fails on ranks 1 to 3, because the gather did not write `out`.",
        # a change log's line names where a change went
        "kernels.cu — added the bounds check to the tail loop, which is the real root cause of the overflow.",
        # a guess, which a quoted clause would give without its hedge
        "The hook is a no-op. I'm guessing it was disabled because the reducer is built later.",
        # what the wrong output holds
        "The unbound view is wrong because it also includes the rows the mask dropped.",
        # a program's message that holds a causal word
        'On teardown the launcher logs "Stopping worker due to timeout" although none timed out.',
        # why a failure is bad, not how it comes about
        "That case is worse than a clean error, because the job was healthy until the shutdown.",
        "That matters because the sprocket pass rebuilds the grommet view from its sizes alone.",
        # the reason for a choice the authors made, or why a choice is sound
        "We deliberately skip the input hooks, because they are recorded in the graph already.",
        "Because it still makes sense to keep the dense path when both layouts agree.",
        "Because this is simpler to maintain, the fallback stays on the host.",
        "We use the slim images on our build hosts because disk space there is short.",
        "Filing this as a bug because the new dependency looks accidental to me.",
        # the case that works, said beside the failure
        "When the batch is full, the correct kernel is picked.",
        # why the tests missed it, and a reading of a state that no longer fails
        "The bug slipped through because test_two_devices needs two GPUs and was not run on such a runner.",
        "I can no longer reproduce it: the tuner now skips those configs because it predicts running out of memory.",
        "The reason is that the inputs of the test case hold one value, so the scan returns correct sums even if "
        "it never reads the second block.",
        # a suspicion, a problem that names no cause, the failure named again, and what cures it
        "This led to the suspicion that the rounding in `floor_` might be the root cause of the box drift.",
        "The nightly job stopped due to a segmentation fault on the ARM runners.",
        "Skipping the view for 0-d inputs fixes the issue, because the cast is then never reached.",
        # the harm a design keeps away
        "The template is used to prevent branching causing a slowdown due to extra prefetching.",
        # a program's message copied without quotes
        "ShaderCompiler Code=3 Compilation failed due to a lost connection: SERVICE_CONNECTION_LOST",
        "RuntimeError: worker exited unexpectedly because of a signal",
        # why the change's own checks went red
        "@reviewer The job failed due to a lint error; I fixed the formatting, could you rerun it?",
        "The build is red because of an unrelated failure on the ROCm runner.",
    ],
)
def test_a_cause_ruled_out_or_pointed_elsewhere_is_no_root_cause(sentence: str) -> None:
    assert root_causes([sentence], "") == []


def test_a_stated_cause_is_still_one() -> None:
    sentence = "The kernel reads past the buffer because the stride is computed from the padded size."
    assert root_causes([sentence], "") == [sentence]
    crashed = "We run the job on eight GPUs and it crashes because the buffer is freed twice."
    assert root_causes([crashed], "") != []
    # the change that brought it, named by its number or its address
    for culprit in ("#5151", "https://github.com/example/lib/pull/5151"):
        regressed = f"The slowdown on the small shapes is caused by {culprit}."
        assert root_causes([regressed], "") == [regressed]
    caused = "The cause is that the escapement counts only full swings, not half swings."
    assert root_cause_sentences([parse_body(f"The pendulum clock runs slow. {caused}")], [])[0] == [caused]
    explained = "The reason why is the scheduler assumes dense layouts when it reuses a buffer."
    assert root_cause_sentences([parse_body(f"It fails on sparse outputs. {explained}")], [])[0] == [explained]
    labelled = "Root cause: the pool hands out a freed block."
    assert root_causes([labelled], "") == [labelled]
    blamed = "The fused epilogue path is the culprit."
    assert root_cause_sentences([parse_body(f"It fails on odd sizes. {blamed}")], [])[0] == [blamed]
    assert root_cause_sentences([parse_body("It fails on odd sizes. This is the problem.")], []) == ([], False)


def test_the_sentence_a_harm_is_said_to_follow_from_is_the_cause() -> None:
    mechanism = "The copy picked its kernel from the first tensor's type only."
    body = parse_body(
        f"{mechanism} This leads to wrong values when the types differ."
        "\n\nThe cache is cleared on exit. This leads to fewer recompiles."
    )
    assert root_cause_sentences([body], []) == ([mechanism], False)


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


def test_why_an_author_could_not_check_something_is_no_root_cause() -> None:
    caveat = "I could not benchmark the new schedule due to a lack of large machines."
    assert root_causes([caveat], "") == []
    mechanism = "Each worker wrote only its own slot when fewer threads ran, leading to skipped rows in the output."
    assert root_causes([mechanism], "") == [mechanism]


def test_a_closing_reference_with_the_issue_title_is_no_root_cause() -> None:
    assert root_causes(["Fixes #321 - Tracer keeps a stale alias, causing wrong gradients in the loop."], "") == []


def test_the_effect_after_which_causes_is_no_root_cause_of_its_own() -> None:
    sentence = "The planner copies every shard to the host first, which causes an OOM on large models."
    # quoted in the summary already: what comes before the marker is the mechanism, told without the effect
    assert root_causes([sentence], sentence) == ["The planner copies every shard to the host first"]
    assert root_causes([sentence], "") == [sentence]
    # a mechanism too short to name anything is not told again
    short = "It breaks, leading to a hang in the sprocket pool."
    assert root_causes([short], short) == []


def test_a_lead_in_to_a_repro_is_no_root_cause() -> None:
    lead_in = "This script shows the failure (it needs a few runs because the timing varies):"
    assert root_causes([lead_in], "") == []
    assert root_causes(["It fails because the buffer is freed before the copy ends."], "")


def test_a_lead_in_that_names_the_cause_before_its_colon_is_quoted_without_it() -> None:
    named = "The root cause is the retry loop in `fetch_shards`, which compares every pair of shards:"
    assert root_causes([named], "") == [named.removesuffix(":")]
    blamed = "It looks like the problem is that the new linker drops the weak symbols of the plugin:"
    assert root_causes([blamed], "") == [blamed.removesuffix(":")]
    # words that point at what the colon introduces, a marker heading it, a plain "because"
    assert root_causes(["The root cause is visible in the snippet below:"], "") == []
    assert root_causes(["Root cause (traced run by run, logs attached):"], "") == []
    assert root_causes(["The loader fails in the second epoch because of this call:"], "") == []


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
    assert analyse(fix, issue)[30].root_cause == ""
    assert describes_change("This is implemented for both backends; the fused path falls back on failure.")
    assert describes_change("The launch overhead can potentially be further reduced.")
    assert describes_change("Skipping the view for 0-d inputs fixes the issue.")
    later = item(
        39, "Faster contraction to a scalar", "Fixes #38\n\nThe overhead could be trimmed later.", kind="pull_request"
    )
    assert analyse(later, item(38, "Contraction to a scalar is slow", ""))[38].root_cause == ""


def test_a_fix_s_change_log_is_no_part_of_the_cause_it_gives_its_issue() -> None:
    fix = item(
        37,
        "Route the fused norm through its own op",
        "Fixes #36\n\nThe norm kernel reads the weight with the input's stride.\n\n"
        "- Defined a fused op and an MPS-only kernel for it\n- Added a unit test",
        kind="pull_request",
        state="closed",
    )
    issue = item(36, "Compiled norm returns zeros on MPS", "```python\nimport torch\n```")
    assert analyse(fix, issue)[36].root_cause == "The norm kernel reads the weight with the input's stride."


def test_a_fix_that_only_measures_the_problem_gives_its_issue_no_cause() -> None:
    fix = item(
        33,
        "Use cat instead of stack when clipping",
        "Fixes #32\n\nUsing 1000 shards, the stack takes 17s whereas the cat takes 0.1s.",
        kind="pull_request",
        state="closed",
    )
    issue = item(32, "Clipping is slow with many shards", "```python\nimport torch\n```")
    assert analyse(fix, issue)[32].root_cause == ""
    assert not measures("The stack copies every shard to one rank before it adds them.")


def test_a_fix_that_names_its_own_issue_as_the_origin_gives_it_no_cause() -> None:
    issue = item(37, "Pooling on the tiled backend returns stale values", "```python\nimport torch\n```")
    fix = item(
        38,
        "Refresh the tile cache before pooling",
        "Fixes #37\n\nA regression that came in with https://github.com/pytorch/pytorch/issues/37, sorry for "
        "missing it in review.",
        kind="pull_request",
        state="closed",
    )
    assert analyse(fix, issue)[37].root_cause == ""
    # the change a fix names as the origin is a cause
    origin = item(39, "Refresh the tile cache before pooling", fix.body.replace("issues/37", "pull/36"))
    origin = origin.model_copy(update={"kind": "pull_request", "state": "closed"})
    assert analyse(origin, issue)[37].root_cause.startswith("A regression that came in with")


def test_a_fix_that_repeats_its_issue_s_title_gives_it_no_cause() -> None:
    title = "Reloading the plugin table leaves the old entries in the lookup cache"
    fix = item(
        35,
        "Clear the lookup cache on reload",
        f"Fixes #34\n{title}.Clear the cache before each reload",
        kind="pull_request",
        state="closed",
    )
    issue = item(34, title, "```python\nimport torch\n```")
    assert analyse(fix, issue)[34].root_cause == ""
    # a fix that explains the mechanism in words of its own still gives its issue the cause
    told = item(
        36,
        "Clear the lookup cache on reload",
        "Fixes #34\n\nThe loader fills the cache on every reload and never empties it first.",
        kind="pull_request",
        state="closed",
    )
    assert analyse(told, issue)[34].root_cause.startswith("The loader fills the cache on every reload")


def test_a_fix_s_author_saying_what_they_changed_is_no_cause() -> None:
    assert describes_change("I've fixed this by adding a check that rejects a negative epsilon.")
    assert describes_change("This restores the old limit for the grouped kernels.")
    assert describes_change("We have added the missing guard to the loader.")
    assert describes_change("By validating the shape first, and the stride check as well.")  # how it works
    assert not describes_change("The loader reads the file twice when the cache is cold.")
    assert not describes_change("Byte offsets overflow when the cache is cold.")


def test_a_change_log_line_among_the_causes_is_no_cause() -> None:
    # a fix's list of what it does, read as one sentence where its lines carry no full stop
    stated = "Because the graph library aborts when it is given integer input."
    listed = "Add a test that checks both backends raise for integer input Rename the kernel to match the op"
    assert root_causes([stated, listed], "") == [stated]


def test_why_an_attempt_failed_or_why_it_was_filed_is_no_cause() -> None:
    assert root_causes(["Pinning the buffer does not stop the hang because the copy runs on another stream."], "") == []
    assert root_causes(["I filed it as a correctness bug because the smaller repro shows a dtype change."], "") == []
    # The mechanism itself still is one.
    stated = "The hang happens because the copy runs on another stream and is never awaited."
    assert root_causes([stated], "") == [stated]


def test_a_speculation_a_case_that_did_not_arise_or_a_choice_s_benefit_is_no_cause() -> None:
    assert root_causes(["Speculating here, but the slow start may come due to the cold cache."], "") == []
    assert root_causes(["The pass would have been skipped anyway due to the cache."], "") == []
    assert root_causes(["Because then the build can pick up newer compilers from the other channel."], "") == []
    stated = "The start is slow because the loader rebuilds its cache on every call."
    assert root_causes([stated], "") == [stated]


def test_a_comment_gives_a_cause_only_where_it_says_it_names_one() -> None:
    thread = [
        "I built it with the profiler on. This is because my script loads the profiler first.",
        "The crash happens because the cache entry is freed twice.",
        "Looked again: the root cause is the stale handle kept by the pool.",
    ]
    found, _ = root_cause_sentences([parse_body("Loading the model crashes.")], thread)
    assert found == [
        "The crash happens because the cache entry is freed twice.",
        "Looked again: the root cause is the stale handle kept by the pool.",
    ]


def test_a_proposal_is_the_change_to_make() -> None:
    assert describes_change("The proposal is to keep a per-device cache of compiled kernels.")
    assert describes_change("We propose to keep the old path behind a flag.")
    assert not describes_change("The per-device cache is rebuilt on every call.")


def test_where_a_profile_says_the_time_goes_is_no_cause() -> None:
    assert root_causes(["Training is slower than on CPU due to `conv3d_backward` taking ~65% of each step."], "") == []
    stated = "Training is slower than on CPU due to `conv3d_backward` launching one kernel per channel."
    assert root_causes([stated], "") == [stated]


def test_the_list_of_a_change_s_benefits_is_no_cause() -> None:
    body = (
        "This PR shares one buffer between the two paths for the following benefits:\n\n"
        "+ one setting for both paths\n"
        "+ a larger default size, which was hard to raise before due to out-of-memory errors downstream\n\n"
        "The old allocator frees the buffer too early because the stream is not recorded."
    )
    found, _ = root_cause_sentences([parse_body(body)], [])
    assert found == ["The old allocator frees the buffer too early because the stream is not recorded."]


def test_the_change_a_regression_was_bisected_to_is_its_cause() -> None:
    assert root_causes(["The slowdown was introduced in #1234, and the run before it was fine."], "")
    assert root_causes(["I bisected the failure to #5678 with the script above."], "")
    from pytorch_insight.analysis.causes import ROOT_CAUSE

    assert not ROOT_CAUSE.search("Introduced a new flag in this PR to control the behaviour.")


def test_what_a_fix_says_the_code_failed_to_do_is_the_cause_of_its_issue() -> None:
    fix = item(
        41,
        "Fix the concat offset for batched launches",
        "Fixes #40\n\nThis PR scales the offset before the launch. The storage offset was not multiplied by the "
        "element size, so the second launch read the wrong rows.",
        kind="pull_request",
        state="closed",
    )
    issue = item(40, "cat returns wrong rows for offset inputs", "The output differs from the CPU one for views.")
    assert analyse(fix, issue)[40].root_cause.startswith("The storage offset was not multiplied by the element size")
    # In a report the same words are the symptom seen, not the mechanism: no cause is claimed.
    report = item(42, "Gradients missing", "The gradient of the second input is not computed at all.")
    assert analyse(report)[42].root_cause == ""
    # what the code did in place of what it should, in a fix's words; what it returned is the symptom
    swapped = "Fixes #40\n\nThe scheduler reads the stale queue length instead of the current one."
    assert root_cause_sentences([parse_body(swapped)], [], [True])[0] == [swapped.split("\n\n")[1]]
    returned = "Fixes #40\n\nThe sorted view returns the old order instead of the new one on every call."
    assert root_cause_sentences([parse_body(returned)], [], [True]) == ([], False)
    # a check that covered one case of several is what the code failed to do
    partial = "Fixes #40\n\nThe loader only checked for an empty path, and then opened a directory as a file."
    assert root_cause_sentences([parse_body(partial)], [], [True])[0] == [partial.split("\n\n")[1]]
    # "The underlying problem" names no cause until the sentence says what it is.
    persists = "Even with the guard in place, the underlying problem persists."
    assert root_cause_sentences([parse_body(persists)], []) == ([], False)
    named = "The underlying problem is that the guard reads the stale size."
    assert root_cause_sentences([parse_body(named)], [])[0] == [named]
    # What the design intends is no step the code missed.
    intent = "Fixes #40\n\nThe wrapper is registered as composite, i.e. it is not supposed to compute anything itself."
    assert root_cause_sentences([parse_body(intent)], [], [True]) == ([], False)
    # A fix's account of what it makes unnecessary is no cause.
    done = "Fixes #40\n\nThe extra copy is not needed anymore."
    assert root_cause_sentences([parse_body(done)], [], [True]) == ([], False)


def test_how_a_fix_says_the_code_behaved_before_it_is_the_cause_and_names_its_source() -> None:
    fix = item(
        51,
        "Key the kernel cache on the stream too",
        "Fixes #50\n\nThis PR adds the stream to the cache key. Previously, the cache key held only the device "
        "index, so two streams shared one compiled kernel.",
        kind="pull_request",
        state="closed",
    )
    issue = item(50, "Second stream reads stale kernels", "The output on the second stream differs from the first.")
    found = analyse(fix, issue)
    assert found[51].root_cause.startswith("Previously, the cache key held only the device index")
    assert found[50].root_cause.startswith("Previously, the cache key held only the device index")
    # the issue's report shows it quoted from its fix; the fix's own words need no pointer
    assert found[50].quoted_from["root_cause"] == "github:pytorch/pytorch#51"
    assert "root_cause" not in found[51].quoted_from


def test_a_fix_s_account_stops_where_its_change_log_begins() -> None:
    fix = item(
        61,
        "Raise for integer input in the loss",
        "Integer input reaches the graph framework, which has no kernel for it\n\n"
        "Add a test that checks both backends raise\nRename the kernel to match the op\n\nFixes #60",
        kind="pull_request",
        state="closed",
    )
    issue = item(60, "The loss kills the process on the accelerator", "Calling the loss with integer tensors.")
    cause = analyse(fix, issue)[60].root_cause
    assert cause.startswith("Integer input reaches the graph framework") and "Add a test" not in cause


@pytest.mark.parametrize(
    "text",
    [
        # the symptom before the fix, not how it came about
        "Previously this would crash with a floating point exception.",
        "Previously, the test failed on the second device.",
        # the change's own history
        "Previously landed as #12 and reverted for an internal build break.",
        # what the change makes different, a feature's before and after
        "Previously each op went through the dispatcher alone; now they share one pass.",
        # the wrong result it gave
        "Before this change, the pooling layer returned incorrect shapes for 2D input, one row short.",
        "Before this change, the histogram op returned uninitialized bins for empty input.",
    ],
)
def test_a_fix_s_before_that_is_a_symptom_history_or_feature_is_no_cause(text: str) -> None:
    assert root_cause_sentences([parse_body(f"Fixes #40\n\n{text}")], [], [True]) == ([], False)


def test_in_a_report_how_the_code_behaved_before_is_no_cause() -> None:
    said = "Previously, the cache key held only the device index."
    assert root_cause_sentences([parse_body(said)], [], [False]) == ([], False)


def test_a_cause_without_a_marker_is_kept_whole_when_the_summary_already_quotes_it() -> None:
    sentence = "The previous check compared the major version alone and turned the cache off on new drivers."
    assert root_causes([sentence], f"Check the full version. {sentence}") == [sentence]


def test_a_cause_sentence_run_on_across_a_code_block_is_quoted_whole_with_the_code_marked_cut() -> None:
    body = (
        "## Root cause\n\nThe last pass writes\n\n```python\nhandle = open_cache()\n```\n\n"
        "which replaces the cached handle with a new one. The old handle is never closed."
    )
    found, headed = root_cause_sentences([parse_body(body)], [], [True])
    assert headed and found[0] == "The last pass writes … which replaces the cached handle with a new one."
    assert found[1] == "The old handle is never closed."


def test_a_root_cause_lead_in_heads_its_section_and_its_list_of_code_is_no_cause() -> None:
    fix = item(
        31,
        "[nested] Keep lengths when the selected rows leave gaps",
        "## Summary\n\nUnbinding a narrowed tensor includes rows that were not selected.\n\n"
        "**Root cause:** in `from_lengths`, the layout was called contiguous when none of these held:\n\n"
        "- `lengths[1:-1] != width`\n- `offsets[1:-2].diff() != width`\n\n"
        "For two rows or fewer, both checks see empty tensors and never fire. "
        "The view then spans the gap between the rows.\n\n"
        "**Fix:** compare every offset difference with its length.\n",
        kind="pull_request",
    )
    assert analyse(fix)[31].root_cause == (
        "For two rows or fewer, both checks see empty tensors and never fire. "
        "The view then spans the gap between the rows."
    )


def test_what_a_change_lets_the_code_do_is_no_omission_of_the_old_code() -> None:
    option = parse_body(
        "Adds a flag to the cache.\n\nIf set, the loader will be able to read the cached index instead of "
        "rebuilding it."
    )
    assert root_cause_sentences([option], [], [True]) == ([], False)
    # the change in the third person, and how far it reaches
    update = parse_body("Fixes #40\n\nUpdates the loaders to read the row stride instead of assuming one.")
    assert root_cause_sentences([update], [], [True]) == ([], False)
    fault = parse_body("Fixes #40\n\nThe loader reads the stale index instead of the rebuilt one.")
    assert root_cause_sentences([fault], [], [True])[0] == [
        "The loader reads the stale index instead of the rebuilt one."
    ]


def test_a_message_the_fix_quotes_is_no_omission_of_the_code() -> None:
    # "is not defined" inside the quoted error is the program's message; the sentence is the symptom
    symptom = parse_body(
        "Fixes #40\n\nWhen the lathe plugin is not available, calling `spin()` crashes with "
        "`NameError: name 'lathe' is not defined`."
    )
    assert root_cause_sentences([symptom], [], [True]) == ([], False)
    fault = parse_body("Fixes #40\n\nThe plugin flag is never reset when the import fails.")
    assert root_cause_sentences([fault], [], [True])[0] == ["The plugin flag is never reset when the import fails."]


@pytest.mark.parametrize(
    "account",
    [
        "Before this change, the pooling layer returned incorrect shapes for 2D input, one row short.",
        "Before this change, the pooling layer returned incorrect shapes for 2D input, resulting in one row too few.",
    ],
)
def test_how_a_fix_says_the_code_failed_before_it_is_no_cause_of_its_issue(account: str) -> None:
    bug = item(62, "Pooling gives one row too few for 2D input", "The output has one row fewer than expected.")
    fix = item(63, "[nn] Count the last offset for 2D input", f"{account}\n\nFixes #62", kind="pull_request")
    assert analyse(bug, fix)[62].root_cause == ""


def test_how_far_a_fix_reaches_is_no_account_of_its_issue() -> None:
    bug = item(60, "Checkpointing fails under graph capture", "Checkpointing inside a captured graph raises an error.")
    fix = item(
        61,
        "Allow rewinding the generator during capture",
        "Fixes #60\n\nNote that this works only in a limited case, where you don't change the seed but only "
        "the offset of the generator.",
        kind="pull_request",
    )
    assert analyse(bug, fix)[60].root_cause == ""


def test_the_case_that_works_next_to_a_harm_is_no_mechanism_but_a_wrong_one_is() -> None:
    works = parse_body(
        "The kernel call is emitted for the wrong device. If all inputs share one device, the correct "
        "kernel is emitted. This leads to a crash on load."
    )
    assert root_causes(root_cause_sentences([works], [])[0], "") == []
    wrong = parse_body("The wrapper picks the kernel from the first input's device. This leads to a crash on load.")
    assert root_causes(root_cause_sentences([wrong], [])[0], "") == [
        "The wrapper picks the kernel from the first input's device."
    ]


def test_an_effect_of_what_came_before_is_no_cause_but_a_cause_it_gives_is() -> None:
    assert root_causes(["This leads to a crash on load, causing the worker to exit with an error."], "") == []
    stated = "This leads to a crash on load because the stride is computed from the padded size."
    assert root_causes([stated], "") == [stated]


def test_a_fix_s_note_on_its_benchmark_run_is_no_account_of_the_report() -> None:
    bug = item(40, "Compile time grows quadratically with the graph size", "")
    fix = item(
        41,
        "Limit the fusion window",
        "Fixes #40\n\nDashboard run with a window of 128 here, no change on the suite.",
        kind="pull_request",
    )
    found = analyse(bug, fix)
    assert "Dashboard run" not in found[40].root_cause
    assert "Dashboard run" not in found[40].summary
    told = item(
        43,
        "Limit the fusion window",
        "Fixes #42\n\nThe fusion pass compared every pair of nodes, so compile time grew with the square of the graph.",
        kind="pull_request",
    )
    found = analyse(item(42, "Compile time grows quadratically with the graph size", ""), told)
    assert found[42].root_cause.startswith("The fusion pass compared every pair of nodes")


@pytest.mark.parametrize(
    ("field", "quoted"),
    [
        (
            "root_cause",
            "The cause is that `tick_table` holds one entry per hour, while `hand_angle` expects one per minute.",
        ),
        ("workaround", "Calling `clock.reset()` before noon prevents the jump."),
    ],
)
def test_a_sentence_quoted_in_its_own_field_is_not_quoted_again_as_a_detail(field: str, quoted: str) -> None:
    body = (
        "The minute hand jumps back at noon. Alarms set after noon never ring. "
        f"An index check `i < len(tick_table)` fails in `advance_hands`. {quoted}"
    )
    found = analyse(item(1, "Minute hand jumps back at noon", body=body))[1]
    assert getattr(found, field) == quoted
    assert quoted not in found.details
    assert found.details.startswith("An index check")


@pytest.mark.parametrize(
    ("told", "details"),
    [
        # a link to a file, a label of one or a file:line line says nothing: the sentence that states is quoted
        (
            "https://example.com/clockworks/blob/main/clock/hands.py#L10-L20\n\n"
            "Hand table: https://example.com/clockworks/blob/main/clock/table.py#L3\n\n"
            "clock/hands.py:14\n\n"
            "The loop in `advance_hands` wraps at 720 ticks instead of 1440.",
            "The loop in `advance_hands` wraps at 720 ticks instead of 1440.",
        ),
        # a detail that leads in to code ends with the mark that the code is left out
        (
            "The loop in `advance_hands` only guards against `ticks == 0`:\n\n"
            "```python\nif ticks == 0:\n    return\n```\n",
            "The loop in `advance_hands` only guards against `ticks == 0`: …",
        ),
    ],
)
def test_technical_details_quote_what_states_something_and_mark_what_they_leave_out(told: str, details: str) -> None:
    body = f"The minute hand jumps back at noon. Alarms set after noon never ring.\n\n{told}"
    found = analyse(item(1, "Minute hand jumps back at noon", body=body))[1]
    assert found.details == details


def test_a_cause_its_capture_cut_after_a_few_words_names_none() -> None:
    filler = "The minute hand jumps back at noon on the lathe clock. " * 20
    body = parse_body(f"{filler}\n\n**Root cause:** The tick counter incorrectly wra")
    found, headed = root_cause_sentences([body], [])
    assert headed and root_causes(found, "", None, headed) == []


def test_a_cause_made_of_the_titles_words_is_no_root_cause() -> None:
    title = "Grommet cache skips its second key"
    again = "The grommet cache seems to skip the second key, leading to stale reads."
    # the summary quotes the sentence, so its mechanism is told again: here the symptom in the title's words
    assert root_causes([again], again, title=title) == []
    assert root_causes([again], again) == ["The grommet cache seems to skip the second key"]
    told = "The grommet cache is keyed on the device index alone, leading to stale reads."
    assert root_causes([told], told, title=title) == ["The grommet cache is keyed on the device index alone"]
