"""The sentence splitter: abbreviations, versions, paths and code stay inside a sentence; a reply
addressed to people starts a new one and does not quote the addressees."""

from pytorch_insight.announced import announced_errors
from pytorch_insight.text import join_sentences, parse_body, section, sentences


def test_abbreviations_versions_and_paths_do_not_end_a_sentence() -> None:
    text = (
        "Large reductions (e.g. 4096 elements) overflow, i.e. the loop is wrong. "
        "Eager vs. compiled differ on torch 2.12.0 in torch/_inductor/codegen/triton.py today. "
        "A second sentence follows here."
    )
    assert sentences(text) == [
        "Large reductions (e.g. 4096 elements) overflow, i.e. the loop is wrong.",
        "Eager vs. compiled differ on torch 2.12.0 in torch/_inductor/codegen/triton.py today.",
        "A second sentence follows here.",
    ]


def test_a_reply_to_people_is_a_sentence_of_its_own_without_the_mentions() -> None:
    text = "Created a standalone repro from your graph (not verified). @alice @bob it looks like the flag mutes this."
    assert sentences(text) == [
        "Created a standalone repro from your graph (not verified).",
        "it looks like the flag mutes this.",
    ]


def test_a_request_to_a_bot_is_no_sentence_even_after_a_mention() -> None:
    assert sentences("@alice @claude please review the root cause of this change.") == []
    assert sentences('@pytorchbot merge -i "lint job flake unrelated to the diff"') == []


def test_blank_runs_fold_after_words_as_the_lookbehind_pattern_folds_them() -> None:
    import random
    import re

    from pytorch_insight.text import BLANKS_AFTER_WORD

    lookbehind = re.compile(r"(?<=\S)[ \t]+")
    pieces = ["a", " ", "  ", "\t", "\n", "\u3000", "\u00a0", "\r", "\x0b"]
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert BLANKS_AFTER_WORD.sub(" ", text) == lookbehind.sub(" ", text), repr(text)


def test_sentences_end_and_non_statements_are_told_as_the_single_patterns_told_them() -> None:
    import random
    import re

    from pytorch_insight.text import NOT_A_STATEMENT_ANYWHERE, NOT_A_STATEMENT_START, SENTENCE_END

    # The patterns as they were first written: one lookbehind-led split, one case-blind alternation.
    sentence_end = re.compile(
        r"(?<=[.!?])(?=\s)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bcf\.)(?<!\bapprox\.)(?<!\bNo\.)"
        r"\s+(?=[A-Z`\"'(\[@])|\n\s*\n|\n(?=\s*(?:[-*]|\d+[.)])\s)"
    )
    not_a_statement = re.compile(
        r"@\w*(?:claude|copilot|codex|gemini|bot)\b|^\[[ xX]\]|^File \"|^Traceback\b|, line \d+, in \w|"
        r"^\s*at [\w.$]+\(",
        re.I,
    )
    ends = ["a", "A", " ", "\n", "\t", ".", "!", "?", "e.g.", "i.e.", "vs.", "etc.", "No.", "cf.", "approx.", "-"]
    ends += ["*", "1", "2)", "`", '"', "(", "[", "@", "\u3000"]
    starts = ["@", "claude", "Bot", "copilot", ", line ", "12", ", in ", "x", "[", " ", "X", "]", 'File "']
    starts += ["Traceback", "at ", "foo.bar", "(", "\n", "\u212a", "\u017f", "\u0131"]
    rng = random.Random(11)
    for _ in range(20_000):
        text = "".join(rng.choice(ends) for _ in range(rng.randint(0, 14)))
        assert SENTENCE_END.split(text) == sentence_end.split(text), repr(text)
        head = "".join(rng.choice(starts) for _ in range(rng.randint(0, 8)))
        told = NOT_A_STATEMENT_START.match(head) or NOT_A_STATEMENT_ANYWHERE.search(head)
        assert bool(told) == bool(not_a_statement.search(head)), repr(head)


def test_html_tags_are_left_out_of_prose_and_angle_brackets_of_code_are_kept() -> None:
    from pytorch_insight.text import prose

    text = "Headers (<nccl.h>, <nccl_device.h>) were included<br>for every std::vector<int>.\n<details>log</details>"
    assert prose(text) == "Headers (<nccl.h>, <nccl_device.h>) were included for every std::vector<int>.\n log"


def test_a_quoted_passage_is_read_without_its_quote_marks() -> None:
    from pytorch_insight.text import sentences

    text = (
        "Thanks, see the analysis below.\n\n> ### Why it happens\n>\n> The cache keeps a stale entry after reload.\n"
        ">\n> ```python\n> cache.get(key)\n> ```\n>> It is never evicted afterwards."
    )
    assert sentences(text) == [
        "Thanks, see the analysis below.",
        "The cache keeps a stale entry after reload.",
        "It is never evicted afterwards.",
    ]


def test_an_alert_and_a_note_on_who_wrote_the_text_say_nothing_of_the_item() -> None:
    from pytorch_insight.text import parse_body, sentences

    text = (
        "> [!NOTE]\n> This change was written with the help of an AI assistant, see the policy.\n\n"
        "The notes below are AI-generated:\n\n> ### Root cause\n>\n> The reducer reads lanes it never loaded.\n"
    )
    assert sentences(text) == ["The reducer reads lanes it never loaded."]
    assert "root cause" in parse_body(text).sections
    disclosed = (
        "> **Disclosure (AI policy):** This PR and its description were drafted with an AI coding assistant; "
        "the diff has been reviewed.\n\nPrepared with an AI assistant, human reviewed.\n\n"
        "AI-assisted content:\n\nThe pool divides by the row count, which is zero for an empty input."
    )
    assert sentences(disclosed) == ["The pool divides by the row count, which is zero for an empty input."]
    # a sentence about the item that names AI hardware stays
    assert sentences("The generated kernel fails on the Radeon AI PRO card.") == [
        "The generated kernel fails on the Radeon AI PRO card."
    ]


def test_a_heading_said_twice_heads_one_section_and_keeps_both_texts() -> None:
    from pytorch_insight.text import parse_body

    text = (
        "### Describe the bug\n\n## Describe the bug\n\nThe scheduler drops the last bucket.\n\n### Notes\n\nSee below."
    )
    sections = parse_body(text).sections
    assert "The scheduler drops the last bucket." in sections["describe the bug"]
    assert "See below." in sections["notes"]


def announced(body: str) -> list[tuple[str, str]]:
    return announced_errors(sentences(body), body)


def test_a_lead_in_to_a_log_runs_on_into_the_line_that_names_the_error() -> None:
    body = (
        "Exporting a model that counts bins, I get the following error:\n\n"
        '```\nTraceback (most recent call last):\n  File "x.py", line 3, in <module>\n'
        "torch._dynamo.exc.Unsupported: dynamic shape operator: aten.bincount.default\n```\n\n"
        "**Crash output:**\n```\nstep 1 ok\nSegmentation fault (core dumped)\n```\n"
        "A plain sentence follows here."
    )
    assert announced(body) == [
        (
            "Exporting a model that counts bins, I get the following error: … "
            "torch._dynamo.exc.Unsupported: dynamic shape operator: aten.bincount.default",
            "torch._dynamo.exc.Unsupported: dynamic shape operator: aten.bincount.default",
        ),
        ("Crash output: … Segmentation fault (core dumped)", "Segmentation fault (core dumped)"),
        ("A plain sentence follows here.", ""),
    ]


def test_a_log_of_what_is_right_or_without_an_error_line_stays_a_lead_in() -> None:
    expected = "Installed from pip (the expected behavior):\n```\nIndexError: index 10 is out of bounds\n```\n"
    plain = "The loop prints these values:\n```\n1 2 3\nUserWarning: slow path taken\n```\n"
    assert announced(expected) == [("Installed from pip (the expected behavior):", "")]
    assert announced(plain) == [("The loop prints these values:", "")]


def test_hashes_without_a_blank_after_them_open_a_sentence_not_a_heading() -> None:
    body = "### Summary\n#1234 broke the options of the compiler.\n## Details\nMore text that follows."
    assert sentences(body) == ["#1234 broke the options of the compiler.", "More text that follows."]
    assert list(parse_body(body).sections) == ["", "summary", "details"]


def test_a_mention_that_is_the_subject_of_a_past_tense_verb_stays() -> None:
    assert sentences("@alice pointed this out when the option did nothing.") == [
        "@alice pointed this out when the option did nothing."
    ]
    assert sentences("@alice, fixed the typo in the docs now.") == ["fixed the typo in the docs now."]


def test_a_lead_in_heads_a_section_in_bold_always_and_plain_only_when_it_names_a_role() -> None:
    body = (
        "The loader drops rows.\n\n"
        "**Root cause:** the offset was not scaled.\n"
        "It reads past the end.\n\n"
        "**Device backend:** only CPU\n\n"
        "Workaround: pass a copy.\n"
        "RuntimeError: index out of range\n"
        "```\nWhy: a line of code\n```\n"
    )
    sections = parse_body(body).sections
    assert list(sections) == ["", "root cause", "device backend", "workaround"]
    assert section(parse_body(body), "root cause") == "the offset was not scaled.\nIt reads past the end.\n\n"
    # the error line stays in the workaround's section, and a line of a code block heads nothing
    assert "RuntimeError: index out of range" in sections["workaround"]
    assert section(parse_body(body), "workaround").startswith("pass a copy.")
    # nothing of the body is lost from its sections, lead-ins included
    assert "".join(sections.values()) == body


def test_a_bold_line_alone_is_a_heading_not_the_start_of_the_next_sentence() -> None:
    body = "**Summary**\nThere is an accuracy issue when the block is split.\n\n**Note:** keep 2**32 as it is."
    assert sentences(body) == [
        "There is an accuracy issue when the block is split.",
        "Note: keep 2**32 as it is.",
    ]
    assert list(parse_body(body).sections) == ["", "summary", "note"]


def test_list_items_without_a_stop_stay_apart_when_quoted_together() -> None:
    items = sentences("Changes:\n\n- Pad the `header`\n- Check the size before the copy\n- Copy with a bound")
    assert join_sentences(items[:2]) == "Pad the `header`; Check the size before the copy"
    # sentences with their stops, and a sentence that goes on in lower case, are joined as written
    assert join_sentences(["It fails (see #1).", "The fix is small."]) == "It fails (see #1). The fix is small."
    assert join_sentences(["If you hold `buf`", "and free it twice"]) == "If you hold `buf` and free it twice"


def test_a_text_that_stops_in_mid_clause_quotes_its_last_sentence_as_cut() -> None:
    # A copied description often ends where the copy was cut: the quote must not read as complete.
    cut = sentences("The loop overwrites the inactive lanes. So the reduction of")
    assert cut == ["The loop overwrites the inactive lanes.", "So the reduction of…"]
    # A last sentence that ends on a word a statement may end on stays as written, and only the
    # text's end is read as cut (a line that stops on "and" before a list is not).
    assert sentences("It works now. Please review this") == ["It works now.", "Please review this"]
    assert sentences("Steps taken to fix it and\n\n- the loader retries once.")[0] == "Steps taken to fix it and"


def test_a_long_text_that_stops_on_a_word_was_cut_by_its_capture() -> None:
    # an excerpt tool keeps a description's first ~2,000 characters: a long one stopping on a word
    # (even mid-word) was cut there, wherever its sections begin
    filler = "The sprocket grinder keeps its last lathe setting between runs. " * 16
    cut = f"{filler}\n\n**Cause:** the grommet cache is keyed on the device only, whi"
    assert sentences(cut)[-1].endswith("the grommet cache is keyed on the device only, whi…")
    assert section(parse_body(cut), "cause") == "the grommet cache is keyed on the device only, whi…"
    # a short text, or a long one ending on a mark, stands as written
    assert sentences("Enables the grommet path for sparse tensors") == ["Enables the grommet path for sparse tensors"]
    assert sentences(f"{filler}It works now.")[-1] == "It works now."


def test_a_last_sentence_cut_inside_what_it_opened_is_quoted_as_cut() -> None:
    # A copy cut mid-token leaves a code span, a link or a bold run open: no statement ends so.
    for cut in (
        "The cache key leaves out the `device_ind",
        "It was introduced in [the sprocket change](https://github",
        "The grommet overflows at **16 bits",
    ):
        assert sentences(f"It fails on the second call. {cut}") == ["It fails on the second call.", f"{cut}…"], cut
    # Closed, or followed by more text, it stands as written.
    assert sentences("It fails in `grommet_pack`") == ["It fails in `grommet_pack`"]
    assert sentences("It fails in `grommet (the packer. It works now.") == [
        "It fails in `grommet (the packer.",
        "It works now.",
    ]


def test_a_line_naming_the_assistant_that_wrote_the_change_is_not_its_summary() -> None:
    text = "Codex assisted with the grommet tests.\n\nThe profiler is restored after dependency tracing."
    assert sentences(text) == ["The profiler is restored after dependency tracing."]
    # The word alone, in a sentence about something else, stays.
    assert sentences("The codex table lists every kernel.") == ["The codex table lists every kernel."]


def test_a_sentence_saying_how_the_text_was_made_or_vouching_for_it_is_not_quoted() -> None:
    said = "The sampler now skips empty buckets."
    for disclosure in (
        "This write-up was mostly generated using Gemini.",
        "The following report is generated by Gemini after two review rounds.",
        "Co-written with Copilot after a long debugging session.",
        "I ran the fix on two machines and take full responsibility for the patch.",
        "Before sending it I reviewed each line of the diff myself.",
        "Vibe-coded over a weekend, then trimmed by hand.",
        "Mostly copilot-coded from the existing sprocket templates.",
        "Reviewed with an AI assistant before posting.",
        "Assisted by an LLM throughout.",
    ):
        assert sentences(f"{disclosure} {said}") == [said], disclosure
    # the line naming the assistant that coded the change goes, the change log after it stays
    assert sentences(f"Codex coded the sprocket loop for me\nAdded half precision support\n\n{said}") == [
        "Added half precision support",
        said,
    ]
    # A line under a disclosure label is the disclosure, however many sentences it runs to, in a quote too.
    labelled = (
        "> **AI use disclosure:** Copilot drafted the grommet tests with me. The note waits for my review.\n>\n"
        f"> {said}"
    )
    assert sentences(labelled) == [said]
    assert sentences(f"LLM disclosure: none of it.\n{said}") == [said]
    # A disclosure's sentence carried over a line break goes whole; a line after one that ended its
    # sentence stays, in lower case too, and so does the text a disclosure line introduces.
    carried = "> Drafted with the help of an AI; each sprocket count in it was\n> checked by hand on two lathes.\n\n"
    assert sentences(carried + said) == [said]
    assert sentences("Authored with a grommet tool, then\nreread by the two of us.\n\n" + said) == [said]
    assert sentences("Prepared with an AI assistant.\nthe sprocket count drifts after a reload.") == [
        "the sprocket count drifts after a reload."
    ]
    assert sentences("Claude coded the sprocket loop\nAdded grommet support for the new frame.") == [
        "Added grommet support for the new frame."
    ]
    # A line saying a person reworded an assistant's text introduces the text, often without a stop.
    reworded = "Manual rephrasing of a Gemini draft\n`grommet.pack` writes the header twice, so reading it back fails."
    assert sentences(reworded) == ["`grommet.pack` writes the header twice, so reading it back fails."]
    # What a program generated is a finding, and an assistant named for what it found stays quoted.
    for finding in (
        "The tokens were generated by the LLM in the wrong order.",
        "Generated with cursor positions past the end, the index overflows.",
        "Claude's summary: the loader reads past the end of the sprocket table.",
        "The change was reviewed by two maintainers on the sprocket team.",
        "Disclosure of the grommet address leaks the memory layout.",
    ):
        assert sentences(finding) == [finding]


def test_a_package_list_pasted_without_its_heading_is_no_sentence() -> None:
    packages = "Versions of relevant libraries:\n[pip3] numpy==2.2.6\n[pip3] torch==2.10.0\n[conda] numpy 2.2.6 pypi"
    assert sentences(packages) == []
    said = "The sprocket loader fails on its second call."
    assert sentences(f"{said}\n\n{packages}") == [said]
    # A version named in a sentence is part of what it states.
    assert sentences("It fails with [pip3] numpy==2.2.6 installed.") == ["It fails with [pip3] numpy==2.2.6 installed."]


def test_a_title_before_a_name_does_not_end_a_sentence() -> None:
    text = "Warnings were flagged by Dr. CI on every run. They are errors now."
    assert sentences(text) == ["Warnings were flagged by Dr. CI on every run.", "They are errors now."]


def test_a_code_span_of_three_backticks_in_a_sentence_is_no_fence() -> None:
    body = (
        "The clock face is drawn by ```draw_face```, which also paints the hands. "
        "After that the second hand flickers.\n\n"
        "Here is a repro:\n\n```python\nimport clockwork\nclockwork.tick(3)\n```\n\nIt flickers on every tick."
    )
    said = sentences(body)
    assert said[0].startswith("The clock face is drawn by")
    assert "After that the second hand flickers." in said
    assert not any("clockwork.tick" in sentence for sentence in said)
    assert parse_body(body).code_blocks == ["import clockwork\nclockwork.tick(3)"]


def test_a_fence_closes_only_on_a_line_of_its_own_with_as_many_backticks() -> None:
    body = "Diff:\n\n````diff\n+```python\n+x = 1\n+```\n````\n\nThe docs page renders twice."
    assert parse_body(body).code_blocks == ["+```python\n+x = 1\n+```"]
    assert sentences(body)[-1] == "The docs page renders twice."
    unclosed_inline = "Run it:\n```\nspin --fast```\nThen the wheel stops."
    assert parse_body(unclosed_inline).code_blocks == ["spin --fast```\nThen the wheel stops."]
