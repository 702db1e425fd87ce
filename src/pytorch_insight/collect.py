"""Run the configured sources over one window and record how each of them did."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from functools import partial

import httpx

from pytorch_insight.clock import Clock, SystemClock
from pytorch_insight.config import Profile, Settings
from pytorch_insight.errors import StoreError
from pytorch_insight.github_ledger import open_ledger
from pytorch_insight.github_tokens import BudgetTransport, Limit, LocalBudget
from pytorch_insight.http import HttpClient
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.pipeline import Assessment, assess, select_focus
from pytorch_insight.sources import Progress, Source
from pytorch_insight.sources.discourse import DiscourseSource
from pytorch_insight.sources.events import EventsSource
from pytorch_insight.sources.feed import FeedSource
from pytorch_insight.sources.github import GitHubSource
from pytorch_insight.sources.slack import SlackSource
from pytorch_insight.store import Store
from pytorch_insight.window import Window

log = logging.getLogger(__name__)

SOURCE_NAMES = ("github", "forum", "blog", "events", "slack")
# A little more than the default focus list, so another reader's focus is mostly covered too.
FOCUS_CANDIDATES = 20


def http_client(
    settings: Settings,
    store: Store,
    clock: Clock | None,
    base_url: str = "",
    headers: dict[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
) -> HttpClient:
    return HttpClient(
        base_url=base_url,
        headers=headers,
        user_agent=settings.http.user_agent,
        timeout=settings.http.timeout,
        max_attempts=settings.http.max_attempts,
        max_rate_limit_wait=settings.http.max_rate_limit_wait,
        clock=clock,
        cache=store,
        transport=transport,
    )


def github_client(
    settings: Settings, store: Store, clock: Clock | None = None, transport: httpx.BaseTransport | None = None
) -> HttpClient:
    """`transport` carries the workers' shared budget (workers/budget.py). In-process, the tokens
    (`GITHUB_TOKENS`, or the one `GITHUB_TOKEN`) are used in turn, each within its budget
    (github_tokens.py) and within what GitHub last said is left of it to any process on this
    machine (github_ledger.py): two collectors on one token wait for its reset, unrefused."""
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    if settings.github_token:
        headers["Authorization"] = f"Bearer {settings.github_token.get_secret_value()}"
    if transport is None:
        clock = clock or SystemClock()
        ledger = open_ledger(settings.http.budget_file, settings.github_api_url, clock)
        workers = settings.workers
        budget = LocalBudget(
            [token.get_secret_value() for token in settings.github_tokens],
            {
                "core": Limit(workers.core_requests, workers.core_period),
                "search": Limit(workers.search_requests, workers.search_period),
            },
            max_wait=settings.http.max_rate_limit_wait,
            clock=clock,
            ledger=ledger,
        )
        transport = BudgetTransport(settings.github_api_url, budget, ledger=ledger)
    return http_client(settings, store, clock, settings.github_api_url, headers, transport)


def build_sources(
    settings: Settings,
    store: Store,
    stack: ExitStack,
    names: Sequence[str] = SOURCE_NAMES,
    clock: Clock | None = None,
    github_transport: httpx.BaseTransport | None = None,
) -> list[Source]:
    """The named sources of the profile, their HTTP clients closed when `stack` closes."""
    profile, sources = settings.profile, []
    if "github" in names:
        client = stack.enter_context(github_client(settings, store, clock, github_transport))
        sources.append(
            GitHubSource(
                client,
                profile,
                store.get_items,
                has_token=bool(settings.github_token),
                select_focus=lambda items: focus_candidates(items, profile),
            )
        )
    if "forum" in names:
        forum_headers = {"Accept": "application/json"}
        has_key = bool(settings.discourse_api_key and settings.discourse_api_username)
        if settings.discourse_api_key and settings.discourse_api_username:
            forum_headers |= {
                "Api-Key": settings.discourse_api_key.get_secret_value(),
                "Api-Username": settings.discourse_api_username,
            }
        for forum in profile.forums:
            client = stack.enter_context(http_client(settings, store, clock, forum.url, forum_headers))
            sources.append(DiscourseSource(client, forum, has_key=has_key))
    if "blog" in names:
        for feed in profile.feeds:
            sources.append(FeedSource(stack.enter_context(http_client(settings, store, clock)), feed))
    if "events" in names:
        for events in profile.events:
            sources.append(EventsSource(stack.enter_context(http_client(settings, store, clock)), events))
    if "slack" in names:
        slack = None
        if settings.slack_token:
            slack_headers = {"Authorization": f"Bearer {settings.slack_token.get_secret_value()}"}
            slack = stack.enter_context(http_client(settings, store, clock, settings.slack_api_url, slack_headers))
        sources.append(SlackSource(slack, profile.slack))
    return sources


def focus_candidates(items: Sequence[Item], profile: Profile, size: int = FOCUS_CANDIDATES) -> list[Item]:
    """The items of the stories most likely to make the focus list, whose extra details are worth
    fetching (the lead and the items it is told with)."""
    return candidates_of(assess(items, profile), profile, size)


def candidates_of(ranked: Sequence[Assessment], profile: Profile, size: int = FOCUS_CANDIDATES) -> list[Item]:
    """`focus_candidates` of items assessed already (`assess`, or `assess_read` of the default reader)."""
    by_id = {a.id: a for a in ranked}
    members = [member for story in select_focus(ranked, profile, size) for member in story.members]
    return [by_id[member].item for member in members[: 2 * size]]  # a long ghstack must not take the budget


def run_collection(
    store: Store,
    sources: Sequence[Source],
    window: Window,
    progress: Progress,
    profile: str,
    arguments: dict[str, object],
) -> list[SourceStatus]:
    """Fetch every source in turn; one failing source never stops the others."""
    run_id = store.start_run("collect", profile, window.since.isoformat(), window.until.isoformat(), arguments)
    statuses: list[SourceStatus] = []
    try:
        for source in sources:
            # Every source gets its progress line when it starts, also one that fails before
            # reporting any progress of its own (no network), and says how it ended.
            progress.update(source.name, "starting", 0)
            log.info("%s: collecting %s – %s", source.name, window.since, window.until)
            status = fetch_guarded(source.name, partial(source.fetch, window, store.save_items, progress))
            progress.update(source.name, f"done ({status.status.value})", status.items)
            log.info(
                "%s: %s (items: %d, requests: %d, 304s: %d)",
                status.name,
                status.status.value,
                status.items,
                status.requests,
                status.not_modified,
            )
            store.save_source_status(run_id, status, window.since.isoformat(), window.until.isoformat())
            statuses.append(status)
    except BaseException:
        store.finish_run(run_id, "interrupted", sum(s.requests for s in statuses), "stopped before the end")
        raise
    finish_run(store, run_id, statuses)
    return statuses


def fetch_guarded(name: str, fetch: Callable[[], SourceStatus]) -> SourceStatus:
    """One source's fetch; a fault of its own (a record no rule foresaw) fails that source alone.

    Sources skip malformed records themselves; this is the last line, so that data from a
    server can never stop the later sources or end the run with a traceback. What was stored
    before the fault stays stored. Interrupts, the store's own errors and exits still propagate."""
    try:
        return fetch()
    except (StoreError, KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 (the boundary between one source and the others)
        # The traceback only with -vv: the note says what happened, and a run never ends in one.
        log.debug("%s: stopped by an unexpected error", name, exc_info=True)
        note = f"stopped by an unexpected error ({type(exc).__name__}: {str(exc)[:200]}); what was fetched is stored"
        return SourceStatus(name=name, status=CoverageStatus.FAILED, note=note)


def finish_run(store: Store, run_id: int, statuses: Sequence[SourceStatus]) -> None:
    """Close a run with the overall status, the requests and the notes of its sources."""
    store.finish_run(
        run_id,
        overall_status(statuses),
        sum(s.requests for s in statuses),
        "; ".join(f"{s.name}: {s.note}" for s in statuses if s.note),
    )


def overall_status(statuses: Sequence[SourceStatus]) -> str:
    kinds = {status.status for status in statuses}
    if CoverageStatus.FAILED in kinds:
        return "failed" if kinds == {CoverageStatus.FAILED} else "partial"
    return "partial" if CoverageStatus.PARTIAL in kinds else "ok"
