"""Score, priority and rank for every item, with the factors that fired written down.

The score adds the profile's signals (severity, breadth, design weight), how actionable and
discussed the item is and who wrote it, scales by the reader's interest in its areas, and takes
penalties for noise and duplicates. Ties are broken by id, so the order is deterministic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial

from pytorch_insight.config import LocalizedText, Profile, Reader, Signal
from pytorch_insight.model import short_ref
from pytorch_insight.pipeline.assessment import Assessment, TextSignals
from pytorch_insight.pipeline.features import KeywordSet
from pytorch_insight.pipeline.phrases import PROBLEM_KINDS
from pytorch_insight.pipeline.picks import load_picks, weigh_high, weigh_pick
from pytorch_insight.pipeline.reasons import FACT_NAMES, Reason, fact_reason, joined, quotes_sentence, reason
from pytorch_insight.pipeline.red import load_red, mark_red
from pytorch_insight.pipeline.references import partial_fix
from pytorch_insight.text import shorten
from pytorch_insight.window import Window, parse_timestamp

NEUTRAL_WEIGHT = 1.0
# Noise keeps its discount when it inherits, so a test-only change does not ride on its issue.
NOISE_SHARE = 0.25


@dataclass(frozen=True)
class Severity:
    points: float
    reasons: list[Reason]


@dataclass(frozen=True)
class _CompiledSignal:
    signal: Signal
    labels: frozenset[str]
    keywords: KeywordSet
    title: tuple[re.Pattern[str], ...]
    body: tuple[re.Pattern[str], ...]

    def fires(self, assessment: Assessment) -> bool:
        item, features = assessment.item, assessment.features
        return bool(
            self.labels & features.labels
            or item.kind in self.signal.kinds
            or any(pattern.search(item.title or "") for pattern in self.title)
            or self.keywords.matches(features.words, features.text)
            or any(pattern.search(features.text) for pattern in self.body)
        )


PROBLEMS = frozenset(PROBLEM_KINDS)
SEVERAL = 2  # closed issues that make a change a fix of several reports


class Ranker:
    def __init__(self, profile: Profile, reader: Reader, window: Window | None = None) -> None:
        self.profile = profile
        self.settings = profile.ranking
        self.reader = reader
        self.window = window
        # A window has few authors and many comments: each login is judged once.
        self.is_bot = cache(profile.is_bot)
        self.signals = [
            _CompiledSignal(
                signal,
                frozenset(label.lower() for label in signal.labels),
                KeywordSet(signal.keywords),
                tuple(re.compile(p) for p in signal.title_patterns),
                tuple(re.compile(p) for p in signal.body_patterns),
            )
            for signal in self.settings.signals
        ]
        self.people = {c.login.lower(): c for c in profile.contributors}
        self.area_names = {area.id: area.name for area in profile.areas}
        self.watched_people = {login.lower() for login in reader.watch_people}
        self.watched_keywords = [keyword.lower() for keyword in reader.watch_keywords]
        self.watched_paths = [path.lower() for path in reader.watch_paths]
        # Reasons many items share, worded once: a window's noise is a handful of rule lists, its
        # signals and comment counts a handful of values (reasons are immutable, so items share them).
        self.shared_reasons: dict[tuple, Reason] = {}
        self.weights: dict[tuple[str, ...], float] = {}

    def severity(self, assessment: Assessment) -> Severity:
        """Points for what the item's text says happens: the worst problem in full, the others in
        part, design weight and measured gains, then the context that makes a problem or a gain
        matter more (named hardware, scale, a major downstream user, a release, the default path)."""
        weights, context = self.settings.facts, self.settings.context
        facts = assessment.facts
        if not facts.facts and assessment.learned is None:
            return Severity(0.0, [])  # nothing read of it (noise): no points, no reasons
        # A learned fact weighs by how sure the model is; a phrase or a label in full.
        sure = {fact.kind: fact.confidence for fact in reversed(facts.facts)}
        problems = {kind: weights[kind] * sure[kind] for kind in facts.problems if weights.get(kind, 0.0) > 0}
        points, reasons = 0.0, []
        for kind, value, why in self._learned(assessment):
            if value > problems.get(kind, 0.0):
                problems[kind] = value
                reasons.append(why)
        if problems:
            ordered = sorted(problems.values(), reverse=True)
            points = ordered[0] + min(self.settings.secondary_cap, self.settings.secondary_share * sum(ordered[1:]))
        kinds = facts.kinds()
        for kind in sorted(kinds - PROBLEMS):  # design, a gain, a triager's word on it ...
            if kind in weights:
                points += weights[kind] * sure[kind]
        weighty = bool(problems) or "gain" in kinds
        if weighty:
            points += sum(context.get(kind, 0.0) for kind in context if kind in kinds)
        quoted: set[str] = set()
        for fact in facts.facts:
            if fact.kind in weights or (weighty and fact.kind in context):
                why = fact_reason(fact)
                # Two kinds read from one sentence quote it once: the quote says all it states.
                said = quotes_sentence(fact)
                if all(why.en != other.en for other in reasons) and not (said and fact.evidence in quoted):
                    reasons.append(why)
                    if said:
                        quoted.add(fact.evidence)
        return Severity(points, reasons)

    def _learned(self, assessment: Assessment) -> list[tuple[str, float, Reason]]:
        """The problems the learned judgement finds likely but below a stated fact: (kind, points, reason)."""
        judgement, settings = assessment.learned, self.profile.judgement
        if judgement is None:
            return []
        found = []
        for name, kind in settings.facts.items():
            p, sentence = judgement.p(name), judgement.evidence.get(name)
            weight = self.settings.facts.get(kind, 0.0)
            if weight > 0 and kind in PROBLEM_KINDS and p >= settings.explain and sentence:
                names = FACT_NAMES.get(kind, {"en": kind, "zh": kind})
                why = reason("learned", what=LocalizedText(**names), p=f"{p:.2f}", sentence=shorten(sentence, 120))
                found.append((kind, weight * p, why))
        return found

    def text_signals(self, assessment: Assessment) -> TextSignals:
        """What the item's features say to the ranking: read from its text while that is held."""
        text = assessment.features.text
        return TextSignals(
            fired=tuple(signal.signal for signal in self.signals if signal.fires(assessment)),
            keywords=tuple(k for k in self.watched_keywords if k in text),
            paths=tuple(p for p in self.watched_paths if p in text),
        )

    def score(self, assessment: Assessment) -> tuple[float, list[Reason], Severity]:
        """(score, reasons, severity): the severity is what a fix of this item inherits."""
        settings, item = self.settings, assessment.item
        score = settings.base.get(item.kind, 1.0)
        severity = self.severity(assessment)
        read = assessment.text_signals or self.text_signals(assessment)
        reasons = list(severity.reasons)
        reasons += [
            self._once(
                ("signal", s.id, s.reason.en, s.reason.zh),
                partial(reason, "signal", tag=f"signal:{s.id}", what=s.reason),
            )
            for s in read.fired
        ]
        score += severity.points + sum(signal.weight for signal in read.fired)
        score += self._engagement(assessment, reasons)
        score += self._context(assessment, read, reasons)
        weight = self.reader_weight(assessment)
        if weight != NEUTRAL_WEIGHT:
            best = max(assessment.areas, key=lambda area: self.reader.area_weights.get(area, NEUTRAL_WEIGHT))
            reasons.append(
                reason(
                    "reader-weight", reader=self.reader.role, area=self.area_names.get(best, best), weight=f"{weight:g}"
                )
            )
        score *= weight
        if assessment.noise:
            score *= settings.noise_factor
            noise = assessment.noise
            reasons.append(
                self._once(("noise", *noise), lambda: reason("noise", what=joined(noise, {"en": "; ", "zh": "；"})))
            )
        if assessment.canonical:
            score -= settings.duplicate_penalty
            reasons.append(reason("duplicate", ref=short_ref(assessment.canonical)))
        return score, reasons, severity

    def _once(self, key: tuple[object, ...], word: Callable[[], Reason]) -> Reason:
        """The reason `word` makes, worded the first time `key` asks for it."""
        found = self.shared_reasons.get(key)
        if found is None:
            found = self.shared_reasons[key] = word()
        return found

    def reader_weight(self, assessment: Assessment) -> float:
        areas = tuple(assessment.areas)
        weight = self.weights.get(areas)
        if weight is None:
            weight = max((self.reader.area_weights.get(area, NEUTRAL_WEIGHT) for area in areas), default=NEUTRAL_WEIGHT)
            self.weights[areas] = weight
        return weight

    def _in_window(self, moment: str | None) -> bool:
        """Activity counts only inside the report's window; an undated comment counts."""
        if self.window is None or not moment:
            return True
        return self.window.contains(parse_timestamp(moment))

    def _engagement(self, assessment: Assessment, reasons: list[Reason]) -> float:
        settings, item = self.settings, assessment.item
        total = 0.0
        humans = [c for c in item.comments if not self.is_bot(c.author) and self._in_window(c.date)]
        if item.comments:
            comments = len(humans)
        else:  # a thread not collected: GitHub's count is all there is (it cannot be bounded)
            comments = item.comment_count or 0 if self.window is None else 0
        assessment.activity = comments
        if comments:
            total += min(settings.comment_cap, settings.comment_weight * math.log2(1 + comments))
            code = "comments" if comments > 1 else "comment"
            reasons.append(self._once((code, comments), partial(reason, code, n=comments)))
        if item.reactions and self.window is None:
            total += min(settings.reaction_cap, settings.reaction_weight * math.log2(1 + item.reactions))
            reasons.append(reason("reactions", n=item.reactions))
        # GitHub logins are case-blind: "FFFrog" in a comment is the author "fffrog".
        author = (item.author or "").lower()
        participants = len({c.author.lower() for c in humans if c.author and c.author.lower() != author})
        if participants > 1:
            total += min(settings.participant_cap, settings.participant_weight * participants)
            # Without a known author every commenter counts, and the reason says so.
            reasons.append(reason("participants" if item.author else "participants-all", n=participants))
        return total

    def _context(self, assessment: Assessment, read: TextSignals, reasons: list[Reason]) -> float:
        settings, item = self.settings, assessment.item
        total = 0.0
        fixes = sorted(r.target for r in assessment.relations if r.type == "fixed_by")
        if item.kind in ("issue", "rfc") and fixes:
            total += settings.fix_available
            reasons.append(reason("fix-exists", refs=", ".join(short_ref(fix) for fix in fixes[:3])))
        closed = sorted({r.target for r in assessment.relations if r.type == "fixes" and not partial_fix(r.evidence)})
        if len(closed) >= SEVERAL and settings.fixes_several:
            # A change that closes several reported issues answers several users at once (they
            # may lie outside the window: its own words name them). One it only partly fixes it
            # does not close.
            total += settings.fixes_several
            refs = ", ".join(short_ref(ref) for ref in closed[:4])
            reasons.append(reason("fixes-several", n=len(closed), refs=refs))
        author = (item.author or "").lower()
        if author in self.people and not self.is_bot(author):
            total += settings.key_contributor
            # Only the login, which the thread shows: a name and a team are the profile's word, not the data's.
            reasons.append(reason("key-contributor", login=item.author or ""))
        if author in self.watched_people:
            total += settings.watched_person
            reasons.append(reason("watched-person", reader=self.reader.role, login=item.author or ""))
        if read.keywords:
            total += settings.watched_keyword
            reasons.append(reason("watched-keyword", reader=self.reader.role, keywords=", ".join(read.keywords[:3])))
        if read.paths:
            total += settings.watched_path
            reasons.append(reason("watched-path", path=read.paths[0]))
        return total

    def priority(self, assessment: Assessment, story_kinds: set[str]) -> str:
        # How much a problem hurts does not depend on who reads about it: the reader's interest
        # orders the list and decides what is worth a look (medium or low), but a wrong result in
        # an area weighed 0.9 is as red as one weighed 1.1.
        harm = assessment.score / self.reader_weight(assessment)
        if harm >= self.settings.high and self.red_eligible(story_kinds):
            return "high"
        if story_kinds & set(self.settings.red_always) and not assessment.noise and not assessment.canonical:
            return "high"  # a triager's own high priority needs no score to back it
        return "medium" if assessment.score >= self.settings.medium else "low"

    def red_eligible(self, kinds: set[str]) -> bool:
        settings = self.settings
        if kinds & set(settings.red_blocked):
            return False
        if not (settings.red_alone or settings.red_problems):
            return True
        if kinds & set(settings.red_alone):
            return True
        problems = kinds & set(settings.red_problems)
        context = kinds & set(settings.red_context)
        # A problem does not confirm itself: "regression" is context only to another problem.
        return bool(problems) and bool(context - problems or (len(problems) > 1 and context & problems))


# Relations across which severity is shared: a fix is worth the problem it fixes (and an issue the
# problem its fix describes), a reland or resubmission the problem its first version stated, and a
# tracking issue the worst problem it tracks. Tracked items do not take the tracker's.
INHERITED = {
    "fixes": "fixes-severe",
    "fixed_by": "fixed-by-severe",
    "duplicate": "same-change-severe",
    "relands": "same-change-severe",
    "relanded_by": "same-change-severe",
    "tracks": "tracks-severe",
}


def inherit_severity(
    assessment: Assessment, by_id: dict[str, Assessment], severity: dict[str, Severity], share: float
) -> None:
    """The item takes the worse severity of the items it shares a story with."""
    own = severity[assessment.id].points
    assessment.severity = own
    linked = [
        (severity[r.target].points, r.target, r.type)
        for r in assessment.relations
        if r.type in INHERITED and r.target in by_id and severity[r.target].points > own
    ]
    if not linked:
        return
    points, worst, kind = max(linked)
    assessment.score += (points - own) * share * (NOISE_SHARE if assessment.noise else 1.0)
    assessment.severity = points
    if severity[worst].reasons:  # a story member with nothing read of it (its points 0) has nothing to state
        what = joined(severity[worst].reasons[:3])
        assessment.reasons.append(reason(INHERITED[kind], ref=short_ref(worst), what=what))


def severity_sharers(assessment: Assessment, by_id: Mapping[str, Assessment]) -> list[Assessment]:
    """The items this one shares severity with (its issue, its fix, its first version, what it tracks)."""
    return [by_id[r.target] for r in assessment.relations if r.type in INHERITED and r.target in by_id]


def story_kinds(assessment: Assessment, by_id: Mapping[str, Assessment], hints: bool = True) -> set[str]:
    """The fact kinds of the item and of the items it shares severity with; without `hints`, only
    those something states (a text, a label, the model's confident reading), not a leaning."""
    return {
        fact.kind
        for holder in (assessment, *severity_sharers(assessment, by_id))
        for fact in holder.facts.facts
        if hints or fact.source != "hint"
    }


def rank(
    assessments: Sequence[Assessment], profile: Profile, reader: Reader, window: Window | None = None
) -> list[Assessment]:
    """Score every item and return them best first: high priority first (a rule can make an item high
    whatever its points, and the worst stories lead), then score, then id for a stable order. Once
    the rules set priorities, the pick model moves scores (pipeline/picks.py) and the red model
    decides which stories are high (pipeline/red.py)."""
    ranker = Ranker(profile, reader, window)
    severity: dict[str, Severity] = {}
    by_id = {assessment.id: assessment for assessment in assessments}
    for assessment in assessments:
        assessment.score, assessment.reasons, severity[assessment.id] = ranker.score(assessment)
    for assessment in assessments:
        inherit_severity(assessment, by_id, severity, profile.ranking.fix_share)
        assessment.score = round(assessment.score, 3)
    kinds = {a.id: story_kinds(a, by_id) for a in assessments}
    for assessment in assessments:
        assessment.priority = ranker.priority(assessment, kinds[assessment.id])
    picks = profile.judgement.picks
    if picks.weight:
        weeks = len(load_picks(picks.model).card.get("weeks", []))
        for assessment in assessments:
            weigh_pick(assessment, picks, weeks, profile.ranking.base.get(assessment.item.kind, 1.0))
        red = profile.judgement.red
        if red.cap:
            # A leaning towards an edge case keeps the rules from calling a story red, not the model
            # learned from what experts called red: only an edge case something states blocks it.
            edge, always = set(profile.ranking.red_blocked), set(profile.ranking.red_always)
            blocked = {a.id for a in assessments if kinds[a.id] & edge and story_kinds(a, by_id, hints=False) & edge}
            # What an item states itself (a triager's label on it, its own words): its fix shares
            # the story it carries, not the statement.
            kept = {a.id for a in assessments if a.facts.kinds() & always}
            # A window of unknown span is capped as a week, the default window, and has no floor.
            days = (window.until - window.since).days + 1 if window else 0
            limits = (red.cap * (days or 7) // 7, red.floor * days // 7)
            mark_red(assessments, load_red(red.model), limits, profile.ranking.base, blocked, kept)
        for assessment in assessments:
            weigh_high(assessment, picks, weeks)
    ordered = sorted(assessments, key=lambda a: (a.priority != "high", -a.score, a.id))
    for position, assessment in enumerate(ordered, start=1):
        assessment.rank = position
    return ordered
