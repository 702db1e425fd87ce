"""Fitting the sentence-role model: evaluated on held-out threads, then fitted on the whole corpus.

    python -m pytorch_insight.learn.role_model CORPUS.jsonl ... [--out src/pytorch_insight/models/roles.json.gz]

The split is by thread (a hash of `owner/name#number`), never by sentence: sentences of one PR share
its words, and a model tested on its siblings would look better than it is on a new thread.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pytorch_insight.analysis.roles import RoleModel, sentence_terms
from pytorch_insight.learn.fit import fit_linear
from pytorch_insight.learn.roles import ROLES, RoleSentence, read_role_corpus
from pytorch_insight.pipeline.severity import SeverityModel, write_model

TEST_SHARE = 0.2
# A shipped model stays small (< 2 MB): the most frequent terms, weights to 4 digits.
MAX_TERMS = 20_000
DIGITS = 4
THRESHOLDS = (0.5, 0.7, 0.8, 0.9)
OUT = Path(__file__).resolve().parents[1] / "models" / "roles.json.gz"


def held_out(thread: str) -> bool:
    return int(hashlib.sha256(thread.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < TEST_SHARE


def fit_roles(records: Sequence[RoleSentence], C: float = 4.0) -> SeverityModel:
    documents = [sentence_terms(r.text) for r in records]
    model, _ = fit_linear(documents, [{r.role} for r in records], ROLES, C, MAX_TERMS, DIGITS)
    return model


def evaluate(model: RoleModel, records: Sequence[RoleSentence]) -> dict[str, dict]:
    """Per role: support, and precision / recall / predicted at each of THRESHOLDS."""
    scored = [(r.role, model.probabilities(r.text)) for r in records]
    metrics: dict[str, dict] = {}
    for role in model.roles:
        support = sum(1 for truth, _ in scored if truth == role)
        per: dict[str, dict[str, float]] = {}
        for threshold in THRESHOLDS:
            predicted = [truth for truth, p in scored if p[role] >= threshold]
            hits = sum(1 for truth in predicted if truth == role)
            per[str(threshold)] = {
                "predicted": len(predicted),
                "precision": round(hits / len(predicted), 3) if predicted else 0.0,
                "recall": round(hits / support, 3) if support else 0.0,
            }
        metrics[role] = {"support": support, "at": per}
    return metrics


def train_roles(paths: Sequence[Path], out: Path) -> dict:
    records = read_role_corpus(paths)
    train = [r for r in records if not held_out(r.thread)]
    test = [r for r in records if held_out(r.thread)]
    metrics = evaluate(RoleModel(fit_roles(train)), test)
    model = fit_roles(records)
    card = {
        "trained": dt.date.today().isoformat(),
        "sources": [path.name for path in paths],
        "sentences": len(records),
        "threads": len({r.thread for r in records}),
        "repositories": sorted({r.thread.split("#")[0] for r in records}),
        "per_role": dict(Counter(r.role for r in records).most_common()),
        "labels": "the role of the heading or lead-in the author put the sentence under (headings.py ROLE_HEADINGS, "
        "learn/roles.py INLINE_LEADS), the heading itself removed",
        "not_learned": [role for role in ROLES if role not in model.classes],
        "evaluation": {
            "method": f"trained on the threads outside a {TEST_SHARE:.0%} hash sample of threads, "
            "tested on the sentences "
            "of that sample; precision and recall of 'p(role) >= threshold' per role",
            "train_sentences": len(train),
            "test_sentences": len(test),
            "test_threads": len({r.thread for r in test}),
            "per_role": metrics,
        },
        "terms": len(model.index),
    }
    shipped = replace(model, card=card)
    write_model(shipped, out)
    return card


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    card = train_roles(args.corpus, args.out)
    print(json.dumps(card["evaluation"], indent=1))
    print(f"{args.out}: {args.out.stat().st_size} bytes, {card['terms']} terms", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
