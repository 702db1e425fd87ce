"""The HTML report in a real browser: headless Chromium loads it offline and shows source markup as text."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pytorch_insight.report.render import render_html
from tests.report.fixtures import fixed_report

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture
def chromium() -> str:
    """The browser binary; without one the test is skipped, except in CI (`.ci/run` installs it)."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    missing = f"no headless Chromium ({', '.join(BROWSERS)}) on PATH: apt-get install chromium (.ci/run does)"
    if "CI" in os.environ:
        pytest.fail(f"{missing}; CI is set, so the browser must be there")
    pytest.skip(missing)


def test_chromium_renders_the_report_and_runs_nothing_from_the_sources(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(fixed_report("en")), encoding="utf-8")
    result = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    dom = result.stdout
    assert result.returncode == 0, result.stderr[-500:]
    assert "<h1>PyTorch Community Report</h1>" in dom
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in dom
    assert "<script" not in dom
    assert dom.count("<svg") == 2 and dom.count("<details") == 5


def test_chromium_prints_the_report_to_pdf(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_html(fixed_report("zh")), encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    result = subprocess.run(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--print-to-pdf={pdf}",
            "--no-pdf-header-footer",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-500:]
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10_000
