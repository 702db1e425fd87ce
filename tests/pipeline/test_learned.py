"""The learned judgement beside the phrase rules: a likely class the phrases missed is a fact (quoted
from its strongest sentence), a phrase-read fact is never vetoed, a label settles the class, and a
class the model cannot tell apart on its corpus's newest part says nothing."""

from __future__ import annotations

from dataclasses import replace

from pytorch_insight.config_ranking import Judgement as Settings
from pytorch_insight.pipeline.facts import FactExtractor
from pytorch_insight.pipeline.learned import LearnedJudge
from pytorch_insight.pipeline.severity import SeverityModel, load_model, read_model, terms, write_model
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


def test_the_shipped_model_has_a_card_with_its_corpus_and_time_split_metrics() -> None:
    model = load_model()
    card = model.card
    assert card["examples"] >= 1 and card["date_range"] and card["evaluation"]["per_class"]
    assert set(model.classes) <= set(PROFILE.judgement.classes)
