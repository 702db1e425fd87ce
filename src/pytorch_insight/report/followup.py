"""Week over week: what the previous report of the same profile and reader showed (its snapshot),
and where each of its focus items stands now, with the evidence, plus the per-area counts and
their change.

"Previous" is the window that ends the day before this one starts. Its report's snapshot is
recorded in the store when that report was written; when none was recorded but the store holds
items of that window, the report is rebuilt from them with the rule analyser, the items set back
to the end of that window as far as their dates allow (a close or merge dated later is undone).
Where each item stands now comes from the store as it is: the item, the changes linked to it
(this window's, and those the previous report named) and its priority re-ranked in this window.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from pytorch_insight.analysis.fix_state import fix_state
from pytorch_insight.analysis.model import AnalysisContext
from pytorch_insight.config import Profile, Reader
from pytorch_insight.pipeline import Assessment, assess
from pytorch_insight.report.asof import as_of, items_as_of_end
from pytorch_insight.report.build import ReportOptions, build_report
from pytorch_insight.report.i18n import Catalogue
from pytorch_insight.report.mentions import mentions
from pytorch_insight.report.model import (
    PRIORITY_ORDER,
    AreaChange,
    Evidence,
    FollowUp,
    FollowUpItem,
    Report,
    WindowModel,
)
from pytorch_insight.report.tally import area_counts
from pytorch_insight.store import Store
from pytorch_insight.window import Window

LANDED = ("landed", "merged")
# Fix states whose refs name changes (fix PRs, reverts, PRs in the timeline).
CHANGE_STATES = ("open", "landed", "merged", "reverted", "closed", "unconfirmed", "referenced")
RESOLVED_STATES = ("closed", "merged", "landed")
TIMELINE_EVENTS = ("reopened", "closed")
# Statuses of an item that still needs someone: only these can be "escalated".
UNRESOLVED = ("open", "reopened", "regressed")
RELATED_SHOWN = 3  # items of this window that speak of a followed item, named in its line


class SnapshotEntry(BaseModel):
    """One focus entry as the report showed it, in no language: ids, states and codes only."""

    id: str
    ref: str
    title: str
    url: str | None = None
    kind: str
    priority: str
    action: str
    urgency: str
    fix_state: str
    fix_refs: list[str] = Field(default_factory=list)
    state: str | None = None
    areas: list[str] = Field(default_factory=list)


class Snapshot(BaseModel):
    profile: str
    reader: str
    since: str
    until: str
    generated_at: str
    focus: list[SnapshotEntry]
    areas: dict[str, int]


def snapshot_of(report: Report) -> Snapshot:
    items = {item.id: item for item in report.items}
    focus = []
    for entry in report.focus:
        item = items.get(entry.id)
        focus.append(
            SnapshotEntry(
                id=entry.id,
                ref=entry.ref,
                title=entry.title,
                url=entry.url,
                kind=entry.kind,
                priority=entry.priority,
                action=entry.action,
                urgency=entry.urgency,
                fix_state=entry.analysis.fix_state,
                fix_refs=list(entry.analysis.fix_refs),
                state=item.state if item else None,
                areas=list(item.areas) if item else [],
            )
        )
    return Snapshot(
        profile=report.profile,
        reader=report.reader,
        since=report.window.since,
        until=report.window.until,
        generated_at=report.generated_at,
        focus=focus,
        areas=dict(report.counts.get("area", {})),
    )


def record(store: Store, report: Report) -> None:
    """Keep what the report showed, for the next window's follow-up."""
    store.save_snapshot(snapshot_of(report).model_dump(mode="json"))


def previous_window(window: Window) -> Window:
    """The window of the same length that ends the day before this one starts."""
    length = window.until - window.since + timedelta(days=1)
    return Window(window.since - length, window.since - timedelta(days=1))


def earlier_snapshot(
    store: Store, window: Window, profile: Profile, reader: Reader, options: ReportOptions
) -> tuple[Snapshot | None, str, Window]:
    """The previous window's snapshot and how it was obtained: `stored`, `computed` or `none`."""
    earlier = previous_window(window)
    row = store.snapshot_ending(profile.name, reader.id, earlier.until.isoformat(), earlier.since.isoformat())
    if row is not None:
        snapshot = Snapshot.model_validate(row)
        shown = Window(datetime.fromisoformat(snapshot.since).date(), datetime.fromisoformat(snapshot.until).date())
        return snapshot, "stored", shown
    items = items_as_of_end(store, earlier)
    if not items:
        return None, "none", earlier
    rebuilt = build_report(
        assess(items, profile, reader.id, window=earlier),
        window=earlier,
        profile=profile,
        reader=reader,
        statuses=[],
        collected=len(items),
        # The rules only: the snapshot needs fix states and actions, not prose.
        options=ReportOptions(lang=options.lang, focus_size=options.focus_size, deep_size=0),
    )
    return snapshot_of(rebuilt), "computed", earlier


def follow_up(
    store: Store,
    ranked: Sequence[Assessment],
    window: Window,
    profile: Profile,
    reader: Reader,
    options: ReportOptions,
) -> FollowUp:
    t = Catalogue(options.lang)
    snapshot, basis, earlier = earlier_snapshot(store, window, profile, reader, options)
    shown = WindowModel(since=earlier.since.isoformat(), until=earlier.until.isoformat())
    if snapshot is None:
        return FollowUp(basis="none", previous=shown, text=t("fu_none", since=shown.since, until=shown.until))
    now = _now(store, ranked, snapshot, window, profile, reader)
    context = AnalysisContext(profile=profile, reader=reader, by_id=now)
    judge = _Judge(t, context, snapshot, mentions(ranked, window))
    items = [judge.item(entry) for entry in snapshot.focus]
    key = "fu_stored" if basis == "stored" else "fu_computed"
    return FollowUp(
        basis=basis,
        previous=shown,
        previous_generated_at=snapshot.generated_at if basis == "stored" else None,
        text=t(key, since=shown.since, until=shown.until, generated=snapshot.generated_at[:10]),
        items=items,
        areas=area_changes(area_counts(ranked), snapshot.areas, profile, options.lang),
    )


def _now(
    store: Store,
    ranked: Sequence[Assessment],
    snapshot: Snapshot,
    window: Window,
    profile: Profile,
    reader: Reader,
) -> dict[str, Assessment]:
    """This window's assessments, and the previous focus items and the changes it named ranked in
    this window beside them when they are not part of it (only this window's activity counts)."""
    by_id = _by_id(ranked)
    wanted = {entry.id for entry in snapshot.focus} | {ref for entry in snapshot.focus for ref in entry.fix_refs}
    missing = wanted - by_id.keys()
    if not missing:
        return by_id
    # As of this window's end, like the window's own items: a later change is not "now" yet.
    extra = [as_of(item, window.end) for item in store.get_items(sorted(missing)).values()]
    return _by_id(assess([a.item for a in ranked] + extra, profile, reader.id, window=window))


def _by_id(assessments: Sequence[Assessment]) -> dict[str, Assessment]:
    """Every assessment by its id and by the ids of the copies fused into it."""
    found = {alias: a for a in assessments for alias in a.aliases}
    found.update({a.id: a for a in assessments})
    return found


class _Judge:
    """Where one previous focus item stands now, in words, with what supports it."""

    def __init__(
        self,
        t: Catalogue,
        context: AnalysisContext,
        snapshot: Snapshot,
        mentioned: dict[str, list[tuple[str, str]]],
    ) -> None:
        self.t, self.context, self.snapshot, self.mentioned = t, context, snapshot, mentioned

    def ref(self, item_id: str) -> str:
        found = self.context.by_id.get(item_id)
        item = found.item if found else None
        if item is not None and item.number is not None:
            return f"#{item.number}" if item.repo == self._main_repo else f"{item.repo}#{item.number}"
        return item_id.split(":", 1)[-1]

    @property
    def _main_repo(self) -> str | None:
        repos = self.context.profile.github.repositories
        return repos[0] if repos else None

    def item(self, entry: SnapshotEntry) -> FollowUpItem:
        t = self.t
        base = {
            "id": entry.id,
            "ref": entry.ref,
            "title": entry.title,
            "url": entry.url,
            "priority_then": entry.priority,
        }
        then = Evidence(
            claim=t("fu_then_claim"),
            item=entry.id,
            quote=f"report {self.snapshot.since}..{self.snapshot.until}: priority {entry.priority}, "
            f"fix state {entry.fix_state}, state {entry.state or 'unknown'}",
        )
        found = self.context.by_id.get(entry.id)
        if found is None:
            return FollowUpItem(
                **base, status="missing", text=t("fu_missing"), next_step=t("fu_next_missing"), evidence=[then]
            )
        state, refs = fix_state(found, self.context)
        if state not in CHANGE_STATES:
            refs = []  # an umbrella's refs are the issues it tracks, not changes
        status = self.status(entry, found, state)
        evidence = [then, self.state_evidence(found), *self.fix_evidence(found, refs)]
        evidence += self.timeline_evidence(found)
        shown = [self.ref(ref) for ref in refs if ref in self.context.by_id or state == "referenced"]
        key = {
            "unchanged": "fu_unchanged_done" if entry.fix_state in LANDED else "fu_unchanged_closed",
            "open": "fu_open_fixing" if shown else "fu_open",
        }.get(status, f"fu_{status}")
        refs_text = t.list_separator.join(shown) or "—"
        text = t(key, refs=refs_text)
        new = [self.ref(ref) for ref in refs if ref not in entry.fix_refs and ref in self.context.by_id]
        if status == "open" and new:
            text += t.clause_separator + t("fu_new_fix", refs=t.list_separator.join(new))
        related = [
            (source, quote)
            for source, quote in self.mentioned.get(entry.id, [])
            if source not in refs and source not in found.aliases and source != found.id
        ][:RELATED_SHOWN]
        if related:
            text += t.clause_separator + t(
                "fu_related", refs=t.list_separator.join(self.ref(source) for source, _ in related)
            )
            evidence += [
                Evidence(claim=t("fu_related_claim", ref=self.ref(source)), item=source, quote=quote)
                for source, quote in related
            ]
        rise = PRIORITY_ORDER.get(found.priority, 0) - PRIORITY_ORDER.get(entry.priority, 0)
        # A fixed, merged or closed item whose score rose (this week's fix adds weight) is not
        # "escalated": that word is for what still needs someone.
        escalated = rise > 0 and status in UNRESOLVED
        dropped = rise < 0
        if dropped:
            text += t.clause_separator + t(
                "fu_dropped", then=t(f"priority_{entry.priority}"), now=t(f"priority_{found.priority}")
            )
        if escalated:
            text += t.clause_separator + t(
                "fu_escalated", then=t(f"priority_{entry.priority}"), now=t(f"priority_{found.priority}")
            )
            why = "; ".join(r.text("en") for r in found.reasons[:3]) or "score"
            evidence.append(
                Evidence(
                    claim=t("fu_escalated_claim"),
                    item=found.id,
                    quote=f"priority {found.priority} in this window (score {found.score}): {why}",
                )
            )
        return FollowUpItem(
            **base,
            status=status,
            priority_now=found.priority,
            escalated=escalated,
            dropped=dropped,
            next_step=t(f"fu_next_{'open_fixing' if status == 'open' and shown else status}", refs=refs_text),
            fix_state_then=entry.fix_state,
            fix_state_now=state,
            fixes=shown,
            related=[self.ref(source) for source, _ in related],
            text=text,
            evidence=evidence,
        )

    def status(self, entry: SnapshotEntry, found: Assessment, state: str) -> str:
        item = found.item
        was_done = entry.fix_state in LANDED
        was_resolved = was_done or entry.fix_state == "closed" or entry.state in RESOLVED_STATES
        if state == "reverted" and entry.fix_state != "reverted":
            return "regressed"
        if state in LANDED and not was_done:
            return "merged" if item.kind in ("pull_request", "commit") else "fixed"
        if was_resolved and item.state == "open":
            return "reopened"
        if was_resolved:
            return "unchanged"
        if item.state in RESOLVED_STATES or state == "closed":
            return "closed"
        return "open"

    def state_evidence(self, found: Assessment) -> Evidence:
        item = found.item
        quote = f"state: {item.state or 'unknown'}"
        dates = [f"{name} {value}" for name in ("closed", "merged") if (value := getattr(item, name))]
        merged_by = (item.model_extra or {}).get("merge_evidence")
        if dates:
            quote += f" ({', '.join(dates)})"
        if merged_by:
            quote += f" ({merged_by})"
        return Evidence(claim=self.t("fu_state_claim"), item=item.id, quote=quote)

    def fix_evidence(self, found: Assessment, refs: list[str]) -> list[Evidence]:
        """Each change the status rests on: the words that link it and its own state."""
        links = {r.target: r.evidence for r in found.relations if r.type in ("fixed_by", "reverted_by")}
        timeline = {}
        for ref in (found.item.model_extra or {}).get("timeline_refs") or []:
            if isinstance(ref, dict) and ref.get("event") == "cross-referenced":
                timeline[f"{ref.get('repo')}#{ref.get('number')}"] = ref
        result = []
        for ref in refs:
            fix = self.context.by_id.get(ref)
            claim = self.t("fu_fix_claim", ref=self.ref(ref))
            if fix is None:
                seen = timeline.get(ref.split(":", 1)[-1])
                if seen is not None:
                    quote = f"timeline: cross-referenced by {ref.split(':', 1)[-1]}, state: {seen.get('state')}"
                    quote += f", {seen.get('date')}" if seen.get("date") else ""
                    result.append(Evidence(claim=claim, item=found.id, quote=quote))
                continue
            state = f"state: {fix.item.state or 'unknown'}"
            merged = fix.item.merged or (fix.item.model_extra or {}).get("merge_evidence")
            result.append(Evidence(claim=claim, item=fix.id, quote=f"{state} ({merged})" if merged else state))
            if links.get(ref):
                result.append(Evidence(claim=claim, item=ref, quote=links[ref]))
        return result

    def timeline_evidence(self, found: Assessment) -> list[Evidence]:
        result = []
        for ref in (found.item.model_extra or {}).get("timeline_refs") or []:
            if isinstance(ref, dict) and ref.get("event") in TIMELINE_EVENTS and ref.get("date"):
                actor = f" by {ref['actor']}" if ref.get("actor") else ""
                quote = f"timeline: {ref['event']} {ref['date']}{actor}"
                result.append(Evidence(claim=self.t("fu_state_claim"), item=found.id, quote=quote))
        return result[-3:]


def area_changes(now: dict[str, int], then: dict[str, int], profile: Profile, lang: str) -> list[AreaChange]:
    """Every area with items in either window, in the profile's order, with its change."""
    names = {area.id: (area.name.zh if lang == "zh" else area.name.en) for area in profile.areas}
    order = {area: index for index, area in enumerate(names)}
    areas = sorted(set(now) | set(then), key=lambda area: (order.get(area, len(order)), area))
    return [
        AreaChange(
            area=area,
            name=names.get(area, area),
            count=now.get(area, 0),
            previous=then.get(area, 0),
            change=now.get(area, 0) - then.get(area, 0),
        )
        for area in areas
    ]
