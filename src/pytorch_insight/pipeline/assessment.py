"""What the pipeline concludes about one item: noise, fusion, links, areas, score and reasons."""

from __future__ import annotations

from dataclasses import dataclass, field

from pytorch_insight.config import Signal
from pytorch_insight.model import Item, Relation
from pytorch_insight.pickling import by_fields
from pytorch_insight.pipeline.facts import ItemFacts
from pytorch_insight.pipeline.features import Features
from pytorch_insight.pipeline.reasons import Reason
from pytorch_insight.pipeline.severity import Judgement


@by_fields
@dataclass(frozen=True, slots=True)
class TextSignals:
    """What the ranking reads in the item's own text, read before that text is released."""

    fired: tuple[Signal, ...]  # the profile's signals the item fires, in profile order
    keywords: tuple[str, ...]  # the reader's watched keywords it mentions
    paths: tuple[str, ...]  # the reader's watched paths it names


@by_fields
@dataclass(slots=True)
class Assessment:
    item: Item
    features: Features
    facts: ItemFacts = field(default_factory=lambda: ItemFacts((), False))
    noise: list[Reason] = field(default_factory=list)
    canonical: str | None = None  # set on a duplicate: the id of the item that stands for it
    aliases: list[str] = field(default_factory=list)  # ids merged into this one (same URL elsewhere)
    relations: list[Relation] = field(default_factory=list)
    areas: list[str] = field(default_factory=list)
    area_evidence: dict[str, list[str]] = field(default_factory=dict)
    score: float = 0.0
    priority: str = "low"
    rank: int = 0
    reasons: list[Reason] = field(default_factory=list)
    severity: float = 0.0  # points of the problem it states, or the worse one of its story (a fix: its issue)
    activity: int = 0  # comments inside the window
    learned: Judgement | None = None  # the learned judgement's class probabilities and their sentences
    pick: float | None = None  # how likely the pick model finds it that experts would choose it
    pick_high: float | None = None  # ... and give it high priority (None: the model has no such class)
    text_signals: TextSignals | None = None  # None until read (pipeline.read), or read by the ranking

    @property
    def id(self) -> str:
        return self.item.id

    def relate(self, kind: str, target: str, evidence: str) -> None:
        """Add a relation once; the first evidence found for a (kind, target) pair is kept."""
        if target == self.item.id or any(r.type == kind and r.target == target for r in self.relations):
            return
        self.relations.append(Relation(type=kind, target=target, evidence=evidence))
