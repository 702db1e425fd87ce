"""Week over week: the report of a window follows up the focus list of the report before it.

The real fortnight (tests/data/raw) gives two consecutive weeks. The first week is quiet (three
stories reach medium on their own), so its focus list is filled with the week's next best stories:
the eight focus items of the compiler reader are two merged torchtitan PRs, five closed PRs of
pytorch and helion (closed without the `Merged` label or a landed commit, so landing unconfirmed)
and one open kineto issue; the generalist's eight are the same but one torchtitan PR, and a merged
executorch PR. No item of the second week names any of them in a closing keyword, an issue URL or a
revert title, and the data is one recording, so nothing about them changed.

The tests name none of these items: they take them from the first week's focus list by what they
are (the open issue, a closed PR without comments, a merged PR ...) and read what they expect from
the item's own row; the changes a later collection would bring are made-up items with small numbers."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.report.followup import Snapshot, as_of, previous_window
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import RAW_WEEKS, read_jsonl

WEEK_1 = ("--since", "2026-04-07", "--until", "2026-04-13")
WEEK_2 = ("--since", "2026-04-14", "--until", "2026-04-20")
FIRST_WEEK_END = "2026-04-14"  # the first moment after the first week
# Made-up changes a later collection could bring, in the repository of the item they change (a
# revert is numbered after the change it reverts).
REVERT_NUMBER, FIX_NUMBER, FOLLOW_UP_NUMBER = 990001, 7002, 9500

PRIORITY = {"low": 0, "medium": 1, "high": 2}
# What the first week's focus list holds, by repository, kind and state (checked by hand).
FOCUS_MAKEUP = {
    "compiler": Counter(
        {
            ("pytorch/torchtitan", "pull_request", "merged"): 1,
            ("pytorch/pytorch", "pull_request", "closed"): 4,
            ("pytorch/helion", "pull_request", "closed"): 1,
            ("pytorch/kineto", "issue", "open"): 1,
            ("pytorch/executorch", "pull_request", "merged"): 1,
        }
    ),
}
# Both readers' lists hold the same stories. Two torchtitan changes of one author are one story,
# which each reader leads with the one it ranks higher.
GENERALIST_ONLY = Counter({("pytorch/torchtitan", "pull_request", "merged"): 1})
COMPILER_ONLY = Counter({("pytorch/torchtitan", "pull_request", "merged"): 1})
FOCUS_MAKEUP["generalist"] = FOCUS_MAKEUP["compiler"] - COMPILER_ONLY + GENERALIST_ONLY


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "insight.db"
    store = Store.open(str(path))
    store.save_items([item_from_line(row) for row in read_jsonl(RAW_WEEKS)])
    store.close()
    return str(path)


def report(
    capsys: pytest.CaptureFixture[str], db: str, out: Path, window: tuple[str, ...], *extra: str
) -> dict[str, Any]:
    code, stdout, err = cli(capsys, "report", "--db", db, *window, "--lang", "en", "--out", str(out), *extra)
    assert code == 0, err
    return json.loads(Path(next(line for line in stdout.splitlines() if line.endswith(".json"))).read_text())


def statuses(document: dict[str, Any]) -> dict[str, tuple[str, str, str, list[str]]]:
    return {
        item["id"]: (item["status"], item["fix_state_then"], item["fix_state_now"], item["fixes"])
        for item in document["follow_up"]["items"]
    }


def save(db: str, *rows: dict[str, Any]) -> None:
    store = Store.open(db)
    store.save_items([item_from_line(row) for row in rows])
    store.close()


@cache
def fortnight() -> dict[str, dict[str, Any]]:
    return {f"github:{row['repo']}#{row['number']}": row for row in read_jsonl(RAW_WEEKS)}


def row_of(item_id: str) -> dict[str, Any]:
    """The fortnight's row of an item (a copy: the tests change what a later collection would)."""
    return dict(fortnight()[item_id])


def ref(repo: str, number: int) -> str:
    """How the report names a GitHub item: "#N" in pytorch/pytorch, "owner/name#N" elsewhere."""
    return f"#{number}" if repo == "pytorch/pytorch" else f"{repo}#{number}"


def makeup(row: dict[str, Any]) -> tuple[str, str, str]:
    return row["repo"], row["kind"], row["state"]


def unchanged(row: dict[str, Any]) -> tuple[str, str, str, list[str]]:
    """(status, fix state then, fix state now, fixes) of a first-week focus item nothing changed
    since: a PR stays as closed or merged as it was; the open issue, with no fix PR, stays open."""
    if row["kind"] == "issue":
        assert row["state"] == "open"
        return ("open", "none", "none", [])
    return ("unchanged", row["state"], row["state"], [])


def the_issue(focus: list[str]) -> str:
    """The one issue of a first-week focus list (the rest are PRs)."""
    [issue] = [item_id for item_id in focus if row_of(item_id)["kind"] == "issue"]
    return issue


def first_of(focus: list[str], wanted: Callable[[dict[str, Any]], bool]) -> str:
    """The first focus item (in the ranking's order) whose row is what is wanted."""
    return next(item_id for item_id in focus if wanted(row_of(item_id)))


def closed_pr(row: dict[str, Any]) -> bool:
    return (row["repo"], row["kind"], row["state"]) == ("pytorch/pytorch", "pull_request", "closed")


def unlanded_without_comments(row: dict[str, Any]) -> bool:
    """A closed pytorch PR nobody commented on: setting it merged later changes nothing else."""
    return closed_pr(row) and not row["comments"]


def commented_only_later(row: dict[str, Any]) -> bool:
    """A closed pytorch PR whose every comment came after the first week."""
    return closed_pr(row) and bool(row["comments"]) and all(c["date"] >= FIRST_WEEK_END for c in row["comments"])


def merged_pr(row: dict[str, Any]) -> bool:
    return row["kind"] == "pull_request" and row["state"] == "merged"


@pytest.fixture(scope="module")
def as_collected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The reports of each reader for the two weeks of the fortnight as collected, nothing changed:
    reader -> {"week 1": document, "week 2": document}. The tests take their items from them by
    what they are."""
    home = tmp_path_factory.mktemp("as-collected")
    path = str(home / "insight.db")
    store = Store.open(path)
    store.save_items([item_from_line(row) for row in read_jsonl(RAW_WEEKS)])
    store.close()
    documents: dict[str, dict[str, Any]] = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            monkeypatch.setenv(name, str(home / name.lower()))
        for reader in ("generalist", "compiler"):
            for week, window in (("week 1", WEEK_1), ("week 2", WEEK_2)):
                out = home / reader / week
                with pytest.raises(SystemExit) as exit_info:
                    main(["report", "-q", "--db", path, *window, "--lang", "en", "--reader", reader, "--out", str(out)])
                    raise SystemExit(0)
                assert exit_info.value.code in (0, None)
                [document] = [json.loads(json_path.read_text()) for json_path in out.glob("*.json")]
                documents.setdefault(reader, {})[week] = document
    return documents


@pytest.fixture(scope="module")
def first_week(as_collected: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """The first week's focus list of each reader (its order is the ranking's)."""
    return {reader: [entry["id"] for entry in weeks["week 1"]["focus"]] for reader, weeks in as_collected.items()}


def mentions_in(document: dict[str, Any], target: str, rows: dict[str, dict[str, Any]]) -> list[str]:
    """The refs of the document's items (in its ranking's order; `rows` holds them) whose title,
    description or a comment written in its window names `target` by URL or by reference."""
    repo, number = target.removeprefix("github:").split("#")
    named = re.compile(rf"github\.com/{re.escape(repo)}/(?:issues|pull)/{number}\b|{re.escape(repo)}#{number}\b")
    bare = re.compile(rf"(?<![\w/#&])#{number}\b")  # within its own repository
    since, until = document["window"]["since"], document["window"]["until"]
    found = []
    for entry in document["items"]:
        if entry["id"] == target or entry["id"] not in rows:
            continue
        row = rows[entry["id"]]
        comments = [c.get("body") or "" for c in row["comments"] if since <= (c.get("date") or "")[:10] <= until]
        text = "\n".join([row["title"] or "", row["body"] or "", *comments])
        if named.search(text) or (row["repo"] == repo and bare.search(text)):
            found.append(ref(row["repo"], row["number"]))
    return found


@pytest.mark.parametrize("reader", ["generalist", "compiler"])
def test_two_consecutive_shared_weeks_follow_up_every_focus_item(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, reader: str, first_week: dict[str, list[str]]
) -> None:
    first = report(capsys, db, tmp_path / "out", WEEK_1, "--reader", reader)
    focus = [entry["id"] for entry in first["focus"]]  # their order is the ranking's
    assert Counter(makeup(row_of(item_id)) for item_id in focus) == FOCUS_MAKEUP[reader]
    if reader == "generalist":
        extra, left = set(focus) - set(first_week["compiler"]), set(first_week["compiler"]) - set(focus)
        assert Counter(makeup(row_of(item_id)) for item_id in extra) == GENERALIST_ONLY
        assert Counter(makeup(row_of(item_id)) for item_id in left) == COMPILER_ONLY
    assert first["follow_up"]["basis"] == "none"  # nothing stored before 2026-04-07

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", reader)

    follow = second["follow_up"]
    assert follow["basis"] == "stored" and follow["previous"] == {"since": "2026-04-07", "until": "2026-04-13"}
    assert follow["previous_generated_at"] == first["generated_at"]
    assert statuses(second) == {item_id: unchanged(row_of(item_id)) for item_id in focus}
    then = {entry["id"]: entry["priority"] for entry in first["focus"]}
    for item in follow["items"]:
        assert item["priority_then"] == then[item["id"]]
        assert item["escalated"] is False  # none rose: no new label, link or week-2 discussion of them
        quotes = [evidence["quote"] for evidence in item["evidence"]]
        assert quotes[0].startswith(f"report 2026-04-07..2026-04-13: priority {then[item['id']]}")
        assert quotes[1] == f"state: {row_of(item['id'])['state']}"
    # The per-area counts are the two reports' own, and their difference.
    changes = {area["area"]: (area["count"], area["previous"], area["change"]) for area in follow["areas"]}
    now, before = second["counts"]["area"], first["counts"]["area"]
    assert changes == {
        area: (now.get(area, 0), before.get(area, 0), now.get(area, 0) - before.get(area, 0))
        for area in set(now) | set(before)
    }
    # One per-area count in the whole report: the follow-up's table is the chart's and the
    # coverage table's (a duplicate counted once), not a second count beside them.
    assert {a["id"]: a["items"] for a in second["coverage"]["areas"] if a["items"]} == {
        area: count for area, count in now.items() if count
    }
    assert changes["rocm"] == (6, 114, -108) and changes["xpu"] == (2, 0, 2)
    stem = "2026-04-14_2026-04-20" + ("" if reader == "generalist" else f".{reader}") + ".en"
    markdown = (tmp_path / "out" / f"{stem}.md").read_text()
    html = (tmp_path / "out" / f"{stem}.html").read_text()
    assert "### Since last week" in markdown and "| AMD ROCm | 6 | 114 | ▼ 108 |" in markdown
    assert "| Intel XPU | 2 | 0 | ▲ 2 |" in markdown
    assert "still open; no fix PR in the collected data" in markdown
    assert 'id="follow-up"' in html and "▼ 108" in html and "▲ 2" in html


def test_changes_stored_between_the_weeks_are_followed_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, as_collected: dict[str, dict[str, Any]]
) -> None:
    first = report(capsys, db, tmp_path / "out", WEEK_1, "--reader", "compiler")
    focus = [entry["id"] for entry in first["focus"]]
    then = {entry["id"]: entry["priority"] for entry in first["focus"]}
    reopened_id, landed_id = first_of(focus, commented_only_later), first_of(focus, unlanded_without_comments)
    # A merged PR whose priority the second week's ranking lowers anyway (no activity of that week).
    now = {item["id"]: item["priority_now"] for item in as_collected["compiler"]["week 2"]["follow_up"]["items"]}
    lowered = [i for i in focus if merged_pr(row_of(i)) and PRIORITY[now[i]] < PRIORITY[then[i]]]
    reverted_id, issue_id = lowered[0], the_issue(focus)
    reverted, issue = row_of(reverted_id), row_of(issue_id)
    revert_ref, fix_ref = ref(reverted["repo"], REVERT_NUMBER), ref(issue["repo"], FIX_NUMBER)
    # What a later collection would bring: a closed PR reopened, another landed, a revert of a
    # merged one and a merged fix for the open issue created in the second week.
    reopened = row_of(reopened_id) | {
        "state": "open",
        "timeline_refs": [{"event": "reopened", "date": "2026-04-15T09:00:00Z", "actor": "someone"}],
    }
    landed = row_of(landed_id) | {"state": "merged", "merged": "2026-04-15T10:00:00Z"}
    revert = {
        "repo": reverted["repo"],
        "number": REVERT_NUMBER,
        "kind": "pull_request",
        "state": "merged",
        "title": f'Revert "{reverted["title"]}"',  # the reverted PR's own title
        "author": "someone",
        "created": "2026-04-16",
        "body": "It broke the nightly run.",
        "url": f"https://github.com/{reverted['repo']}/pull/{REVERT_NUMBER}",
    }
    fix = {
        "repo": issue["repo"],
        "number": FIX_NUMBER,
        "kind": "pull_request",
        "state": "merged",
        "title": "Fix the profiler crash on exit",
        "author": "someone",
        "created": "2026-04-15",
        "body": f"Fixes #{issue['number']}\n\nFinalize the profiler context before the process exits.",
        "url": f"https://github.com/{issue['repo']}/pull/{FIX_NUMBER}",
    }
    save(db, reopened, landed, revert, fix)

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    assert statuses(second) == {item_id: unchanged(row_of(item_id)) for item_id in focus} | {
        reopened_id: ("reopened", "closed", "open", []),
        landed_id: ("merged", "closed", "merged", []),
        issue_id: ("fixed", "none", "landed", [fix_ref]),
        reverted_id: ("regressed", "merged", "reverted", [revert_ref]),
    }
    by_id = {item["id"]: item for item in second["follow_up"]["items"]}
    evidence = {item_id: [e["quote"] for e in item["evidence"]] for item_id, item in by_id.items()}
    assert "timeline: reopened 2026-04-15T09:00:00Z by someone" in evidence[reopened_id]
    assert "state: merged (merged 2026-04-15T10:00:00Z)" in evidence[landed_id]
    assert "state: merged" in evidence[issue_id] and any(f"Fixes #{issue['number']}" in q for q in evidence[issue_id])
    assert "state: merged" in evidence[reverted_id]
    # (the second week's ranking may also lower a fixed issue's priority, and then says so after it)
    assert by_id[issue_id]["text"].split("; ")[0] == f"fixed since: {fix_ref} merged"
    assert by_id[reverted_id]["text"] == (
        f"regressed: the fix was reverted ({revert_ref}); priority dropped: {then[reverted_id]} → {now[reverted_id]}"
    )
    assert by_id[reverted_id]["dropped"] and not by_id[reverted_id]["escalated"]
    assert by_id[reverted_id]["next_step"] == f"next: follow the revert {revert_ref} and its reland"
    # A fixed item is never "escalated", whatever its score did; every item has a next step.
    assert not by_id[issue_id]["escalated"] and by_id[issue_id]["next_step"].startswith("next: check that")
    assert all(item["next_step"] for item in second["follow_up"]["items"])


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # An open fix PR and a maintainer's `high priority` label on the crash since last week.
        (
            {"fix_state": "open", "label": "high priority"},
            ("open", "still open; fix PRs: {fix}; new fix PR since: {fix}", True),
        ),
        # Closed without any fix PR in the data.
        ({"state": "closed"}, ("closed", "closed since; the collected data shows no landed fix", False)),
        # Fixed since, and its priority rose with the label: fixed, not "escalated".
        ({"fix_state": "merged", "label": "high priority"}, ("fixed", "fixed since: {fix} merged", False)),
    ],
    ids=["open-fix-escalated", "closed-no-fix", "fixed-not-escalated"],
)
def test_an_open_issue_followed_up(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    db: str,
    first_week: dict[str, list[str]],
    change: dict[str, Any],
    expected: tuple[str, str, bool],
) -> None:
    issue_id = the_issue(first_week["generalist"])
    # The crash as a terse report (no segfault, no setting named) is medium in the first week, so
    # what the second week adds is all that can raise it: the profile has no red model, which
    # would raise it as one of the week's likeliest red stories (it has a floor of three a week).
    shipped = (files("pytorch_insight") / "profiles" / "pytorch.toml").read_text(encoding="utf-8")
    red = "\n[judgement.red]\ncap = 8\n"
    assert red in shipped
    profile = tmp_path / "no-red.toml"
    profile.write_text(shipped.replace(red, red.replace("8", "0")), encoding="utf-8")
    terse = row_of(issue_id) | {"title": "[profiler] crash on exit", "body": ""}
    save(db, terse)
    report(capsys, db, tmp_path / "out", WEEK_1, "--profile", str(profile))
    issue = terse | ({"state": change["state"]} if "state" in change else {})
    if "label" in change:
        issue["labels"] = [*terse["labels"], change["label"]]
    rows = [issue]
    if "fix_state" in change:
        rows.append(
            {
                "repo": issue["repo"],
                "number": FIX_NUMBER,
                "kind": "pull_request",
                "state": change["fix_state"],
                "title": "Fix the profiler crash on exit",
                "author": "someone",
                "created": "2026-04-15",
                "body": f"Fixes #{issue['number']}",
                "url": f"https://github.com/{issue['repo']}/pull/{FIX_NUMBER}",
            }
        )
    save(db, *rows)

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--profile", str(profile))

    item = next(item for item in second["follow_up"]["items"] if item["id"] == issue_id)
    status, text, escalated = expected
    assert (item["status"], item["escalated"]) == (status, escalated)
    assert item["text"].startswith(text.format(fix=ref(issue["repo"], FIX_NUMBER)))
    assert item["next_step"].startswith("next: ")
    if status == "fixed":
        assert item["priority_now"] == "high" and "escalated" not in item["text"]
    if escalated:
        assert (item["priority_then"], item["priority_now"]) == ("medium", "high")
        assert "escalated: priority medium → high" in item["text"]
        assert any(e["quote"].startswith("priority high in this window") for e in item["evidence"])


def test_without_a_stored_report_the_previous_week_is_rebuilt_as_it_stood(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, first_week: dict[str, list[str]]
) -> None:
    # A closed PR of the first week's focus landed on 2026-04-15, after that week ended: rebuilt
    # as of the end of that week it was still closed-unlanded... and as collected now it is merged.
    landed_id = first_of(first_week["compiler"], unlanded_without_comments)
    save(db, row_of(landed_id) | {"state": "merged", "merged": "2026-04-15T10:00:00Z"})

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    follow = second["follow_up"]
    assert follow["basis"] == "computed" and follow["previous_generated_at"] is None
    assert follow["text"].startswith("No report was recorded for 2026-04-07 – 2026-04-13")
    assert statuses(second)[landed_id] == ("merged", "open", "merged", [])
    # The rebuilt focus list is the one the first week's report had.
    assert {item_id: s for item_id, s in statuses(second).items() if item_id != landed_id} == {
        item_id: unchanged(row_of(item_id)) for item_id in first_week["compiler"] if item_id != landed_id
    }


def test_a_window_without_an_earlier_report_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    code, _, err = cli(capsys, "report", "--db", db, *WEEK_1, "--out", str(tmp_path / "zh"))
    assert code == 0, err
    document = json.loads((tmp_path / "zh" / "2026-04-07_2026-04-13.json").read_text())
    assert document["follow_up"] == {
        "basis": "none",
        "previous": {"since": "2026-03-31", "until": "2026-04-06"},
        "previous_generated_at": None,
        "text": "没有更早的报告可跟进：库中没有 2026-03-31 – 2026-04-06 的报告或条目。",
        "items": [],
        "areas": [],
    }
    markdown = (tmp_path / "zh" / "2026-04-07_2026-04-13.md").read_text()
    assert "### 上周跟进\n\n没有更早的报告可跟进" in markdown


def test_the_snapshot_is_language_independent_and_replaced_by_a_later_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    english = report(capsys, db, tmp_path / "en", WEEK_1)
    code, _, err = cli(capsys, "report", "--db", db, *WEEK_1, "--out", str(tmp_path / "zh"), "--focus", "2")
    assert code == 0, err
    row = Store.open(db, readonly=True).snapshot_ending("pytorch", "generalist", "2026-04-13")
    assert row is not None
    snapshot = Snapshot.model_validate(row)
    shown = english["focus"]
    assert len(shown) > 2  # the later (zh, --focus 2) one replaced the English report's
    assert [entry.id for entry in snapshot.focus] == [entry["id"] for entry in shown[:2]]
    areas = {item["id"]: item["areas"] for item in english["items"]}
    assert snapshot.focus[1].areas == areas[shown[1]["id"]] and snapshot.focus[1].areas
    assert snapshot.focus[1].fix_state == shown[1]["analysis"]["fix_state"]
    assert snapshot.areas == english["counts"]["area"] and snapshot.areas["rocm"] == 114


def made_up_pr(number: int, **fields: Any) -> dict[str, Any]:
    """A closed pytorch PR of the first week, as a row."""
    return {
        "repo": "pytorch/pytorch",
        "number": number,
        "kind": "pull_request",
        "state": "closed",
        "title": "Gate the allocator setting on the runtime version",
        "author": "someone",
        "created": "2026-04-10",
        "body": "The old gate compared the wrong version number.",
        "url": f"https://github.com/pytorch/pytorch/pull/{number}",
    } | fields


def test_dates_set_an_item_back_and_windows_follow_each_other() -> None:
    item = item_from_line(made_up_pr(41, state="merged", merged="2026-04-15T10:00:00Z"))
    end = make_window("2026-04-07", "2026-04-13").end
    assert (as_of(item, end).state, as_of(item, end).merged) == ("open", None)
    assert as_of(item, make_window("2026-04-14", "2026-04-20").end) is item
    undated = item_from_line(made_up_pr(42, comments=[{"author": "a", "date": "2026-04-14", "body": "merge?"}]))
    assert as_of(undated, end).state == "closed"  # no close date: the state as collected
    assert [c.date for c in as_of(undated, end).comments] == []  # its one comment came on 2026-04-14
    earlier = previous_window(make_window("2026-04-14", "2026-04-20"))
    assert (earlier.since.isoformat(), earlier.until.isoformat()) == ("2026-04-07", "2026-04-13")


def test_report_keeps_a_static_site(capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str) -> None:
    site = tmp_path / "site"
    for window in (WEEK_1, WEEK_2):
        code, stdout, err = cli(capsys, "report", "--db", db, *window, "--site", str(site), "--format", "md")
        assert code == 0, err
        assert [Path(line).suffix for line in stdout.splitlines()] == [".md", ".html", ".json"]
    names = sorted(path.name for path in site.iterdir())
    assert names == [
        ".nojekyll",
        "2026-04-07_2026-04-13.html",
        "2026-04-07_2026-04-13.json",
        "2026-04-07_2026-04-13.md",
        "2026-04-14_2026-04-20.html",
        "2026-04-14_2026-04-20.json",
        "2026-04-14_2026-04-20.md",
        "feed.xml",
        "index.html",
    ]
    # Relative links only, so the folder works under https://<owner>.github.io/<repo>/ as anywhere.
    page = (site / "2026-04-14_2026-04-20.html").read_text()
    assert '<nav><a href="index.html">报告归档</a></nav>' in page
    index = (site / "index.html").read_text()
    assert index.index('href="2026-04-14_2026-04-20.html"') < index.index('href="2026-04-07_2026-04-13.html"')
    feed = (site / "feed.xml").read_text()
    assert 'href="2026-04-14_2026-04-20.html"' in feed and "://" not in feed.replace("http://www.w3.org/2005/Atom", "")
    # A plain --out folder keeps its pages free of the site's back link.
    report(capsys, db, tmp_path / "out", WEEK_2)
    assert "<nav>" not in (tmp_path / "out" / "2026-04-14_2026-04-20.en.html").read_text()
    assert not (tmp_path / "out" / ".nojekyll").exists()


def test_site_and_out_together_are_one_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str) -> None:
    code, stdout, err = cli(capsys, "report", "--db", db, *WEEK_2, "--site", str(tmp_path / "s"), "--out", "x")
    assert code == 2 and stdout == ""
    assert err == "error: --site and --out both name where the report goes: use one of them\n"
    assert not (tmp_path / "s").exists()


def test_each_week_is_told_as_of_its_end_and_the_next_says_what_changed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, first_week: dict[str, list[str]]
) -> None:
    # Collected after both weeks: a closed PR of the first week's focus merged in the second week,
    # with a review written then.
    landed_id = first_of(first_week["compiler"], unlanded_without_comments)
    late_review = {"author": "reviewer", "date": "2026-04-16T08:00:00Z", "kind": "review", "body": "Ship it."}
    row = row_of(landed_id)
    save(db, row | {"state": "merged", "merged": "2026-04-15T10:00:00Z", "comments": [*row["comments"], late_review]})

    first = report(capsys, db, tmp_path / "out", WEEK_1, "--reader", "compiler")
    then = next(item for item in first["items"] if item["id"] == landed_id)
    assert then["state"] == "open"  # as of 2026-04-13: the merge came later
    entry = next(entry for entry in first["focus"] if entry["id"] == landed_id)
    assert entry["analysis"]["fix_state"] != "merged"
    assert all("2026-04-15" not in evidence["quote"] for evidence in entry["evidence"])

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    assert second["follow_up"]["basis"] == "stored"
    item = next(item for item in second["follow_up"]["items"] if item["id"] == landed_id)
    assert (item["status"], item["fix_state_then"], item["fix_state_now"]) == ("merged", "open", "merged")
    assert "state: merged (merged 2026-04-15T10:00:00Z)" in [evidence["quote"] for evidence in item["evidence"]]


def test_a_reopening_after_the_window_is_undone_and_later_comments_dropped() -> None:
    item = item_from_line(
        made_up_pr(43)
        | {
            "state": "open",
            "comments": [{"author": "a", "date": "2026-04-10", "body": "x"}, {"author": "b", "date": "2026-04-15"}],
            "timeline_refs": [
                {"event": "closed", "date": "2026-04-11T09:00:00Z"},
                {"event": "reopened", "date": "2026-04-15T09:00:00Z"},
            ],
        }
    )
    then = as_of(item, make_window("2026-04-07", "2026-04-13").end)
    assert then.state == "closed" and [c.author for c in then.comments] == ["a"]
    assert as_of(item, make_window("2026-04-14", "2026-04-20").end).state == "open"


def test_an_item_of_this_week_that_speaks_of_last_weeks_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    first = report(capsys, db, tmp_path / "out", WEEK_1, "--reader", "compiler")
    focus = [entry["id"] for entry in first["focus"]]
    broken_id = first_of(focus, unlanded_without_comments)
    number = row_of(broken_id)["number"]
    # A PR of the second week saying last week's change broke a path, reviewed in that week.
    follow_up = {
        "repo": "pytorch/pytorch",
        "number": FOLLOW_UP_NUMBER,
        "kind": "pull_request",
        "state": "open",
        "title": "[ROCm] Restore the fp16 allocator path",
        "author": "someone",
        "created": "2026-04-16",
        "body": f"The change in #{number} broke the fp16 allocator path on ROCm. This restores it.",
        "comments": [{"author": "reviewer", "date": "2026-04-17", "kind": "review", "body": "Looks right."}],
        "url": f"https://github.com/pytorch/pytorch/pull/{FOLLOW_UP_NUMBER}",
    }
    save(db, follow_up)

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    follow_up_id, follow_up_ref = f"github:pytorch/pytorch#{FOLLOW_UP_NUMBER}", f"#{FOLLOW_UP_NUMBER}"
    item = next(item for item in second["follow_up"]["items"] if item["id"] == broken_id)
    assert item["related"] == [follow_up_ref] and f"mentioned since by {follow_up_ref}" in item["text"]
    quote = next(e for e in item["evidence"] if e["item"] == follow_up_id)["quote"]
    assert quote.startswith(f"The change in #{number} broke the fp16 allocator path")
    others = [i for i in second["follow_up"]["items"] if i["id"] != broken_id]
    # Items of the second week in the data that name another of last week's focus items (PRs saying
    # they depend on one): mentioned since, in the order of this week's ranking.
    rows = fortnight() | {follow_up_id: follow_up}
    named = [(i["id"], mentions_in(second, i["id"], rows)[:3]) for i in others]
    assert any(refs for _, refs in named)
    assert [(i["id"], i["related"]) for i in others if i["related"]] == [(i, refs) for i, refs in named if refs]


def test_a_timeline_names_a_pr_as_it_stood_at_the_windows_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, first_week: dict[str, list[str]]
) -> None:
    issue_id = the_issue(first_week["generalist"])
    issue = row_of(issue_id)
    # Collected later: the issue's timeline says a PR is merged; it merged after the first week.
    cross = {
        "event": "cross-referenced",
        "repo": issue["repo"],
        "number": FIX_NUMBER,
        "kind": "pull_request",
        "state": "merged",
        "title": "Finalize the profiler context",
        "date": "2026-04-10T09:00:00Z",
    }
    pr = {
        "repo": issue["repo"],
        "number": FIX_NUMBER,
        "kind": "pull_request",
        "state": "merged",
        "merged": "2026-04-15T10:00:00Z",
        "title": "Finalize the profiler context",
        "author": "someone",
        "created": "2026-04-02",
        "body": "Finalize the context before exit.",
        "url": f"https://github.com/{issue['repo']}/pull/{FIX_NUMBER}",
    }
    save(db, issue | {"timeline_refs": [cross]}, pr)

    first = report(capsys, db, tmp_path / "out", WEEK_1)
    entry = next(entry for entry in first["focus"] if entry["id"] == issue_id)
    assert entry["analysis"]["fix_state"] == "referenced"
    fix_id = f"github:{issue['repo']}#{FIX_NUMBER}"
    assert entry["analysis"]["fix_ref_states"] == {fix_id: "open"}  # merged only later
