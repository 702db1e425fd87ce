"""What the features of a window's items hold in memory."""

from __future__ import annotations

from pytorch_insight.pipeline.features import extract_features
from tests.pipeline.helpers import item


def test_a_word_used_by_many_items_is_held_once() -> None:
    # Words cut from each item's own text are new strings; a window of 12,000 items held each
    # common word thousands of times (most of `report`'s peak memory per item).
    first = extract_features(item(1, title="Inductor graph break in torch.compile", body="A graph break here."))
    second = extract_features(item(2, title="Another graph break", body="More inductor trouble."))
    shared = first.words & second.words
    assert {"graph", "break", "inductor"} <= shared
    assert all(
        next(w for w in first.words if w == word) is next(w for w in second.words if w == word) for word in shared
    )
    assert next(w for w in first.title_words if w == "graph") is next(w for w in second.title_words if w == "graph")
