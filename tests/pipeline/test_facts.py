"""The severity extractor on real sentences from PyTorch threads, and on their negated or design
twins, which must yield nothing."""

from __future__ import annotations

import pytest

from pytorch_insight.pipeline.facts import FactExtractor
from tests.pipeline.helpers import PROFILE, item

EXTRACT = FactExtractor(PROFILE.severity)


def facts(title: str = "", body: str = "", **fields: object) -> dict[str, str]:
    found = EXTRACT.extract(item(1, title, body, **fields))
    return {fact.kind: fact.detail for fact in found.facts}


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("The fallback CPU loop then segfaults while reading a device-side buffer address.", "hard_crash"),
        ("This produces incorrect values (including infs for bf16) when rounding int64→bf16.", "wrong_result"),
        ("This silently routed wrapper tensors through the generic sparse kernel table.", "wrong_result"),
        ("The loader silently ignores the strict flag when the file is sharded.", "wrong_result"),
        ("The old version check was accidentally disabling pinned staging buffers on driver 5.3.x.", "wrong_result"),
        ("A pair of bugs let the scratch offsets leak through to user-visible outputs.", "wrong_result"),
        ("Fixes a launch failure on the newest accelerator cards by limiting `block_rows` to 64.", "hard_crash"),
        ("Buffer registration in the offload wrapper crashes for integer index tensors", "crash"),
        ("Those cases all pass on torch 2.6.0.", "regression"),
        ("Blocking the torch 2.9 upgrade for our serving stack (acme/serve#512).", "blocker"),
        ("The training job hangs forever in the second all_reduce.", "hang"),
        ("Peak memory usage increased from 12.4 GB to 18.1 GB after the change.", "memory"),
        ("The packed int8 matmul has an accuracy issue when the tile count exceeds one.", "wrong_result"),
        ("The sampler returns inconsistent/mismatched gradients for every layer but the last.", "wrong_result"),
        ("Running stats fail to update correctly when the module is traced twice.", "wrong_result"),
        ("This avoids a deadlock and fixes a hang in the store client.", "hang"),  # a fix names the failure
        ("Attempting to load the sharded checkpoint results in a segfault.", "hard_crash"),
        ("Running the tuner on small cards may result in a stride error like the one below:", "error"),
        ("The whole desktop freezes after a minute of training.", "hang"),
    ],
)
def test_a_stated_failure_is_a_fact_with_its_sentence(sentence: str, kind: str) -> None:
    found = EXTRACT.extract(item(1, "x", sentence))
    fact = found.first(kind)
    assert fact is not None, [f.kind for f in found.facts]
    assert fact.evidence == sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "Update the docstring for a behavior change; no behavior change for users.",  # "change" is not "hang"
        "Add deadlock avoidance to the store client.",
        "Chunk the reduction to prevent OOM on large inputs.",
        "If the allocator could crash here, we would need a guard.",
        "We keep the extra gather: removing it that'd cause a deadlock on uneven ranks.",  # "would", contracted
        "The template is used to prevent branching causing a slowdown on small inputs.",  # harm a design keeps away
        "Raise an error instead of silently producing wrong results.",
        "Add test_hang_on_exit and test_crash_handler to the suite.",
        "These asserts check that the scheduler's compile-time size estimate agrees with the real buffer sizes.",
        "Reduces overhead in the dispatcher.",  # an overhead nobody measured
        "Cherry-picks are limited to regressions, silent correctness, crashes, deadlocks and memory leaks.",
        "With the lock held the worker doesn't hang any more.",  # a contraction denies like "not"
        "The mismatch is potentially producing incorrect numerical results.",  # a hedge, not a report
        "My smaller script does not seem to ever reproduce the segfault.",  # a failure not brought about
        "Fix incorrect values printed in warning messages and progress logs.",  # what a message says
        # another bug's story told in a clause
        "A class built at runtime got a fresh tracker on every read, silently dropping earlier mutations.",
        # a knock-on the author fears, and what a change keeps away, however long the list before it
        "Rounding drift can add up over many steps, eventually leading to wrong outputs or training divergence.",
        "The loop was rewritten to avoid extra copies, duplicated code and silent correctness problems.",
        "Users may give up on the flag thinking it's hung.",  # someone's mistaken belief
        "A handle is still held after export, but attempts to release it so far result in segfaults.",
        "It does not show up locally because we freeze the layout of the inputs when rendering.",  # a verb of compilers
        "Keeping the old layout does not lead to a crash on the main path.",  # a failure that does not follow
        "For contiguous inputs we do not observe any performance regression.",
    ],
)
def test_denials_designs_hypotheses_and_lists_are_not_failures(sentence: str) -> None:
    found = EXTRACT.extract(item(1, "x", sentence))
    assert not set(found.problems) - {"error"}, [(f.kind, f.detail) for f in found.facts]


@pytest.mark.parametrize(
    "sentence",
    [
        "Unknown dtype names get rejected with a clear `TypeError` by the new parser.",
        "A length check makes the reader error out early when the header is truncated.",
        "Passing a negative rate should raise an error.",
        "Converting to the wide type on this device is correctly blocked by a TypeError.",
        # what the path that works does, told as a run of steps before its error
        "Eager mode correctly reads the grommet count and raises an error for the sprocket.",
        # the change's description in the imperative: the error it adds, under its condition
        "Error out if a view with a non-zero offset is created without strides.",
        "- Now raise a ValueError when the group size is zero.",
        "The one exception is the tracing path, which keeps its handles open.",  # the word's other sense
        # a failure the change leaves alone
        "Makes the cache per thread, but doesn't touch the case where two pools allocate at once and error.",
        "The int4 types have no kernel yet, so we continue to raise a TypeError for them.",  # kept on purpose
    ],
)
def test_an_error_a_change_brings_in_or_an_author_expects_is_no_failure(sentence: str) -> None:
    assert "error" not in EXTRACT.extract(item(1, "x", sentence)).problems


def test_an_error_that_happens_is_a_failure() -> None:
    assert "error" in EXTRACT.extract(item(1, "x", "Reading the header raises a KeyError on rank 3.")).problems
    assert "error" in EXTRACT.extract(item(1, "x", "An exception is raised when the batch is empty.")).problems
    assert "error" in EXTRACT.extract(item(1, "x", "Errors out when the batch is empty.")).problems
    said = "The reader correctly loads the grommet file but then raises an error."
    assert "error" in EXTRACT.extract(item(1, "x", said)).problems
    assert "error" in EXTRACT.extract(item(1, "x", "The loader continues to error out after the upgrade.")).problems
    assert "error" in EXTRACT.extract(item(1, "x", "Raise a clear message instead of the cryptic CUDA error.")).problems


def test_the_error_a_change_adds_is_no_problem() -> None:
    assert "error" not in facts(body="We raise an error if a sliced input is found, as only online tuning supports it.")
    assert "error" not in facts(body="Add a shape check in the loss to error out when both inputs are 1D.")
    assert "error" in facts(body="The loss check fails to error out and then raises an error on the next step.")


def test_a_figure_foreseen_is_no_measurement() -> None:
    assert not facts(body="The new tiling might bring a 12% performance improvement for small shapes.")
    assert not facts(body="This is expected to give a 10% speedup on large batches.")
    assert facts(body="The new tiling gives a 12% performance improvement for small shapes.")["gain"] == "12%"


def test_a_change_of_setup_or_a_listing_of_settings_is_no_measurement() -> None:
    assert "measured" not in facts(body="Moving a job from 32 to 64 ranks makes the restore step slower.")
    listing = "Host info: Arch: aarch64 Cores: 96 Max MHz: 3000 Boost: 100% faster builds"
    assert "gain" not in facts(body=listing) and "measured" not in facts(body=listing)
    assert facts(body="Step time went from 40 ms to 31 ms on 8 GPUs.")["gain"] == "from 40 ms to 31 ms"
    assert "measured" not in facts(body="The slowdown appeared between nightlies 03/11→03/12 on the benchmark.")
    # two sums side by side: no figure of them alone is the before or the after
    summed = facts(body="The partition adds overhead: entering and leaving it went from 13+6 us to 30+11 us.")
    assert "measured" not in summed


def test_the_size_of_a_machine_or_a_model_is_no_measurement() -> None:
    # The figure quoted is the one that measures the problem or the gain, not a size beside it.
    assert "measured" not in facts(body="Loading the checkpoint hits OOM on a card with 24GB of memory.")
    assert "measured" not in facts(body="Sharding a 7 MB embedding table crashes the second rank.")
    assert facts(body="On a laptop with 32GB of memory the fused kernel shows a 2.4x speedup.")["gain"] == "2.4x"
    assert facts(body="The queue is at 640 GB/s, was 410 GB/s, a 56% gain.")["gain"] == "640 gb/s"
    # an amount the program takes or grows by does measure it
    assert facts(body="The memory leak grows by 250 MB per epoch.")["measured"] == "250 mb"
    assert facts(body="After the upgrade, training hits OOM: it allocates 3 GB more.")["measured"] == "3 gb"


def test_a_printed_warning_a_list_of_names_and_a_tensor_s_metadata_state_no_problem() -> None:
    assert facts(body="WARNING: the fallback path will be slower than the native kernel.") == {}
    assert "crash" not in facts(body="Left for a follow-up: `setTimeout, shrink, shutdown, abort`.")
    assert "crash" in facts(body="The worker crashes inside `shutdown, abort` handling.")
    assert "wrong_result" not in facts(body="The decomposition produces incorrect output strides for this layout.")
    assert "wrong_result" not in facts(body="The loader rejects tensors with mismatched data-types.")
    assert "wrong_result" in facts(body="The decomposition produces incorrect output values for this layout.")


def test_memory_held_wrong_values_and_reads_past_the_end_in_plain_words() -> None:
    assert facts("[Pipeline] Saved activations not released after the backward pass")["memory"]
    assert "memory" not in facts(body="Allocating it on the side stream keeps the memory leak checker quiet.")
    assert "memory" not in facts(body="The change makes sure staging buffers are not freed too early.")
    assert facts("Fused attention sometimes returns non-finite values on the new GPU")["wrong_result"]
    assert facts("The pooling op is not handling negative zeros correctly")["wrong_result"]
    assert facts(body="Rows near the int32 limit cause an illegal memory read in the kernel.")["hard_crash"]
    assert facts("Compiled gather silently reads out of bounds for offset views")["hard_crash"]
    assert facts(body="The row reduction does an OOB read for odd widths.")["hard_crash"]
    assert facts("The scatter kernel writes OOB when the index is negative")["hard_crash"]
    assert "hard_crash" not in facts("Add OOB tests for the signal channel")
    assert facts(body="Before this change, the sum of an empty input returned uninitialized values.")["wrong_result"]
    assert facts(body="The copied tensor has random values in its last rows.")["wrong_result"]
    assert "wrong_result" not in facts(body="Initialise the weights with random values from a normal law.")
    # a test named after the failure it guards against, passing
    assert "regression" not in facts(body="After the rebase, the added regression passes on every shard.")


def test_wishes_tags_compiler_steps_names_and_expected_examples_state_no_problem() -> None:
    assert "error" not in facts(body="Ideally this error would name the unsupported dtype.")
    assert "wrong_result" not in facts("[Fuzzer][Eager/Compile Divergence] Shapes s3 and u1 must agree in dim 0")
    assert facts("Eager and compiled results differ for the scan op")["wrong_result"]
    assert "wrong_result" not in facts(body="The pass was incorrectly skipping `fused_v2` nodes with fp8 inputs.")
    assert "wrong_result" not in facts(body="The fp8 input trips the type filter, so the node is silently skipped.")
    assert "regression" not in facts(body="Added regression coverage for the stride rules, and a regression test.")
    assert facts(body="This is a regression from the last release.")["regression"]
    # What worked before, or on an earlier version, is a regression; who one worked with, or another mode, is not.
    for said in ("I worked with the maintainers on a patch for the build.", "It worked fine in eager mode."):
        assert "regression" not in facts(body=said)
    for said in ("It worked on 2.5.1 and crashes now.", "The same script worked with the previous nightly."):
        assert facts(body=said)["regression"]
    expected = (
        "The mps result differs for some inputs. CPU floor division follows Python semantics, for example:\n\n"
        "- inf / 1.0 produces NaN\n- -inf / 1.0 produces NaN\n"
    )
    assert "wrong_result" not in facts(body=expected)
    assert "error" not in facts(body="Methods forwarded now: getLastError, connectDevice, shutdown")
    assert facts(body="It fails with RuntimeError: device not found")["error"]


def test_a_graph_s_node_count_is_no_cluster() -> None:
    assert "scale" not in facts(body="The exporter hangs on a small traced graph (40–60 nodes).")
    assert "scale" in facts(body="The exporter hangs on 16 nodes of the training cluster.")


def test_measurements_are_kept_with_the_problem_or_the_gain() -> None:
    overhead = facts(body="On a 13B chat model this adds **~5ms per decode step** on the eager path.")
    assert overhead["overhead"] and overhead["measured"] == "~5ms"
    gain = facts(body="Raises Llama3-8B on 8xH100 from 6938 to 7214 TPS (+3.9% throughput).")
    assert gain["gain"] == "from 6938 to 7214 tps" and gain["hardware"] == "H100" and "scale" in gain
    ranged = facts(body="The fused kernel is 2.5-4.5x slower than the reference one on this GPU.")
    assert ranged["perf_regression"] and ranged["measured"] == "2.5-4.5x"
    compile_time = facts(body="The setting takes 2914.3s for one kernel build call, pathological compile times.")
    assert "compile_time" in compile_time and compile_time["measured"] == "2914.3s"


def test_labels_mean_what_triagers_mean() -> None:
    assert facts(labels=["high priority"])["confirmed"] == "high priority"
    assert facts(labels=["module: correctness (silent)"])["wrong_result"]
    assert facts(labels=["triage review"]) == {}  # asks for triage, confirms nothing
    assert facts(labels=["module: edge cases"])["edge_case"]


def test_a_title_about_a_numeric_edge_is_an_edge_case_and_a_broken_result_is_not() -> None:
    assert facts("Compiled op changes signed-zero behavior for an elementwise op")["edge_case"]
    assert facts("Compiled op gives nan for large finite float16 values whereas eager stays finite")["edge_case"]
    assert "edge_case" not in facts("Compiled op returns wrong values for every input on CUDA")
    assert facts("Conv1d with out_channels=0 aborts the interpreter")["edge_case"]
    assert facts("Reject non-positive kernel_size in a pooling op")["edge_case"]
    assert "edge_case" not in facts("Fix the build error when USE_FEATURE=0 is set")


def test_a_package_nobody_can_install_blocks_its_users() -> None:
    assert facts(body="Our build farm couldn't properly download the preview wheel with pip since March.")["blocker"]
    assert facts(body="The wheel fails to install on Python 3.14.")["blocker"]


def test_falling_back_to_eager_is_no_wrong_result() -> None:
    # A silent fallback costs speed; the results stay eager's.
    assert "wrong_result" not in facts(
        body="The option makes the compiler silently fall back to eager execution for that graph."
    )


def test_a_count_of_gpus_is_a_number_of_its_own_not_the_end_of_a_generation_list() -> None:
    assert "scale" in facts(body="The job hangs at startup on 64 GPUs with a crash in the allocator.")
    assert "scale" not in facts(body="On the older (gen 7/8 GPUs) devices the kernel crashes with a fault.")
    # a number that ends one line and the rank ids that open the next are no count of ranks
    assert "scale" not in facts(
        body="The save crashes on an empty shard, e.g.\n  mesh size: 30\n  ranks 0..27 hold data"
    )


def test_an_rfc_tag_anywhere_in_the_title_and_default_changes_carry_design_weight() -> None:
    assert facts("[Inductor][RFC] A new IR for scheduling")["design"] == "RFC"
    assert facts("Enable combo kernels by default")["design"]
    assert "design" not in facts("[Inductor] Tidy the scheduler")
    # "introduced by" names where a cost came from; it introduces nothing.
    assert facts("Introduce a device-generic stream API")["design"]
    assert "design" not in facts("Cut the latency introduced by the logging hook")
    assert facts("[wrapper] Remove legacy tracing support from the hooks")["design"]
    assert facts("Deprecate the legacy tracer")["design"]
    # new subsystems, changed defaults, what downstream code must adapt to
    assert facts("[foo] Experimental support for a remote memory transport")["design"]
    assert facts("Initial backend setup for the new accelerator")["design"]
    assert facts("Flip the default of strict loading")["design"]
    assert facts("Remove the deprecated stream argument from the loader")["design"]
    assert facts("Rename the private collective ops")["design"]
    assert facts("Move the extension builder to C++20")["design"]
    assert "design" not in facts("Fix the default device of a helper")
    assert "design" not in facts("[CUDA] Silence the deprecation warnings of a helper")


def test_hardware_named_in_the_environment_section_counts_but_its_words_are_no_problem() -> None:
    found = facts(
        "[vllm] cache save fails",
        "The cache save fails with a RuntimeError.\n\n## Environment\n\n- GPU: H100\n- note: no crash seen\n",
    )
    assert found["hardware"] == "H100" and "crash" not in found


@pytest.mark.parametrize(
    ("sentence", "blowup"),
    [
        (
            "This autotuning option makes compilation pathological on our cards: 5120.4s for one kernel compile.",
            True,
        ),
        ("Cold start compilation takes 45 minutes on the 70B model.", True),
        ("The extra pass adds 12 s of compilation time to the first step.", False),  # slow, not a blow-up
        ("The suite ran for 3 hours and passed.", False),  # a duration that is no problem
    ],
)
def test_a_measured_cost_that_stops_work_is_a_blowup(sentence: str, blowup: bool) -> None:
    found = EXTRACT.extract(item(1, "x", sentence))
    assert ("blowup" in found.problems) is blowup, [(f.kind, f.detail) for f in found.facts]


def test_a_version_tag_alone_is_no_release_tracker() -> None:
    from tests.pipeline.helpers import run

    [tracker, fix] = run(
        item(78, "[v9.9.0] Release Tracker"), item(79, "[3.14] Fix the package importer", kind="pull_request")
    ).values()
    assert "release tracker" in [r.en for r in tracker.reasons]
    assert "release tracker" not in [r.en for r in fix.reasons]


def test_a_release_tracker_states_rules_not_problems() -> None:
    tracker = item(
        77,
        "[v9.9.0] Release Tracker",
        "Cherry-picks are accepted for:\n- Regression fixes against the previous release\n- Fixes for crashes and silent wrong results",
    )
    facts = EXTRACT.extract(tracker)
    assert not set(facts.problems)


def test_memory_safety_bugs_of_native_code_are_named_for_what_they_do() -> None:
    # Reading memory nobody wrote gives garbage values; dereferencing null kills the process.
    assert facts(body="The in-place path read uninitialized memory from `buf` rather than copying the source.")[
        "wrong_result"
    ]
    assert facts(body="This check prevents a null pointer dereference on empty inputs.") == {}
    assert facts(body="An empty input leads to a null pointer dereference in the kernel.")["hard_crash"]


def test_a_before_and_after_reads_as_a_gain_by_the_direction_its_metric_should_move() -> None:
    assert facts(body="On the training benchmark MFU goes 16 -> 23 with this pass.")["gain"] == "16 -> 23"
    assert facts(body="Step time goes from 40 ms to 31 ms on the benchmark.")["gain"] == "from 40 ms to 31 ms"
    assert "gain" not in facts(body="Step time goes from 31 ms to 40 ms on the benchmark.")


def test_a_failure_word_inside_a_name_list_or_a_dotted_name_is_no_failure() -> None:
    assert "hang" not in facts(body="The warning now fires in save/load, freeze/optimize_for_inference and fork/wait.")
    assert "hang" not in facts(body="Calling torch.jit.freeze on the module emits the warning.")
    assert facts(body="The process tends to freeze after the first step on two GPUs.")["hang"]
    # a value that stops changing is no program that stops running
    assert "hang" not in facts(body="Once traced, the padded size freezes at its first value.")
    assert "hang" not in facts(body="With the fused optimizer the loss is stuck at 2.3 for every epoch.")
    assert facts(body="Training is stuck at step 40 on all ranks.")["hang"]


def test_the_digits_of_a_link_are_no_measurement() -> None:
    # "#L88%C2%A0": a line anchor and an encoded space, not an 88 % change.
    sentence = (
        "The upgrade segfaults, see https://github.com/example/kernels/blob/main/plan.h#L88%C2%A0 "
        "where the strides are read."
    )
    facts = EXTRACT.extract(item(1, "Roll back the frontend upgrade", sentence, kind="pull_request"))
    assert facts.first("measured") is None and facts.first("hard_crash") is not None


def test_a_title_about_a_commit_introducing_a_bug_is_no_design_change() -> None:
    bug = EXTRACT.extract(item(1, "Commit abc1234 introducing a bug in the allocator free path"))
    feature = EXTRACT.extract(item(2, "Introduce a new IR for export", kind="pull_request"))
    assert bug.first("design") is None and feature.first("design") is not None


def test_an_error_announced_by_a_lead_in_is_quoted_with_its_log_line() -> None:
    body = "Loading the checkpoint on rank 3 fails with:\n```\nKeyError: 'optim.state'\n```\n"
    found = EXTRACT.extract(item(1, "Checkpoint loading is broken", body))
    error = found.first("error")
    assert error is not None and error.evidence.endswith("fails with: … KeyError: 'optim.state'")
    assert error.detail == "KeyError"  # a quote of it is cut around the error, not the lead-in
    expected = "With the reference build (expected):\n```\nIndexError: index 10 is out of bounds\n```\n"
    assert facts(body=expected) == {}


def test_options_dropped_without_a_word_and_a_named_change_that_broke_them_are_stated() -> None:
    stated = facts(body="#1234 broke `compile(options=...)` so that the options passed in get completely ignored.")
    assert stated["wrong_result"] == "options passed in get completely ignored"
    assert stated["regression"] == "1234 broke"
    assert "wrong_result" not in facts(body="Unknown options are ignored, as documented.")
    assert "regression" not in facts(body="In-place operations broke the computation graph of the example.")


def test_an_op_that_fails_silently_states_a_wrong_result() -> None:
    stated = facts(body="In-place random ops were silently failing on non-contiguous tensors on the old OS.")
    assert stated["wrong_result"] == "silently failing"
    # An error that is not raised is a missing message; the result may still be right.
    assert "wrong_result" not in facts(body="The loader silently fails to raise when the path is empty.")


def test_a_place_the_text_calls_safe_is_no_context() -> None:
    hit = "Names over 64 bytes overflow the label buffer and crash the logger."
    spared = f"{hit}\n\n- The default config is safe (short names).\n- H100 runs are unaffected."
    found = facts("Label overflow", spared)
    assert "hard_crash" in found or "crash" in found
    assert "default" not in found and "hardware" not in found
    assert facts("Label overflow", f"{hit} It happens on the default path on H100.").keys() >= {
        "default",
        "hardware",
    }


def test_a_folder_named_like_a_project_is_no_mention_of_it() -> None:
    # a downstream project's name as a folder of a path names the folder; a link names the project
    changed = "Fixes a crash in `src/lathe/transformers/grommet.cpp` on empty batches."
    assert "downstream" not in facts("Empty batch crash", changed)
    linked = "Fixes a crash on empty batches, seen in https://github.com/huggingface/transformers/issues/5"
    assert facts("Empty batch crash", linked)["downstream"].lower() == "huggingface"
    assert "downstream" in facts("Empty batch crash", f"{changed} It breaks transformers models.")


def test_the_cost_of_a_workaround_under_its_heading_is_no_problem_of_the_report() -> None:
    body = (
        "## Actual\n\nThe forward raises an internal library error.\n\n"
        "## Workaround\n\nDisable the vendor library (falls back to the native path; a modest slowdown).\n"
    )
    found = facts("The recurrent layer fails on the new card", body)
    assert "perf_regression" not in found and "error" in found
    # the same words outside such a section are read as they are
    assert "perf_regression" in facts("The recurrent layer fails", "Since the update there is a 20% slowdown.")


def test_the_list_of_what_a_change_s_tests_cover_states_no_problem() -> None:
    body = (
        "Adds a mode that checks every output for NaN.\n\n**Tests** (`test/test_mode.py`):\n"
        "- clean pass-through, integer inputs skipped, context restore on exception\n"
    )
    assert facts(body=body) == {}
    assert "error" in facts(body="The mode fails with an exception on integer inputs.")
