"""`export` checks its dates as every window is checked; importing something that is no JSONL
prints a bounded error, not one line per line of it."""

from __future__ import annotations

import gzip
import json
import os
from datetime import timedelta
from pathlib import Path

import pytest

from pytorch_insight.cli import main
from pytorch_insight.clock import utc_today
from tests.conftest import RAW_WEEKS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    return int(exit_info.value.code or 0), capsys.readouterr().err


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "insight.db")
    assert run(capsys, "--db", path, "import", str(RAW_WEEKS))[0] == 0
    return path


@pytest.mark.parametrize(
    ("dates", "words"),
    [
        (("--since", "2026-04-20", "--until", "2026-04-07"), "is after --until"),
        (("--until", (utc_today() + timedelta(days=3)).isoformat()), "is in the future"),
        (("--since", (utc_today() + timedelta(days=1)).isoformat()), "is in the future"),
    ],
)
def test_export_refuses_reversed_and_future_dates(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], dates: tuple[str, ...], words: str
) -> None:
    code, err = run(capsys, "--db", db, "export", str(tmp_path / "out.jsonl"), *dates)
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and words in err, err
    assert not (tmp_path / "out.jsonl").exists()


def test_export_of_a_window_still_works(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    assert run(capsys, "--db", db, "export", str(out), "--since", "2026-04-07", "--until", "2026-04-13")[0] == 0
    assert all(json.loads(line)["created"][:10] <= "2026-04-13" for line in out.read_text().splitlines())


def test_importing_a_binary_file_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "items.jsonl.gz"
    archive.write_bytes(gzip.compress(RAW_WEEKS.read_bytes()))
    code, err = run(capsys, "--db", str(tmp_path / "x.db"), "import", str(archive))
    assert code == 1 and err.count("\n") == 1 and "binary data" in err and str(archive) in err, err


def test_a_file_of_garbage_text_is_summed_up_after_a_screenful(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "notes.txt"
    garbage.write_bytes(b"{\n" + b"\n".join(os.urandom(30).replace(b"\n", b"") for _ in range(5000)) + b"\n")
    code, err = run(capsys, "--db", str(tmp_path / "x.db"), "import", str(garbage))
    assert code == 1 and len(err.splitlines()) <= 22 and "more lines skipped" in err, err[-500:]
