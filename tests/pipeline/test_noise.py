import pytest

from tests.pipeline.helpers import item, run, texts


@pytest.mark.parametrize(
    ("title", "author", "reason"),
    [
        ("[widgets hash update] update the pinned widgets hash", "pytorchupdatebot", "bot author pytorchupdatebot"),
        ("Something a bot did", "renovate[bot]", "bot author renovate[bot]"),
        ("DISABLED test_foo (__main__.TestBar)", "someone", "CI automation (disabled or unstable test)"),
        ("UNSTABLE trunk / linux-jammy-rocm / test (default)", "someone", "CI automation (disabled or unstable test)"),
        ("Bump the triton version", "someone", "pinned version or dependency bump"),
        ("[CI] Move the docker images to a new registry", "someone", "CI, docker or build-infrastructure churn"),
        ("[BE] Tidy up imports in dynamo", "someone", "typo, refactor or [BE] clean-up"),
        ("Fix typo in the FSDP docstring", "someone", "typo, refactor or [BE] clean-up"),
        ("[dynamo] Minor refactor of the guard builder", "someone", "typo, refactor or [BE] clean-up"),
        ("Fix flaky memory check in the graph-tree suite", "someone", "test-only change"),
        ("[MPS] Relax the softmax backward tolerance on older chips", "someone", "test-only change"),
        ("[ROCm][inductor][UT] Preserve combo kernel options", "someone", "test-only change"),
        ("test: cover the empty-input path of a reduction", "someone", "adds tests only"),
        ("[dynamo] Add a regression test for generator graph breaks", "someone", "adds tests only"),
        ("[docs] Fix the sampler example so its backward pass runs", "someone", "documentation-only change"),
        ("[XPU] [Docs] Describe the device selection flags", "someone", "documentation-only change"),
        ("DOC: Convert the optimizer pages to markdown", "someone", "documentation-only change"),
    ],
)
def test_each_kind_of_noise_is_marked_and_kept(title: str, author: str, reason: str) -> None:
    result = run(item(1, title, author=author, kind="pull_request"))
    [only] = result.values()
    assert reason in texts(only.noise)
    assert all(r.zh for r in only.noise)
    assert only.priority == "low"


def test_real_work_is_not_noise() -> None:
    [only] = run(item(1, "[inductor] Fix wrong results for max_autotune with bias", kind="pull_request")).values()
    assert only.noise == []


@pytest.mark.parametrize(
    "title",
    [
        "[kernels] Fix the grommet overflow and re-enable its test",
        "Add the sprocket loader and tests for it",
        "Update the grommet API and its tests",
    ],
)
def test_a_change_that_names_more_than_its_tests_is_no_test_only_change(title: str) -> None:
    [only] = run(item(1, title, kind="pull_request")).values()
    assert only.noise == []
    # the test named first, then more: the change is still about its tests
    [tested] = run(item(2, "Fix the grommet test and its fixture", kind="pull_request")).values()
    assert texts(tested.noise) == ["test-only change"]


def test_a_clean_up_title_yields_to_a_stated_regression() -> None:
    body = (
        "This PR removes the performance regression in the scan kernel introduced in 2.5, "
        "which made it 20x slower on large inputs."
    )
    stated = item(1, "[kernels] Refactor the scan prefix into its own kernel", body, kind="pull_request")
    quiet = item(2, "[kernels] Refactor the scan prefix into its own kernel helper", "Moves code.", kind="pull_request")
    errored = item(
        3,
        "[BE] Refactor error handling",
        "RuntimeError: expected scalar type Float but found Half",
        kind="pull_request",
    )
    # a bump that brings the fix is that fix
    bumped = item(4, "Bump the scan library to fix the regression", body, kind="pull_request")
    tested = item(5, "Fix flaky timing check in the scan suite", body, kind="pull_request")
    result = run(stated, quiet, errored, bumped, tested)
    assert result[stated.id].noise == [] and "regression" in result[stated.id].facts.kinds()
    assert texts(result[quiet.id].noise) == ["typo, refactor or [BE] clean-up"]
    assert texts(result[errored.id].noise) == ["typo, refactor or [BE] clean-up"]  # an error line states nothing
    assert result[bumped.id].noise == []
    assert texts(result[tested.id].noise) == ["test-only change"]  # only the rules that say so yield


def test_a_bump_is_a_version_moved_not_any_use_of_the_word() -> None:
    for title in (
        "[deps] Bump the compiler to 3.4.1",
        "Compiler bump for the release branch",
        "Bump up the runtime pin",
    ):
        [bump] = run(item(1, title, kind="pull_request")).values()
        assert texts(bump.noise) == ["pinned version or dependency bump"], title
    for title in ("Avoid a reference-count bump on every dispatched argument", "Autoupdate the learning-rate floor"):
        [work] = run(item(1, title, kind="pull_request")).values()
        assert work.noise == [], title
