"""Write a report to the output folder as `<since>_<until>.<format>`."""

from __future__ import annotations

from pathlib import Path

from pytorch_insight.errors import ConfigError, InsightError
from pytorch_insight.report.model import Report

FORMATS = ("json",)


def parse_formats(text: str) -> tuple[str, ...]:
    """``"json"`` or a comma-separated list; unknown formats are a configuration error."""
    wanted = tuple(dict.fromkeys(part.strip().lower() for part in text.split(",") if part.strip()))
    unknown = [fmt for fmt in wanted if fmt not in FORMATS]
    if unknown or not wanted:
        raise ConfigError(f"unknown report format {', '.join(unknown) or repr(text)} (available: {', '.join(FORMATS)})")
    return wanted


def write_json(report: Report, out: Path) -> Path:
    path = out / f"{report.window.since}_{report.window.until}.json"
    try:
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InsightError(f"cannot write the report to {out}: {exc.strerror}") from None
    return path
