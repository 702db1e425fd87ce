from pytorch_insight.model import Item, Relation, github_item_id
from pytorch_insight.pipeline import assess, select_focus
from pytorch_insight.pipeline.references import (
    REFERENCE,
    REFERENCE_OR_PULL,
    closing_references,
    issue_urls,
    partial_fix,
    reference_id,
    references_or_pulls,
)
from tests.pipeline.helpers import PROFILE, item, ref, relations, run


def test_closing_keywords_in_all_their_forms() -> None:
    text = (
        "Fixes #1\nfixes: #2\nCloses other/repo#3\nResolves https://github.com/pytorch/vision/issues/4\n"
        "Fixed #5, #6 and #7\nPull Request resolved: https://github.com/pytorch/pytorch/pull/8\n"
        "**Fixes**: #9\n**Closes:** #10"
    )
    assert [(repo, number) for repo, number, _ in closing_references(text, "pytorch/pytorch")] == [
        ("pytorch/pytorch", 1),
        ("pytorch/pytorch", 2),
        ("other/repo", 3),
        ("pytorch/vision", 4),
        ("pytorch/pytorch", 5),
        ("pytorch/pytorch", 6),
        ("pytorch/pytorch", 7),
        ("pytorch/pytorch", 9),
        ("pytorch/pytorch", 10),
    ]


def test_a_repository_reference_is_read_from_where_its_name_starts() -> None:
    # The name is matched only from the start of a run of its characters; the leftmost reading is
    # the one it always was, and a long run costs one scan, not one per character.
    text = "see a.b/c/d#1, x/y#2 and (o/r#3); long" + "-word" * 2_000 + "/q#4"
    found = [(m.group("repo"), m.group("n1")) for m in REFERENCE_OR_PULL.finditer(text)]
    assert found == [("c/d", "1"), ("x/y", "2"), ("o/r", "3"), ("long" + "-word" * 2_000 + "/q", "4")]
    assert [m.group("repo") for m in REFERENCE.finditer("- tracks org.x/re-po#5 and #6")] == ["org.x/re-po", None]


def test_references_are_read_alike_with_or_without_a_repository_qualified_one() -> None:
    # A text with no "o/r#N" is searched for the other forms alone, only where one can start: the
    # same matches, the same items.
    plain = "Fixes #12 (see https://github.com/o/r/pull/7), not a#3 nor x/#4, and gh#5; path/to#x #6"
    qualified = plain + " and q/s#8"
    others = [
        "#1 opens it, ##2 and #\n#3 ###",
        "http://github.com/o/r/issues/9#issuecomment-1 and github.com/o/r/issues/10 with no scheme",
        "xhttps://github.com/o/r/issues/11 glued, https://github.com/o/r/tree/main #13 https://github.com/o/r/issues/",
    ]
    for text in (plain, qualified, *others):
        whole = [(m.span(), reference_id(m, "p/p")) for m in REFERENCE_OR_PULL.finditer(text)]
        assert [(m.span(), reference_id(m, "p/p")) for m in references_or_pulls(text)] == whole
    assert [reference_id(m, "p/p") for m in references_or_pulls(qualified)] == [
        github_item_id(repo, n) for repo, n in [("p/p", 12), ("o/r", 7), ("p/p", 6), ("q/s", 8)]
    ]


def test_a_closing_keyword_before_a_markdown_link_or_a_stray_hash_names_the_linked_issue() -> None:
    text = (
        "Fixes [issue](https://github.com/o/r/issues/21)\nfixes [#22](https://github.com/o/r/issues/22)\n"
        "Fixes #https://github.com/o/r/issues/23\nfixs #24\nFixes [#2](https://github.com/o/r/issues/25)"
    )
    found = closing_references(text, "o/r")
    assert [number for _, number, _ in found] == [21, 22, 23, 24, 25]
    assert found[0][2] == "Fixes [issue](https://github.com/o/r/issues/21)"  # the link quoted whole
    assert [number for _, number, _ in issue_urls("Fixes [the report](https://github.com/o/r/issues/26)", False)] == [
        26
    ]


def test_a_partial_fix_is_quoted_with_the_word_that_makes_it_partial() -> None:
    [(_, _, whole)] = closing_references("Fixes #1", "pytorch/pytorch")
    [(_, _, part)] = closing_references("This PR: Partially fixes #2 by clearing the memo.", "pytorch/pytorch")
    [(_, _, fix_of)] = closing_references("Partial fix of #3", "pytorch/pytorch")
    assert part == "Partially fixes #2" and partial_fix(part) and partial_fix(fix_of) and not partial_fix(whole)
    # the word may stand anywhere before the reference: "It partially addresses <url>"
    assert partial_fix('issue URL in PR body: "It partially addresses https://github.com/o/r/issues/4"')


def test_a_change_that_partly_fixes_an_issue_does_not_count_it_among_those_it_closes() -> None:
    body = "Fixes #71\n\nIt partially addresses https://github.com/pytorch/pytorch/issues/72 as well."
    change = item(73, "Clamp the index before the gather", body, kind="pull_request")
    ranked = run(change, item(71, "Gather reads out of bounds"), item(72, "Scatter writes past the end"))
    assert relations(ranked[ref(73)], "fixes") == [ref(71), ref(72)]
    assert not any("closes 2 reported issues" in r.en for r in ranked[ref(73)].reasons)


def test_a_hedged_closing_word_names_no_fix() -> None:
    text = "Resolves #11. May also resolve #12, and this might fix #13; it could also close #14."
    assert [number for _, number, _ in closing_references(text, "pytorch/pytorch")] == [11]
    urls = "Resolves https://github.com/o/r/issues/15.\n\nMay also resolve https://github.com/o/r/issues/16.\n"
    assert [number for _, number, _ in issue_urls(urls, fix=True)] == [15]


def test_a_reference_that_opens_the_next_paragraph_is_not_one_more_fix() -> None:
    text = "Fixes #10\n\n#9 added the warning this removes, on every retry."
    assert [number for _, number, _ in closing_references(text, "pytorch/pytorch")] == [10]


def test_an_issue_url_is_a_fix_on_its_own_line_or_in_a_change_that_says_it_fixes() -> None:
    text = (
        "https://github.com/pytorch/pytorch/issues/10\n"
        "Related: https://github.com/pytorch/vision/issues/11\n"
        "The sample that prompted this change lives in https://github.com/pytorch/vision/issues/12\n"
        "A first attempt at solving https://github.com/pytorch/pytorch/issues/13"
    )
    assert [(repo, number) for repo, number, _ in issue_urls(text, fix=False)] == [
        ("pytorch/pytorch", 10),
        ("pytorch/pytorch", 13),
    ]
    assert [number for _, number, _ in issue_urls(text, fix=True)] == [10, 12, 13]
    assert (
        issue_urls(text, fix=True)[1][2]
        == "The sample that prompted this change lives in https://github.com/pytorch/vision/issues/12"
    )


def test_an_issue_url_inside_a_code_block_is_the_codes_not_a_fix() -> None:
    text = (
        "Retry the handshake after a timeout.\n\n"
        "```\n  // the vendor documents this limit, see:\n  // https://github.com/vendor/lib/issues/20\n```\n"
        "https://github.com/pytorch/pytorch/issues/21\n"
    )
    assert [number for _, number, _ in issue_urls(text, fix=True)] == [21]
    assert [number for _, number, _ in issue_urls(text.replace("```", ""), fix=True)] == [20, 21]


def test_a_change_that_names_its_fix_by_keyword_names_other_issue_urls_for_other_reasons() -> None:
    bug = item(200, "Indent error from an overloaded method")
    upstream = item(201, "Interpreter bug", repo="python/cpython")
    aside = item(202, "Kernel note", repo="nvidia/cutlass")
    fix = item(
        203,
        "[jit] Silence a spurious indent error",
        body=(
            "Silences the error raised due to https://github.com/python/cpython/issues/201\n"
            "Fixes #200\n\nI rediscovered this along the way: https://github.com/nvidia/cutlass/issues/202"
        ),
        kind="pull_request",
    )
    result = run(bug, upstream, aside, fix)
    assert relations(result[fix.id], "fixes") == [bug.id]
    assert relations(result[upstream.id], "fixed_by") == relations(result[aside.id], "fixed_by") == []


def test_fix_links_go_both_ways_with_their_evidence() -> None:
    bug = item(100, "torch.compile gives wrong results")
    fix = item(101, "[dynamo] Fix wrong results", body="Fixes #100", kind="pull_request")
    by_url = item(
        102,
        "[dynamo] Another fix",
        body="See the repro.\nhttps://github.com/pytorch/pytorch/issues/100",
        kind="pull_request",
    )
    names_a_pr = item(103, "[inductor] Follow-up", body="Fixes #101", kind="pull_request")
    result = run(bug, fix, by_url, names_a_pr)
    assert relations(result[bug.id], "fixed_by") == [fix.id, by_url.id]
    evidence = {r.target: r.evidence for r in result[bug.id].relations}
    assert evidence == {
        fix.id: 'closing keyword in PR body: "Fixes #100"',
        by_url.id: 'issue URL in PR body: "https://github.com/pytorch/pytorch/issues/100"',
    }
    assert relations(result[names_a_pr.id], "fixes") == []


def test_a_bare_link_to_an_umbrella_is_a_piece_of_its_work_not_its_fix() -> None:
    umbrella = item(110, "[Release 3.1] umbrella issue - downstream CI failures")
    piece = item(
        111,
        "[CI] Run the downstream suites against release 3.1",
        body="Runs the downstream suites every night.\nhttps://github.com/pytorch/pytorch/issues/110",
        kind="pull_request",
    )
    fix = item(112, "Fix the sampler drift", body="Fixes #110", kind="pull_request")
    result = run(umbrella, piece, fix)
    assert relations(result[umbrella.id], "fixed_by") == [fix.id]


def test_a_change_that_only_adds_a_test_is_part_of_the_story_not_its_fix() -> None:
    bug = item(110, "torch.foo hangs on an empty queue")
    test = item(111, "Add regression test for torch.foo on an empty queue", body="Fixes #110", kind="pull_request")
    fix = item(112, "[core] Release the queue lock before waiting", body="Fixes #110", kind="pull_request")
    result = run(bug, test, fix)
    assert relations(result[bug.id], "fixed_by") == [fix.id]
    assert relations(result[bug.id], "tested_by") == [test.id]
    assert relations(result[test.id], "tests") == [bug.id] and relations(result[test.id], "fixes") == []
    [story] = [e for e in select_focus(list(result.values()), PROFILE, 12) if bug.id in e.members]
    assert test.id in story.members


def test_a_fix_a_reviewer_says_fixes_another_problem_is_only_related() -> None:
    from pytorch_insight.model import Comment

    bug = item(120, "torch.foo raises on float ranges")
    doubted = Comment(author="reviewer", date="2026-04-09", body="Looks like this fixes another bug, not #120.")
    change = item(121, "Fix torch.foo for integral outputs", body="Fixes #120", kind="pull_request", comments=[doubted])
    result = run(bug, change)
    assert relations(result[change.id], "fixes") == [] and relations(result[change.id], "related") == [bug.id]
    assert relations(result[bug.id], "fixed_by") == []
    # The report naming the change as its fix does not outweigh the reviewer either.
    offered = item(122, "torch.bar raises on float ranges", "I opened a PR to fix this: #123")
    named = item(123, "Fix torch.bar for integral outputs", kind="pull_request", comments=[doubted])
    result = run(offered, named)
    assert relations(result[offered.id], "fixed_by") == [] and relations(result[named.id], "fixes") == []


def test_landed_commits_link_to_their_pr_and_to_the_issue_they_fix() -> None:
    pr = item(200, "[inductor] Fix a crash", kind="pull_request")
    bug = item(199, "Crash in inductor")
    commit = Item(
        id="commit:pytorch/pytorch@abc",
        source="github",
        kind="commit",
        repo="pytorch/pytorch",
        title="[inductor] Fix a crash (#200)",
        body="Fixes #199\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/200",
        created="2026-04-09T12:00:00Z",
        relations=[Relation(type="lands", target=ref(200), evidence="Pull Request resolved line")],
    )
    result = run(pr, bug, commit)
    assert relations(result[pr.id], "landed_by") == [commit.id]
    assert relations(result[bug.id], "fixed_by") == [commit.id]
    assert result[bug.id].relations[0].evidence == 'closing keyword in landed commit message: "Fixes #199"'


def test_forum_posts_link_to_the_github_items_they_discuss() -> None:
    issue = item(300, "[RFC] Something")
    post = Item(
        id="forum:dev-discuss.pytorch.org/t/9",
        source="forum",
        kind="forum",
        title="Thoughts on the RFC",
        body="The full proposal: https://github.com/pytorch/pytorch/issues/300 (worth a read).",
        created="2026-04-09T12:00:00Z",
        url="https://dev-discuss.pytorch.org/t/9",
    )
    result = run(issue, post)
    assert relations(result[post.id], "discusses") == [issue.id]
    assert relations(result[issue.id], "discussed_in") == [post.id]


def test_a_rare_shared_identifier_relates_items_and_a_common_one_does_not() -> None:
    rocm = item(400, "[ROCm] flex_attention returns NaN", body="Calling flex_attention with a block mask.")
    xpu = item(401, "[XPU] flex_attention returns NaN too", body="Same with flex_attention on XPU.")
    commons = [item(410 + n, f"issue {n} about the thing", body="uses some_common_helper here") for n in range(6)]
    result = run(rocm, xpu, *commons)
    assert relations(result[rocm.id], "related") == [xpu.id]
    assert result[rocm.id].relations[0].evidence == "both mention `flex_attention`"
    assert all(relations(result[c.id], "related") == [] for c in commons)


def test_python_s_own_names_and_the_project_s_name_relate_nothing() -> None:
    mps = item(420, "Batch inference on MPS is wrong", body="PyTorch raises RuntimeError after the conv.")
    ci = item(421, "CI fails after the interpreter upgrade", body="PyTorch jobs end in RuntimeError.")
    assert relations(run(mps, ci)[mps.id], "related") == []


def test_one_author_s_changes_on_one_rare_name_are_one_story() -> None:
    # Two changes of one author on one named thing, sent without ghstack, and that author's fix of
    # what they reported, are one story; two reports of one author, or changes of two authors,
    # naming the same thing stay only related.
    kinds = {"kind": "pull_request", "author": "maker"}
    first = item(600, "Speed up the quux_scatter kernel", body="Unrolls quux_scatter_kernel.", **kinds)
    second = item(601, "Let quux_scatter take strided input", body="Teaches quux_scatter_kernel strides.", **kinds)
    report = item(602, "zorp_pack returns zeros", body="Calling zorp_pack_rows on CPU.", author="finder")
    fix = item(603, "Handle empty rows", body="zorp_pack_rows skipped them.", kind="pull_request", author="finder")
    one = item(604, "blip_gather overflows", body="blip_gather_index wraps.", author="teller")
    two = item(605, "blip_gather is slow", body="blip_gather_index is scalar.", author="teller")
    other = item(606, "Vectorise blip_gather", body="blip_gather_index now vectorised.", kind="pull_request")
    result = run(first, second, report, fix, one, two, other)
    assert relations(result[first.id], "series") == [second.id]
    assert result[first.id].relations[0].evidence == "same author, both mention `quux_scatter`"
    assert relations(result[report.id], "series") == [fix.id] and relations(result[fix.id], "series") == [report.id]
    assert relations(result[one.id], "series") == [] and relations(result[one.id], "related") == [two.id, other.id]
    stories = [set(story.members) for story in select_focus(list(result.values()), PROFILE, 12, low=True)]
    assert {first.id, second.id} in stories and {report.id, fix.id} in stories
    assert not any(one.id in members and two.id in members for members in stories)


def test_an_author_s_report_and_their_change_titled_alike_are_one_story() -> None:
    # Two title words in common say little between two people; an author's report and the change
    # they sent, each naming the same thing, are their fix of what they reported.
    report = item(620, "Grommet sampler skips odd workers", author="finder")
    change = item(621, "Grommet sampler: walk every rank in order", kind="pull_request", author="Finder")
    other = item(622, "Grommet sampler: seed each epoch", kind="pull_request", author="someone")
    again = item(623, "Sprocket cache hangs at exit", author="finder")
    twice = item(624, "Sprocket cache: keep entries across epochs", author="finder")
    result = run(report, change, other, again, twice)
    assert relations(result[report.id], "series") == [change.id] and relations(result[change.id], "series") == [
        report.id
    ]
    assert result[report.id].relations[0].evidence == (
        'same author, titles: "Grommet sampler skips odd workers" / "Grommet sampler: walk every rank in order"'
    )
    assert all(result[i.id].relations == [] for i in (other, again, twice))
    stories = [set(story.members) for story in select_focus(list(result.values()), PROFILE, 12, low=True)]
    assert {report.id, change.id} in stories


def test_a_numbered_name_of_generated_code_relates_nothing() -> None:
    # Two unrelated graph dumps both show their first input, and two wheel reports one platform tag.
    first = item(430, "Compiled scatter gives zeros", body="The output code reads from arg7_2 twice.")
    second = item(431, "Compiled cumsum overflows", body="The kernel stores arg7_2 before the loop.")
    third = item(432, "Wheel install fails on the old glibc", body="The wheel is tagged wheelplat3_99 only.")
    fourth = item(433, "Nightly wheel size doubled", body="Only the wheelplat3_99 wheel grew.")
    result = run(first, second, third, fourth)
    assert all(relations(result[i.id], "related") == [] for i in (first, second, third, fourth))


def test_a_c_type_name_relates_nothing() -> None:
    # One author's two kernels both declare their index type: a word of any C++ source, not a subject.
    kinds = {"kind": "pull_request", "author": "maker"}
    first = item(440, "Widen the gather kernel's index", body="Index math now uses int64_t offsets.", **kinds)
    second = item(441, "Vectorise the pad kernel", body="Loads four scalar_t and one int64_t stride.", **kinds)
    third = item(442, "Pad kernel crashes on empty input", body="The loop over scalar_t values overflows.")
    result = run(first, second, third)
    assert all(result[i.id].relations == [] for i in (first, second, third))


def test_two_noise_items_are_not_related_to_each_other() -> None:
    a = item(500, "DISABLED test_a (__main__.SomeSharedTestClass)")
    b = item(501, "DISABLED test_b (__main__.SomeSharedTestClass)")
    result = run(a, b)
    assert relations(result[a.id], "related") == []


def test_a_fix_names_its_issue_in_weaker_forms_too() -> None:
    bug = item(600, "Compiled model crashes on exit")
    by_issue = item(601, "[inductor] Fix crash on exit (Issue #600)", kind="pull_request")
    addresses = item(602, "Guard the exit path", body="Addresses #600.", kind="pull_request")
    mention = item(603, "Refactor the exit path", body="Cleanup referencing #600.", kind="pull_request")
    result = run(bug, by_issue, addresses, mention)
    assert relations(result[bug.id], "fixed_by") == [by_issue.id, addresses.id]  # a refactor is no fix


def test_the_change_a_fix_names_as_the_origin_is_not_what_it_fixes() -> None:
    origin = item(610, "Speed up the pooling kernel")
    bug = item(611, "Pooling on strided inputs returns zeros")
    fix = item(
        612,
        "Fix strided pooling",
        body="The zeros were introduced by the change in issue #610. Fixes #611.",
        kind="pull_request",
    )
    caused = item(
        613, "Fix the pooling slowdown", body="A regression caused by the rewrite for #610.", kind="pull_request"
    )
    result = run(origin, bug, fix, caused)
    assert relations(result[fix.id], "fixes") == [bug.id]
    assert relations(result[origin.id], "fixed_by") == []


def test_a_revert_fixes_the_issue_it_says_the_reverted_change_caused() -> None:
    bug = item(630, "Cached graphs return stale guards after the cache rework")
    earlier = item(631, "Rework the graph cache", kind="pull_request")
    revert = item(
        632,
        'Revert "Rework the graph cache (#631)"',
        body="Reverts #631. Bisected as the cause of the stale-guard bug (#630); with it reverted the tests pass.",
        kind="pull_request",
    )
    # a change that is no revert names where a problem came from
    other = item(633, "Tidy the cache keys", body="This caused #630 to show up more often.", kind="pull_request")
    result = run(bug, earlier, revert, other)
    assert relations(result[revert.id], "fixes") == [bug.id]
    assert relations(result[bug.id], "fixed_by") == [revert.id]
    [evidence] = [r.evidence for r in result[bug.id].relations if r.type == "fixed_by"]
    assert "cause of the stale-guard bug (#630" in evidence


def test_a_problem_a_fix_compares_itself_to_is_not_one_it_fixes() -> None:
    earlier = item(620, "FFT gives wrong values for zero strides")
    bug = item(621, "FFT round trip loses energy at one size")
    fix = item(
        622,
        "Fix FFT energy for one size",
        body="Fixes #621\n\nSimilar to the existing workaround for issue #620 (zero strides).",
        kind="pull_request",
    )
    result = run(earlier, bug, fix)
    assert relations(result[fix.id], "fixes") == [bug.id]
    assert relations(result[earlier.id], "fixed_by") == []


def test_the_projects_everyday_names_relate_nothing() -> None:
    a = item(700, "[inductor] compile_fx drops a guard", body="In compile_fx the FakeTensor path differs.")
    b = item(701, "[export] compile_fx is slow", body="compile_fx with a FakeTensor input.")
    result = run(a, b)
    assert relations(result[a.id], "related") == []


def test_an_issue_named_on_a_line_of_its_own_is_what_the_pr_fixes() -> None:
    bug = item(200, "Loader keeps file handles open")
    other_pr = item(199, "Refactor the loader", kind="pull_request")
    fix = item(
        201,
        "Close the loader's handles",
        body="Each load kept one handle open until exit.\n#200\n#199",
        kind="pull_request",
    )
    mentions = item(202, "Tidy the loader", body="See #200 for context.", kind="pull_request")
    result = run(bug, other_pr, fix, mentions)
    assert relations(result[fix.id], "fixes") == [bug.id]  # a PR on its own line is no issue it fixes
    assert relations(result[bug.id], "fixed_by") == [fix.id]  # inside a sentence it is only a mention
    assert relations(result[bug.id], "named_by") == [mentions.id]
    assert relations(result[mentions.id], "names") == [bug.id]
    assert [r.evidence for r in result[mentions.id].relations if r.type == "names"] == [
        'PR body names it: "See #200 for context."'
    ]


def test_a_fix_whose_title_ends_with_an_issue_s_number_fixes_that_issue() -> None:
    bug = item(210, "Compiled pooling reads a cached window size")
    first = item(211, "Let pooling take symbolic sizes", kind="pull_request")
    fix = item(212, "Fix the cached window in pooling (#210)", body="The size was baked in.", kind="pull_request")
    own = item(213, "Fix the size check in pooling (#213)", kind="pull_request")
    reland = item(214, "Fix symbolic sizes in pooling again (#211)", kind="pull_request")
    feature = item(215, "Add a window size cache (#210)", kind="pull_request")
    result = run(bug, first, fix, own, reland, feature)
    assert relations(result[bug.id], "fixed_by") == [fix.id]
    # its own number, a PR's number (a reland names its first version) and a change that does not
    # say it fixes anything are no fix links
    assert not relations(result[own.id], "fixes") and not relations(result[reland.id], "fixes")
    assert not relations(result[feature.id], "fixes")


def test_a_closing_keyword_before_an_issue_s_pull_url_fixes_that_issue() -> None:
    bug = item(210, "Rounding op is a no-op for half precision")
    pr = item(211, "Refactor the rounding kernels", kind="pull_request")
    url = "https://github.com/pytorch/pytorch/pull/{}"
    fix = item(212, "Fix the rounding op for half precision", body=f"Fixes {url.format(210)}", kind="pull_request")
    follow = item(213, "Tidy the rounding kernels", body=f"Fixes {url.format(211)}", kind="pull_request")
    outside = item(214, "Fix a typo", body=f"Fixes {url.format(999)}", kind="pull_request")
    result = run(bug, pr, fix, follow, outside)
    assert relations(result[bug.id], "fixed_by") == [fix.id]
    # a PR's URL names a PR, and one the window does not hold may be either
    assert relations(result[follow.id], "fixes") == relations(result[outside.id], "fixes") == []


def test_two_reports_of_one_bug_in_other_words_are_one_story() -> None:
    wrong = "The result is silently wrong."
    first = item(1, "Sparse matmul returns zeros for a CSR tensor with empty rows", wrong)
    second = item(2, "CSR tensor with empty rows makes sparse matmul return zeros", wrong)
    other = item(3, "CSR tensor conversion drops its layout")
    unrelated = item(4, "[MPS] sort returns zeros for empty rows")
    result = run(first, second, other, unrelated)
    assert ref(2) in relations(result[first.id], "similar")
    assert ref(1) in relations(result[second.id], "similar")
    assert not relations(result[other.id], "similar") and not relations(result[unrelated.id], "similar")
    stories = select_focus(assess([first, second], PROFILE), PROFILE, 12)
    assert [set(s.members) for s in stories] == [{first.id, second.id}]


def test_a_fix_titled_after_a_report_in_another_tense_is_similar_to_it() -> None:
    report = item(1, "The resize kernel skips `grow` and bypasses the guard logic", author="finder")
    fix = item(2, "[inductor] Fix the resize kernel bypassing guard logic", kind="pull_request")
    result = run(report, fix)
    assert relations(result[report.id], "similar") == [fix.id]
    assert relations(result[report.id], "fixed_by") == []  # a title says nothing of what it fixes


def test_a_cherry_pick_for_its_original_change_fixes_only_the_issue_it_names() -> None:
    pick = item(
        301,
        "[cherry-pick] Fix the loader crash on empty shards",
        body="This is the cherry-pick PR for #290 into the release branch.\n\nFixes #280",
        kind="pull_request",
    )
    result = run(pick)
    assert relations(result[pick.id], "fixes") == [ref(280)]  # #290 is the change it copies


def test_an_issue_that_names_the_one_pr_fixing_it_is_one_story_with_it() -> None:
    bug = item(400, "cumsum crashes on an empty half tensor", body="Repro below.\n\nsee #401\n\nI fixed it there.")
    fix = item(401, "Handle empty inputs in cumsum", body="Return early when numel is zero.", kind="pull_request")
    suggests = item(402, "Scatter is slow on strided inputs", body="See #401. Two possible fixes: copy first, or loop.")
    two = item(403, "Crash in the allocator", body="I fixed it in #401 or maybe #404.")
    other = item(404, "Allocator cleanup", kind="pull_request")
    result = run(bug, fix, suggests, two, other)
    assert relations(result[bug.id], "fixed_by") == [fix.id]
    assert relations(result[fix.id], "fixes") == [bug.id]
    assert 'the issue names its fix: "I fixed it there."' in {r.evidence for r in result[bug.id].relations}
    assert relations(result[suggests.id], "fixed_by") == [] and relations(result[two.id], "fixed_by") == []


def test_a_report_listing_related_reports_tracks_none_of_them() -> None:
    report = item(
        500,
        "Linear aborts for a transposed bf16 weight",
        body="The process aborts.\n\nRelated, but a different failure:\n\n"
        "- #501 wrong values\n- #502 nondeterminism\n- #503 another abort\n",
    )
    umbrella = item(510, "Release blockers", body="Open items:\n\n- #501\n- #502\n- #503\n")
    result = run(report, umbrella)
    assert relations(result[report.id], "tracks") == []
    assert relations(result[umbrella.id], "tracks") == [ref(501), ref(502), ref(503)]


def test_an_issue_under_a_lead_in_that_names_it_related_is_no_fix() -> None:
    url = "https://github.com/pytorch/pytorch/issues/4321"
    previous = "**Previous PR:**\nhttps://github.com/pytorch/pytorch/pull/4000"
    related = f"Unify the versions.\n\n{previous}\n\n**Related issue:**\n{url}\n"
    assert issue_urls(related, fix=False) == [] and issue_urls(related, fix=True) == []
    # The same URL alone, or under a lead-in that says it is fixed, is the issue the change fixes.
    assert issue_urls(f"Fix the leak.\n\n{url}\n", fix=False) == [("pytorch/pytorch", 4321, url)]
    assert issue_urls(f"Fix the leak.\n\nFixes:\n{url}\n", fix=False) == [("pytorch/pytorch", 4321, url)]


def test_a_template_s_number_placeholder_relates_nothing() -> None:
    # Two changes whose descriptions keep a template's unfilled "Fixes #<PLACEHOLDER>" line.
    kinds = {"kind": "pull_request"}
    first = item(450, "Clamp the grommet grid", body="Fixes #GROMMET_NUMBER\n\nClamps the grid.", **kinds)
    second = item(451, "Pad the sprocket rows", body="Fixes #GROMMET_NUMBER\n\nPads each row.", **kinds)
    result = run(first, second)
    assert all(result[i.id].relations == [] for i in (first, second))
    # the same name written as a name of code still relates them
    named = [i.model_copy(update={"body": (i.body or "").replace("Fixes #", "Reads ")}) for i in (first, second)]
    assert [r.target for r in run(*named)[first.id].relations] == [second.id]
