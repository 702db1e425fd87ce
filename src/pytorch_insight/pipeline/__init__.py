"""The deterministic middle of the pipeline: noise -> fuse -> link -> classify -> rank."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from pytorch_insight.config import Profile
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.classify import classify
from pytorch_insight.pipeline.facts import CONTEXTUAL, FactExtractor
from pytorch_insight.pipeline.features import extract_features
from pytorch_insight.pipeline.focus import Story, select_focus
from pytorch_insight.pipeline.fuse import fuse
from pytorch_insight.pipeline.learned import LearnedJudge
from pytorch_insight.pipeline.link import link
from pytorch_insight.pipeline.noise import mark_noise
from pytorch_insight.pipeline.rank import rank
from pytorch_insight.text import BODY_LIMIT
from pytorch_insight.window import Window

__all__ = ["Assessment", "Story", "assess", "select_focus"]


def assess(
    items: Iterable[Item],
    profile: Profile,
    reader_id: str | None = None,
    use_labels: bool = True,
    window: Window | None = None,
) -> list[Assessment]:
    """Every distinct item of the window, classified, linked and ranked best first; with a
    window, only the activity inside it counts."""
    reader = profile.reader(reader_id)
    extractor = FactExtractor(profile.severity)
    # A profile without a label map has no learned judgement: its phrase rules read alone.
    judge = LearnedJudge(profile.judgement) if profile.judgement.classes else None
    with _without_cycle_collection():
        readable = [_cut(item) for item in items]
        assessments = [Assessment(item, extract_features(item), relations=list(item.relations)) for item in readable]
        mark_noise(assessments, profile)
        # Noise is ranked down whatever it says; its facts are not worth reading (a fix for a severe
        # issue still takes that facts through its link).
        for assessment in assessments:
            if not assessment.noise:
                assessment.facts = extractor.extract(assessment.item)
                if judge is not None:
                    judged = judge.judge(assessment.item, assessment.facts)
                    facts = judged.facts
                    if judged.judgement.evidence and not assessment.facts.kinds() & CONTEXTUAL:
                        # A problem only the model found: its context is read now, as for a stated one
                        # (the model's reading stays the one it was trained for: context-free features).
                        read = extractor.extract(assessment.item, context=True).facts
                        added = tuple(fact for fact in read if fact.kind not in facts.kinds())
                        facts = replace(facts, facts=facts.facts + added)
                    assessment.facts, assessment.learned = facts, judged.judgement
        kept = fuse(assessments)
        link(kept, profile.severity.common_identifiers)
        classify(kept, profile, use_labels)
        return rank(kept, profile, reader, window)


def _cut(item: Item) -> Item:
    """The item as every stage reads it: its description and comments cut at GitHub's own limit
    (BODY_LIMIT), so no stage's pass costs more than the largest body GitHub accepts, whatever an
    import or a feed brought. The store keeps the whole text."""
    long_body = len(item.body or "") > BODY_LIMIT
    long_comments = any(len(comment.body or "") > BODY_LIMIT for comment in item.comments)
    if not long_body and not long_comments:
        return item
    update: dict[str, object] = {"body": (item.body or "")[:BODY_LIMIT]} if long_body else {}
    if long_comments:
        update["comments"] = [
            comment.model_copy(update={"body": comment.body[:BODY_LIMIT]})
            if len(comment.body or "") > BODY_LIMIT and comment.body
            else comment
            for comment in item.comments
        ]
    return item.model_copy(update=update)


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """The stages create hundreds of thousands of small containers and no reference cycles; the
    cyclic collector's repeated full passes over them cost a quarter of the run and free nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
