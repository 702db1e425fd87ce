"""The tasks a `pytorch-insight worker` runs, on its own settings (database, tokens, model).

A task is idempotent: it upserts what it fetches, so running it again (a retry, a redelivery
after its worker died) stores every item once. Failures a retry may cure (the database or a
server down) are retried with exponential backoff; a task meant for another database is refused.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from contextlib import ExitStack, suppress
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import redis
from celery import Celery, Task
from pydantic import SecretStr

from pytorch_insight.clock import SystemClock
from pytorch_insight.collect import build_sources, fetch_guarded
from pytorch_insight.config import Profile, Settings, with_llm
from pytorch_insight.errors import InsightError
from pytorch_insight.github_ledger import open_ledger
from pytorch_insight.model import Item, SourceStatus
from pytorch_insight.redact import redact
from pytorch_insight.sources import Emit, Source
from pytorch_insight.sources.github import GitHubSource
from pytorch_insight.sources.github_plan import OrgPlan, Slice
from pytorch_insight.store import LLMLedger, Store, database_url
from pytorch_insight.window import Window, make_window
from pytorch_insight.workers.app import ANSWER_TASK, COLLECT_TASK, broker_url, hide_password
from pytorch_insight.workers.budget import BudgetTransport, Limit, SharedBudget
from pytorch_insight.workers.parts import narrow
from pytorch_insight.workers.writes import WriteBehind

log = logging.getLogger(__name__)
MAX_BACKOFF_S = 60.0
PROGRESS_EVERY_S = 0.5


class WrongStore(InsightError):
    """The job writes to another database than this worker: retrying cannot help."""


def store_identity(db: str) -> str:
    """Which database a path or URL names, comparable across processes: a SQLite file by its
    absolute path, a server URL without its password."""
    url = database_url(db)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return "sqlite:///" + str(Path(url.removeprefix("sqlite:///")).expanduser().resolve())
    return hide_password(url)


class Runtime:
    """What a worker process holds for all its tasks: settings, one store, the shared budget and
    one pool of connections to GitHub. A task's clients borrow the pool: a transport of their own
    cost each task a TLS context (~0.1 s of CPU) and new connections, more than a small
    repository's whole listing."""

    def __init__(self, settings: Settings) -> None:
        self.tokens = [os.environ[name] for name in settings.workers.github_tokens if os.environ.get(name)]
        # The sources see the first token (whether there is one decides their notes); each request
        # carries the one the budget hands out.
        first = SecretStr(self.tokens[0]) if self.tokens else None
        self.settings = settings.model_copy(update={"github_token": first})
        self.identity = store_identity(settings.db)
        workers = settings.workers
        self.ledger = open_ledger(settings.http.budget_file, settings.github_api_url, SystemClock())
        self.budget = SharedBudget(
            redis.Redis.from_url(broker_url(workers)),
            self.tokens,
            {
                "core": Limit(workers.core_requests, workers.core_period),
                "search": Limit(workers.search_requests, workers.search_period),
            },
            max_wait=settings.http.max_rate_limit_wait,
            ledger=self.ledger,
        )
        self.transport = httpx.HTTPTransport()
        self._store: Store | None = None
        self._lock = threading.Lock()

    def store(self) -> Store:
        with self._lock:
            if self._store is None:
                self._store = Store.open(self.settings.db)
            return self._store

    def check_store(self, wanted: str) -> None:
        if wanted != self.identity:
            raise WrongStore(f"this worker writes to {self.identity}, the job to {wanted}: start it with the same --db")

    def secrets(self) -> list[str]:
        return [*self.tokens, self.settings.db]

    def collect(self, job: dict[str, Any], progress: TaskProgress) -> list[dict[str, Any]]:
        self.check_store(job["store"])
        profile = narrow(Profile.model_validate(job["profile"]), job["part"])
        settings = self.settings.model_copy(update={"profile": profile})
        window = make_window(job["since"], job["until"])
        store = self.store()
        statuses = []
        with ExitStack() as stack:
            # Closed last: every write is done (or its error raised) before the task answers.
            writes = WriteBehind(store)
            stack.callback(writes.close)
            transport = BudgetTransport(settings.github_api_url, self.budget, inner=self.transport, ledger=self.ledger)
            sources = build_sources(settings, store, stack, (job["part"]["source"],), github_transport=transport)
            for source in sources:
                if isinstance(source, GitHubSource) and job["part"]["kind"] == "org-plan":
                    statuses.append(plan_status(source, window))
                    continue
                if isinstance(source, GitHubSource):
                    source.lookup = writes.lookup  # what it reads back includes what it just stored
                saved: set[str] = set()
                save = partial(save_noted, writes.save, saved)
                # As in-process: a source's unforeseen fault fails that source, not the task.
                fetched = fetch_guarded(source.name, partial(self._fetch, source, job, window, save, progress))
                # What it stored, so that the dispatcher reads those items for the focus pick while
                # the workers go on (workers/focus.py).
                statuses.append({**fetched.model_dump(mode="json"), "saved": sorted(saved)})
        return statuses

    @staticmethod
    def _fetch(source: Source, job: dict[str, Any], window: Window, save: Emit, progress: TaskProgress) -> SourceStatus:
        """A GitHub part leaves the focus details to the dispatcher's `details` parts, which pick
        the candidates across the whole window once, and an organisation's threads to its
        `threads` parts, one per repository (a job from an older dispatcher has neither)."""
        kind = job["part"]["kind"]
        if isinstance(source, GitHubSource) and kind == "details":
            return source.fetch_details(window, job["part"].get("ids", []), save, progress)
        if isinstance(source, GitHubSource) and kind == "threads":
            return source.fetch_threads(window, job["part"].get("ids", []), save, progress)
        if isinstance(source, GitHubSource) and kind == "org-slice":
            piece = Slice.from_json(job["part"]["slice"])
            return source.fetch(window, save, progress, details=False, org_threads=False, org_slices=[piece])
        if isinstance(source, GitHubSource) and job.get("focus") == "dispatcher":
            return source.fetch(window, save, progress, details=False, org_threads=False)
        return source.fetch(window, save, progress)


def save_noted(save: Emit, saved: set[str], batch: Sequence[Item]) -> None:
    save(batch)
    saved.update(item.id for item in batch)


def plan_status(source: GitHubSource, window: Window) -> dict[str, Any]:
    """An `org-plan` part: the organisation's slices (`slices`, for the dispatcher to send) beside
    the status of the counting; a fault leaves no slices, and the organisation is read whole."""
    planned: list[OrgPlan] = []

    def plan() -> SourceStatus:
        plans, status = source.plan_orgs(window)
        planned.extend(plans)
        return status

    status = fetch_guarded(source.name, plan).model_dump(mode="json")
    return {**status, "slices": [piece.as_json() for found in planned for piece in found.slices]}


class TaskProgress:
    """A source's progress as the task's state, which the dispatcher polls (at most twice a second)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.sent = 0.0
        self.step = ""

    def update(self, source: str, description: str, items: int) -> None:
        now = time.monotonic()
        if description == self.step and now - self.sent < PROGRESS_EVERY_S:
            return
        self.step, self.sent = description, now
        self.task.update_state(state="PROGRESS", meta={"step": description, "items": items})


def register_tasks(app: Celery, runtime: Runtime) -> None:
    attempts = runtime.settings.workers.task_attempts

    def retried(task: Task, exc: Exception) -> Exception:
        """The retry of a failing task, or its final error; messages lose any secret."""
        message = redact(f"{type(exc).__name__}: {exc}", runtime.secrets())
        if isinstance(exc, WrongStore) or task.request.retries + 1 >= attempts:
            return InsightError(message)
        backoff = min(MAX_BACKOFF_S, 2.0**task.request.retries)
        log.warning("task %s failed (%s); retry in %.0fs", task.request.id, message, backoff)
        return task.retry(exc=InsightError(message), countdown=backoff, max_retries=attempts - 1)

    @app.task(name=COLLECT_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
    def collect_part(self: Task, job: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            return runtime.collect(job, TaskProgress(self))
        except Exception as exc:
            raise retried(self, exc) from None

    @app.task(name=ANSWER_TASK, bind=True, acks_late=True, reject_on_worker_lost=True)
    def answer(self: Task, job: dict[str, Any]) -> dict[str, Any]:
        try:
            return runtime_answer(runtime, job)
        except Exception as exc:
            raise retried(self, exc) from None


def runtime_answer(runtime: Runtime, job: dict[str, Any]) -> dict[str, Any]:
    """One model answer into the shared cache (the dispatcher then reads it from there)."""
    from pytorch_insight.analysis.llm import LLMAnalyser, Unanswered  # the model's SDK only when a model is used

    runtime.check_store(job["store"])
    llm = with_llm(runtime.settings, job["model"], None, 1).llm
    assert llm is not None  # with_llm with a model always gives settings
    analyser = LLMAnalyser(llm, LLMLedger(runtime.store()), lang=job["lang"], role=job["role"])
    # Unanswered: the dispatcher's own analysis then falls back (or asks again) as it would in-process.
    with suppress(Unanswered):
        analyser.answer(job["data"], job["purpose"])
    usage = analyser.usage
    return {"calls": usage.calls, "tokens_in": usage.tokens_in, "tokens_out": usage.tokens_out}
