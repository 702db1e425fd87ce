"""The learned judgement applied to one item's facts.

The phrase rules of facts.py read what a sentence says; the severity model (severity.py) learned
from the project's triage what a thread of each kind reads like as a whole. A class the model
finds likely becomes a fact of its own, quoted from the sentence that weighs most for it (a
problem stated in words the phrases do not know), and a triager's label settles its class outright.

The model never vetoes a phrase-read fact: its classes are what triagers label, and they leave
many crashes unlabelled `module: crash`, so "unlikely to be labelled" is no evidence that a
sentence saying "a hard crash" is false. Only classes it tells apart on the newest part of its
corpus (the data card's average precision at least `reliable`) speak at all.

A class that only tempers a problem (`hints`: what triagers label an edge case or a fuzzer's find)
speaks from a lower bar of its own, as a leaning the reason names as such, never as a finding.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pytorch_insight.config_ranking import Judgement as Settings
from pytorch_insight.model import Item
from pytorch_insight.pipeline.facts import EVIDENCE_LIMIT, SENTENCE_LIMIT, Fact, ItemFacts
from pytorch_insight.pipeline.magnitudes import GAIN
from pytorch_insight.pipeline.severity import TEXT_LIMIT, Judgement, SeverityModel, load_model, read_body
from pytorch_insight.text import sentences, shorten

QUOTE_REACH = TEXT_LIMIT + 400


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
        evaluation = self.model.card.get("evaluation", {}).get("per_class", {})
        self.reliable = {
            name
            for name in self.model.classes
            if evaluation.get(name, {}).get("average_precision", 0.0) >= settings.reliable
        }

    def judge(self, item: Item, facts: ItemFacts) -> Judged:
        def read() -> list[str]:
            # A quote comes from what the model read (a sentence begun there may run on), never
            # from the environment dump after it.
            return sentences(read_body(item.body, QUOTE_REACH))[:SENTENCE_LIMIT]

        settings = self.settings
        explain = min([settings.explain, *settings.hints.values()])
        judgement = self.model.judge(item.title, item.body, read, fact_terms(facts), explain=explain)
        probabilities = dict(judgement.probabilities)
        labelled = {self.label_classes[label.lower()] for label in item.labels if label.lower() in self.label_classes}
        for name in labelled:
            probabilities[name] = 1.0
        # Triagers give slowdowns and speed-ups one performance label, so for a change whose title
        # states a gain ("faster integer matmul") the class names its topic, not a slowdown.
        gain = GAIN.search((item.title or "").lower()) is not None
        evidence = {
            name: text
            for name, text in judgement.evidence.items()
            if name in self.reliable
            and probabilities[name] >= settings.explain
            and not (gain and settings.facts.get(name) == "perf_regression")
        }
        kept = list(facts.facts)
        kinds = {fact.kind for fact in kept}
        for name, kind in settings.facts.items():
            if name in settings.hints:
                continue
            p, sentence = probabilities.get(name, 0.0), evidence.get(name)
            if kind in kinds or name in labelled or p < settings.add or not sentence:
                continue
            kept.append(Fact(kind, shorten(sentence, EVIDENCE_LIMIT), f"p={p:.2f}", "model", round(p, 3)))
            kinds.add(kind)
        for name, bar in settings.hints.items():
            kind, p, sentence = settings.facts.get(name), probabilities.get(name, 0.0), judgement.evidence.get(name)
            if kind is None or kind in kinds or name in labelled or p < bar or not sentence:
                continue
            # Weighed in full: the bar, not the probability, says how far the leaning is trusted.
            kept.append(Fact(kind, shorten(sentence, EVIDENCE_LIMIT), f"p={p:.2f}", "hint", 1.0))
            kinds.add(kind)
        return Judged(replace(facts, facts=tuple(kept)), Judgement(probabilities, evidence))
