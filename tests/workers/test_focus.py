"""The focus pick read ahead while the workers collect: the candidates `focus_candidates` picks
from the window as stored at the end, whatever was read ahead, failed or changed meanwhile; and the
ids a task answers with, which the read-ahead reads."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.collect import focus_candidates
from pytorch_insight.config import load_profile, load_settings
from pytorch_insight.jsonl import import_lines
from pytorch_insight.model import Comment, CoverageStatus, SourceStatus
from pytorch_insight.pipeline.read import ItemReader
from pytorch_insight.sources import NoProgress
from pytorch_insight.store import Store
from pytorch_insight.workers.focus import FocusReader
from pytorch_insight.workers.parts import Part, focus_scope
from pytorch_insight.workers.tasks import Runtime, store_identity
from tests.conftest import SHARED_WINDOW
from tests.fakes.github import FakeGitHub
from tests.workers.conftest import worker_config
from tests.workers.test_collect_workers import profile_file


def answer(ids: list[str]) -> list[dict[str, Any]]:
    """A collect task's answer: its statuses, with the ids it stored."""
    return [{**SourceStatus(name="github", status=CoverageStatus.OK).model_dump(mode="json"), "saved": ids}]


def test_the_pick_read_ahead_is_the_pick_of_the_window_as_stored_at_the_end(
    shared_rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(str(tmp_path / "i.db"))
    import_lines(store, [json.dumps(row) for row in shared_rows])
    profile = load_profile("pytorch")
    ids = sorted(item.id for item in store.iter_items())
    focus = FocusReader(store, SHARED_WINDOW, profile)
    focus.arrived(True, answer(ids[: len(ids) // 2]))
    focus.arrived(False, "task failed: boom")  # what it stored is in ids[len(ids) // 2 :], never told
    # A later task (an organisation's threads) changes an item already read ahead.
    wants = focus_scope(profile)
    changed = next(item for item in store.get_items(ids[: len(ids) // 2]).values() if wants(item))
    comment = Comment(author="someone", body="Still crashes with a segfault on 2.7", date="2026-04-15")
    store.save_items([changed.model_copy(update={"comments": [*changed.comments, comment]})])

    window = [item for item in store.items_in_window(SHARED_WINDOW) if wants(item)]
    expected = [item.id for item in focus_candidates(window, profile)]
    reads: list[str] = []
    read = ItemReader.read
    monkeypatch.setattr(ItemReader, "read", lambda self, item: reads.append(item.id) or read(self, item))
    assert [item.id for item in focus.candidates()] == expected
    # Only the changed item and those of the failed task are read at the pick.
    unseen = {item.id for item in window if item.id not in ids[: len(ids) // 2]}
    assert sorted(reads) == sorted(unseen | {changed.id})


def test_a_task_answers_with_the_ids_it_stored(
    shared_rows: list[dict[str, Any]], tmp_path: Path, redis_url: str
) -> None:
    db = str(tmp_path / "i.db")
    with FakeGitHub(shared_rows, now=time.time) as fake:
        config = worker_config(tmp_path / "config.toml", redis_url)
        env = {"GITHUB_API_URL": fake.url}
        settings = load_settings(profile=str(profile_file(tmp_path)), db=db, config_file=str(config), env=env)
        job = {
            "since": SHARED_WINDOW.since.isoformat(),
            "until": SHARED_WINDOW.until.isoformat(),
            "profile": settings.profile.model_dump(mode="json"),
            "store": store_identity(db),
            "focus": "dispatcher",
            "part": Part("github", "repo", "pytorch/helion", "github pytorch/helion").as_json(),
        }
        [status] = Runtime(settings).collect(job, NoProgress())
    stored = {item.id for item in Store.open(db).iter_items()}
    assert stored and sorted(stored) == status["saved"]
