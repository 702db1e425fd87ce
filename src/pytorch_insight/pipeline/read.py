"""Everything the pipeline reads from one item's own text, read once per item.

Noise, facts, the learned judgement, focus areas and the ranking's text signals depend on the item
alone, so they are read as each item arrives (a store can stream a window's items one by one),
and the lower-cased text and word sets they are read from are released right after: those were
most of what a window of 12,000 items held in memory. What the later stages compare across
items (ghstack lists, identifiers) is kept.
"""

from __future__ import annotations

from dataclasses import replace

from pytorch_insight.config import Profile, Reader
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.classify import AreaClassifier
from pytorch_insight.pipeline.facts import CONTEXTUAL, FactExtractor
from pytorch_insight.pipeline.features import extract_features
from pytorch_insight.pipeline.learned import LearnedJudge
from pytorch_insight.pipeline.noise import NoiseRules
from pytorch_insight.pipeline.picks import HIGH, PICKED, load_picks, reading_tags
from pytorch_insight.pipeline.rank import Ranker
from pytorch_insight.pipeline.release_regression import ReleaseRegressions
from pytorch_insight.text import BODY_LIMIT
from pytorch_insight.window import Window


class ItemReader:
    """One item in, its assessment out, with what only its own text tells already read."""

    def __init__(self, profile: Profile, reader: Reader, use_labels: bool = True, window: Window | None = None) -> None:
        self.noise = NoiseRules(profile)
        self.extractor = FactExtractor(profile.severity)
        self.release_regressions = ReleaseRegressions(profile.severity.releases)
        # A profile without a label map has no learned judgement: its phrase rules read alone.
        self.judge = LearnedJudge(profile.judgement) if profile.judgement.classes else None
        picks = profile.judgement.picks
        self.picks = load_picks(picks.model) if picks.weight else None
        self.classifier = AreaClassifier(profile, use_labels)
        self.ranker = Ranker(profile, reader, window)

    def read(self, item: Item) -> Assessment:
        item = cut(item)
        assessment = Assessment(item, extract_features(item), relations=list(item.relations))
        assessment.noise = self.noise.reasons(assessment)
        if self.noise.lifted(assessment.noise, lambda: self.extractor.extract(item).problems):
            assessment.noise = []
        # Noise is ranked down whatever it says; its facts are not worth reading (a fix for a severe
        # issue still takes that facts through its link).
        if not assessment.noise:
            self._read_facts(assessment)
            if self.picks is not None:
                rated = self.picks.rate(item, reading_tags(assessment))
                assessment.pick, assessment.pick_high = rated.get(PICKED), rated.get(HIGH)
        assessment.area_evidence = self.classifier.classify(assessment)
        assessment.areas = list(assessment.area_evidence)
        assessment.text_signals = self.ranker.text_signals(assessment)
        assessment.features = assessment.features.for_linking()
        return assessment

    def _read_facts(self, assessment: Assessment) -> None:
        assessment.facts = self.extractor.extract(assessment.item)
        if self.judge is not None:
            self._judge(self.judge, assessment)
        # Whichever reading found the regression (words, a label, the model), its release is read last.
        assessment.facts = self.release_regressions.read(assessment.item, assessment.facts)

    def _judge(self, judge: LearnedJudge, assessment: Assessment) -> None:
        judged = judge.judge(assessment.item, assessment.facts)
        facts = judged.facts
        if judged.judgement.evidence and not assessment.facts.kinds() & CONTEXTUAL:
            # A problem only the model found: its context is read now, as for a stated one
            # (the model's reading stays the one it was trained for: context-free features).
            read = self.extractor.extract(assessment.item, context=True).facts
            added = tuple(fact for fact in read if fact.kind not in facts.kinds())
            facts = replace(facts, facts=facts.facts + added)
        assessment.facts, assessment.learned = facts, judged.judgement


def cut(item: Item) -> Item:
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
