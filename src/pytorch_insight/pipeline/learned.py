"""The learned judgement applied to one item's facts.

The phrase rules of facts.py read what a sentence says; the severity model (severity.py) learned
from the project's triage what a thread of each kind reads like as a whole. Each checks the other:
a phrase-read problem whose class the model finds unlikely is dropped (a word that does not mean
what the category says), a class the model finds likely becomes a fact of its own, quoted from the
sentence that weighs most for it, and a triager's label settles its class outright.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pytorch_insight.config_ranking import Judgement as Settings
from pytorch_insight.model import Item
from pytorch_insight.pipeline.facts import EVIDENCE_LIMIT, SENTENCE_LIMIT, Fact, ItemFacts
from pytorch_insight.pipeline.severity import Judgement, SeverityModel, load_model
from pytorch_insight.text import sentences, shorten


def fact_terms(facts: ItemFacts) -> list[str]:
    """The phrase rules' findings as model features (a label is the answer, never a feature)."""
    return [f"f:{fact.kind}" for fact in facts.facts if fact.source == "text"]


@dataclass(frozen=True, slots=True)
class Judged:
    facts: ItemFacts
    judgement: Judgement


class LearnedJudge:
    def __init__(self, settings: Settings, model: SeverityModel | None = None) -> None:
        self.settings = settings
        self.model = model if model is not None else load_model(settings.model)
        self.label_classes = {label.lower(): name for name, labels in settings.classes.items() for label in labels}
        # A class the model could not yet tell apart on the newest part of its corpus (its data
        # card's average precision below `reliable`) neither vetoes a phrase nor states a problem.
        evaluation = self.model.card.get("evaluation", {}).get("per_class", {})
        self.reliable = {
            name
            for name in self.model.classes
            if evaluation.get(name, {}).get("average_precision", 0.0) >= settings.reliable
        }

    def judge(self, item: Item, facts: ItemFacts) -> Judged:
        def read() -> list[str]:
            return sentences(item.body or "")[:SENTENCE_LIMIT]

        judgement = self.model.judge(item.title, item.body, read, fact_terms(facts), explain=self.settings.explain)
        probabilities = dict(judgement.probabilities)
        labelled = {self.label_classes[label.lower()] for label in item.labels if label.lower() in self.label_classes}
        for name in labelled:
            probabilities[name] = 1.0
        evidence = {name: text for name, text in judgement.evidence.items() if name in self.reliable}
        kept = [fact for fact in facts.facts if self._agrees(fact, probabilities, labelled)]
        kinds = {fact.kind for fact in kept}
        for name, kind in self.settings.facts.items():
            p, sentence = probabilities.get(name, 0.0), evidence.get(name)
            if kind in kinds or name in labelled or p < self.settings.add or not sentence:
                continue
            kept.append(Fact(kind, shorten(sentence, EVIDENCE_LIMIT), f"p={p:.2f}", "model", round(p, 3)))
            kinds.add(kind)
        return Judged(replace(facts, facts=tuple(kept)), Judgement(probabilities, evidence))

    def _agrees(self, fact: Fact, probabilities: dict[str, float], labelled: set[str]) -> bool:
        name = self.settings.gates.get(fact.kind)
        if fact.source != "text" or name is None or name not in self.reliable:
            return True
        return name in labelled or probabilities.get(name, 0.0) >= self.settings.gate
