"""Training on the fixture corpus: the exported model reads as scikit-learn's own, on a time split,
never on a held-out week."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy
import pytest

from pytorch_insight.config import load_profile
from pytorch_insight.errors import ConfigError
from pytorch_insight.learn.corpus import held_out_keys, read_corpus
from pytorch_insight.learn.fit import fit_model, time_split
from pytorch_insight.learn.run import fact_features, learn_from_files
from pytorch_insight.pipeline.severity import read_model, terms
from tests.conftest import DATA

CORPUS = DATA / "learn" / "corpus.jsonl"
PROFILE = load_profile("pytorch")


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("model") / "severity.json.gz"
    return learn_from_files(PROFILE, [CORPUS], [], out), out


def test_the_exported_model_gives_the_probabilities_of_the_fitted_one(learned) -> None:  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression  # noqa: F401  (the training extra is installed for tests)

    fitted, path = learned
    model = read_model(path)
    assert model.classes == fitted.model.classes
    corpus = read_corpus([CORPUS])
    extra = fact_features(PROFILE)
    for example in corpus.examples[:40]:
        found = terms(example.title, example.text, extra(example))
        assert model.probabilities(found) == pytest.approx(fitted.model.probabilities(found), abs=1e-3)
        assert all(0.0 <= p <= 1.0 for p in model.probabilities(found).values())


def test_the_card_names_the_corpus_the_classes_and_the_newest_part_it_was_tested_on(learned) -> None:  # type: ignore[no-untyped-def]
    fitted, _ = learned
    card = fitted.model.card
    corpus = read_corpus([CORPUS])
    assert card["examples"] == len(corpus.examples)
    assert card["sources"] == [CORPUS.name]
    train, test = time_split(corpus.examples)
    assert card["evaluation"]["test_examples"] == len(test)
    assert max(e.created for e in train if e.created) <= min(e.created for e in test if e.created)
    assert set(card["evaluation"]["per_class"]) <= set(fitted.model.classes)  # the older part may lack a class
    for name, entry in card["classes"].items():
        assert entry["labels"] == PROFILE.judgement.classes[name]
    assert set(card["not_learned"]) == set(PROFILE.judgement.classes) - set(fitted.model.classes)


def test_a_thread_of_a_held_out_week_is_never_trained_on(tmp_path: Path) -> None:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    week = tmp_path / "week.jsonl"
    week.write_text("\n".join(lines[:25]) + "\n", encoding="utf-8")
    held = held_out_keys([week])
    corpus = read_corpus([CORPUS], held)
    rows = [json.loads(line) for line in lines[:25]]
    assert len(held) == len({(row["repo"].lower(), row["number"]) for row in rows})
    assert not {e.key for e in corpus.examples} & held
    assert corpus.skipped["held out (a labelled week)"] >= len(held)


def test_a_fix_pr_labelled_through_its_issue_is_held_out_with_that_issue(tmp_path: Path) -> None:
    issue = {"repo": "o/r", "number": 10, "kind": "issue", "title": "t", "labels": ["module: crash"], "text": "x"}
    fix = {**issue, "number": 11, "kind": "pull_request", "labels_from": "O/R#10", "text": "Fixes #10"}
    other = {**fix, "number": 12, "labels_from": "o/r#99"}
    broken = {**fix, "number": 13, "labels_from": "issue ten"}
    corpus_file = tmp_path / "corpus.jsonl"
    corpus_file.write_text("".join(json.dumps(row) + "\n" for row in (fix, other, broken)), encoding="utf-8")
    week = tmp_path / "week.jsonl"
    week.write_text(json.dumps(issue) + "\n", encoding="utf-8")

    corpus = read_corpus([corpus_file], held_out_keys([week]))

    assert [e.number for e in corpus.examples] == [12]
    assert corpus.examples[0].labels_from == ("o/r", 99)
    assert corpus.skipped == {"held out (a labelled week)": 1, "labels_from names no issue": 1}


def test_bad_lines_are_counted_and_the_rest_learned_from(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.jsonl"
    good = CORPUS.read_text(encoding="utf-8")
    mixed.write_text("not json\n[1, 2]\n" + '{"repo": "a/b", "number": 1, "labels": []}\n' + good, encoding="utf-8")
    corpus = read_corpus([mixed])
    assert corpus.skipped == {"not JSON": 1, "not an object": 1, "no labels": 1}
    assert len(corpus.examples) == len(read_corpus([CORPUS]).examples)


def test_a_class_with_too_few_examples_is_not_learned_and_none_at_all_is_an_error() -> None:
    from pytorch_insight.errors import ConfigError

    corpus = read_corpus([CORPUS])
    model, positives = fit_model(corpus.examples, {"rare": ["no such label"], "tests": ["skipped"]}, {}, lambda e: [])
    assert positives["rare"] == 0 and "rare" not in model.classes
    with pytest.raises(ConfigError, match="too few"):
        fit_model(corpus.examples, {"rare": ["no such label"]}, {}, lambda e: [])


def test_the_written_weights_are_read_back_exactly_and_a_damaged_file_is_refused(learned, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fitted, path = learned
    model = read_model(path)
    assert numpy.array_equal(model.idf, numpy.asarray(fitted.model.idf))
    assert numpy.array_equal(model.coef, numpy.asarray(fitted.model.coef).reshape(model.coef.shape))
    document = json.loads(gzip.decompress(path.read_bytes()))
    # a model fitted before the weights were packed is read as it was written
    former = tmp_path / "former.json"
    listed = {"idf": numpy.asarray(fitted.model.idf).tolist(), "coef": numpy.asarray(fitted.model.coef).tolist()}
    former.write_text(json.dumps({**document, **listed, "format": 1}), encoding="utf-8")
    assert numpy.array_equal(read_model(former).coef, model.coef)
    damaged = {
        "short": {**document, "idf": document["idf"][:-32]},
        "not-base64": {**document, "coef": "weights?"},
        "former-short": {**document, **listed, "format": 1, "idf": listed["idf"][:-1]},
        "unknown": {**document, "format": 3},
    }
    for name, data in damaged.items():
        broken = tmp_path / f"{name}.json"
        broken.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(ConfigError, match="severity model"):
            read_model(broken)
    with pytest.raises(ConfigError, match="pytorch-insight learn"):
        read_model(tmp_path / "unknown.json")
