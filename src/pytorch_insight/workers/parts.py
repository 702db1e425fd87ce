"""How a collection splits into tasks, and how their statuses add up to one per source.

A part is one source narrowed to one of its targets: a GitHub repository or organisation, a
forum, a feed, a calendar; Slack stays whole. The task narrows the profile the same way, so it
runs the in-process source code unchanged on its share. GitHub's parts collect lists, commits
and threads only; the focus candidates are then picked once for the whole window, as
in-process, and their file lists and timelines fetched by `details` parts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pytorch_insight.config import Profile
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.sources.github_listing import issue_comment_count
from pytorch_insight.sources.github_plan import Slice
from pytorch_insight.sources.github_search import OrgScope

# The profile list each source reads its targets from.
TARGET_LISTS = {"forum": "forums", "blog": "feeds", "events": "events"}
# Focus candidates per details task: small enough that four workers share the usual 20-40.
DETAILS_PER_TASK = 4


@dataclass(frozen=True)
class Part:
    source: str
    kind: str  # repo, org, org-plan, org-slice, index (into the source's profile list) or all
    target: str  # owner/name, an organisation, a list index, or ""
    label: str  # what progress lines call it
    ids: tuple[str, ...] = ()  # the focus candidates of a `details` part
    slice: Slice | None = None  # an `org-slice` part's share of its organisation

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"source": self.source, "kind": self.kind, "target": self.target}
        if self.slice is not None:
            found["slice"] = self.slice.as_json()
        return {**found, "ids": list(self.ids)} if self.ids else found


def split_job(profile: Profile, names: Sequence[str]) -> list[Part]:
    parts: list[Part] = []
    for name in names:
        if name == "github":
            parts += [Part("github", "repo", repo, f"github {repo}") for repo in profile.github.repositories]
            # An organisation is planned first, then read in slices the workers share (`slice_parts`).
            parts += [Part("github", "org-plan", org, f"github {org} plan") for org in profile.github.orgs]
        elif name in TARGET_LISTS:
            for index, target in enumerate(getattr(profile, TARGET_LISTS[name])):
                parts.append(Part(name, "index", str(index), f"{name} {target.name}"))
        else:
            parts.append(Part(name, "all", "", name))
    return parts


def slice_parts(parts: Sequence[Part], results: dict[str, tuple[bool, Any]]) -> list[Part]:
    """An organisation's slices, as its plan task returned them, one task each; an organisation
    whose plan failed or gave none is read whole by one task, as before planning."""
    found: list[Part] = []
    for part in (p for p in parts if p.kind == "org-plan"):
        ok, result = results[part.label]
        slices = [Slice.from_json(piece) for status in result for piece in status.get("slices", [])] if ok else []
        found += [Part("github", "org-slice", part.target, f"github {piece.label}", slice=piece) for piece in slices]
        if not slices:
            found.append(Part("github", "org", part.target, f"github {part.target}"))
    return found


def thread_parts(items: Sequence[Item], profile: Profile) -> list[Part]:
    """An organisation's comment threads as one task per repository that has threads missing,
    so the workers share what is most of an organisation's requests (its search is one task)."""
    github = profile.github
    scopes = [OrgScope.of(org, github) for org in github.orgs]
    listed = {repo.lower() for repo in github.repositories}
    by_repo: dict[str, list[str]] = {}
    for item in items:
        repo = item.repo
        if item.source != "github" or item.kind == "commit" or repo is None or repo.lower() in listed:
            continue
        if any(scope.wants(repo) for scope in scopes) and (item.comment_count or 0) > issue_comment_count(item):
            by_repo.setdefault(repo, []).append(item.id)
    return [
        Part("github", "threads", repo, f"github {repo} threads", tuple(ids)) for repo, ids in sorted(by_repo.items())
    ]


def focus_scope(profile: Profile) -> Callable[[Item], bool]:
    """Whether an item is one of the GitHub issues and pull requests of the profile's repositories
    and organisations: the focus candidates are picked among all of them at once, as in-process."""
    github = profile.github
    scopes = [OrgScope.of(org, github) for org in github.orgs]
    listed = {repo.lower() for repo in github.repositories}

    def wants(item: Item) -> bool:
        if item.source != "github" or item.kind == "commit" or item.repo is None:
            return False
        return item.repo.lower() in listed or any(scope.wants(item.repo) for scope in scopes)

    return wants


def focus_parts(candidates: Sequence[Item], chunk: int = DETAILS_PER_TASK) -> list[Part]:
    """The details of the window's focus candidates as tasks: grouped by repository, a few
    candidates a task so the workers share them, the fullest tasks first."""
    by_repo: dict[str, list[str]] = {}
    for item in candidates:
        by_repo.setdefault(item.repo or "", []).append(item.id)
    chunks = [ids[start : start + chunk] for ids in by_repo.values() for start in range(0, len(ids), chunk)]
    # The largest first: the workers take tasks in the order they are sent, and the phase ends
    # with its last task, so small ones fill in at its end rather than one large one running alone.
    chunks.sort(key=len, reverse=True)
    return [
        Part("github", "details", "", f"github focus details {index}/{len(chunks)}", tuple(ids))
        for index, ids in enumerate(chunks, 1)
    ]


def narrow(profile: Profile, part: dict[str, Any]) -> Profile:
    """The profile with only the part's target left for its source (a details part reads only
    stored items: the whole profile)."""
    source, kind, target = part["source"], part["kind"], part["target"]
    if source == "github" and kind in ("details", "threads"):
        return profile
    if source == "github":
        owner = target.lower() if kind.startswith("org") else None
        update: dict[str, Any] = {
            "repositories": [target] if kind == "repo" else [],
            "orgs": [target] if owner else [],
            "include_repos": [name for name in profile.github.include_repos if name.split("/")[0].lower() == owner],
            "exclude_repos": [name for name in profile.github.exclude_repos if name.split("/")[0].lower() == owner],
        }
        return profile.model_copy(update={"github": profile.github.model_copy(update=update)})
    if source in TARGET_LISTS:
        field = TARGET_LISTS[source]
        return profile.model_copy(update={field: [getattr(profile, field)[int(target)]]})
    return profile


def merge_statuses(name: str, statuses: Sequence[SourceStatus]) -> SourceStatus:
    """One source's status from its parts': ok when all were, failed when all failed, skipped when
    all were skipped, partial otherwise; counts add up, notes join."""
    kinds = {status.status for status in statuses}
    overall = kinds.pop() if len(kinds) == 1 else CoverageStatus.PARTIAL if kinds else CoverageStatus.SKIPPED
    return SourceStatus(
        name=name,
        status=overall,
        items=sum(status.items for status in statuses),
        requests=sum(status.requests for status in statuses),
        not_modified=sum(status.not_modified for status in statuses),
        note="; ".join(status.note for status in statuses if status.note),
    )
