"""The versioned report document. Renderers read only this model (see docs/report-schema.md)."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, Field

from pytorch_insight.analysis.model import Analysis
from pytorch_insight.model import Relation, SourceStatus
from pytorch_insight.text import safe_url

SCHEMA_VERSION = "1"
# The report's priorities, least to most urgent.
PRIORITY_ORDER = {"low": 0, "medium": 1, "high": 2}


def web_url(url: str | None) -> str | None:
    """An item's address when it is a web page (http or https, nothing a renderer would refuse),
    else None. The renderers never link anything else, but the JSON document also goes to machines
    (the signed webhook, MCP clients) that may: a `javascript:` address from a source stops here."""
    found = safe_url(url)
    return found if found and found.lower().startswith(("http://", "https://")) else None


# Every item address of the document: dropped when it is not a web page.
WebUrl = Annotated[str | None, AfterValidator(web_url)]


class WindowModel(BaseModel):
    since: str
    until: str


class ReportItem(BaseModel):
    id: str
    source: str
    kind: str
    repo: str | None
    number: int | None
    url: WebUrl
    title: str | None
    author: str | None
    created: str | None
    created_estimated: bool = False  # no creation date was collected: `created` is inferred (`dating`)
    state: str | None
    areas: list[str]
    area_evidence: dict[str, list[str]]
    priority: str
    score: float
    rank: int
    reasons: list[str]
    noise: list[str]
    duplicate_of: str | None
    merged_from: list[str]
    relations: list[Relation]
    summary: str = ""


class Evidence(BaseModel):
    """One claim of a focus entry and the source words that support it: a fact with the sentence
    it was read from, a link with the words that make it, a fix state with the state it rests on."""

    claim: str
    item: str  # the id of the item whose text holds the quote
    quote: str


class FocusEntry(BaseModel):
    id: str
    rank: int
    priority: str
    deep: bool
    kind: str
    ref: str
    title: str
    url: WebUrl
    author: str | None
    created: str | None
    created_estimated: bool = False
    created_basis: str = ""  # what an estimated date was inferred from, in the report's language
    areas: list[str]
    analysis: Analysis
    fix_text: str
    relations: list[str]
    action: str
    urgency: str
    action_text: str
    reason: str
    conclusion: str = ""  # one line in the report's language, composed from the facts
    story: list[str] = Field(default_factory=list)  # the other items of its story (its fixes, resubmissions, stack)
    evidence: list[Evidence] = Field(default_factory=list)
    quoted_refs: dict[str, str] = Field(default_factory=dict)  # field -> the linked item it quotes, as "#N"
    # False when no item of its story holds a description or a comment in the collected data (an
    # import may list a thread by its title alone): its empty fields say so, not that nothing was found.
    described: bool = True
    # True when, of an undescribed story, the data holds comments from after the report's moment only.
    commented_later: bool = False

    @property
    def empty_field(self) -> str:
        """The message an empty field of the entry shows: nothing recognised in its text, no text
        collected, or none until after the report's moment."""
        if self.described:
            return "not_stated"
        return "not_described_later" if self.commented_later else "not_described"


class Theme(BaseModel):
    area: str
    name: str
    high: int
    items: list[str]
    text: str


class Overview(BaseModel):
    totals: str
    narrative: str | None = None  # written by a language model from this report, grounded in it
    themes: list[Theme]
    watch: str | None = None
    watch_id: str | None = None


class ActivityRow(BaseModel):
    id: str
    star: bool
    ref: str
    title: str
    url: WebUrl
    date: str | None
    date_estimated: bool = False
    date_basis: str = ""  # what an estimated date was inferred from, in the report's language
    areas: list[str]
    priority: str
    summary: str


Row = TypeVar("Row", ReportItem, ActivityRow)
# The names of each row model's fields, one set for all its rows (see `row`).
_ROW_FIELDS: dict[type[BaseModel], set[str]] = {}


def row(model: type[Row], **values: Any) -> Row:
    """One of the document's per-item rows (a ReportItem, an ActivityRow) from values the pipeline
    has already typed, built without validation. A window holds one of each per item: validating
    them copied every list and dict they were given, and gave each row its own set of the names of
    its fields (pydantic's `model_fields_set`, 2 KB for twenty), together a third of `report`'s
    memory. Every field must be given, so all rows of a model share one set of all their names;
    the address goes through `web_url` as validation would take it."""
    fields = _ROW_FIELDS.setdefault(model, set(model.model_fields))
    if values.keys() != fields:
        raise TypeError(f"{model.__name__} needs exactly its fields, got {sorted(values)}")
    return model.model_construct(_fields_set=fields, **(values | {"url": web_url(values["url"])}))


class ActivityGroup(BaseModel):
    kind: str
    label: str
    count: int
    rows: list[ActivityRow]


class AreaCoverage(BaseModel):
    id: str
    name: str
    level: str
    items: int
    high: list[str]
    medium: int = 0
    low: int = 0


class RepoRollup(BaseModel):
    """A repository's share of the window (its GitHub items, copies left out) and its areas."""

    repo: str
    items: int
    pull_requests: int
    issues: int  # RFCs included
    high: int
    areas: dict[str, int]  # area name -> items, most first


class Coverage(BaseModel):
    sources: list[SourceStatus]
    areas: list[AreaCoverage]
    repos: list[RepoRollup] = Field(default_factory=list)


class Contributor(BaseModel):
    login: str
    name: str | None
    team: str | None
    team_name: str | None
    key: bool
    items: list[str]
    areas: list[str]
    line: str = ""  # what they did this week: their most important items by number


class Team(BaseModel):
    id: str
    name: str
    members: list[str]
    items: list[str]
    areas: list[str]
    text: str


class Footer(BaseModel):
    generator: str
    profile: str
    reader: str
    analyser: str
    text: str
    llm: dict[str, int] | None = None  # calls, tokens_in, tokens_out, cache_hits, fallbacks


class FollowUpItem(BaseModel):
    """One focus item of the previous report and where it stands now."""

    id: str
    ref: str
    title: str
    url: WebUrl
    # fixed | merged | closed | reopened | regressed | open | unchanged (resolved already then) | missing
    status: str
    text: str  # the status in the report's language, naming the changes it rests on
    priority_then: str
    priority_now: str | None = None  # re-ranked in this window; None when the item is not in the store
    escalated: bool = False  # still unresolved and its priority rose
    dropped: bool = False  # its priority fell
    next_step: str = ""  # what to do about it now, in the report's language
    fix_state_then: str | None = None
    fix_state_now: str | None = None
    fixes: list[str] = Field(default_factory=list)  # references of the changes the status rests on
    related: list[str] = Field(default_factory=list)  # this window's items that speak of it
    evidence: list[Evidence] = Field(default_factory=list)


class AreaChange(BaseModel):
    area: str
    name: str
    count: int
    previous: int
    change: int


class FollowUp(BaseModel):
    """The previous window's report followed up: `basis` says where its focus list came from
    (`stored`: recorded when it was written; `computed`: rebuilt from the stored items; `none`)."""

    basis: str
    previous: WindowModel
    previous_generated_at: str | None = None
    text: str
    items: list[FollowUpItem] = Field(default_factory=list)
    areas: list[AreaChange] = Field(default_factory=list)


class Report(BaseModel):
    schema_version: str = SCHEMA_VERSION
    lang: str
    title: str
    window: WindowModel
    generated_at: str
    generator: str
    profile: str
    reader: str
    reader_role: str
    analyser: str
    overview: Overview
    items: list[ReportItem]
    focus: list[FocusEntry]
    activity: list[ActivityGroup]
    counts: dict[str, dict[str, int]]
    contributors: list[Contributor]
    teams: list[Team]
    coverage: Coverage
    stats: dict[str, int] = Field(default_factory=dict)
    footer: Footer
    follow_up: FollowUp | None = None  # None when built without a store to look back in
