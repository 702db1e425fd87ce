"""`pytorch-insight learn`: a corpus (files, or a harvest of the project's labelled issues) in, a
severity model file and its data card out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytorch_insight.config import Profile
from pytorch_insight.learn.corpus import Example, held_out_keys, read_corpus
from pytorch_insight.learn.fit import Fitted, train
from pytorch_insight.model import Item
from pytorch_insight.pipeline.facts import FactExtractor
from pytorch_insight.pipeline.learned import fact_terms
from pytorch_insight.pipeline.severity import write_model


def fact_features(profile: Profile):  # type: ignore[no-untyped-def]
    """The phrase rules' findings on an example's text, as the pipeline gives them to the model."""
    extractor = FactExtractor(profile.severity)

    def extra(example: Example) -> list[str]:
        item = Item(
            id=f"learn:{example.repo}#{example.number}",
            source="learn",
            kind="issue",
            title=example.title,
            body=example.text,
        )
        return fact_terms(extractor.extract(item))

    return extra


def learn_from_files(
    profile: Profile, corpus_files: Sequence[Path], held_out_files: Sequence[Path], out: Path
) -> Fitted:
    held = held_out_keys(held_out_files)
    corpus = read_corpus(corpus_files, held)
    settings = profile.judgement
    fitted = train(
        corpus,
        settings.classes,
        settings.title_classes,
        fact_features(profile),
        sources=[path.name for path in corpus_files],
        held_out=len(held),
    )
    write_model(fitted.model, out)
    return fitted
