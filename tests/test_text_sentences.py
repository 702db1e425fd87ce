"""The sentence splitter: abbreviations, versions, paths and code stay inside a sentence; a reply
addressed to people starts a new one and does not quote the addressees."""

from pytorch_insight.text import sentences


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
    assert sentences('@pytorchbot merge -i "unit test failure fixed elsewhere"') == []


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
