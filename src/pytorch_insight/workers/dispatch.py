"""The dispatcher: a collection split into tasks, sent to the workers, waited for with progress,
recorded as one run with one status per source, as the in-process collection records it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from celery import Celery, states
from celery.result import AsyncResult
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from pytorch_insight.collect import finish_run
from pytorch_insight.config import Settings
from pytorch_insight.errors import InsightError
from pytorch_insight.model import CoverageStatus, SourceStatus
from pytorch_insight.sources import Progress
from pytorch_insight.store import Store
from pytorch_insight.window import Window
from pytorch_insight.workers.app import COLLECT_TASK, broker_url, celery_app, hide_password
from pytorch_insight.workers.focus import FocusReader
from pytorch_insight.workers.parts import Part, focus_parts, merge_statuses, slice_parts, split_job, thread_parts
from pytorch_insight.workers.tasks import store_identity

log = logging.getLogger(__name__)

# A phase ends when its last task does: each poll's lag is paid once per phase (lists, threads,
# details), and a poll is one small read per unfinished task.
POLL_S = 0.1
# How often a waiting job checks that some worker still answers: a killed worker's task only
# comes back after the visibility timeout, and until then nothing else would say so.
WORKER_CHECK_S = 5.0
STATE_WORDS = {states.PENDING: "queued", states.STARTED: "started", states.RETRY: "failed, retrying"}
PING_TIMEOUT_S = 1.0


class Dispatcher:
    """Sends tasks to the broker of `settings.workers` and waits for them."""

    def __init__(self, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.sleep = sleep  # injectable: the tests poll without waiting
        self.app: Celery = celery_app(settings.workers)
        self.where = hide_password(broker_url(settings.workers))

    def any_worker(self) -> bool:
        """Whether some worker answers a ping: the first answer is enough (without a limit a ping
        waits out its whole timeout, a second before every job and every few seconds of it)."""
        return bool(self.app.control.ping(timeout=PING_TIMEOUT_S, limit=1))

    def check_workers(self) -> None:
        """No worker answering is an error worth saying before any work."""
        try:
            alive = self.any_worker()
        except (OperationalError, OSError) as exc:
            raise InsightError(f"cannot reach the workers' broker {self.where}: {exc}") from None
        if not alive:
            raise InsightError(
                f"no worker answers on {self.where}: start `pytorch-insight worker` (same --db and config)"
            )

    def send(self, task: str, job: dict[str, Any]) -> AsyncResult:
        try:
            return self.app.send_task(task, args=[job])
        except (OperationalError, OSError) as exc:
            raise InsightError(f"cannot reach the workers' broker {self.where}: {exc}") from None

    def wait(
        self,
        pending: dict[str, AsyncResult],
        progress: Progress | None = None,
        arrived: Callable[[bool, Any], None] | None = None,
    ) -> dict[str, tuple[bool, Any]]:
        """label -> (succeeded, result or error message), polling the tasks' states for progress;
        `arrived` is told each answer as it comes, while the other tasks run.

        Only a stop from outside (Ctrl-C, the job timeout) revokes the tasks still pending: a task
        that finished, whatever it returned, is an answer, never a reason to throw the others away.
        """
        deadline = time.monotonic() + self.settings.workers.job_timeout
        done: dict[str, tuple[bool, Any]] = {}
        seen: dict[str, str] = {}
        next_check, warned = time.monotonic() + WORKER_CHECK_S, False
        try:
            while len(done) < len(pending):
                for label, result in pending.items():
                    if label not in done:
                        self._poll(label, result, done, seen, progress)
                        if arrived is not None and label in done:
                            arrived(*done[label])
                if len(done) < len(pending) and time.monotonic() >= next_check:
                    next_check = time.monotonic() + WORKER_CHECK_S
                    alive = self.any_worker()
                    if not alive and not warned:
                        log.warning(
                            "no worker answers while %d task(s) are unfinished: start `pytorch-insight worker`; "
                            "a task whose worker died is delivered again %gs after it was taken "
                            "([workers] visibility_timeout)",
                            len(pending) - len(done),
                            self.settings.workers.visibility_timeout,
                        )
                    warned = not alive
                if len(done) < len(pending):
                    if time.monotonic() > deadline:
                        raise JobTimeout(
                            f"the workers did not finish within {self.settings.workers.job_timeout:g}s "
                            "([workers] job_timeout); what they stored is kept"
                        )
                    self.sleep(POLL_S)
        except (OperationalError, RedisError, OSError) as exc:
            raise InsightError(f"lost the workers' broker {self.where}: {exc}; what they stored is kept") from None
        except (KeyboardInterrupt, JobTimeout):
            for label, result in pending.items():
                if label not in done:
                    result.revoke()
            raise
        return done

    def _poll(
        self,
        label: str,
        result: AsyncResult,
        done: dict[str, tuple[bool, Any]],
        seen: dict[str, str],
        progress: Progress | None,
    ) -> None:
        """One read of the task's state and payload: read twice, a task finishing in between gives
        a state and a payload of two different moments (a PROGRESS state with the result list)."""
        state, info = task_state(result)
        if state in states.READY_STATES:
            ok = state == states.SUCCESS
            done[label] = (ok, info if ok else str(info))
            result.forget()
        elif progress is not None and state == "PROGRESS" and isinstance(info, dict):
            progress.update(label, str(info.get("step", "")), int(info.get("items", 0) or 0))
        elif progress is not None and state != seen.get(label):
            seen[label] = state
            progress.update(label, STATE_WORDS.get(state, state.lower()), 0)


class JobTimeout(InsightError):
    """The job outlived `[workers] job_timeout`."""


def task_state(result: AsyncResult) -> tuple[str, Any]:
    """(state, result or progress meta) from one read of the result backend."""
    meta = result.backend.get_task_meta(result.id)
    return str(meta.get("status", states.PENDING)), meta.get("result")


def collect_with_workers(
    settings: Settings,
    store: Store,
    window: Window,
    names: Sequence[str],
    progress: Progress,
    arguments: dict[str, object],
) -> list[SourceStatus]:
    """`run_collection`'s counterpart: one task per part, the same run record and statuses."""
    dispatcher = Dispatcher(settings)
    dispatcher.check_workers()
    parts = split_job(settings.profile, names)
    base = {
        "since": window.since.isoformat(),
        "until": window.until.isoformat(),
        "profile": settings.profile.model_dump(mode="json"),
        "store": store_identity(settings.db),
        # A GitHub part leaves the focus details to the dispatcher's `details` parts.
        "focus": "dispatcher",
    }
    run_id = store.start_run(
        "collect", settings.profile.name, base["since"], base["until"], {**arguments, "workers": True}
    )
    focus = FocusReader(store, window, settings.profile)
    try:
        # Lists, commits and threads in parallel (an organisation's threads per repository after
        # its search), the items each task stored read for the focus pick as it ends; then the
        # focus candidates of the whole window, picked once as in-process, and their details
        # spread over the workers.
        results = dispatcher.wait(send_parts(dispatcher, base, parts), progress, focus.arrived)
        # An organisation's slices, as its plan task cut them, spread over the workers.
        slices = slice_parts(parts, results)
        if slices:
            results |= dispatcher.wait(send_parts(dispatcher, base, slices), progress, focus.arrived)
            parts += slices
        if any(part.source == "github" for part in parts):
            if settings.profile.github.orgs:
                threads = thread_parts(list(store.items_in_window(window)), settings.profile)
                results |= dispatcher.wait(send_parts(dispatcher, base, threads), progress, focus.arrived)
                parts += threads
            details = focus_parts(focus.candidates())
            results |= dispatcher.wait(send_parts(dispatcher, base, details), progress)
            parts += details
    except BaseException:
        store.finish_run(run_id, "interrupted", 0, "stopped before the end")
        raise
    statuses = [source_status(name, parts, results, progress) for name in dict.fromkeys(p.source for p in parts)]
    for status in statuses:
        store.save_source_status(run_id, status, base["since"], base["until"])
    finish_run(store, run_id, statuses)
    return statuses


def send_parts(dispatcher: Dispatcher, base: dict[str, Any], parts: Sequence[Part]) -> dict[str, AsyncResult]:
    return {part.label: dispatcher.send(COLLECT_TASK, {**base, "part": part.as_json()}) for part in parts}


def source_status(
    name: str, parts: Sequence[Part], results: dict[str, tuple[bool, Any]], progress: Progress
) -> SourceStatus:
    statuses: list[SourceStatus] = []
    for part in (p for p in parts if p.source == name):
        ok, result = results[part.label]
        if ok:
            found = [SourceStatus.model_validate(status) for status in result]
        else:
            found = [SourceStatus(name=name, status=CoverageStatus.FAILED, note=f"{part.label}: task failed: {result}")]
        merged = merge_statuses(name, found)
        progress.update(part.label, f"done ({merged.status.value})", merged.items)
        statuses.append(merged)
    return merge_statuses(name, statuses)
