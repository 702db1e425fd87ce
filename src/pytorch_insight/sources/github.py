"""GitHub issues, pull requests, RFCs, landed commits and comment threads for one window.

Requests are spent in order of value, across all repositories: first the item lists (one
"updated since" listing for a window that just ended, window-bounded searches for older ones),
then landed commits, then comment threads, then the file lists of the focus PRs and the
timelines of the focus issues (which name fix PRs outside the window). When the budget runs out
everything fetched so far is already stored and the source reports itself partial.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytorch_insight.analysis.code import file_changes
from pytorch_insight.config import Profile
from pytorch_insight.errors import NotFound, RateLimited, RemoteError, Unauthorized
from pytorch_insight.http import HttpClient, RequestStats, Unreachable
from pytorch_insight.model import (
    Item,
    SourceStatus,
    github_item_id,
)
from pytorch_insight.sources import (
    Emit,
    Lookup,
    NoProgress,
    Progress,
    build_each,
    finished,
    skipped_note,
    unreachable_note,
)
from pytorch_insight.sources.commits import commit_to_item, fetch_commits
from pytorch_insight.sources.github_items import issue_to_item, merge_state
from pytorch_insight.sources.github_listing import (
    comment_from_payload,
    fetch_updated_since,
)
from pytorch_insight.sources.github_plan import OrgPlan, Slice, plan_org, slice_pages
from pytorch_insight.sources.github_search import (
    PER_PAGE,
    SEARCH_CAP,
    OrgScope,
    is_pull_request,
    repository_of,
    window_searches,
)
from pytorch_insight.sources.github_threads import attach, missing_threads, repository_comments
from pytorch_insight.sources.github_timeline import timeline_refs
from pytorch_insight.window import Window

FocusSelector = Callable[[list[Item]], list[Item]]
# Past this, "updated since the window began" drags in months of later activity: search instead.
RECENT_LAG_SECONDS = 3 * 86400
# Extra fields that only later phases fetch: a listing knows nothing of them, so they are kept.
FETCHED_EXTRAS = ("files", "timeline_refs")


@dataclass
class _RepoRun:
    repo: str
    items: dict[int, Item] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    fatal: bool = False
    org: str | None = None  # the organisation whose search found it: no listings of its own
    detailed: bool = False  # holds only focus candidates: other items are looked up in the store


@dataclass
class _OrgRun:
    scope: OrgScope
    problems: list[str] = field(default_factory=list)
    fatal: bool = False

    @property
    def repo(self) -> str:
        return f"org:{self.scope.org}"


def is_pull_item(item: Item) -> bool:
    """An RFC can be a PR too; a stored item has lost its payload but keeps its URL."""
    return is_pull_request(item.raw or {}) or item.kind == "pull_request" or "/pull/" in (item.url or "")


class GitHubSource:
    name = "github"

    def __init__(
        self,
        client: HttpClient,
        profile: Profile,
        lookup: Lookup,
        *,
        has_token: bool,
        search_cap: int = SEARCH_CAP,
        select_focus: FocusSelector | None = None,
    ) -> None:
        self.client = client
        self.select_focus = select_focus
        self.search_cap = search_cap
        self.profile = profile
        self.lookup = lookup
        self.has_token = has_token
        self.landed = re.compile(profile.github.landed_pattern)
        self._reset()

    def _reset(self) -> None:
        self.stats = RequestStats()
        self.notes: list[str] = []
        self.info: list[str] = []  # how the window was read (an organisation's plan): no problem
        self.skipped: list[str] = []  # records that do not fit an item (a date that is no date)
        self.rate_limited = False
        self.stored: set[str] = set()
        self._runs: list[_RepoRun] = []
        self._focus: set[str] | None = None
        self._org_threads = True
        self._slices: list[Slice] = []

    # -- the run ----------------------------------------------------------------------------------

    def fetch(
        self,
        window: Window,
        emit: Emit,
        progress: Progress,
        details: bool = True,
        org_threads: bool = True,
        org_slices: Sequence[Slice] = (),
    ) -> SourceStatus:
        """The window's lists, commits and threads, then (with `details`) the focus candidates'
        file lists and timelines. The workers collect without details, in parallel, and fetch the
        details of candidates picked once for the whole window (`fetch_details`); an
        organisation's threads, without `org_threads`, are left to tasks per repository
        (`fetch_threads`), and its slices, planned once (`plan_orgs`), are given one a task."""
        self._reset()
        self._org_threads = org_threads
        self._slices = list(org_slices)
        github = self.profile.github
        runs = [_RepoRun(repo) for repo in github.repositories]
        orgs = [_OrgRun(scope) for org in github.orgs if not (scope := OrgScope.of(org, github)).empty]
        self._runs = runs  # the organisations' searches add a run for each repository they find
        phases: list[tuple[Callable[..., None], Sequence[_RepoRun | _OrgRun]]] = [
            (self._collect_items, runs),
            (self._collect_org, orgs),
            (self._collect_commits, runs),
            (self._collect_comments, runs),
        ]
        if details:
            phases += [(self._collect_files, runs), (self._collect_timelines, runs)]
        stop = self._run_phases(phases, window, self._saver(emit), progress)
        return self._status([*orgs, *runs], stop)

    def plan_orgs(self, window: Window) -> tuple[list[OrgPlan], SourceStatus]:
        """How each organisation of the profile is best read in this window, as slices (the
        workers' tasks), and what the counting cost."""
        self._reset()
        plans: list[OrgPlan] = []
        scopes = [
            scope for org in self.profile.github.orgs if not (scope := OrgScope.of(org, self.profile.github)).empty
        ]
        runs = [_OrgRun(scope) for scope in scopes]

        def plan(run: _RepoRun | _OrgRun, window: Window, save: Emit, progress: Progress) -> None:
            assert isinstance(run, _OrgRun)
            plans.append(plan_org(self.client, self.stats, run.scope, window, self._is_recent(window)))
            self.info.append(plans[-1].note)

        stop = self._run_phases([(plan, runs)], window, lambda batch: None, NoProgress())
        return plans, self._status(runs, stop)

    def fetch_details(self, window: Window, ids: Sequence[str], emit: Emit, progress: Progress) -> SourceStatus:
        """The file lists and timelines of focus candidates already stored (picked across the
        whole window by whoever collected it); the items were counted when they were listed."""
        self._reset()
        self._focus = set(ids)
        runs = self._stored_runs(ids, detailed=True)
        phases = [(self._collect_files, runs), (self._collect_timelines, runs)]
        return self._rerun(phases, runs, window, emit, progress)

    def fetch_threads(self, window: Window, ids: Sequence[str], emit: Emit, progress: Progress) -> SourceStatus:
        """The comment threads of stored items (an organisation's, listed by another task)."""
        self._reset()
        runs = self._stored_runs(ids, detailed=False)
        return self._rerun([(self._collect_comments, runs)], runs, window, emit, progress)

    def _stored_runs(self, ids: Sequence[str], detailed: bool) -> list[_RepoRun]:
        by_repo: dict[str, _RepoRun] = {}
        for item in self.lookup(list(ids)).values():
            if item.repo is not None and item.number is not None:
                run = by_repo.setdefault(item.repo, _RepoRun(item.repo, detailed=detailed))
                run.items[item.number] = item
        self._runs = list(by_repo.values())
        return self._runs

    def _rerun(
        self,
        phases: Sequence[tuple[Callable[..., None], Sequence[_RepoRun | _OrgRun]]],
        runs: Sequence[_RepoRun],
        window: Window,
        emit: Emit,
        progress: Progress,
    ) -> SourceStatus:
        """Later phases over stored items: their items were counted by the task that listed them."""
        stop = self._run_phases(phases, window, self._saver(emit), progress)
        self.stored.clear()
        return self._status(runs, stop)

    def _saver(self, emit: Emit) -> Emit:
        def save(batch: Sequence[Item]) -> None:
            emit(batch)
            self.stored.update(item.id for item in batch)

        return save

    def _run_phases(
        self,
        phases: Sequence[tuple[Callable[..., None], Sequence[_RepoRun | _OrgRun]]],
        window: Window,
        save: Emit,
        progress: Progress,
    ) -> str:
        """Each phase over its targets in turn; a spent budget or a dead network stops them all
        (the note it returns), a repository's own failure only that repository."""
        stop = ""
        for phase, targets in phases:
            for run in list(targets):
                if run.fatal or stop:
                    continue
                try:
                    phase(run, window, save, progress)
                except RateLimited as exc:
                    stop, self.rate_limited = self._budget_note(exc), True
                except Unreachable as exc:  # no network: every further request would fail the same way
                    stop = unreachable_note(exc, "GITHUB_API_URL")
                except Unauthorized:
                    stop = (
                        "GitHub rejected the token (401): check GITHUB_TOKEN"
                        if self.has_token
                        else "GitHub asks for authentication (401) and no token was sent: set GITHUB_TOKEN"
                    )
                    run.fatal = True
                except NotFound:
                    what = "organisation" if isinstance(run, _OrgRun) else "repository"
                    run.problems.append(f"{run.repo}: {what} not found (404)")
                    run.fatal = True
                except RemoteError as exc:
                    run.problems.append(f"{run.repo}: {exc}")
        return stop

    def _budget_note(self, error: RateLimited) -> str:
        spent = f"rate limit reached after {self.stats.charged} requests; what was fetched is stored"
        if not self.has_token:
            return f"{spent}; set GITHUB_TOKEN for 5,000 requests an hour instead of 60, then re-run to fill the gaps"
        return f"{spent}; {error}; re-run after the reset to fill the gaps"

    def _status(self, runs: Sequence[_RepoRun | _OrgRun], stop: str) -> SourceStatus:
        problems = [problem for run in runs for problem in run.problems] + ([stop] if stop else []) + self.notes
        problems += skipped_note(self.skipped)
        # A spent budget is a pause, not a failure, even before the first item: a later run fills in.
        return finished(self.name, self.stats, len(self.stored), problems, paused=self.rate_limited, info=self.info)

    # -- phase 1: the item lists -----------------------------------------------------------------

    def _collect_items(self, run: _RepoRun, window: Window, save: Emit, progress: Progress) -> None:
        for payloads in self._item_pages(run.repo, window):
            found = build_each(
                payloads,
                lambda p: self.issue_to_item(p, run.repo),
                lambda p: f"{run.repo}#{p.get('number')}",
                self.skipped,
            )
            batch = [item for item in found if item.active_in(window)]
            batch = self._keep_what_is_known(batch)
            run.items.update((item.number, item) for item in batch if item.number is not None)
            save(batch)
            progress.update(self.name, f"{run.repo}: issues and pull requests", len(self.stored))

    def _item_pages(self, repo: str, window: Window) -> Iterator[list[dict[str, Any]]]:
        """The cheapest complete listing: for a window that just ended, everything updated since
        it began (the weekly run's case); for an older one, two searches bounded by the window."""
        if self._is_recent(window):
            yield from fetch_updated_since(self.client, self.stats, repo, window)
            return
        yield from window_searches(self.client, self.stats, f"repo:{repo}", window, self.notes, self.search_cap, repo)

    def _collect_org(self, run: _OrgRun, window: Window, save: Emit, progress: Progress) -> None:
        """Phase 1 for an organisation: its window searches, each item sorted into a run of its
        repository (from `repository_url`), whose threads, files and timelines the later phases
        then fetch as for any other repository."""
        by_repo = {known.repo.lower(): known for known in self._runs}
        scope = run.scope
        slices = [piece for piece in self._slices if piece.org.lower() == scope.org.lower()]
        note = ""
        if not slices:  # in-process: planned here; a worker's task is given its slice
            plan = plan_org(self.client, self.stats, scope, window, self._is_recent(window))
            slices, note = list(plan.slices), plan.note
        for payloads in slice_pages(self.client, self.stats, slices, window, self.notes, self.search_cap):
            wanted = [
                (payload, repo)
                for payload in payloads
                if isinstance(payload.get("number"), int) and scope.wants(repo := repository_of(payload))
            ]
            found = build_each(
                wanted,
                lambda pair: self.issue_to_item(*pair),
                lambda pair: f"{pair[1]}#{pair[0].get('number')}",
                self.skipped,
            )
            batch = self._keep_what_is_known([item for item in found if item.active_in(window)])
            for item in batch:
                assert item.repo is not None and item.number is not None  # set from the payload above
                target = by_repo.get(item.repo.lower())
                if target is None:
                    target = by_repo[item.repo.lower()] = _RepoRun(item.repo, org=scope.org)
                    self._runs.append(target)
                target.items[item.number] = item
            save(batch)
            progress.update(self.name, f"{run.repo}: issues and pull requests", len(self.stored))
        if note:
            self.info.append(note)

    def _keep_what_is_known(self, batch: list[Item]) -> list[Item]:
        """A listing knows nothing of threads, file lists, timelines or landed commits fetched earlier:
        keep them."""
        stored = self.lookup([item.id for item in batch])
        kept = []
        for item in batch:
            old = stored.get(item.id)
            if old is None:
                kept.append(item)
                continue
            update: dict[str, Any] = {"comments": old.comments}
            extra = old.model_extra or {}
            update.update((name, extra[name]) for name in FETCHED_EXTRAS if name in extra)
            if old.state == "merged" and item.state == "closed":
                update.update(state="merged", merged=old.merged, merge_evidence=extra.get("merge_evidence", ""))
            kept.append(item.model_copy(update=update))
        return kept

    def issue_to_item(self, payload: dict[str, Any], repo: str) -> Item:
        return issue_to_item(payload, repo, self.profile.github)

    def _merge_state(self, payload: dict[str, Any], labels: list[str]) -> tuple[str, str | None, str]:
        return merge_state(payload, labels, self.profile.github)

    # -- phase 2: landed commits ---------------------------------------------------------------

    def _collect_commits(self, run: _RepoRun, window: Window, save: Emit, progress: Progress) -> None:
        if run.org is not None:
            # One listing per repository would undo the organisation search's savings; merged PRs
            # carry `pull_request.merged_at`. A repository that lands through a bot goes in
            # `repositories`, where its landed commits are read.
            return
        for payloads in fetch_commits(self.client, self.stats, run.repo, window):
            commits = build_each(
                payloads,
                lambda p: commit_to_item(p, run.repo, self.landed),
                lambda p: f"{run.repo}@{str(p.get('sha'))[:12]}",
                self.skipped,
            )
            landed = [pr for commit in commits if (pr := self._mark_landed(run, commit))]
            save(commits + landed)
            progress.update(self.name, f"{run.repo}: landed commits", len(self.stored))

    def _mark_landed(self, run: _RepoRun, commit: Item) -> Item | None:
        """A landed commit is the proof that its PR merged, whatever GitHub's state says."""
        for relation in commit.relations:
            number = int(relation.target.rsplit("#", 1)[1])
            pr = run.items.get(number)
            if relation.target == github_item_id(run.repo, number) and pr and pr.state != "merged":
                evidence = {"merge_evidence": f"landed commit {commit.sha}"}
                updated = pr.model_copy(update={"state": "merged", "merged": commit.created, **evidence})
                run.items[number] = updated
                return updated
        return None

    # -- phase 3: comment threads --------------------------------------------------------------

    def _collect_comments(self, run: _RepoRun, window: Window, save: Emit, progress: Progress) -> None:
        if run.org is not None and not self._org_threads:
            return  # an organisation's repositories get tasks of their own (the workers' `fetch_threads`)
        missing = missing_threads(run.items)
        expected_pages = math.ceil(sum(item.comment_count or 0 for item in missing) / PER_PAGE)
        # The repository-wide listing also returns comments on items outside the window: it is taken
        # when it costs no more than the per-item requests even if those other comments double its
        # pages (two threads of a few comments: one listing page, which they would fill only past
        # a hundred comments on other items).
        if len(missing) >= 2 * max(1, expected_pages):
            repository_comments(self.client, self.stats, run.repo, run.items, window, self._is_recent(window), save)
            progress.update(self.name, f"{run.repo}: comment threads", len(self.stored))
        for item in sorted(
            missing_threads(run.items), key=lambda it: (it.kind != "rfc", -(it.comment_count or 0), it.number)
        ):
            url = f"/repos/{run.repo}/issues/{item.number}/comments"
            try:
                thread = [
                    comment_from_payload(payload)
                    for page in self.client.iter_pages(url, self.stats, params={"per_page": PER_PAGE})
                    for payload in page.data
                ]
            except NotFound:  # deleted or transferred since it was listed; the rest goes on
                self.notes.append(f"{run.repo}#{item.number}: gone (404) before its comments were read")
                continue
            attach(run.items, {item.number: thread}, save)
            progress.update(self.name, f"{run.repo}: comment threads", len(self.stored))

    # -- phase 4: files touched by the focus PRs ---------------------------------------------------

    def _focus_ids(self) -> set[str]:
        """The focus candidates of all repositories, chosen once per run (after the threads are in)."""
        if self._focus is not None:  # chosen already, or given (`fetch_details`)
            return self._focus
        if self.select_focus is None:
            return set()
        if self._focus is None:
            self._focus = {item.id for item in self.select_focus([i for r in self._runs for i in r.items.values()])}
        return self._focus

    def _collect_files(self, run: _RepoRun, window: Window, save: Emit, progress: Progress) -> None:
        """Only the focus PRs' file lists are worth their requests (the report names their functions)."""
        focus = self._focus_ids()
        for number, item in sorted(run.items.items()):
            is_pull = is_pull_item(item)
            if item.id not in focus or not is_pull or "files" in (item.model_extra or {}):
                continue
            url = f"/repos/{run.repo}/pulls/{number}/files"
            try:
                pages = self.client.iter_pages(url, self.stats, params={"per_page": PER_PAGE})
                payloads = [entry for page in pages for entry in page.data]
            except NotFound:  # deleted since it was listed; the other PRs go on
                self.notes.append(f"{run.repo}#{number}: gone (404) before its files were read")
                continue
            files = [change.model_dump() for change in file_changes(payloads)]
            run.items[number] = item.model_copy(update={"files": files})
            save([run.items[number]])
            progress.update(self.name, f"{run.repo}: files of focus pull requests", len(self.stored))

    # -- phase 5: timelines of the focus issues --------------------------------------------------

    def _collect_timelines(self, run: _RepoRun, window: Window, save: Emit, progress: Progress) -> None:
        """What the focus issues' timelines say about their fix: the PRs and commits that reference
        them (also those outside the window), and when they were closed or reopened.

        Fetched again on every run, since a fix may have landed since: an unchanged timeline comes
        back 304 from its stored ETag and costs nothing.
        """
        focus = self._focus_ids()
        for number, item in sorted(run.items.items()):
            if item.id not in focus or item.kind not in ("issue", "rfc"):
                continue
            url = f"/repos/{run.repo}/issues/{number}/timeline"
            try:
                pages = self.client.iter_pages(url, self.stats, params={"per_page": PER_PAGE})
                events = [event for page in pages for event in page.data]
            except NotFound:  # deleted or transferred since it was listed; the other issues go on
                self.notes.append(f"{run.repo}#{number}: gone (404) before its timeline was read")
                continue
            refs = timeline_refs(events, self._merge_state, run.repo, self._known(run, events))
            if refs == (item.model_extra or {}).get("timeline_refs"):
                continue  # known already (an unchanged timeline): nothing to store
            run.items[number] = item.model_copy(update={"timeline_refs": refs})
            save([run.items[number]])
            progress.update(self.name, f"{run.repo}: timelines of focus issues", len(self.stored))

    def _known(self, run: _RepoRun, events: list[Any]) -> dict[int, Item]:
        """The run's items a timeline may reference; a details-only run holds just the focus
        candidates, so the others it references are read from the store (a landed commit may
        have proved them merged)."""
        if not run.detailed:
            return run.items
        numbers = {
            issue["number"]
            for event in events
            if isinstance(event, dict) and isinstance(source := event.get("source"), dict)
            if isinstance(issue := source.get("issue"), dict) and isinstance(issue.get("number"), int)
            if repository_of(issue) == run.repo and issue["number"] not in run.items
        }
        stored = self.lookup([github_item_id(run.repo, number) for number in sorted(numbers)])
        return {**{item.number: item for item in stored.values() if item.number is not None}, **run.items}

    def _is_recent(self, window: Window) -> bool:
        return self.client.clock.now() - window.end.timestamp() <= RECENT_LAG_SECONDS
