"""The learned judgement beside the phrase rules: a likely class the phrases missed is a fact (quoted
from its strongest sentence), a phrase-read fact is never vetoed, a label settles the class, and a
class the model cannot tell apart on its corpus's newest part says nothing."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pytorch_insight.config_ranking import Judgement as Settings
from pytorch_insight.errors import ConfigError
from pytorch_insight.pipeline.facts import FactExtractor
from pytorch_insight.pipeline.learned import LearnedJudge
from pytorch_insight.pipeline.reasons import fact_reason
from pytorch_insight.pipeline.severity import READ_AHEAD, SeverityModel, load_model, read_model, terms, write_model
from tests.pipeline.helpers import PROFILE, item

# A two-class model written by hand: "leak" words push memory up, "stuck" says nothing of a hang.
VOCABULARY = ["leak", "piles", "released", "stuck", "t:leak", "hang", "t:hang"]
MODEL = SeverityModel(
    classes=("memory", "hang"),
    index={term: n for n, term in enumerate(VOCABULARY)},
    idf=[1.0] * len(VOCABULARY),
    coef=[[3.0, 4.0, 4.0, 0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 0.0, -6.0, 0.0, 6.0, 6.0]],
    intercept=[-2.0, -2.0],
    platt=[(1.0, 0.0), (1.0, 0.0)],
    card={"evaluation": {"per_class": {"memory": {"average_precision": 0.8}, "hang": {"average_precision": 0.7}}}},
)
SETTINGS = Settings(
    classes={"memory": ["module: memory usage"], "hang": ["module: deadlock"]},
    facts={"memory": "memory", "hang": "hang"},
    add=0.6,
)
JUDGE = LearnedJudge(SETTINGS, MODEL)
EXTRACT = FactExtractor(PROFILE.severity)


def judged(title: str, body: str = "", labels: list[str] | None = None):  # type: ignore[no-untyped-def]
    it = item(1, title, body, labels=labels or [])
    return JUDGE.judge(it, EXTRACT.extract(it))


def test_a_problem_stated_in_other_words_becomes_a_fact_quoted_from_its_sentence() -> None:
    result = judged(
        "Tensors kept after each step", "Objects piles up in the cache and are never released. Other text here."
    )
    fact = result.facts.first("memory")
    assert fact is not None and fact.source == "model"
    assert fact.evidence == "Objects piles up in the cache and are never released."
    assert 0.6 <= fact.confidence <= 1.0


def test_a_phrase_read_fact_stays_whatever_the_model_says() -> None:
    """Triagers leave many crashes and hangs without their label: the model's doubt is no proof."""
    plain = EXTRACT.extract(item(2, "Training hangs forever in the second epoch"))
    assert "hang" in plain.kinds()
    assert JUDGE.model.probabilities(terms("Training hangs forever in the second epoch", "")).get("hang", 0) < 0.5
    assert "hang" in judged("Training hangs forever in the second epoch").facts.kinds()


def test_a_class_the_model_cannot_tell_apart_on_its_newest_part_states_nothing() -> None:
    unsure = replace(MODEL, card={"evaluation": {"per_class": {"memory": {"average_precision": 0.3}}}})
    it = item(3, "Tensors kept after each step", "Objects piles up in the cache and are never released.")
    result = LearnedJudge(SETTINGS, unsure).judge(it, EXTRACT.extract(it))
    assert "memory" not in result.facts.kinds() and "memory" not in result.judgement.evidence


def test_a_triage_label_settles_the_class_whatever_the_text() -> None:
    result = judged("Feature size is stuck at 64", labels=["module: deadlock"])
    assert result.judgement.p("hang") == 1.0
    assert "hang" in result.facts.kinds()  # the label's own fact stays


def test_a_model_round_trips_through_its_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for name in ("m.json.gz", "m.json"):
        write_model(MODEL, tmp_path / name)
        again = read_model(tmp_path / name)
        found = terms("leak", "objects piles up")
        assert again.probabilities(found) == MODEL.probabilities(found)


@pytest.mark.parametrize("limit", [0, -5, READ_AHEAD + 1, "600"])
def test_a_model_that_would_read_past_the_cleaned_text_is_a_clear_error(tmp_path, limit) -> None:  # type: ignore[no-untyped-def]
    # Only READ_AHEAD characters of a description are cleaned for reading: a file asking for more,
    # or for none, would read other than it says.
    path = tmp_path / "m.json"
    path.write_text(json.dumps({**MODEL.to_dict(), "text_limit": limit}), encoding="utf-8")
    with pytest.raises(ConfigError, match="text_limit"):
        read_model(path)
    write_model(replace(MODEL, text_limit=READ_AHEAD), path)
    assert read_model(path).text_limit == READ_AHEAD


def test_the_shipped_model_has_a_card_with_its_corpus_and_time_split_metrics() -> None:
    model = load_model()
    card = model.card
    assert card["examples"] >= 1 and card["date_range"] and card["evaluation"]["per_class"]
    assert set(model.classes) <= set(PROFILE.judgement.classes)


# A class that only tempers: "fuzz" words lean towards what triagers label an edge case.
EDGE_VOCABULARY = ["denormal", "subnormal", "boundary", "t:boundary"]
EDGE_MODEL = SeverityModel(
    classes=("edge_case",),
    index={term: n for n, term in enumerate(EDGE_VOCABULARY)},
    idf=[1.0] * len(EDGE_VOCABULARY),
    coef=[[2.0, 2.0, 2.0, 2.0]],
    intercept=[-3.0],
    platt=[(1.0, 0.0)],
    card={"evaluation": {"per_class": {"edge_case": {"average_precision": 0.3}}}},
)
EDGE_SETTINGS = Settings(
    classes={"edge_case": ["module: edge cases"]}, facts={"edge_case": "edge_case"}, hints={"edge_case": 0.2}
)


def test_a_tempering_class_speaks_from_its_own_bar_as_a_leaning_weighed_in_full() -> None:
    """An edge-case leaning counts below `add` and below the `reliable` bar: it only tempers, and its
    reason says it is the model's leaning with the probability the model gave."""
    judge = LearnedJudge(EDGE_SETTINGS, EDGE_MODEL)
    it = item(4, "Wrong sign at the float boundary", "Subnormal inputs near the boundary give a wrong sign. Details.")
    result = judge.judge(it, EXTRACT.extract(it))
    fact = result.facts.first("edge_case")
    assert fact is not None and fact.source == "hint" and fact.confidence == 1.0
    p = result.judgement.p("edge_case")
    assert 0.2 <= p < 0.6 and fact.detail == f"p={p:.2f}"
    assert fact.evidence == "Subnormal inputs near the boundary give a wrong sign."
    assert "edge_case" not in result.judgement.evidence  # a leaning is no problem the model found
    reason = fact_reason(fact)
    assert f"leans towards an edge case or a fuzzer's find (p={p:.2f}" in reason.en and "倾向于" in reason.zh


def test_a_tempering_class_below_its_bar_or_already_labelled_adds_nothing() -> None:
    judge = LearnedJudge(EDGE_SETTINGS, EDGE_MODEL)
    plain = item(5, "Wrong sign in matmul", "The output has the wrong sign for ordinary inputs.")
    assert judge.judge(plain, EXTRACT.extract(plain)).facts.first("edge_case") is None
    labelled = item(6, "Wrong sign at the float boundary", "Subnormal inputs.", labels=["module: edge cases"])
    facts = judge.judge(labelled, EXTRACT.extract(labelled)).facts
    assert [fact.source for fact in facts.facts if fact.kind == "edge_case"] == ["label"]


# "timing" words push a performance class that reads as a slowdown.
PERF_VOCABULARY = ["times", "timing", "kernel", "t:matmul"]
PERF_MODEL = SeverityModel(
    classes=("performance",),
    index={term: n for n, term in enumerate(PERF_VOCABULARY)},
    idf=[1.0] * len(PERF_VOCABULARY),
    coef=[[3.0, 3.0, 1.0, 1.0]],
    intercept=[-2.0],
    platt=[(1.0, 0.0)],
    card={"evaluation": {"per_class": {"performance": {"average_precision": 0.8}}}},
)
PERF_JUDGE = LearnedJudge(
    Settings(classes={"performance": ["module: performance"]}, facts={"performance": "perf_regression"}, add=0.6),
    PERF_MODEL,
)


def perf_judged(title: str, body: str):  # type: ignore[no-untyped-def]
    it = item(5, title, body)
    return PERF_JUDGE.judge(it, EXTRACT.extract(it))


def test_a_change_whose_title_states_a_gain_is_not_read_as_a_slowdown() -> None:
    """Triagers label speed-ups and slowdowns alike: the class is the change's topic, not a problem."""
    result = perf_judged("Faster integer batched matmul kernel", "The kernel timing drops with tiles. Other text.")
    assert result.judgement.p("performance") >= 0.6
    assert "perf_regression" not in result.facts.kinds() and "performance" not in result.judgement.evidence
    slower = perf_judged("Integer batched matmul kernel", "The kernel timing doubled since the update. Other text.")
    assert slower.facts.first("perf_regression") is not None


def test_a_lead_in_to_a_cut_block_is_never_the_quoted_evidence() -> None:
    result = perf_judged(
        "Integer batched matmul kernel", "Script to record times and timing:\n\nThe kernel timing is slow."
    )
    fact = result.facts.first("perf_regression")
    assert fact is not None and fact.evidence == "The kernel timing is slow."
