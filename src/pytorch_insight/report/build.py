"""Ranked assessments -> the report model, in one language: overview, focus items with their
analysis, activity per type, contributors and teams, appendix and footer."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pytorch_insight import __version__
from pytorch_insight.analysis import Analyser
from pytorch_insight.analysis.action import Suggestion, suggest
from pytorch_insight.analysis.code import downstream_uses
from pytorch_insight.analysis.impact import CHANGES
from pytorch_insight.analysis.model import Analysis, AnalysisContext
from pytorch_insight.analysis.rules import RuleAnalyser, summarise
from pytorch_insight.config import Profile, Reader
from pytorch_insight.dating import estimate_basis
from pytorch_insight.model import Item, Relation, SourceStatus, github_item_id, later_comments, short_ref
from pytorch_insight.pipeline import Assessment, select_focus
from pytorch_insight.pipeline.link import shared_name
from pytorch_insight.pipeline.rank import INHERITED, severity_sharers
from pytorch_insight.pipeline.reasons import fact_reason, speaking_for
from pytorch_insight.pipeline.references import partial_fix
from pytorch_insight.redact import scrub_document
from pytorch_insight.report.fix_words import FixWords
from pytorch_insight.report.i18n import MESSAGES, Catalogue
from pytorch_insight.report.model import (
    PRIORITY_ORDER,
    ActivityGroup,
    ActivityRow,
    AreaCoverage,
    Coverage,
    Evidence,
    FocusEntry,
    FollowUp,
    Overview,
    Report,
    ReportItem,
    WindowModel,
    row,
)
from pytorch_insight.report.narrative import Narrator
from pytorch_insight.report.overview import OverviewWriter
from pytorch_insight.report.people import PeopleWriter
from pytorch_insight.report.rollup import repo_rollup
from pytorch_insight.report.tally import FROM_GITHUB, counts, footer, stats
from pytorch_insight.text import parse_body, sentences, shorten
from pytorch_insight.window import Window

KIND_ORDER = ("pull_request", "issue", "rfc", "commit", "forum", "blog", "event", "slack")
WATCH_TITLE = 100
ONE_LINE = 140
RELATIONS_SHOWN = 8
# Reasons that state why an item matters (facts, what it fixes or tracks, a triage label), as
# opposed to how much it was discussed or how the reader weighs its area.
SUBSTANTIVE = ("fact:", "signal:", "fix-exists", *sorted(set(INHERITED.values())))
MODEL_PRIORITY = ("red-like", "red-floor", "unlike-red")  # pipeline/red.py
# Links whose evidence quotes the text that makes them (the others are computed, e.g. a shared name).
SHOWN_LINKS = ("fixes", "fixed_by", "tests", "tested_by", "tracks", "tracked_by", "names", "named_by")
RELATION_ORDER = (
    "fixes",
    "fixed_by",
    "tests",
    "tested_by",
    "reverts",
    "reverted_by",
    "relands",
    "relanded_by",
    "lands",
    "landed_by",
    "picks",
    "picked_by",
    "duplicate",
    "tracks",
    "tracked_by",
    "stack",
    "similar",
    "series",
    "discussed_in",
    "discusses",
    "names",
    "named_by",
    "related",
)


@dataclass
class ReportOptions:
    lang: str = "zh"
    focus_size: int = 12
    deep_size: int = 5
    analyser: Analyser = field(default_factory=RuleAnalyser)
    downstream: Path | None = None
    generated_at: datetime | None = None


def relation_key(relation: Relation) -> str:
    """The message that names a link: a fix its own words call partial is named so."""
    if relation.type in ("fixes", "fixed_by") and partial_fix(relation.evidence):
        return f"relation_{relation.type}_partial"
    return f"relation_{relation.type}"


def _quoting(assessment: Assessment, relation: Relation) -> str:
    """The item whose text holds a link's words: a fix link is written in the fixing change."""
    return relation.target if relation.type in ("fixed_by", "tested_by", "tracked_by", "named_by") else assessment.id


class _Builder:
    def __init__(self, ranked: Sequence[Assessment], profile: Profile, reader: Reader, options: ReportOptions) -> None:
        self.ranked, self.profile, self.reader, self.options = ranked, profile, reader, options
        self.t = Catalogue(options.lang)
        self.by_id = {a.id: a for a in ranked}
        self.area_names = {area.id: (area.name.zh if options.lang == "zh" else area.name.en) for area in profile.areas}
        self.main_repo = profile.github.repositories[0] if profile.github.repositories else None
        self.focus_ids: set[str] = set()
        self.one_lines = {a.id: one_line(a) for a in ranked}
        self.narrator = Narrator(self.t, self.ref, self.by_id, profile.ranking.facts)
        self.fix_words = FixWords(self.t, self.ref, self.by_id)
        self.entries: list[FocusEntry] = []
        self.suggestions: dict[str, Suggestion] = {}

    # -- references ---------------------------------------------------------------------------------

    def ref(self, item_id: str) -> str:
        """``#180257`` in the main repository, ``owner/repo#N`` elsewhere, a title for the rest."""
        found = self.by_id.get(item_id)
        if found is None:
            ref = short_ref(item_id)
            return ref.removeprefix(self.main_repo) if self.main_repo and ref.startswith(f"{self.main_repo}#") else ref
        item = found.item
        if item.kind in ("issue", "pull_request", "rfc") and item.number is not None:
            return f"#{item.number}" if item.repo == self.main_repo else f"{item.repo}#{item.number}"
        if item.kind == "commit" and item.sha:
            return f"@{item.sha[:7]}" if item.repo == self.main_repo else f"{item.repo}@{item.sha[:7]}"
        return (item.title or short_ref(item_id))[:60]

    def label(self, item_id: str) -> str:
        """The reference shown before a title: GitHub items only (others are named by their title)."""
        found = self.by_id.get(item_id)
        return self.ref(item_id) if found and found.item.kind in FROM_GITHUB else ""

    def date_basis(self, item: Item) -> str:
        """What the item's estimated creation date was inferred from, in words ("" when collected)."""
        found = estimate_basis(item)
        if found is None:
            return ""
        side, number = found
        if number is None or not item.repo:
            return self.t("estimated_activity")
        return self.t(f"estimated_{side}", ref=self.ref(github_item_id(item.repo, number)))

    def areas(self, assessment: Assessment) -> list[str]:
        return [self.area_names.get(area, area) for area in assessment.areas]

    def join(self, parts: Sequence[str]) -> str:
        return self.t.list_separator.join(parts)

    # -- sections ---------------------------------------------------------------------------------------

    def focus(self, context: AnalysisContext) -> list[FocusEntry]:
        stories = select_focus(self.ranked, self.profile, self.options.focus_size)
        pairs = [(self.by_id[story.lead], index < self.options.deep_size) for index, story in enumerate(stories)]
        entries = []
        for story, (assessment, deep), analysis in zip(
            stories, pairs, self.options.analyser.analyse_batch(pairs, context), strict=True
        ):
            if deep and self.options.downstream and analysis.facts.files:
                analysis.facts.downstream = downstream_uses(analysis.facts.files, self.options.downstream)
            entry = self.focus_entry(assessment, analysis, deep)
            entry.story = [self.ref(member) for member in story.members[1:]]
            items = [self.by_id[member].item for member in story.members]
            entry.described = any(map(described, items))
            entry.commented_later = not entry.described and any(map(commented_later, items))
            entries.append(entry)
            self.entries.append(entry)
            self.focus_ids.update(story.members)
        return entries

    def focus_entry(self, assessment: Assessment, analysis: Analysis, deep: bool) -> FocusEntry:
        t, item = self.t, assessment.item
        suggestion = suggest(assessment, analysis, self.reader, self.by_id)
        harm = t(f"harm_{suggestion.harm}") if suggestion.harm else ""
        because = t(suggestion.because, harm=harm) if suggestion.because else ""
        if analysis.action and analysis.urgency:  # a model's suggestion, when it gave a complete one
            if (analysis.action, analysis.urgency) != (suggestion.action, suggestion.urgency):
                because = ""  # the rules' reason is not the model's
            suggestion = Suggestion(analysis.action, analysis.urgency, suggestion.why, target=suggestion.target)
        self.suggestions[item.id] = suggestion
        substantive = [r for r in assessment.reasons if r.code.startswith(SUBSTANTIVE)]
        # Without a fact, what else speaks for the item; the reader's weight of its area is named only
        # when alone.
        spoken = substantive or speaking_for(assessment.reasons) or assessment.reasons
        # Two facts read from one sentence quote it once.
        shown = list(dict.fromkeys(r.text(t.lang) for r in spoken))[:4]
        # A priority the pick model set is the model's judgement, and the reason says so.
        shown += [
            r.text(t.lang) for r in assessment.reasons if r.code in MODEL_PRIORITY and r.text(t.lang) not in shown
        ]
        why = t.clause_separator.join(shown) or "—"
        fix_text = self.fix_words.text(analysis, item)
        reason = analysis.reason or t(
            "selection",
            priority=t(f"priority_{assessment.priority}"),
            areas=self.join(self.areas(assessment)),
            why=why,
            action=t(f"action_{suggestion.action}"),
            urgency=t(f"urgency_{suggestion.urgency}"),
            action_why=t(suggestion.why, ref=self.ref(suggestion.target or item.id)),
        )
        return FocusEntry(
            id=item.id,
            rank=assessment.rank,
            priority=assessment.priority,
            deep=deep,
            kind=item.kind,
            ref=self.label(item.id),
            title=item.title or "",
            url=item.url,
            author=item.author,
            created=(item.created or "")[:10] or None,
            created_estimated=estimated(item),
            created_basis=self.date_basis(item),
            areas=self.areas(assessment),
            analysis=analysis,
            fix_text=fix_text,
            conclusion=self.narrator.conclusion(assessment, fix_text, analysis.summary),
            relations=self.relations(assessment),
            action=suggestion.action,
            urgency=suggestion.urgency,
            action_text=t(
                "action_line" if because else "action_plain",
                action=t(f"action_{suggestion.action}"),
                urgency=t(f"urgency_{suggestion.urgency}"),
                because=because,
            ),
            reason=reason,
            evidence=self.evidence(assessment, analysis),
            quoted_refs={field: self.ref(source) for field, source in analysis.quoted_from.items()},
        )

    def evidence(self, assessment: Assessment, analysis: Analysis) -> list[Evidence]:
        """What each claim of the entry rests on: the facts behind its priority (its own and those
        it takes from its story), the links it shows and the fix state."""
        lang, found = self.t.lang, []
        for source in (assessment, *severity_sharers(assessment, self.by_id)):
            for fact in source.facts.facts:
                found.append(Evidence(claim=fact_reason(fact).text(lang), item=source.id, quote=fact.evidence))
        for relation in assessment.relations:
            if relation.type in SHOWN_LINKS:
                claim = self.t(relation_key(relation), ref=self.ref(relation.target))
                found.append(Evidence(claim=claim, item=_quoting(assessment, relation), quote=relation.evidence))
        named = {r.target: r.evidence for r in assessment.relations if r.type == "named_by"}
        for ref, state in analysis.fix_ref_states.items():
            if ref in named:  # a PR of the window whose description names it
                quote, source = f"{named[ref]}, state: {state}", ref
            else:
                quote, source = f"timeline: cross-referenced by {short_ref(ref)}, state: {state}", assessment.id
            found.append(Evidence(claim=self.fix_words.text(analysis, assessment.item), item=source, quote=quote))
        for ref in analysis.fix_refs or [assessment.id]:
            fix = self.by_id.get(ref)
            if fix is not None:
                state = f"state: {fix.item.state or 'unknown'}"
                merged_by = (fix.item.model_extra or {}).get("merge_evidence")
                quote = f"{state} ({merged_by})" if merged_by else state
                found.append(Evidence(claim=self.fix_words.text(analysis, assessment.item), item=fix.id, quote=quote))
        # The thread comments the fix state quotes: a merge asked for, a PR announced unnamed.
        for said, source in analysis.said_in.items():
            quote = f"comment: {getattr(analysis, said)}"  # "comment: <author>: <their words>"
            found.append(Evidence(claim=self.fix_words.text(analysis, assessment.item), item=source, quote=quote))
        return found

    def relations(self, assessment: Assessment) -> list[str]:
        ordered = sorted(
            assessment.relations,
            key=lambda r: (RELATION_ORDER.index(r.type) if r.type in RELATION_ORDER else len(RELATION_ORDER), r.target),
        )
        # The item that stands for a change submitted twice names the other copy as a copy, a report
        # filed twice its other filing.
        kind = "relation_copy" if assessment.item.kind in CHANGES else "relation_copy_report"
        copy = kind if assessment.canonical is None else "relation_duplicate"
        shown = []
        for r in ordered[:RELATIONS_SHOWN]:
            if f"relation_{r.type}" not in MESSAGES:
                continue
            if r.type in ("related", "series") and (name := shared_name(r.evidence)):
                # "related" alone asserts a tie the reader cannot check: the shared name is the tie.
                shown.append(self.t(f"relation_{r.type}_name", ref=self.ref(r.target), name=name))
            else:
                shown.append(self.t(copy if r.type == "duplicate" else relation_key(r), ref=self.ref(r.target)))
        return shown

    def overview(self, stats: dict[str, int]) -> Overview:
        t = self.t
        totals = t(
            "totals",
            total=stats["after_fusion"],
            github=stats["github_items"],
            community=stats["community_items"],
            high=stats["high"],
            medium=stats["medium"],
        )
        themes = OverviewWriter(t, self.ref, self.by_id, self.profile, self.area_names).themes(
            self.entries, self.suggestions
        )
        # The week's design item: an RFC first, else a design-level change the focus list does not already show.
        designs = [a for a in self.ranked if not a.noise and not a.canonical and a.facts.first("design") is not None]
        watch = next((a for a in designs if a.item.kind == "rfc" or a.facts.first("design").detail == "RFC"), None)
        watch = watch or next((a for a in designs if a.id not in self.focus_ids), None)
        return Overview(
            totals=totals,
            themes=themes,
            watch=t(
                "watch", item=f"{self.ref(watch.id)} {t('quoted', text=shorten(watch.item.title or '', WATCH_TITLE))}"
            )
            if watch
            else None,
            watch_id=watch.id if watch else None,
        )

    def activity(self) -> list[ActivityGroup]:
        groups: dict[str, list[Assessment]] = defaultdict(list)
        for assessment in self.ranked:
            groups[assessment.item.kind].append(assessment)
        result = []
        for kind in KIND_ORDER:
            # Highest priority first, each priority in rank order: a table read down its priority
            # column meets no medium item below a low one (the rank mixes the two by score).
            members = sorted(groups.get(kind, []), key=lambda a: -PRIORITY_ORDER.get(a.priority, 0))
            if not members:
                continue
            rows = [
                row(
                    ActivityRow,
                    id=a.id,
                    star=a.id in self.focus_ids,
                    ref=self.label(a.id),
                    title=a.item.title or "",
                    url=a.item.url,
                    date=(a.item.created or "")[:10] or None,
                    date_estimated=estimated(a.item),
                    date_basis=self.date_basis(a.item),
                    areas=self.areas(a),
                    priority=a.priority,
                    summary=self.one_lines[a.id],
                )
                for a in members
            ]
            result.append(ActivityGroup(kind=kind, label=self.t(f"group_{kind}"), count=len(rows), rows=rows))
        return result

    def area_coverage(self) -> list[AreaCoverage]:
        rows = []
        for area in self.profile.areas:
            members = [a for a in self.ranked if area.id in a.areas and not a.canonical]
            high = [self.ref(a.id) for a in members if a.priority == "high"]
            medium = sum(a.priority == "medium" for a in members)
            level = "high" if high else "medium" if medium else "low"
            rows.append(
                AreaCoverage(
                    id=area.id,
                    name=self.area_names[area.id],
                    level=level,
                    items=len(members),
                    high=high,
                    medium=medium,
                    low=len(members) - len(high) - medium,
                )
            )
        return rows

    def item(self, assessment: Assessment) -> ReportItem:
        item, lang = assessment.item, self.t.lang
        return row(
            ReportItem,
            id=item.id,
            source=item.source,
            kind=item.kind,
            repo=item.repo,
            number=item.number,
            url=item.url,
            title=item.title,
            author=item.author,
            created=(item.created or "")[:10] or None,
            created_estimated=estimated(item),
            state=item.state,
            areas=assessment.areas,
            area_evidence=assessment.area_evidence,
            priority=assessment.priority,
            score=float(assessment.score),
            rank=assessment.rank,
            reasons=[r.text(lang) for r in assessment.reasons],
            noise=[r.text(lang) for r in assessment.noise],
            duplicate_of=assessment.canonical,
            merged_from=assessment.aliases,
            relations=sorted(assessment.relations, key=lambda r: (r.type, r.target)),
            summary=self.one_lines[assessment.id],
        )


def one_line(assessment: Assessment) -> str:
    """The first sentence the item's description offers, cut to fit a table cell."""
    if assessment.item.kind == "commit" or not assessment.item.body:
        return ""
    # Its first line: a call tree or code laid out below it does not fit a table cell. Cut by the
    # sentence splitter, which knows that "i.e. passing" goes on.
    line = summarise(parse_body(assessment.item.body)).split("\n")[0]
    said = sentences(line)
    return shorten(said[0] if said else line, ONE_LINE)


def build_report(
    ranked: Sequence[Assessment],
    *,
    window: Window,
    profile: Profile,
    reader: Reader,
    statuses: Sequence[SourceStatus],
    collected: int,
    options: ReportOptions | None = None,
    follow_up: FollowUp | None = None,
) -> Report:
    options = options or ReportOptions()
    builder = _Builder(ranked, profile, reader, options)
    t = builder.t
    context = AnalysisContext(profile=profile, reader=reader, by_id=builder.by_id)
    focus = builder.focus(context)
    numbers = stats(ranked, collected, sum(entry.deep for entry in focus))
    overview = builder.overview(numbers)
    narrate = getattr(options.analyser, "narrate", None)
    if narrate is not None and focus:
        summary = {
            "totals": overview.totals,
            "themes": [theme.text for theme in overview.themes],
            "focus": [{"ref": e.ref, "title": e.title, "priority": e.priority, "areas": e.areas} for e in focus],
        }
        overview.narrative = narrate(summary).get("overview") or None
    people = PeopleWriter(builder.t, builder.ref, ranked, profile, builder.area_names).contributors()
    moment = options.generated_at or datetime.now(timezone.utc)
    generator = f"pytorch-insight {__version__}"
    role = reader.role.zh if options.lang == "zh" else reader.role.en
    analyser = options.analyser.name
    report = Report(
        lang=options.lang,
        title=profile.title.zh if options.lang == "zh" else profile.title.en,
        window=WindowModel(since=window.since.isoformat(), until=window.until.isoformat()),
        generated_at=moment.isoformat(timespec="seconds"),
        generator=generator,
        profile=profile.name,
        reader=reader.id,
        reader_role=role,
        analyser=analyser,
        overview=overview,
        items=[builder.item(a) for a in ranked],
        focus=focus,
        activity=builder.activity(),
        counts=counts(ranked),
        contributors=people,
        teams=PeopleWriter(builder.t, builder.ref, ranked, profile, builder.area_names).teams(people),
        coverage=Coverage(
            sources=list(statuses), areas=builder.area_coverage(), repos=repo_rollup(ranked, builder.area_names)
        ),
        stats=numbers,
        footer=footer(t, generator, profile.name, reader.id, role, options.analyser),
        follow_up=follow_up,
    )
    # Every format is rendered from this document, so this is where source text is made public:
    # control characters and bidirectional overrides out, secrets and tokens redacted.
    return scrub_document(report)


def estimated(item: Item) -> bool:
    """Whether the item's creation date was inferred at import, not collected (`dating`)."""
    return bool((item.model_extra or {}).get("created_estimate"))


def described(item: Item) -> bool:
    """Whether the collected data holds any text of the item beyond its title: a description or a comment."""
    return bool((item.body or "").strip()) or any((comment.body or "").strip() for comment in item.comments)


def commented_later(item: Item) -> bool:
    """Whether the data holds a comment of the item from after the report's moment (`report.asof`)."""
    return any((comment.body or "").strip() for comment in later_comments(item))
