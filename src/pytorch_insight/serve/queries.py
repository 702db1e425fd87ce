"""Read-only questions to the store, answered from a window's report as bounded JSON-ready dicts.

A window's report is built the way `report` builds it without a model (rank, link, classify,
rule analysis), so an item's areas, priority and evidence here are the pipeline's judgement for
that window. Every answer is bounded: rows come in pages of at most MAX_PAGE_SIZE, and a long text
is cut with a marker saying how much was left out. Source text is made public (`scrub`: secrets
and tokens redacted, control characters stripped) before it is cut or searched, so a cut never
leaves half a secret behind and a search cannot find out what was redacted.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import date, timedelta
from math import ceil
from typing import Any, get_args

from sqlalchemy import func, select

from pytorch_insight.clock import utc_today
from pytorch_insight.config import Profile
from pytorch_insight.errors import ConfigError, InsightError, NoItemsError
from pytorch_insight.model import Item, Kind, Relation, github_item_id, short_ref
from pytorch_insight.redact import public_text, scrub
from pytorch_insight.report.build import ReportOptions
from pytorch_insight.report.model import Contributor, FocusEntry, Report, ReportItem, web_url
from pytorch_insight.report.render import render_markdown
from pytorch_insight.report.stored import stored_report
from pytorch_insight.schema import items as items_table
from pytorch_insight.schema import report_snapshots, source_status
from pytorch_insight.store import Store
from pytorch_insight.window import DEFAULT_DAYS, EARLIEST, Window, parse_day

KINDS: tuple[str, ...] = get_args(Kind)
PRIORITIES = ("high", "medium", "low")
# Building a report reads every item of its window: a month is the most one question may cost.
MAX_WINDOW_DAYS = 31
PAGE_SIZE = 20
MAX_PAGE_SIZE = 50
COMMENTS_PAGE = 20
TITLE_LIMIT = 300
COMMENT_LIMIT = 1_000
TEXT_LIMIT = 4_000  # any other string of an answer (an item's description, an analysis field)
LIST_LIMIT = 50  # relations, evidence and contributors' items shown at once
QUERY_LIMIT = 200
ID_LIMIT = 500
MARKDOWN_LIMIT = 200_000
# Reports kept built (per window and state of the store): a client pages through one window.
REPORTS_KEPT = 4
ITEM_FIELDS = {
    *("source", "kind", "repo", "number", "url", "title", "author", "state", "labels", "sha"),
    *("created", "updated", "closed", "merged", "comment_count", "reactions"),
}
ASSESSMENT_FIELDS = {
    *("areas", "area_evidence", "priority", "score", "rank", "reasons", "noise"),
    *("duplicate_of", "merged_from", "summary"),
}
GITHUB_URL = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)/?")
GITHUB_REF = re.compile(r"(?:([\w.-]+/[\w.-]+))?#(\d+)")


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the cut saying how many more there were."""
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters]"


def bounded(value: Any, limit: int = TEXT_LIMIT) -> Any:
    """`value` (a dict, list or scalar) with every string cut to `limit` and every list to
    LIST_LIMIT entries, a cut list under a key saying its length in `<key>_total`: an item may
    carry any number of labels or files, and no answer may grow with them."""
    if isinstance(value, str):
        return clip(value, limit)
    if isinstance(value, dict):
        answer = {}
        for key, item in value.items():
            answer[key] = bounded(item, limit)
            if isinstance(item, list) and len(item) > LIST_LIMIT:
                answer.setdefault(f"{key}_total", len(item))
        return answer
    if isinstance(value, list):
        return [bounded(item, limit) for item in value[:LIST_LIMIT]]
    return value


def capped(values: list[Any], name: str) -> dict[str, Any]:
    """The first LIST_LIMIT of a list under `name`, and how many there are."""
    return {name: values[:LIST_LIMIT], f"{name}_total": len(values)}


def paged(rows: list[Any], page: int, page_size: int) -> dict[str, Any]:
    """One page of `rows` (1-based) with the numbers to ask for the next."""
    pages = max(1, ceil(len(rows) / page_size))
    start = (page - 1) * page_size
    return {
        "total": len(rows),
        "page": page,
        "pages": pages,
        "next_page": page + 1 if page < pages else None,
        "rows": rows[start : start + page_size],
    }


def check_page(page: int, page_size: int) -> None:
    if page < 1:
        raise ConfigError(f"page must be 1 or more, got {page}")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ConfigError(f"page_size must be between 1 and {MAX_PAGE_SIZE}, got {page_size}")


def window_json(window: Window) -> dict[str, str]:
    return {"since": window.since.isoformat(), "until": window.until.isoformat()}


class WindowReport:
    """One window's report with what questions about it look up: rows by id (a merged copy's id
    leads to the row that stands for it), focus entries, and each row's searchable text."""

    def __init__(self, window: Window, report: Report, stored: list[Item]) -> None:
        self.window = window
        self.report = report
        self.stored = {item.id: item for item in stored}
        self.rows = {row.id: row for row in report.items}
        self.canonical = {alias: row.id for row in report.items for alias in row.merged_from}
        self.focus = {entry.id: entry for entry in report.focus}
        self.starred = {row.id for group in report.activity for row in group.rows if row.star}
        self._text: dict[str, str] = {}
        self._public = public_text()

    def text(self, row: ReportItem) -> str:
        """Title, labels and description, public and case-folded, computed once per row."""
        found = self._text.get(row.id)
        if found is None:
            item = self.stored.get(row.id)
            parts = [row.title or "", *(item.labels if item else []), (item.body or "") if item else ""]
            found = self._text[row.id] = self._public("\n".join(parts)).casefold()
        return found


class Queries:
    """The questions the MCP server answers, over a store opened read-only."""

    def __init__(
        self,
        store: Store,
        profile: Profile,
        *,
        lang: str = "zh",
        reader: str | None = None,
        today: Callable[[], date] = utc_today,
    ) -> None:
        self.store = store
        self.profile = profile
        self.lang = lang
        self.reader = profile.reader(reader)
        self.today = today
        self.main_repo = profile.github.repositories[0] if profile.github.repositories else None
        self._reports: OrderedDict[tuple[Any, ...], WindowReport] = OrderedDict()
        # Tools run in worker threads: one report is built at a time, and once.
        self._lock = threading.Lock()

    # -- windows and reports ----------------------------------------------------------------------

    def window(self, since: str | None, until: str | None) -> Window:
        """The window asked for: both days, one day and a week from or to it, or by default the 7
        days that end on the last day the store holds activity of (the latest report)."""
        today = self.today()
        first = parse_day(since, "since") if since else None
        last = parse_day(until, "until") if until else None
        if first is not None and first > today:
            raise ConfigError(f"since {first} is in the future (today is {today} UTC)")
        if last is None:
            last = min(first + timedelta(days=DEFAULT_DAYS - 1), today) if first else self.last_active_day(today)
        if first is None:
            first = max(EARLIEST, last - timedelta(days=DEFAULT_DAYS - 1))
        if last > today:
            raise ConfigError(f"until {last} is in the future (today is {today} UTC)")
        if first < EARLIEST:
            raise ConfigError(f"since {first} is too early: windows start on {EARLIEST} or later")
        if first > last:
            raise ConfigError(f"since {first} is after until {last}")
        if (last - first).days >= MAX_WINDOW_DAYS:
            raise ConfigError(f"the window {first} – {last} is longer than {MAX_WINDOW_DAYS} days: ask for less")
        return Window(first, last)

    def last_active_day(self, today: date) -> date:
        """The last day, today at the latest, on which a stored item was created, closed or merged."""
        bound = (today + timedelta(days=1)).isoformat()
        columns = (items_table.c.created, items_table.c.closed, items_table.c.merged)
        with self.store.engine.connect() as connection:
            found = [connection.scalar(select(func.max(column)).where(column < bound)) for column in columns]
        latest = max((moment for moment in found if moment), default=None)
        if latest is None:
            raise NoItemsError("no items stored: run `collect` or `import` first")
        return date.fromisoformat(latest[:10])

    def _state(self) -> tuple[Any, ...]:
        """What changes when a collection or an import writes: a report built before is stale then."""
        with self.store.engine.connect() as connection:
            stored = connection.execute(select(func.count(), func.max(items_table.c.stored_at))).one()
            runs = connection.execute(select(func.count(), func.max(source_status.c.run_id))).one()
            # A report recorded since changes the follow-up of the window after it.
            shown = connection.execute(select(func.count(), func.max(report_snapshots.c.stored_at))).one()
        return (*stored, *runs, *shown)

    def report_for(self, window: Window) -> WindowReport:
        with self._lock:
            key = (window, self._state())
            found = self._reports.get(key)
            if found is None:
                found = self._reports[key] = self._build(window)
                while len(self._reports) > REPORTS_KEPT:
                    self._reports.popitem(last=False)
            self._reports.move_to_end(key)
            return found

    def _build(self, window: Window) -> WindowReport:
        """The `report` command's document for the window, with the rule analyser, and like it
        opening with the follow-up of the previous window's report: agents ask what happened to
        last week's items too."""
        report, stored = stored_report(self.store, window, self.profile, self.reader, ReportOptions(lang=self.lang))
        return WindowReport(window, report, stored)

    # -- the questions ----------------------------------------------------------------------------

    def search(
        self,
        *,
        since: str | None = None,
        until: str | None = None,
        area: str | None = None,
        kind: str | None = None,
        priority: str | None = None,
        author: str | None = None,
        text: str | None = None,
        page: int = 1,
        page_size: int = PAGE_SIZE,
    ) -> dict[str, Any]:
        """The window's items best first, those matching every filter given."""
        check_page(page, page_size)
        wanted_area = self.area_id(area) if area else None
        if kind and kind not in KINDS:
            raise ConfigError(f"unknown kind {kind!r} (one of: {', '.join(KINDS)})")
        if priority and priority not in PRIORITIES:
            raise ConfigError(f"unknown priority {priority!r} (one of: {', '.join(PRIORITIES)})")
        if text and len(text) > QUERY_LIMIT:
            raise ConfigError(f"text is longer than {QUERY_LIMIT} characters")
        terms = text.casefold().split() if text else []
        login = author.strip().lstrip("@").casefold() if author else None
        built = self.report_for(self.window(since, until))
        rows = [
            row
            for row in built.report.items
            if (wanted_area is None or wanted_area in row.areas)
            and (not kind or row.kind == kind)
            and (not priority or row.priority == priority)
            and (login is None or (row.author or "").casefold() == login)
            and all(term in built.text(row) for term in terms)
        ]
        page_of = paged(rows, page, page_size)
        page_of["items"] = [self.row_json(row, built) for row in page_of.pop("rows")]
        return bounded({"window": window_json(built.window), **page_of})

    def get_item(
        self, item: str, *, since: str | None = None, until: str | None = None, comment_page: int = 1
    ) -> dict[str, Any]:
        """One stored item with its comments (paged), relations, and the window's assessment,
        analysis and evidence when it belongs to the window."""
        check_page(comment_page, COMMENTS_PAGE)
        window = self.window(since, until)
        item_id = self.item_id(item)
        stored = self.store.get_items([item_id]).get(item_id)
        if stored is None:
            raise InsightError(f"no stored item {item!r}: use an id from search_items")
        try:
            built: WindowReport | None = self.report_for(window)
        except NoItemsError:
            built = None
        canonical = built.canonical.get(item_id, item_id) if built else item_id
        row = built.rows.get(canonical) if built else None
        entry = built.focus.get(canonical) if built else None
        public: Item = scrub(stored)
        comments = paged(
            [
                {"author": c.author, "date": c.date, "kind": c.kind, "body": clip(c.body or "", COMMENT_LIMIT)}
                for c in public.comments
            ],
            comment_page,
            COMMENTS_PAGE,
        )
        comments["items"] = comments.pop("rows")
        relations = row.relations if row else public.relations
        answer = {
            "window": window_json(window),
            "in_window": row is not None,
            "item": {
                "id": public.id,
                "ref": short_ref(public.id),
                **public.model_dump(mode="json", include=ITEM_FIELDS),
                "url": web_url(public.url),  # the store keeps what the source said; clients get web pages only
                "body": public.body or "",
            },
            "comments": comments,
            "merged_into": canonical if canonical != item_id else None,
            "assessment": self.assessment_json(row, built) if row and built else None,
            "relations": self.relations_json(relations[:LIST_LIMIT], built),
            "relations_total": len(relations),
            "focus": focus_json(entry) if entry else None,
        }
        return bounded(scrub(answer))

    def report_json(self, since: str | None = None, until: str | None = None) -> dict[str, Any]:
        """The report document without its per-item lists (those are search_items' pages)."""
        built = self.report_for(self.window(since, until))
        report = built.report
        document = report.model_dump(mode="json", exclude={"items", "activity", "focus", "contributors"})
        document |= {
            "focus": [focus_json(entry) for entry in report.focus],
            "contributors": [contributor_json(person) for person in report.contributors],
            "activity_counts": [{"kind": g.kind, "label": g.label, "count": g.count} for g in report.activity],
            "items_total": len(report.items),
            "omitted": "the items and activity rows: page through them with search_items",
        }
        return bounded(document)

    def report_markdown(self, since: str | None = None, until: str | None = None) -> str:
        return clip(render_markdown(self.report_for(self.window(since, until)).report), MARKDOWN_LIMIT)

    def contributors(
        self, *, since: str | None = None, until: str | None = None, page: int = 1, page_size: int = PAGE_SIZE
    ) -> dict[str, Any]:
        """The window's key contributors (the profile's, then the most active authors) and teams."""
        check_page(page, page_size)
        built = self.report_for(self.window(since, until))
        page_of = paged([contributor_json(person) for person in built.report.contributors], page, page_size)
        page_of["contributors"] = page_of.pop("rows")
        teams = [team.model_dump(mode="json") for team in built.report.teams]
        return bounded({"window": window_json(built.window), **page_of, "teams": teams})

    def coverage(self, *, since: str | None = None, until: str | None = None) -> dict[str, Any]:
        """How completely each source delivered the window, the focus areas' coverage and the
        collection funnel; the sources alone when the window holds no items."""
        window = self.window(since, until)
        try:
            report: Report | None = self.report_for(window).report
        except NoItemsError:
            report = None
        sources = report.coverage.sources if report else self.store.latest_statuses(window)
        answer = {
            "window": window_json(window),
            "sources": [status.model_dump(mode="json") for status in sources],
            "note": "" if sources else "no collection of this window is recorded (its items were imported)",
            "areas": [area.model_dump(mode="json") for area in report.coverage.areas] if report else [],
            "funnel": report.stats if report else {},
        }
        return bounded(scrub(answer))

    # -- pieces -----------------------------------------------------------------------------------

    def area_id(self, area: str) -> str:
        """A focus area of the profile by id or by name in either language, any case."""
        wanted = area.strip().casefold()
        for rule in self.profile.areas:
            if wanted in (rule.id.casefold(), rule.name.zh.casefold(), rule.name.en.casefold()):
                return rule.id
        known = ", ".join(rule.id for rule in self.profile.areas) or "none"
        raise ConfigError(f"unknown area {area!r} (profile {self.profile.name} has: {known})")

    def item_id(self, text: str) -> str:
        """A stored id as it is, or a GitHub URL, `owner/repo#N` or `#N` (the main repository)."""
        text = text.strip()
        if not text or len(text) > ID_LIMIT:
            raise ConfigError(f"item must be an id from search_items (1 to {ID_LIMIT} characters)")
        if match := GITHUB_URL.fullmatch(text):
            return github_item_id(match[1], int(match[2]))
        if match := GITHUB_REF.fullmatch(text):
            repo = match[1] or self.main_repo
            if repo is None:
                raise ConfigError(f"{text!r} names no repository and profile {self.profile.name} has none")
            return github_item_id(repo, int(match[2]))
        return text

    def row_json(self, row: ReportItem, built: WindowReport) -> dict[str, Any]:
        return {
            "id": row.id,
            "ref": short_ref(row.id),
            "kind": row.kind,
            "title": clip(row.title or "", TITLE_LIMIT),
            "url": row.url,
            "author": row.author,
            "created": row.created,
            "state": row.state,
            "areas": row.areas,
            "priority": row.priority,
            "score": row.score,
            "rank": row.rank,
            "focus": row.id in built.starred,
            "noise": bool(row.noise),
            "duplicate_of": row.duplicate_of,
            "summary": row.summary,
        }

    def assessment_json(self, row: ReportItem, built: WindowReport) -> dict[str, Any]:
        return {
            **row.model_dump(mode="json", include=ASSESSMENT_FIELDS),
            "focus": row.id in built.starred,
        }

    def relations_json(self, relations: list[Relation], built: WindowReport | None) -> list[dict[str, Any]]:
        """Each relation with its target's reference and title (from the window, else the store)."""
        rows = built.rows if built else {}
        missing = [r.target for r in relations if r.target not in rows]
        stored = scrub(self.store.get_items(missing)) if missing else {}  # made public before its titles are cut
        result = []
        for relation in relations:
            target = rows.get(relation.target) or stored.get(relation.target)
            title = target.title if target is not None else None
            result.append(
                {
                    "type": relation.type,
                    "target": relation.target,
                    "ref": short_ref(relation.target),
                    "title": clip(title or "", TITLE_LIMIT),
                    "evidence": relation.evidence,
                }
            )
        return result


def focus_json(entry: FocusEntry) -> dict[str, Any]:
    document = entry.model_dump(mode="json", exclude={"evidence"})
    return document | capped([e.model_dump(mode="json") for e in entry.evidence], "evidence")


def contributor_json(person: Contributor) -> dict[str, Any]:
    return person.model_dump(mode="json", exclude={"items"}) | capped(person.items, "items")
