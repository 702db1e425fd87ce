"""The versioned report document. Renderers read only this model (see docs/report-schema.md)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from pytorch_insight.model import Relation, SourceStatus

SCHEMA_VERSION = "1"


class WindowModel(BaseModel):
    since: str
    until: str


class ReportItem(BaseModel):
    id: str
    source: str
    kind: str
    repo: str | None
    number: int | None
    url: str | None
    title: str | None
    author: str | None
    created: str | None
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


class FocusEntry(BaseModel):
    id: str
    rank: int
    priority: str
    reason: str


class AreaCoverage(BaseModel):
    id: str
    name: str
    level: str
    items: int
    high: list[str]


class Coverage(BaseModel):
    sources: list[SourceStatus]
    areas: list[AreaCoverage]


class Contributor(BaseModel):
    login: str
    name: str | None
    team: str | None
    key: bool
    items: list[str]
    areas: list[str]


class Report(BaseModel):
    schema_version: str = SCHEMA_VERSION
    window: WindowModel
    generated_at: str
    generator: str
    profile: str
    reader: str
    analyser: str
    items: list[ReportItem]
    focus: list[FocusEntry]
    counts: dict[str, dict[str, int]]
    contributors: list[Contributor]
    coverage: Coverage
    stats: dict[str, int] = Field(default_factory=dict)
