from pytorch_insight.model import Item
from tests.pipeline.helpers import item, ref, relations, run


def test_the_same_url_from_two_sources_becomes_one_item() -> None:
    github = item(5, "[RFC] A new dispatcher")
    forum_copy = Item(
        id="forum:dev-discuss.pytorch.org/t/1",
        source="forum",
        kind="forum",
        title="[RFC] A new dispatcher",
        url="http://github.com/pytorch/pytorch/issues/5/",
        created="2026-04-08T12:00:00Z",
    )
    result = run(github, forum_copy)
    assert list(result) == [github.id]
    assert result[github.id].aliases == ["forum:dev-discuss.pytorch.org/t/1"]


def test_resubmitted_prs_keep_the_landed_one_as_canonical() -> None:
    first = item(10, "[Inductor] Keep the scale unbroadcast for baddbmm (#10)", kind="pull_request", state="merged")
    again = item(
        20,
        "[Inductor] Keep the scale unbroadcast for baddbmm (#20)",
        kind="pull_request",
        created="2026-04-10T12:00:00Z",
    )
    result = run(first, again)
    assert result[again.id].canonical == first.id and result[first.id].canonical is None
    assert relations(result[first.id], "duplicate") == [again.id]
    assert result[again.id].score < result[first.id].score


def test_without_a_landed_pr_the_newest_stands_and_titles_cut_short_still_match() -> None:
    old = item(30, "[side-streams] Fix graph capture with the default stream", kind="pull_request", state="closed")
    new = item(
        31,
        "[side-streams] Fix graph capture with the default stream (#3…",
        kind="pull_request",
        state="closed",
        created="2026-04-12T12:00:00Z",
    )
    third = item(
        32,
        "[side-streams] Fix graph capture with the default stream",
        kind="pull_request",
        state="closed",
        created="2026-04-09T12:00:00Z",
    )
    result = run(old, new, third)
    assert result[old.id].canonical == new.id and result[third.id].canonical == new.id


def test_duplicate_issues_point_at_the_oldest() -> None:
    a = item(40, "DISABLED test_x (__main__.TestY)", created="2026-04-08T12:00:00Z")
    b = item(41, "DISABLED test_x (__main__.TestY)", created="2026-04-09T12:00:00Z")
    assert run(a, b)[b.id].canonical == a.id


def test_a_report_closed_while_its_copy_stays_open_points_at_the_open_one() -> None:
    closed = item(42, "Histogram with a weight tensor drops the last bin", state="closed")
    reopened = item(43, "Histogram with a weight tensor drops the last bin", created="2026-04-09T12:00:00Z")
    fix = item(44, "Keep the last bin in histogram", "Fixes #43", kind="pull_request", created="2026-04-09T13:00:00Z")
    result = run(closed, reopened, fix)
    assert result[closed.id].canonical == reopened.id and result[reopened.id].canonical is None
    assert relations(result[reopened.id], "fixed_by") == [fix.id]


def test_short_or_different_titles_are_not_duplicates() -> None:
    result = run(
        item(50, "Fix", kind="pull_request"),
        item(51, "Fix", kind="pull_request"),
        item(52, "Add a thing to inductor", kind="pull_request"),
        item(53, "Add a thing to dynamo", kind="pull_request"),
        # two modules whose names differ by a leading underscore
        item(54, "Type hints update - torch/_grommet", kind="pull_request"),
        item(55, "Type hints update - torch/grommet", kind="pull_request"),
    )
    assert all(a.canonical is None for a in result.values())


def test_relands_and_reverts_link_to_what_they_redo_or_undo() -> None:
    original = item(60, "[dynamo] Support generators in graph", kind="pull_request", state="merged")
    revert = item(61, 'Revert "[dynamo] Support generators in graph (#60)"', kind="pull_request")
    reland = item(62, "[Reland] [dynamo] Support generators in graph", kind="pull_request")
    by_title_revert = item(63, 'Revert "[inductor] Something else"', kind="pull_request")
    something = item(59, "[inductor] Something else", kind="pull_request", state="merged")
    result = run(original, revert, reland, by_title_revert, something)
    assert relations(result[revert.id], "reverts") == [original.id]
    assert relations(result[original.id], "reverted_by") == [revert.id]
    assert relations(result[reland.id], "relands") == [original.id]
    assert relations(result[original.id], "relanded_by") == [reland.id]
    assert relations(result[by_title_revert.id], "reverts") == [something.id]
    assert result[reland.id].canonical is None


def test_a_revert_undoes_the_change_it_names_not_a_later_copy_of_it() -> None:
    # A change merged, reverted by GitHub's button, and submitted again under the same title: the
    # revert undoes the first, not the copy opened after it.
    first = item(80, "Loosen the grommet check", kind="pull_request", state="merged")
    revert = item(81, 'Revert "Loosen the grommet check"', body="Reverts pytorch/pytorch#80", kind="pull_request")
    again = item(82, "Loosen the grommet check", kind="pull_request", state="closed")
    unnamed = item(83, 'Revert "Loosen the grommet check"', body="Breaks the lathe build.", kind="pull_request")
    result = run(first, revert, again, unnamed)
    assert relations(result[revert.id], "reverts") == [first.id]
    assert relations(result[unnamed.id], "reverts") == [first.id, again.id]
    assert relations(result[again.id], "reverted_by") == [unnamed.id]


def test_ghstack_members_are_grouped() -> None:
    def body(me: int) -> str:
        lines = [f"* {'__->__ ' if n == me else ''}#{n}" for n in (72, 71, 70)]
        return (
            "Stack from [ghstack](https://github.com/ezyang/ghstack) (oldest at bottom):\n"
            + "\n".join(lines)
            + "\n\nText"
        )

    members = [item(n, f"[dynamo] step {n}", body=body(n), kind="pull_request") for n in (70, 71, 72)]
    result = run(*members)
    assert relations(result[ref(71)], "stack") == [ref(70), ref(72)]
    assert relations(result[ref(70)], "stack") == [ref(71), ref(72)]


def test_a_cherry_pick_never_stands_for_its_original() -> None:
    original = item(100, "[inductor] Fix wrong strides in pad_mm", kind="pull_request", state="closed")
    picked = item(
        200,
        "[release/2.12] [inductor] Fix wrong strides in pad_mm",
        "Cherry-pick of #100 to the release branch.",
        kind="pull_request",
        state="merged",
    )
    same_title = item(
        300, "[inductor] Fix wrong strides in pad_mm", "Cherry picked from #999", kind="pull_request", state="merged"
    )
    result = run(original, picked, same_title)
    assert result[ref(200)].canonical == ref(100)
    assert result[ref(100)].canonical is None
    assert result[ref(300)].canonical == ref(100)  # same title, and a cherry-pick: the original leads


def test_a_cherry_pick_of_several_changes_is_linked_with_each_original_and_stands_for_none() -> None:
    first = item(110, "[build] Accept the newer linker flags", kind="pull_request", state="closed")
    second = item(111, "Accept the newer linker flags on big-endian hosts", kind="pull_request", state="closed")
    batch = item(
        210,
        "[Cherry-pick] Build with the new generator",
        "Cherry-pick of the changes below to the release branch:\n"
        "- **[build] Accept the newer linker flags (#110)**\n"
        "- **Accept the newer linker flags on big-endian hosts (#111)**\n",
        kind="pull_request",
        state="merged",
    )
    result = run(first, second, batch)
    assert relations(result[ref(210)], "picks") == [ref(110), ref(111)]
    assert relations(result[ref(110)], "picked_by") == relations(result[ref(111)], "picked_by") == [ref(210)]
    assert result[ref(210)].canonical is None and result[ref(110)].canonical is None
    # A list of changes in a PR that picks nothing is only a list.
    notes = item(211, "Release notes draft", batch.body.replace("Cherry-pick of", "Notes on"), kind="pull_request")
    assert relations(run(first, notes)[ref(211)], "picks") == []


def test_a_cherry_pick_is_in_its_originals_areas() -> None:
    original = item(
        100, "[CUDA] Fix cuBLAS workspace reuse across streams", kind="pull_request", labels=("module: cuda",)
    )
    by_body = item(200, "[release/2.12] Workspace fix", "Cherry-pick of #100", kind="pull_request")
    by_title = item(300, "[release/2.12] [CUDA] Fix cuBLAS workspace reuse across streams", kind="pull_request")
    result = run(original, by_body, by_title)
    assert result[ref(100)].areas == ["cuda"]
    assert result[ref(200)].areas == result[ref(300)].areas == ["cuda"]


def test_copies_of_one_change_are_one_story_led_by_the_one_in_use() -> None:
    unused = item(10, "[not used] Add fused RMSNorm kernel for MPS", kind="pull_request", state="closed")
    new = item(11, "[new] Add fused RMSNorm kernel for MPS", kind="pull_request", state="open")
    result = run(unused, new)
    assert result[ref(10)].canonical == ref(11)


def test_relands_of_one_change_are_linked_whatever_their_count() -> None:
    first = item(20, "[reland] Use a persistent reduction for small rows", kind="pull_request")
    second = item(21, "[reland 2] Use a persistent reduction for small rows", kind="pull_request")
    result = run(first, second)
    assert ref(20) in relations(result[ref(21)], "relands")


def test_a_partial_fix_of_an_issue_url_is_a_fix_link() -> None:
    issue = item(40, "torch.cdist returns wrong values for large inputs")
    fix = item(
        41,
        "Handle large inputs in cdist",
        "Partial fix of http://github.com/pytorch/pytorch/issues/40",
        kind="pull_request",
    )
    result = run(issue, fix)
    assert relations(result[ref(41)], "fixes") == [ref(40)]
    assert relations(result[ref(40)], "fixed_by") == [ref(41)]


def test_a_reland_or_revert_title_gives_the_first_versions_title_however_long_its_blanks() -> None:
    from pytorch_insight.pipeline.fuse import RELAND, REVERT, tagged

    assert tagged(RELAND, '[reland 2] "Fuse the pointwise ops"  ') == "Fuse the pointwise ops"
    assert tagged(REVERT, "Revert 'Drop the old path'") == "Drop the old path"
    assert tagged(RELAND, "Fuse the pointwise ops") is None
    assert tagged(RELAND, "reland: first line\nsecond line") is None  # a title goes on past its line
    long_blanks = "reland x" + " " * 50_000 + "y"  # once a quadratic rescan of the blanks
    assert tagged(RELAND, long_blanks) == "x" + " " * 50_000 + "y"
