"""Fitting the severity model: tf-idf terms, one balanced logistic regression per class, Platt
scaling from cross-validated margins, and an evaluation on the newest part of the corpus.

scikit-learn is needed here only (the `learn` extra); the fitted model is exported to the plain
JSON that pipeline/severity.py reads without it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from pytorch_insight.errors import ConfigError
from pytorch_insight.learn.corpus import Corpus, Example, class_targets
from pytorch_insight.pipeline.severity import SeverityModel, terms

MIN_POSITIVES = 8  # a class with fewer examples is not learned (the card says so)
TEST_SHARE = 0.2  # the newest fifth of the dated corpus is the evaluation set
MAX_TERMS = 60_000
THRESHOLD = 0.5


@dataclass(frozen=True)
class Fitted:
    model: SeverityModel
    metrics: dict[str, dict[str, float]]


def _sklearn():  # type: ignore[no-untyped-def]
    try:
        import numpy
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold, cross_val_predict
    except ImportError:
        raise ConfigError("training needs scikit-learn: pip install 'pytorch-insight[learn]'") from None
    return numpy, TfidfVectorizer, LogisticRegression, StratifiedKFold, cross_val_predict


def fit_model(
    examples: Sequence[Example],
    classes: Mapping[str, list[str]],
    title_classes: Mapping[str, list[str]],
    extra: Callable[[Example], list[str]] = lambda example: [],
    C: float = 4.0,
) -> tuple[SeverityModel, dict[str, int]]:
    """A model over `examples`; returns it and the positives per class (classes with too few are left out)."""
    documents = [terms(e.title, e.text, extra(e)) for e in examples]
    targets = [class_targets(e, classes, title_classes) for e in examples]
    return fit_linear(documents, targets, list(classes), C)


def fit_linear(
    documents: Sequence[list[str]],
    targets: Sequence[set[str]],
    names: Sequence[str],
    C: float = 4.0,
    max_terms: int = MAX_TERMS,
    digits: int = 5,
) -> tuple[SeverityModel, dict[str, int]]:
    """One balanced, Platt-scaled logistic regression per name over the documents' terms; a name with
    fewer than MIN_POSITIVES positives (or negatives) is left out. `digits` rounds the weights (a
    shipped model's size)."""
    numpy, TfidfVectorizer, LogisticRegression, StratifiedKFold, cross_val_predict = _sklearn()
    positives = {name: sum(name in t for t in targets) for name in names}
    learned = [name for name in names if MIN_POSITIVES <= positives[name] <= len(documents) - MIN_POSITIVES]
    if not learned:
        raise ConfigError(f"too few labelled examples to learn any class (need {MIN_POSITIVES} of a class)")
    vectorizer = TfidfVectorizer(
        analyzer=lambda document: document, sublinear_tf=True, min_df=2, max_features=max_terms, dtype=numpy.float64
    )
    matrix = vectorizer.fit_transform(documents)
    coef, intercept, platt = [], [], []
    for name in learned:
        y = numpy.array([name in t for t in targets], dtype=int)
        regression = LogisticRegression(C=C, class_weight="balanced", solver="liblinear", max_iter=2000)
        folds = StratifiedKFold(n_splits=min(5, int(y.sum()), int(len(y) - y.sum())), shuffle=True, random_state=0)
        margins = cross_val_predict(regression, matrix, y, cv=folds, method="decision_function")
        scaler = LogisticRegression(C=1e6, solver="lbfgs").fit(margins.reshape(-1, 1), y)
        regression.fit(matrix, y)
        coef.append([round(float(v), digits) for v in regression.coef_[0]])
        intercept.append(float(regression.intercept_[0]))
        platt.append((float(scaler.coef_[0][0]), float(scaler.intercept_[0])))
    vocabulary = vectorizer.vocabulary_
    model = SeverityModel(
        classes=tuple(learned),
        index=dict(vocabulary),
        idf=[round(float(v), digits) for v in vectorizer.idf_],
        coef=coef,
        intercept=intercept,
        platt=platt,
        card={},
    )
    return model, positives


def evaluate(
    model: SeverityModel,
    examples: Sequence[Example],
    classes: Mapping[str, list[str]],
    title_classes: Mapping[str, list[str]],
    extra: Callable[[Example], list[str]],
) -> dict[str, dict[str, float]]:
    """Precision, recall and support per class at p >= THRESHOLD, and the average precision."""
    scores = [model.probabilities(terms(e.title, e.text, extra(e))) for e in examples]
    targets = [class_targets(e, classes, title_classes) for e in examples]
    metrics: dict[str, dict[str, float]] = {}
    for name in model.classes:
        truth = [name in t for t in targets]
        ranked = sorted(zip((s[name] for s in scores), truth, strict=True), key=lambda pair: -pair[0])
        predicted = [p >= THRESHOLD for p, _ in ranked]
        tp = sum(1 for guess, (_, real) in zip(predicted, ranked, strict=True) if guess and real)
        support = sum(truth)
        metrics[name] = {
            "support": support,
            "predicted": sum(predicted),
            "precision": round(tp / sum(predicted), 3) if any(predicted) else 0.0,
            "recall": round(tp / support, 3) if support else 0.0,
            "average_precision": round(_average_precision([real for _, real in ranked]), 3) if support else 0.0,
            "base_rate": round(support / len(examples), 3) if examples else 0.0,
        }
    return metrics


def _average_precision(ordered_truth: list[bool]) -> float:
    hits, total = 0, 0.0
    for position, real in enumerate(ordered_truth, start=1):
        if real:
            hits += 1
            total += hits / position
    return total / hits if hits else 0.0


def time_split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    """Older examples to train on, the newest TEST_SHARE of the dated ones to test on; undated ones train."""
    dated = sorted((e for e in examples if e.created), key=lambda e: (e.created, e.repo, e.number))
    cut = int(len(dated) * (1 - TEST_SHARE))
    test = dated[cut:]
    held = {e.key for e in test}
    return [e for e in examples if e.key not in held], test


def train(
    corpus: Corpus,
    classes: Mapping[str, list[str]],
    title_classes: Mapping[str, list[str]],
    extra: Callable[[Example], list[str]],
    sources: list[str],
    held_out: int,
) -> Fitted:
    """Evaluate on a time split, then fit the shipped model on everything; the card records both."""
    train_part, test_part = time_split(corpus.examples)
    trial, _ = fit_model(train_part, classes, title_classes, extra)
    metrics = evaluate(trial, test_part, classes, title_classes, extra)
    model, positives = fit_model(corpus.examples, classes, title_classes, extra)
    dates = sorted(e.created for e in corpus.examples if e.created)
    test_dates = sorted(e.created for e in test_part if e.created)
    card = {
        "trained": dt.date.today().isoformat(),
        "sources": sources,
        "examples": len(corpus.examples),
        "repositories": sorted({e.repo for e in corpus.examples}),
        "date_range": [dates[0], dates[-1]] if dates else None,
        "undated": sum(1 for e in corpus.examples if not e.created),
        "labelled_through_their_issue": sum(1 for e in corpus.examples if e.labels_from),
        "held_out_threads": held_out,
        "skipped_lines": corpus.skipped,
        "classes": {
            name: {
                "labels": classes[name],
                "title_prefixes": list(title_classes.get(name, [])),
                "positives": positives[name],
            }
            for name in classes
        },
        "not_learned": [name for name in classes if name not in model.classes],
        "evaluation": {
            "method": f"trained on the oldest {1 - TEST_SHARE:.0%} of the dated examples, tested on the newest "
            f"{TEST_SHARE:.0%}; a class counts as predicted at p >= {THRESHOLD}",
            "train_examples": len(train_part),
            "test_examples": len(test_part),
            "test_date_range": [test_dates[0], test_dates[-1]] if test_dates else None,
            "per_class": metrics,
        },
        "terms": len(model.index),
    }
    model = replace(model, card=card)
    return Fitted(model, metrics)
