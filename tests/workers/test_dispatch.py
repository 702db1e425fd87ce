"""The dispatcher's wait loop against scripted task results, without a broker: what it makes of a
task whose state changes while it is being read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from celery import states

from pytorch_insight.config import load_settings
from pytorch_insight.sources import Progress
from pytorch_insight.workers.dispatch import Dispatcher

RESULT = [{"name": "github", "status": "ok", "items": 3}]


class ScriptedResult:
    """An AsyncResult whose backend answers each read with the next state of a script, as a task
    that moves on between two reads does; every way of reading (state, info, result, the backend's
    meta) takes the next answer."""

    def __init__(self, script: list[tuple[str, Any]]) -> None:
        self.script = script
        self.reads = 0
        self.revoked = False
        self.id = "task-id"
        self.backend = self

    def _next(self) -> dict[str, Any]:
        status, result = self.script[min(self.reads, len(self.script) - 1)]
        self.reads += 1
        return {"status": status, "result": result}

    def get_task_meta(self, task_id: str) -> dict[str, Any]:
        return self._next()

    @property
    def state(self) -> str:
        return self._next()["status"]

    @property
    def info(self) -> Any:
        return self._next()["result"]

    @property
    def result(self) -> Any:
        return self._next()["result"]

    def forget(self) -> None:
        pass

    def revoke(self) -> None:
        self.revoked = True


class Lines(Progress):
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, int]] = []

    def update(self, source: str, description: str, items: int) -> None:
        self.lines.append((source, description, items))


def dispatcher(tmp_path: Path) -> Dispatcher:
    settings = load_settings(db=str(tmp_path / "i.db"), env={"PYTORCH_INSIGHT_BROKER": "redis://127.0.0.1:9/0"})
    return Dispatcher(settings, sleep=lambda _seconds: None)


def test_a_task_finishing_between_two_reads_is_a_success_and_revokes_nothing(tmp_path: Path) -> None:
    progress = {"step": "lists", "items": 2}
    # The task reports progress, then finishes while its progress is being read.
    racing = ScriptedResult([("PROGRESS", progress), ("PROGRESS", progress), (states.SUCCESS, RESULT)])
    slow = ScriptedResult(
        [(states.STARTED, None), (states.STARTED, None), (states.STARTED, None), (states.SUCCESS, [])]
    )
    lines = Lines()
    done = dispatcher(tmp_path).wait({"github a": racing, "github b": slow}, lines)
    assert done == {"github a": (True, RESULT), "github b": (True, [])}
    assert not racing.revoked and not slow.revoked
    assert ("github a", "lists", 2) in lines.lines


def test_a_failed_task_is_its_message_and_the_others_go_on(tmp_path: Path) -> None:
    failed = ScriptedResult([(states.FAILURE, RuntimeError("boom"))])
    other = ScriptedResult([(states.PENDING, None), (states.SUCCESS, RESULT)])
    done = dispatcher(tmp_path).wait({"a": failed, "b": other})
    assert done == {"a": (False, "boom"), "b": (True, RESULT)}
    assert not other.revoked


def test_ctrl_c_revokes_what_is_still_pending(tmp_path: Path) -> None:
    finished = ScriptedResult([(states.SUCCESS, RESULT)])
    pending = ScriptedResult([(states.PENDING, None)])

    def interrupt(_seconds: float) -> None:
        raise KeyboardInterrupt

    settings = load_settings(db=str(tmp_path / "i.db"), env={"PYTORCH_INSIGHT_BROKER": "redis://127.0.0.1:9/0"})
    with pytest.raises(KeyboardInterrupt):
        Dispatcher(settings, sleep=interrupt).wait({"a": finished, "b": pending})
    assert pending.revoked and not finished.revoked


def test_each_answer_is_told_once_as_it_arrives_while_the_others_run(tmp_path: Path) -> None:
    quick = ScriptedResult([(states.SUCCESS, RESULT)])
    slow = ScriptedResult([(states.STARTED, None), (states.STARTED, None), (states.FAILURE, RuntimeError("boom"))])
    told: list[tuple[bool, Any, int]] = []
    done = dispatcher(tmp_path).wait(
        {"quick": quick, "slow": slow}, arrived=lambda ok, result: told.append((ok, result, slow.reads))
    )
    assert done == {"quick": (True, RESULT), "slow": (False, "boom")}
    # The quick answer is told before the slow task ends (its third read), not after the wait.
    assert told == [(True, RESULT, 0), (False, "boom", 3)]
