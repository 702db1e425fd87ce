"""Each item is read once, as it arrives, and what is read from its text outlives the text."""

from __future__ import annotations

from collections.abc import Iterator

from pytorch_insight.model import Item
from pytorch_insight.pipeline import assess
from tests.pipeline.helpers import PROFILE, item, texts


def test_a_window_is_read_in_one_pass_and_no_item_text_is_kept() -> None:
    # `report` streams a window's items from the store and holds only what the later stages
    # compare across items: a second pass, or text kept per item, was most of its peak memory.
    window = [
        item(1, "[inductor] graph break in torch.compile", body="See torch/_inductor/lowering.py for the recompile."),
        item(2, "Fix graph break", kind="pull_request", body="Fixes #1\n\nghstack\n* #3\n* __->__ #2"),
        item(3, "Another change of the stack", kind="pull_request", body="ghstack\n* __->__ #3\n* #2"),
    ]
    served: list[str] = []

    def one_by_one() -> Iterator[Item]:
        for each in window:
            served.append(each.id)
            yield each

    ranked = {a.id: a for a in assess(one_by_one(), PROFILE, "compiler")}
    assert served == [each.id for each in window]
    assert all(not a.features.text and not a.features.words and not a.features.title for a in ranked.values())
    issue = ranked[window[0].id]
    # Areas and the reader's watched keywords and paths were read before the text was released,
    assert issue.areas[0] == "compiler"
    reasons = texts(issue.reasons)
    assert any("torch.compile" in reason for reason in reasons)
    assert any("torch/_inductor/" in reason for reason in reasons)
    # and the links made after it (a fix, a ghstack) still find what they compare.
    assert {(r.type, r.target) for r in issue.relations} >= {("fixed_by", window[1].id)}
    assert ("stack", window[2].id) in {(r.type, r.target) for r in ranked[window[1].id].relations}
