"""GitHub REST response bodies built from item JSONL rows, in the shapes GitHub really returns.

The shared threads carry dates but no times of day, reactions or close dates; those are
synthesised here (created at 12:00 UTC, comments a minute apart, closed six hours after
creation) and every other unknown field is left at GitHub's neutral value.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_day(text: str) -> datetime:
    if "T" in text:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    return datetime.fromisoformat(text).replace(hour=12, tzinfo=timezone.utc)


def stable_int(*parts: object, digits: int = 9) -> int:
    digest = hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()
    return int(digest[:12], 16) % 10**digits + 10**digits


def user(login: str | None, api: str) -> dict[str, Any]:
    login = login or "ghost"  # GitHub shows deleted accounts as "ghost"
    base = f"{api}/users/{login}"
    return {
        "login": login,
        "id": stable_int("user", login),
        "node_id": f"U_{stable_int('node', login)}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{stable_int('user', login)}?v=4",
        "gravatar_id": "",
        "url": base,
        "html_url": f"https://github.com/{login}",
        "followers_url": f"{base}/followers",
        "following_url": f"{base}/following{{/other_user}}",
        "gists_url": f"{base}/gists{{/gist_id}}",
        "starred_url": f"{base}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{base}/subscriptions",
        "organizations_url": f"{base}/orgs",
        "repos_url": f"{base}/repos",
        "events_url": f"{base}/events{{/privacy}}",
        "received_events_url": f"{base}/received_events",
        "type": "Bot" if login.endswith("[bot]") else "User",
        "user_view_type": "public",
        "site_admin": False,
    }


def reactions(url: str) -> dict[str, Any]:
    return {
        "url": f"{url}/reactions",
        "total_count": 0,
        "+1": 0,
        "-1": 0,
        "laugh": 0,
        "hooray": 0,
        "confused": 0,
        "heart": 0,
        "rocket": 0,
        "eyes": 0,
    }


@dataclass
class Thread:
    """One issue or PR with its synthesised times, as the fake serves it."""

    repo: str
    number: int
    row: dict[str, Any]
    created: datetime
    closed: datetime | None
    merged: datetime | None
    comments: list[tuple[int, datetime, dict[str, Any]]] = field(default_factory=list)

    @property
    def is_pull(self) -> bool:
        return self.row.get("kind") == "pull_request"

    @property
    def updated(self) -> datetime:
        times = [self.created] + [moment for _, moment, _ in self.comments]
        return max(times + ([self.closed] if self.closed else []))

    @property
    def landed(self) -> bool:
        return self.is_pull and (self.row.get("state") == "merged" or bool(self.row.get("landed")))


def thread_from_row(row: dict[str, Any]) -> Thread:
    created = parse_day(row["created"])
    state = row.get("state") or "open"
    closed = (
        parse_day(row["closed"])
        if row.get("closed")
        else (created + timedelta(hours=6) if state in ("closed", "merged") else None)
    )
    landed = state == "merged" or bool(row.get("landed"))
    merged = parse_day(row["merged"]) if row.get("merged") else (closed if landed else None)
    thread = Thread(row["repo"], row["number"], row, created, closed, merged)
    for index, comment in enumerate(row.get("comments") or []):
        if comment.get("kind", "comment") != "comment":
            continue  # reviews live on other endpoints, which the collector does not read
        moment = parse_day(comment["date"]) + timedelta(minutes=index)
        thread.comments.append((stable_int("comment", row["repo"], row["number"], index, digits=10), moment, comment))
    return thread


def issue_payload(thread: Thread, api: str) -> dict[str, Any]:
    row = thread.row
    url = f"{api}/repos/{thread.repo}/issues/{thread.number}"
    kind = "pull" if thread.is_pull else "issues"
    html = row.get("url") or f"https://github.com/{thread.repo}/{kind}/{thread.number}"
    state = "closed" if thread.closed else "open"
    payload: dict[str, Any] = {
        "url": url,
        "repository_url": f"{api}/repos/{thread.repo}",
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": html,
        "id": stable_int("issue", thread.repo, thread.number),
        "node_id": f"I_{stable_int('node', thread.repo, thread.number)}",
        "number": thread.number,
        "title": row.get("title") or "",
        "user": user(row.get("author"), api),
        "labels": [label_payload(name, thread.repo, api) for name in row.get("labels") or []],
        "state": state,
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": len(thread.comments),
        "created_at": stamp(thread.created),
        "updated_at": stamp(thread.updated),
        "closed_at": stamp(thread.closed) if thread.closed else None,
        "author_association": "CONTRIBUTOR",
        "active_lock_reason": None,
        "body": row.get("body"),
        "closed_by": None,
        "reactions": reactions(url),
        "timeline_url": f"{url}/timeline",
        "performed_via_github_app": None,
        "state_reason": ("completed" if thread.closed else None),
    }
    payload.update(row.get("payload") or {})  # fields a test sets as a broken or hostile server sends them
    if thread.is_pull:
        payload["draft"] = False
        payload["pull_request"] = {
            "url": f"{api}/repos/{thread.repo}/pulls/{thread.number}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "merged_at": stamp(thread.merged) if thread.merged and row.get("state") == "merged" else None,
        }
    return payload


def label_payload(name: str, repo: str, api: str) -> dict[str, Any]:
    return {
        "id": stable_int("label", name),
        "node_id": f"LA_{stable_int('label-node', name)}",
        "url": f"{api}/repos/{repo}/labels/{name.replace(' ', '%20')}",
        "name": name,
        "color": "ededed",
        "default": False,
        "description": None,
    }


def comment_payload(
    thread: Thread, comment_id: int, moment: datetime, comment: dict[str, Any], api: str
) -> dict[str, Any]:
    issue_url = f"{api}/repos/{thread.repo}/issues/{thread.number}"
    html = thread.row.get("url") or f"https://github.com/{thread.repo}/issues/{thread.number}"
    return {
        "url": f"{api}/repos/{thread.repo}/issues/comments/{comment_id}",
        "html_url": f"{html}#issuecomment-{comment_id}",
        "issue_url": issue_url,
        "id": comment_id,
        "node_id": f"IC_{comment_id}",
        "user": user(comment.get("author"), api),
        "created_at": stamp(moment),
        "updated_at": stamp(moment),
        "author_association": "CONTRIBUTOR",
        "body": comment.get("body") or "",
        "reactions": reactions(f"{api}/repos/{thread.repo}/issues/comments/{comment_id}"),
        "performed_via_github_app": None,
    }


def landed_sha(thread: Thread) -> str:
    return hashlib.sha1(f"{thread.repo}#{thread.number}".encode()).hexdigest()


def commit_payload(thread: Thread, api: str) -> dict[str, Any]:
    sha = landed_sha(thread)
    assert thread.merged is not None
    when = stamp(thread.merged)
    author = thread.row.get("author") or "ghost"
    message = (
        f"{thread.row.get('title') or ''} (#{thread.number})\n\n{(thread.row.get('body') or '')[:500]}\n\n"
        f"Pull Request resolved: https://github.com/{thread.repo}/pull/{thread.number}\nApproved by: https://github.com/reviewer"
    )
    person = {"name": author, "email": f"{author}@users.noreply.github.com", "date": when}
    return {
        "sha": sha,
        "node_id": f"C_{sha[:20]}",
        "commit": {
            "author": person,
            "committer": {**person, "name": "PyTorch MergeBot"},
            "message": message,
            "tree": {"sha": sha[::-1], "url": f"{api}/repos/{thread.repo}/git/trees/{sha[::-1]}"},
            "url": f"{api}/repos/{thread.repo}/git/commits/{sha}",
            "comment_count": 0,
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        },
        "url": f"{api}/repos/{thread.repo}/commits/{sha}",
        "html_url": f"https://github.com/{thread.repo}/commit/{sha}",
        "comments_url": f"{api}/repos/{thread.repo}/commits/{sha}/comments",
        "author": user(author, api),
        "committer": user("pytorchmergebot", api),
        "parents": [],
    }


def pull_payload(thread: Thread, api: str, detailed: bool = False) -> dict[str, Any]:
    """A pull request as the list endpoint shows it, or with the single-PR fields when `detailed`."""
    issue = issue_payload(thread, api)
    url = f"{api}/repos/{thread.repo}/pulls/{thread.number}"
    head = {
        "label": f"{issue['user']['login']}:branch-{thread.number}",
        "ref": f"branch-{thread.number}",
        "sha": landed_sha(thread)[::-1],
        "user": issue["user"],
        "repo": None,
    }
    base = {
        "label": f"{thread.repo.split('/')[0]}:main",
        "ref": "main",
        "sha": "0" * 40,
        "user": user(thread.repo.split("/")[0], api),
        "repo": None,
    }
    merged_at = issue["pull_request"]["merged_at"]
    payload: dict[str, Any] = {
        "url": url,
        "id": issue["id"],
        "node_id": issue["node_id"],
        "html_url": issue["html_url"],
        "diff_url": issue["pull_request"]["diff_url"],
        "patch_url": issue["pull_request"]["patch_url"],
        "issue_url": issue["url"],
        "number": thread.number,
        "state": issue["state"],
        "locked": False,
        "title": issue["title"],
        "user": issue["user"],
        "body": issue["body"],
        "created_at": issue["created_at"],
        "updated_at": issue["updated_at"],
        "closed_at": issue["closed_at"],
        "merged_at": merged_at,
        "merge_commit_sha": landed_sha(thread) if thread.landed else None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "labels": issue["labels"],
        "milestone": None,
        "draft": False,
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": f"{api}/repos/{thread.repo}/pulls/comments{{/number}}",
        "comments_url": issue["comments_url"],
        "statuses_url": f"{api}/repos/{thread.repo}/statuses/{head['sha']}",
        "head": head,
        "base": base,
        "_links": {
            "self": {"href": url},
            "html": {"href": issue["html_url"]},
            "issue": {"href": issue["url"]},
            "comments": {"href": issue["comments_url"]},
            "review_comments": {"href": f"{url}/comments"},
            "review_comment": {"href": f"{api}/repos/{thread.repo}/pulls/comments{{/number}}"},
            "commits": {"href": f"{url}/commits"},
            "statuses": {"href": f"{api}/repos/{thread.repo}/statuses/{head['sha']}"},
        },
        "author_association": issue["author_association"],
        "auto_merge": None,
        "active_lock_reason": None,
    }
    if detailed:
        payload.update(
            {
                "merged": merged_at is not None,
                "mergeable": None,
                "rebaseable": None,
                "mergeable_state": "unknown",
                "merged_by": None,
                "comments": len(thread.comments),
                "review_comments": 0,
                "maintainer_can_modify": False,
                "commits": 1,
                "additions": 0,
                "deletions": 0,
                "changed_files": 0,
            }
        )
    return payload


def repo_payload(repo: str, api: str) -> dict[str, Any]:
    owner, name = repo.split("/")
    return {
        "id": stable_int("repo", repo),
        "node_id": f"R_{stable_int('repo-node', repo)}",
        "name": name,
        "full_name": repo,
        "private": False,
        "owner": user(owner, api),
        "html_url": f"https://github.com/{repo}",
        "url": f"{api}/repos/{repo}",
        "default_branch": "main",
        "has_issues": True,
    }


def file_payload(entry: dict[str, Any], repo: str, api: str) -> dict[str, Any]:
    """One entry of a PR's file list; rows may carry `files` (the shared threads never do)."""
    name = entry["filename"]
    sha = hashlib.sha1(f"{repo}:{name}".encode()).hexdigest()
    return {
        "sha": sha,
        "filename": name,
        "status": entry.get("status", "modified"),
        "additions": entry.get("additions", 1),
        "deletions": entry.get("deletions", 0),
        "changes": entry.get("additions", 1) + entry.get("deletions", 0),
        "blob_url": f"https://github.com/{repo}/blob/{sha}/{name}",
        "raw_url": f"https://github.com/{repo}/raw/{sha}/{name}",
        "contents_url": f"{api}/repos/{repo}/contents/{name}?ref={sha}",
        "patch": entry.get("patch", ""),
    }


# -- the issue timeline (GET /repos/{o}/{r}/issues/{n}/timeline) ----------------------------------


def event_payload(
    thread: Thread,
    event: str,
    moment: datetime,
    actor: str | None,
    api: str,
    commit_id: str | None = None,
    commit_repo: str | None = None,
) -> dict[str, Any]:
    """An issue event as the timeline shows it (`closed`, `reopened`, `referenced`, `connected` ...)."""
    event_id = stable_int("event", thread.repo, thread.number, event, stamp(moment), commit_id, digits=10)
    payload: dict[str, Any] = {
        "id": event_id,
        "node_id": f"{_EVENT_NODE.get(event, 'IE')}_{event_id}",
        "url": f"{api}/repos/{thread.repo}/issues/events/{event_id}",
        "actor": user(actor, api),
        "event": event,
        "commit_id": commit_id,
        "commit_url": f"{api}/repos/{commit_repo or thread.repo}/commits/{commit_id}" if commit_id else None,
        "created_at": stamp(moment),
        "performed_via_github_app": None,
    }
    if event == "closed":
        payload["state_reason"] = "completed"
    elif event == "reopened":
        payload["state_reason"] = "reopened"
    return payload


_EVENT_NODE = {"closed": "CE", "reopened": "REE", "referenced": "REFE", "connected": "CNE"}


def cross_reference_payload(source: Thread, moment: datetime, actor: str | None, api: str) -> dict[str, Any]:
    """`source` mentioned the timeline's issue: GitHub embeds the whole referencing issue (or PR)."""
    return {
        "actor": user(actor, api),
        "created_at": stamp(moment),
        "updated_at": stamp(moment),
        "source": {
            "type": "issue",
            "issue": {**issue_payload(source, api), "repository": repo_payload(source.repo, api)},
        },
        "event": "cross-referenced",
    }


def commented_payload(
    thread: Thread, comment_id: int, moment: datetime, comment: dict[str, Any], api: str
) -> dict[str, Any]:
    """A comment as the timeline shows it: the comment object plus `event` and `actor`."""
    payload = comment_payload(thread, comment_id, moment, comment, api)
    return {**payload, "event": "commented", "actor": payload["user"]}


def explicit_event(thread: Thread, entry: dict[str, Any], index: int, api: str) -> dict[str, Any]:
    """One entry of a row's explicit `timeline`: a raw GitHub event (has `created_at`) is served as
    it is; a compact one (`event`, `date`, `actor`, `commit_id`; for `cross-referenced` a `source`
    item row, for `commented` `author`/`body`) is expanded into GitHub's shape."""
    if "created_at" in entry:
        return entry
    event, moment = entry["event"], parse_day(entry["date"])
    if event == "cross-referenced":
        source = thread_from_row({"repo": thread.repo, "created": entry["date"], **entry["source"]})
        return cross_reference_payload(source, moment, entry.get("actor") or source.row.get("author"), api)
    if event == "commented":
        comment_id = stable_int("timeline-comment", thread.repo, thread.number, index, digits=10)
        return commented_payload(thread, comment_id, moment, entry, api)
    return event_payload(thread, event, moment, entry.get("actor"), api, entry.get("commit_id"))
