"""Week over week: the report of a window follows up the focus list of the report before it.

The real fortnight (tests/data/raw) gives two consecutive weeks; the expected statuses below were
checked by hand against the items. The first week is quiet (three stories reach medium on their
own), so its focus list is filled with the week's next best stories: the nine focus items of the
compiler reader are three merged PRs (torchtitan, executorch), five closed PRs of pytorch and helion
(closed without the `Merged` label or a landed commit, so landing unconfirmed) and one open kineto
issue; the generalist's ten are the same and one more closed pytorch PR. No item of the second
week names any of them in a closing keyword, an issue URL or a revert title, and the data is one
recording, so nothing about them changed."""

from __future__ import annotations

import json
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
PR_180270 = "github:pytorch/pytorch#180270"
PR_179930 = "github:pytorch/pytorch#179930"
PR_180257 = "github:pytorch/pytorch#180257"
TITAN_2868 = "github:pytorch/torchtitan#2868"
PR_180252 = "github:pytorch/pytorch#180252"
PR_179815 = "github:pytorch/pytorch#179815"
HELION_2010 = "github:pytorch/helion#2010"
EXECUTORCH_18809 = "github:pytorch/executorch#18809"
TITAN_2869 = "github:pytorch/torchtitan#2869"
KINETO_1359 = "github:pytorch/kineto#1359"

# (status, fix state then, fix state now, the changes the status rests on), checked by hand.
UNCHANGED_DATA = {
    PR_180270: ("unchanged", "closed", "closed", []),
    PR_179930: ("unchanged", "closed", "closed", []),
    TITAN_2869: ("unchanged", "merged", "merged", []),
    KINETO_1359: ("open", "none", "none", []),
    PR_180257: ("unchanged", "closed", "closed", []),
    TITAN_2868: ("unchanged", "merged", "merged", []),
    PR_180252: ("unchanged", "closed", "closed", []),
    HELION_2010: ("unchanged", "closed", "closed", []),
    EXECUTORCH_18809: ("unchanged", "merged", "merged", []),
    PR_179815: ("unchanged", "closed", "closed", []),
}
FOCUS = {
    "generalist": list(UNCHANGED_DATA),
    "compiler": [item_id for item_id in UNCHANGED_DATA if item_id != PR_179815],
}


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


def row_of(item_id: str) -> dict[str, Any]:
    repo, number = item_id.removeprefix("github:").split("#")
    return next(row for row in read_jsonl(RAW_WEEKS) if row["repo"] == repo and row["number"] == int(number))


@pytest.mark.parametrize("reader", ["generalist", "compiler"])
def test_two_consecutive_shared_weeks_follow_up_every_focus_item(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, reader: str
) -> None:
    first = report(capsys, db, tmp_path / "out", WEEK_1, "--reader", reader)
    assert sorted(entry["id"] for entry in first["focus"]) == sorted(FOCUS[reader])  # their order is the ranking's
    assert first["follow_up"]["basis"] == "none"  # nothing stored before 2026-04-07

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", reader)

    follow = second["follow_up"]
    assert follow["basis"] == "stored" and follow["previous"] == {"since": "2026-04-07", "until": "2026-04-13"}
    assert follow["previous_generated_at"] == first["generated_at"]
    assert statuses(second) == {item_id: UNCHANGED_DATA[item_id] for item_id in FOCUS[reader]}
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
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    report(capsys, db, tmp_path / "out", WEEK_1, "--reader", "compiler")
    # What a later collection would bring: #180270 reopened, #179930 landed, a revert of
    # torchtitan#2868 and a merged fix for kineto#1359 created in the second week.
    reopened = row_of(PR_180270) | {
        "state": "open",
        "timeline_refs": [{"event": "reopened", "date": "2026-04-15T09:00:00Z", "actor": "someone"}],
    }
    landed = row_of(PR_179930) | {"state": "merged", "merged": "2026-04-15T10:00:00Z"}
    revert = {
        "repo": "pytorch/torchtitan",
        "number": 2990,
        "kind": "pull_request",
        "state": "merged",
        "title": 'Revert "[GraphTrainer][AutoDev] Enable cudagraph in aot_fx_trace mode"',
        "author": "someone",
        "created": "2026-04-16",
        "body": "It broke the nightly run.",
        "url": "https://github.com/pytorch/torchtitan/pull/2990",
    }
    fix = {
        "repo": "pytorch/kineto",
        "number": 1370,
        "kind": "pull_request",
        "state": "merged",
        "title": "Fix the rocprofiler segfault on exit",
        "author": "someone",
        "created": "2026-04-15",
        "body": "Fixes #1359\n\nFinalize the rocprofiler context before the process exits.",
        "url": "https://github.com/pytorch/kineto/pull/1370",
    }
    save(db, reopened, landed, revert, fix)

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    assert statuses(second) == {
        PR_180270: ("reopened", "closed", "open", []),
        PR_179930: ("merged", "closed", "merged", []),
        TITAN_2869: ("unchanged", "merged", "merged", []),
        KINETO_1359: ("fixed", "none", "landed", ["pytorch/kineto#1370"]),
        PR_180257: ("unchanged", "closed", "closed", []),
        TITAN_2868: ("regressed", "merged", "reverted", ["pytorch/torchtitan#2990"]),
        PR_180252: ("unchanged", "closed", "closed", []),
        HELION_2010: ("unchanged", "closed", "closed", []),
        EXECUTORCH_18809: ("unchanged", "merged", "merged", []),
    }
    by_id = {item["id"]: item for item in second["follow_up"]["items"]}
    evidence = {item_id: [e["quote"] for e in item["evidence"]] for item_id, item in by_id.items()}
    assert "timeline: reopened 2026-04-15T09:00:00Z by someone" in evidence[PR_180270]
    assert "state: merged (merged 2026-04-15T10:00:00Z)" in evidence[PR_179930]
    assert "state: merged" in evidence[KINETO_1359] and any("Fixes #1359" in q for q in evidence[KINETO_1359])
    assert "state: merged" in evidence[TITAN_2868]
    assert by_id[KINETO_1359]["text"] == "fixed since: pytorch/kineto#1370 merged"
    assert by_id[TITAN_2868]["text"] == (
        "regressed: the fix was reverted (pytorch/torchtitan#2990); priority dropped: medium → low"
    )
    assert by_id[TITAN_2868]["dropped"] and not by_id[TITAN_2868]["escalated"]
    assert by_id[TITAN_2868]["next_step"] == "next: follow the revert pytorch/torchtitan#2990 and its reland"
    # A fixed item is never "escalated", whatever its score did; every item has a next step.
    assert not by_id[KINETO_1359]["escalated"] and by_id[KINETO_1359]["next_step"].startswith("next: check that")
    assert all(item["next_step"] for item in second["follow_up"]["items"])


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # An open fix PR and a maintainer's `high priority` label on the crash since last week.
        (
            {"fix_state": "open", "labels": ["bug", "module: rocm", "high priority"]},
            ("open", "still open; fix PRs: pytorch/kineto#1370; new fix PR since: pytorch/kineto#1370", True),
        ),
        # Closed without any fix PR in the data.
        ({"state": "closed"}, ("closed", "closed since; the collected data shows no landed fix", False)),
        # Fixed since, and its priority rose with the label: fixed, not "escalated".
        (
            {"fix_state": "merged", "labels": ["bug", "module: rocm", "high priority"]},
            ("fixed", "fixed since: pytorch/kineto#1370 merged", False),
        ),
    ],
    ids=["open-fix-escalated", "closed-no-fix", "fixed-not-escalated"],
)
def test_an_open_issue_followed_up(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str, change: dict[str, Any], expected: tuple[str, str, bool]
) -> None:
    # The crash as a terse report (no segfault, no setting named) is medium in the first week, so
    # what the second week adds is all that can raise it.
    terse = row_of(KINETO_1359) | {"title": "[Rocprofiler-sdk] crash on exit", "body": ""}
    save(db, terse)
    report(capsys, db, tmp_path / "out", WEEK_1)
    issue = terse | {key: value for key, value in change.items() if key != "fix_state"}
    rows = [issue]
    if "fix_state" in change:
        rows.append(
            {
                "repo": "pytorch/kineto",
                "number": 1370,
                "kind": "pull_request",
                "state": change["fix_state"],
                "title": "Fix the rocprofiler segfault on exit",
                "author": "someone",
                "created": "2026-04-15",
                "body": "Fixes #1359",
                "url": "https://github.com/pytorch/kineto/pull/1370",
            }
        )
    save(db, *rows)

    second = report(capsys, db, tmp_path / "out", WEEK_2)

    item = next(item for item in second["follow_up"]["items"] if item["id"] == KINETO_1359)
    status, text, escalated = expected
    assert (item["status"], item["escalated"]) == (status, escalated)
    assert item["text"].startswith(text) and item["next_step"].startswith("next: ")
    if status == "fixed":
        assert item["priority_now"] == "high" and "escalated" not in item["text"]
    if escalated:
        assert (item["priority_then"], item["priority_now"]) == ("medium", "high")
        assert "escalated: priority medium → high" in item["text"]
        assert any(e["quote"].startswith("priority high in this window") for e in item["evidence"])


def test_without_a_stored_report_the_previous_week_is_rebuilt_as_it_stood(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    # #179930 landed on 2026-04-15, after the first week ended: rebuilt as of the end of that
    # week it was still closed-unlanded... and as collected now it is merged.
    save(db, row_of(PR_179930) | {"state": "merged", "merged": "2026-04-15T10:00:00Z"})

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    follow = second["follow_up"]
    assert follow["basis"] == "computed" and follow["previous_generated_at"] is None
    assert follow["text"].startswith("No report was recorded for 2026-04-07 – 2026-04-13")
    assert statuses(second)[PR_179930] == ("merged", "open", "merged", [])
    assert {item_id: s for item_id, s in statuses(second).items() if item_id != PR_179930} == {
        item_id: UNCHANGED_DATA[item_id] for item_id in FOCUS["compiler"] if item_id != PR_179930
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
    report(capsys, db, tmp_path / "en", WEEK_1)
    code, _, err = cli(capsys, "report", "--db", db, *WEEK_1, "--out", str(tmp_path / "zh"), "--focus", "2")
    assert code == 0, err
    row = Store.open(db, readonly=True).snapshot_ending("pytorch", "generalist", "2026-04-13")
    assert row is not None
    snapshot = Snapshot.model_validate(row)
    assert [entry.id for entry in snapshot.focus] == [PR_179930, KINETO_1359]  # the later (zh, --focus 2) one
    assert snapshot.focus[1].areas == ["rocm"] and snapshot.focus[1].fix_state == "none"
    assert snapshot.areas["rocm"] == 114


def test_dates_set_an_item_back_and_windows_follow_each_other() -> None:
    item = item_from_line(row_of(PR_179930) | {"state": "merged", "merged": "2026-04-15T10:00:00Z"})
    end = make_window("2026-04-07", "2026-04-13").end
    assert (as_of(item, end).state, as_of(item, end).merged) == ("open", None)
    assert as_of(item, make_window("2026-04-14", "2026-04-20").end) is item
    undated = item_from_line(row_of(PR_180270))
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
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    # Collected after both weeks: #179930 merged in the second week, with a review written then.
    late_review = {"author": "reviewer", "date": "2026-04-16T08:00:00Z", "kind": "review", "body": "Ship it."}
    row = row_of(PR_179930)
    save(db, row | {"state": "merged", "merged": "2026-04-15T10:00:00Z", "comments": [*row["comments"], late_review]})

    first = report(capsys, db, tmp_path / "out", WEEK_1, "--reader", "compiler")
    then = next(item for item in first["items"] if item["id"] == PR_179930)
    assert then["state"] == "open"  # as of 2026-04-13: the merge came later
    entry = next(entry for entry in first["focus"] if entry["id"] == PR_179930)
    assert entry["analysis"]["fix_state"] != "merged"
    assert all("2026-04-15" not in evidence["quote"] for evidence in entry["evidence"])

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    assert second["follow_up"]["basis"] == "stored"
    item = next(item for item in second["follow_up"]["items"] if item["id"] == PR_179930)
    assert (item["status"], item["fix_state_then"], item["fix_state_now"]) == ("merged", "open", "merged")
    assert "state: merged (merged 2026-04-15T10:00:00Z)" in [evidence["quote"] for evidence in item["evidence"]]


def test_a_reopening_after_the_window_is_undone_and_later_comments_dropped() -> None:
    item = item_from_line(
        row_of(PR_180270)
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
    report(capsys, db, tmp_path / "out", WEEK_1, "--reader", "compiler")
    # A PR of the second week saying last week's change broke a path, reviewed in that week.
    save(
        db,
        {
            "repo": "pytorch/pytorch",
            "number": 181500,
            "kind": "pull_request",
            "state": "open",
            "title": "[ROCm] Restore the addmm bias path",
            "author": "someone",
            "created": "2026-04-16",
            "body": "The change in #179930 broke the ROCm addmm bias path for fp16 inputs. This restores it.",
            "comments": [{"author": "reviewer", "date": "2026-04-17", "kind": "review", "body": "Looks right."}],
            "url": "https://github.com/pytorch/pytorch/pull/181500",
        },
    )

    second = report(capsys, db, tmp_path / "out", WEEK_2, "--reader", "compiler")

    item = next(item for item in second["follow_up"]["items"] if item["id"] == PR_179930)
    assert item["related"] == ["#181500"] and "mentioned since by #181500" in item["text"]
    quote = next(e for e in item["evidence"] if e["item"] == "github:pytorch/pytorch#181500")["quote"]
    assert quote.startswith("The change in #179930 broke the ROCm addmm bias path")
    others = [i for i in second["follow_up"]["items"] if i["id"] != PR_179930]
    # Two helion PRs of the second week say they depend on #180252: mentioned since, in the data.
    assert [(i["id"], i["related"]) for i in others if i["related"]] == [
        (PR_180252, ["pytorch/helion#2019", "pytorch/helion#2018"])
    ]


def test_a_timeline_names_a_pr_as_it_stood_at_the_windows_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    # Collected later: the issue's timeline says #1370 is merged; it merged after the first week.
    cross = {
        "event": "cross-referenced",
        "repo": "pytorch/kineto",
        "number": 1370,
        "kind": "pull_request",
        "state": "merged",
        "title": "Finalize the rocprofiler context",
        "date": "2026-04-10T09:00:00Z",
    }
    pr = {
        "repo": "pytorch/kineto",
        "number": 1370,
        "kind": "pull_request",
        "state": "merged",
        "merged": "2026-04-15T10:00:00Z",
        "title": "Finalize the rocprofiler context",
        "author": "someone",
        "created": "2026-04-02",
        "body": "Finalize the context before exit.",
        "url": "https://github.com/pytorch/kineto/pull/1370",
    }
    save(db, row_of(KINETO_1359) | {"timeline_refs": [cross]}, pr)

    first = report(capsys, db, tmp_path / "out", WEEK_1)
    entry = next(entry for entry in first["focus"] if entry["id"] == KINETO_1359)
    assert entry["analysis"]["fix_state"] == "referenced"
    assert entry["analysis"]["fix_ref_states"] == {"github:pytorch/kineto#1370": "open"}  # merged only later
