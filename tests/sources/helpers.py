"""Running one community source against a local server, as `collect` does."""

from __future__ import annotations

from pathlib import Path

from pytorch_insight.collect import http_client, run_collection
from pytorch_insight.config import load_settings
from pytorch_insight.model import SourceStatus
from pytorch_insight.sources import NoProgress, Source
from pytorch_insight.store import Store
from pytorch_insight.window import Window


def settings_for(tmp_path: Path, **env: str):  # noqa: ANN201 (pydantic Settings)
    settings = load_settings(db=str(tmp_path / "insight.db"), env=env)
    settings.http = settings.http.model_copy(update={"timeout": 2.0, "max_attempts": 3})
    return settings


def collect_one(store: Store, source: Source, window: Window) -> SourceStatus:
    [status] = run_collection(store, [source], window, NoProgress(), "pytorch", {})
    return status


__all__ = ["collect_one", "http_client", "settings_for"]
