"""The HTML report in a real browser: headless Chromium loads it offline, shows source markup as
text, and lays it out without horizontal overflow on a desktop and on a phone.

The layout checks drive Chromium through the DevTools protocol over `--remote-debugging-pipe`
(JSON messages ending in NUL on file descriptors 3 and 4), so they need no websocket client and
no port. The measuring scripts are the test's, sent with `Runtime.evaluate`; the report itself has
none. Screenshots land in pytest's temporary directory (`--basetemp` to keep them somewhere)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.report.model import Report
from pytorch_insight.report.render import render_html
from pytorch_insight.report.write import write_report
from tests.report.fixtures import fixed_report, report_of_week

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
    assert dom.count("<svg") == 2 and dom.count("<details") == 6  # 4 activity types, the accounting


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


# --- layout at a desktop and a phone width, through the DevTools protocol -------------------------

TIMEOUT = 60.0


class DevTools:
    """One headless Chromium driven over `--remote-debugging-pipe`, attached to its first page."""

    def __init__(self, binary: str, profile: Path) -> None:
        def high(fd: int) -> int:  # away from 3 and 4, where the browser expects its pipe ends
            moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
            os.close(fd)
            return moved

        browser_reads, self._send_fd = map(high, os.pipe())
        self._receive_fd, browser_writes = map(high, os.pipe())
        # bash (not sh: dash knows only fds 0-9) puts the pipe ends on 3 and 4, then becomes the browser.
        script = f'exec "$@" 3<&{browser_reads} 4>&{browser_writes} {browser_reads}<&- {browser_writes}>&-'
        command = [binary, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
        self._log = (profile.parent / f"{profile.name}.log").open("w")
        self.process = subprocess.Popen(
            ["bash", "-c", script, "bash", *command],
            pass_fds=(browser_reads, browser_writes),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
        )
        os.close(browser_reads)
        os.close(browser_writes)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(target for target in targets if target["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._send_fd, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def page(self, method: str, **params: Any) -> dict[str, Any]:
        """A command to the attached page."""
        return self.send(method, self.session, **params)

    def wait_for(self, event: str) -> dict[str, Any]:
        for index, seen in enumerate(self.events):
            if seen.get("method") == event:
                return self.events.pop(index)
        while True:
            message = self._receive()
            if message.get("method") == event:
                return message
            self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        result = self.page("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._receive_fd], [], [], remaining)[0]:
                raise TimeoutError(f"no answer from Chromium in {TIMEOUT:.0f} s")
            chunk = os.read(self._receive_fd, 1 << 20)
            if not chunk:
                raise EOFError(f"Chromium closed the DevTools pipe (exit code {self.process.poll()})")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (OSError, EOFError, TimeoutError, RuntimeError):
            pass
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._send_fd)
        os.close(self._receive_fd)
        self._log.close()


@pytest.fixture
def devtools(chromium: str, tmp_path: Path) -> Iterator[DevTools]:
    browser = DevTools(chromium, tmp_path / "profile")
    try:
        yield browser
    finally:
        browser.close()


# A 300-character URL and a 120-character identifier: neither has a place to break a line.
LONG_URL = ("https://github.com/example/kernels/blob/main/src/lowering/" + "codegen_" * 40)[:290] + "?line=1234"
LONG_IDENTIFIER = ("__torch_dispatch__" + "_".join(["aot_autograd_cache_key_for_subclass_wrappers"] * 3))[:120]
LONG_AREA = (
    "Compiler stack: Dynamo, AOTAutograd, Inductor, Triton templates, export and the C++ wrapper code generation"
)


def long_words_report(lang: str) -> Report:
    """The fixed report with words that cannot wrap in a title, a summary, code and a chart label."""
    report = fixed_report(lang)
    focus = report.focus[0]
    focus.title = f"{LONG_IDENTIFIER} {LONG_URL}"
    focus.analysis.summary = f"`{LONG_IDENTIFIER}` breaks __torch_dispatch__ and {LONG_IDENTIFIER}; see {LONG_URL}"
    focus.analysis.workaround_code = f"{LONG_IDENTIFIER} = 1  # {LONG_URL}"
    row = report.activity[0].rows[0]
    row.title = f"{LONG_IDENTIFIER} {LONG_URL}"
    row.summary = f"{LONG_IDENTIFIER} at {LONG_URL}"
    report.coverage.areas[0].name = LONG_AREA
    report.coverage.sources[-1].note = f"{LONG_URL} answered 404"
    return report


REPORTS = {
    "zh": lambda: fixed_report("zh"),
    "en": lambda: fixed_report("en"),
    "zh-long": lambda: long_words_report("zh"),
    "en-long": lambda: long_words_report("en"),
    # a real week: several repositories (the roll-up table), long quotes, many focus entries
    "zh-week": lambda: report_of_week("pytorch-2026-04-07_2026-04-20.jsonl", "2026-04-14", "2026-04-20", "zh")[0],
}
SCREENS = {"desktop": (1280, 900, False), "phone": (390, 844, True)}

# Everything the page lays out, where its box is; the charts' text inside their viewBox.
MEASURE = """
(() => {
  const root = document.documentElement, width = root.clientWidth;
  const name = (el) => el.tagName.toLowerCase()
    + (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const outside = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right > width + 0.5 || box.left < -0.5)
      outside.push(`${name(el)} [${Math.round(box.left)}, ${Math.round(box.right)}] ${el.textContent.slice(0, 60)}`);
  }
  const charts = [...document.querySelectorAll("svg.chart")].map((svg) => {
    const view = svg.viewBox.baseVal;
    const clipped = [...svg.querySelectorAll("text")]
      .filter((text) => { const b = text.getBBox(); return b.x < -0.5 || b.x + b.width > view.width + 0.5; })
      .map((text) => text.textContent);
    return {legend: svg.querySelectorAll(".legend rect").length,
            legendText: [...svg.querySelectorAll(".legend text")].map((t) => t.textContent),
            width: svg.getBoundingClientRect().width, clipped};
  });
  return {scrollWidth: root.scrollWidth, clientWidth: width, outside, charts,
          badges: [...document.querySelectorAll(".prio")].map((b) => b.textContent.trim()),
          stars: [...document.querySelectorAll(".star")].map((s) => s.getAttribute("aria-label"))};
})()
"""


def show(browser: DevTools, html: Path, width: int, height: int, mobile: bool) -> None:
    browser.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)
    browser.page("Page.navigate", url=html.as_uri())
    browser.wait_for("Page.loadEventFired")
    # Every <details> open: the widest state of the page. Then wait for the fonts.
    browser.evaluate(
        "document.querySelectorAll('details').forEach((d) => { d.open = true; }); document.fonts.ready.then(() => true)"
    )


def screenshot(browser: DevTools, path: Path, full: bool = False, selector: str | None = None) -> None:
    """The viewport, the whole page (`full`) or the box of one element (`selector`) as a PNG file."""
    options: dict[str, Any] = {"format": "png", "captureBeyondViewport": full or selector is not None}
    if selector:
        box = browser.evaluate(
            f"(() => {{ const b = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            " return [b.left + scrollX, b.top + scrollY, b.width, b.height]; })()"
        )
        x, y, width, height = box
        options["clip"] = {
            "x": max(x - 8, 0),
            "y": max(y - 8, 0),
            "width": width + 16,
            "height": height + 16,
            "scale": 1,
        }
    shot = browser.page("Page.captureScreenshot", **options)
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.parametrize("variant", list(REPORTS))
def test_the_report_fits_a_desktop_and_a_phone(devtools: DevTools, tmp_path: Path, variant: str) -> None:
    report = REPORTS[variant]()
    html = tmp_path / f"{variant}.html"
    html.write_text(render_html(report), encoding="utf-8")
    devtools.page("Page.enable")
    devtools.page("Network.enable")
    named = {
        "high": {"zh": "高", "en": "high"},
        "medium": {"zh": "中", "en": "medium"},
        "low": {"zh": "低", "en": "low"},
    }
    words = [named[priority][report.lang] for priority in {entry.priority for entry in report.focus}]
    assert words
    for screen, (width, height, mobile) in SCREENS.items():
        show(devtools, html, width, height, mobile)
        layout = devtools.evaluate(MEASURE)
        screenshot(devtools, tmp_path / f"{variant}-{screen}.png")
        screenshot(devtools, tmp_path / f"{variant}-{screen}-full.png", full=True)
        screenshot(devtools, tmp_path / f"{variant}-{screen}-focus.png", selector="#focus-1")
        screenshot(devtools, tmp_path / f"{variant}-{screen}-activity.png", selector="#activity")
        print(f"{variant} {screen}: scrollWidth {layout['scrollWidth']} clientWidth {layout['clientWidth']}")
        assert layout["scrollWidth"] <= layout["clientWidth"], (screen, layout["outside"][:10])
        assert layout["outside"] == [], (screen, layout["outside"][:10])
        assert [chart["legend"] for chart in layout["charts"]] == [3, 1], layout["charts"]
        for chart in layout["charts"]:
            assert chart["clipped"] == [], chart
            assert 0 < chart["width"] <= width
        assert layout["charts"][0]["legendText"][0] == {"zh": "高优先级", "en": "High priority"}[report.lang]
        # The priority is a word as well as a coloured circle; the focus star has a name.
        assert all(any(badge.endswith(word) for badge in layout["badges"]) for word in words), layout["badges"]
        assert layout["stars"] and set(layout["stars"]) == {{"zh": "重点关注", "en": "Focus items"}[report.lang]}
    requests = [
        event["params"]["request"]["url"]
        for event in devtools.events
        if event.get("method") == "Network.requestWillBeSent"
    ]
    assert set(requests) == {html.as_uri()}  # the page loads nothing but itself


def fonts_for_language(lang: str, charset: str | None = None) -> set[str]:
    """The font families fontconfig knows for a language (or that hold a character)."""
    pattern = f":charset={charset}" if charset else f":lang={lang}"
    try:
        listed = subprocess.run(["fc-list", pattern, "family"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {family.strip() for line in listed.splitlines() for family in line.split(",") if family.strip()}


def test_chinese_text_and_emoji_are_drawn_with_real_fonts(devtools: DevTools, tmp_path: Path) -> None:
    """Chinese glyphs come from a CJK font and the priority circles from an emoji font, not boxes."""
    cjk, emoji = fonts_for_language("zh"), fonts_for_language("", charset="1f534")
    if not cjk or not emoji:
        missing = "no CJK or colour-emoji font (apt-get install fonts-noto-cjk fonts-noto-color-emoji; .ci/run does)"
        if "CI" in os.environ:
            pytest.fail(missing)
        pytest.skip(missing)
    html = tmp_path / "zh.html"
    html.write_text(render_html(fixed_report("zh")), encoding="utf-8")
    devtools.page("Page.enable")
    show(devtools, html, 1280, 900, False)
    devtools.page("DOM.enable")
    devtools.page("CSS.enable")
    document = devtools.page("DOM.getDocument", depth=0)["root"]["nodeId"]

    def fonts(selector: str) -> set[str]:
        node = devtools.page("DOM.querySelector", nodeId=document, selector=selector)["nodeId"]
        return {font["familyName"] for font in devtools.page("CSS.getPlatformFontsForNode", nodeId=node)["fonts"]}

    assert fonts("#overview h2") & cjk, (fonts("#overview h2"), sorted(cjk)[:10])
    assert fonts(".prio span") & emoji, (fonts(".prio span"), sorted(emoji)[:10])


# A real week on a phone as it opens (no <details> opened): 180 activity rows shown by default once
# ran the page past 60,000 px; a reader scrolls the overview, the focus list and the people.
PHONE_PAGE = 20_000
PHONE_FOLDED = 1_000  # px of the activity section and of the appendix's folded tables


def test_a_real_week_opens_short_enough_on_a_phone(devtools: DevTools, tmp_path: Path) -> None:
    html = tmp_path / "week.html"
    html.write_text(render_html(REPORTS["zh-week"]()), encoding="utf-8")
    devtools.page("Page.enable")
    width, height, mobile = SCREENS["phone"]
    devtools.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)
    devtools.page("Page.navigate", url=html.as_uri())
    devtools.wait_for("Page.loadEventFired")
    page = devtools.evaluate(
        "document.fonts.ready.then(() => ({height: document.documentElement.scrollHeight,"
        " scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,"
        " activity: document.querySelector('#activity').getBoundingClientRect().height,"
        " folded: [...document.querySelectorAll('details.appendix-table')]"
        ".map((d) => d.getBoundingClientRect().height),"
        " open: document.querySelectorAll('#activity details[open]').length}))"
    )
    screenshot(devtools, tmp_path / "week-phone-full.png", full=True)
    print(page)
    assert page["scrollWidth"] <= page["clientWidth"]  # nothing scrolls sideways
    assert page["open"] == 0 and page["activity"] < PHONE_FOLDED
    assert all(folded < 100 for folded in page["folded"]) and page["folded"]
    assert page["height"] < PHONE_PAGE


def test_the_archive_page_fits_a_phone(devtools: DevTools, tmp_path: Path) -> None:
    report = long_words_report("zh")
    report.title = f"{report.title} {LONG_IDENTIFIER}"
    write_report(report, tmp_path / "site")
    write_report(fixed_report("en"), tmp_path / "site")
    devtools.page("Page.enable")
    for screen, (width, height, mobile) in SCREENS.items():
        show(devtools, tmp_path / "site" / "index.html", width, height, mobile)
        layout = devtools.evaluate(MEASURE)
        screenshot(devtools, tmp_path / f"index-{screen}.png")
        assert layout["scrollWidth"] <= layout["clientWidth"] and layout["outside"] == [], (
            screen,
            layout["outside"][:10],
        )
