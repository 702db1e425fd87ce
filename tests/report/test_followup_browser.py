"""The follow-up section in headless Chromium: it fits a desktop and a 390 px phone, with the
longest words a source can put in a title and in the evidence."""

# The fixtures (chromium, devtools, db, isolated_home) are imported from the modules that define
# them, and named again as test parameters.
# ruff: noqa: F401, F811

from __future__ import annotations

from pathlib import Path

import pytest

from pytorch_insight.report.model import Evidence, Report
from pytorch_insight.report.render import render_html
from tests.report.test_browser import (
    LONG_IDENTIFIER,
    LONG_URL,
    SCREENS,
    DevTools,
    chromium,
    devtools,
    screenshot,
    show,
)
from tests.report.test_followup import WEEK_1, WEEK_2, cli, db, isolated_home

# Every box of the follow-up section that reaches past the viewport (the rest of the page is
# tests/report/test_browser.py's).
OUTSIDE = """
(() => {
  const width = document.documentElement.clientWidth, section = document.querySelector("#follow-up");
  return [section, ...section.querySelectorAll("*")]
    .filter((el) => { const b = el.getBoundingClientRect();
                      return (b.width || b.height) && (b.right > width + 0.5 || b.left < -0.5); })
    .map((el) => `${el.tagName.toLowerCase()} ${el.textContent.slice(0, 60)}`);
})()
"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_follow_up_fits_a_desktop_and_a_phone(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    db: str,
    devtools: DevTools,
    lang: str,
) -> None:
    out = tmp_path / "out"
    code, _, err = cli(capsys, "report", "--db", db, *WEEK_1, "--reader", "compiler", "--out", str(out))
    assert code == 0, err
    code, _, err = cli(capsys, "report", "--db", db, *WEEK_2, "--reader", "compiler", "--lang", lang, "--out", str(out))
    assert code == 0, err
    suffix = "" if lang == "zh" else ".en"
    document = Report.model_validate_json((out / f"2026-04-14_2026-04-20.compiler{suffix}.json").read_text())
    assert document.follow_up is not None and len(document.follow_up.items) == 8  # the first week's focus
    first = document.follow_up.items[0]
    first.title = f"{LONG_IDENTIFIER} {LONG_URL}"
    first.evidence.append(Evidence(claim=LONG_IDENTIFIER, item=first.id, quote=f"{LONG_IDENTIFIER} {LONG_URL}"))
    document.follow_up.areas[0].name = LONG_IDENTIFIER
    html = tmp_path / f"follow-up-{lang}.html"
    html.write_text(render_html(document), encoding="utf-8")
    devtools.page("Page.enable")
    for screen, (width, height, mobile) in SCREENS.items():
        show(devtools, html, width, height, mobile)  # every <details> open: the evidence shown
        outside = devtools.evaluate(OUTSIDE)
        screenshot(devtools, tmp_path / f"follow-up-{lang}-{screen}.png", selector="#follow-up")
        assert outside == [], (screen, outside[:10])
        shown = devtools.evaluate("document.querySelector('#follow-up').innerText")
        assert "▼ 108" in shown and LONG_IDENTIFIER in shown
