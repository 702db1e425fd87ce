"""What makes the HTML page read well anywhere, checked without a browser: identifiers stay
identifiers, charts carry a legend and labels that fit, priority and focus marks have words,
tables scroll in their own box, and the font stacks reach Chinese and emoji fonts.
(tests/report/test_browser.py measures the same page in Chromium.)"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import html5lib
import pytest

from pytorch_insight.report.build import one_line
from pytorch_insight.report.charts import WIDTH, activity_chart, area_chart, fit_text, text_width
from pytorch_insight.report.model import AreaCoverage
from pytorch_insight.report.render import (
    OPEN_ROWS,
    markdown_inline_to_html,
    markdown_to_html,
    render_html,
    render_markdown,
    template_environment,
)
from tests.pipeline.helpers import assessment, item
from tests.report.fixtures import fixed_report


@pytest.mark.parametrize("render", [markdown_inline_to_html, markdown_to_html])
def test_underscores_in_identifiers_are_text_and_stars_still_emphasise(render) -> None:  # noqa: ANN001
    html = str(render("`__code__` sets __code__, __torch_dispatch__ and _scaled_mm; **bold** and *stress*"))
    assert "<code>__code__</code>" in html
    assert "sets __code__, __torch_dispatch__ and _scaled_mm;" in html
    assert "<strong>bold</strong>" in html and "<em>stress</em>" in html
    assert html.count("<strong>") == 1 and html.count("<em>") == 1


def test_source_html_in_markdown_stays_text() -> None:
    html = str(markdown_inline_to_html("__init__ <script>alert(1)</script> <b>x</b>"))
    assert html == "__init__ &lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x&lt;/b&gt;"


def test_a_summary_with_dunder_names_is_not_bold_in_the_page() -> None:
    report = fixed_report("en")
    report.focus[0].analysis.summary = "Setting __code__ breaks __torch_dispatch__ subclasses."
    report.activity[0].rows[0].summary = "Setting __code__ breaks __torch_dispatch__ subclasses."
    html = render_html(report)
    assert html.count("Setting __code__ breaks __torch_dispatch__ subclasses.") == 2
    assert "<strong>code</strong>" not in html and "<strong>torch_dispatch</strong>" not in html


def area(name: str, high: int, medium: int, low: int) -> AreaCoverage:
    return AreaCoverage(
        id=name,
        name=name,
        level="high",
        items=high + medium + low,
        high=[f"#{n}" for n in range(high)],
        medium=medium,
        low=low,
    )


def chart_tree(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


SVG = "{http://www.w3.org/2000/svg}"


def test_area_chart_has_a_legend_and_scales_to_its_container() -> None:
    svg = area_chart(
        [area("Compiler stack", 2, 1, 3)],
        "Items per area",
        {"high": "高优先级", "medium": "中优先级", "low": "低优先级"},
    )
    root = chart_tree(svg)
    assert root.get("viewBox").startswith(f"0 0 {WIDTH} ") and root.get("width") == "100%"
    assert root.get("height") is None  # the height follows the width through the viewBox
    legend = root.find(f"{SVG}g[@class='legend']")
    assert [rect.get("class") for rect in legend.iter(f"{SVG}rect")] == ["bar-high", "bar-medium", "bar-low"]
    assert [text.text for text in legend.iter(f"{SVG}text")] == ["高优先级", "中优先级", "低优先级"]
    assert [
        rect.find(f"{SVG}title").text for rect in root.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None
    ] == [
        "Compiler stack: 2 高优先级",
        "Compiler stack: 1 中优先级",
        "Compiler stack: 3 低优先级",
    ]


def test_activity_chart_legend_says_what_the_bars_count() -> None:
    root = chart_tree(activity_chart([], "Activity per type", "Items this period"))
    assert [text.text for text in root.iter(f"{SVG}text")] == ["Items this period"]


@pytest.mark.parametrize(
    "name",
    [
        "Core (nn / autograd / optim / CI ...)",
        "核心（nn / autograd / optim / CI ...）以及" + "很多" * 15 + "的子领域",
        "Compiler stack: Dynamo, AOTAutograd, Inductor, Triton templates, export and the C++ wrapper code generation",
        "x" * 300,
    ],
)
def test_area_labels_fit_the_chart_or_are_shortened_with_the_full_text_as_tooltip(name: str) -> None:
    root = chart_tree(area_chart([area(name, 1, 0, 0)], "t", {}))
    label = next(text for text in root.iter(f"{SVG}text") if text.get("class") == "label")
    tooltip = label.find(f"{SVG}title")
    if text_width(name, 13) <= WIDTH:
        assert label.text == name and tooltip is None
    else:  # <text><title>full name</title>shortened…</text>
        assert tooltip is not None and tooltip.text == name
        shown = tooltip.tail
        assert shown.endswith("…") and name.startswith(shown[:-1]) and len(shown) > 10
        assert text_width(shown, 13) <= WIDTH - float(label.get("x"))


def test_fit_text_estimates_wide_characters_as_one_em() -> None:
    assert text_width("高优先级", 10) == 40
    assert fit_text("short", 12, 100) == "short"
    assert fit_text("编译器" * 20, 10, 100).endswith("…") and text_width(fit_text("编译器" * 20, 10, 100), 10) <= 100


@pytest.mark.parametrize(("lang", "words"), [("zh", ("高", "中", "低")), ("en", ("high", "medium", "low"))])
def test_priority_and_focus_marks_carry_words(lang: str, words: tuple[str, ...]) -> None:
    html = render_html(fixed_report(lang))
    badges = re.findall(
        r'<span class="prio prio-(\w+)"[^>]*><span aria-hidden="true">(\S+)</span> ([^<]+)</span>', html
    )
    assert badges
    meaning = dict(zip(("high", "medium", "low"), words, strict=True))
    marks = {"high": "🔴", "medium": "🟡", "low": "🟢"}
    assert all(word == meaning[priority] and mark == marks[priority] for priority, mark, word in badges)
    assert {priority for priority, _, _ in badges} == {"high", "medium", "low"}
    focus = {"zh": "重点关注", "en": "Focus items"}[lang]
    stars = re.findall(r'<span class="star" role="img" aria-label="([^"]+)" title="([^"]+)">⭐</span>', html)
    assert stars and set(stars) == {(focus, focus)}
    assert html.count("⭐") == len(stars) + html.count('<th><span aria-hidden="true">⭐</span></th>') + 1  # + the note


def test_every_table_scrolls_in_its_own_box_and_code_wraps() -> None:
    html = render_html(fixed_report("zh"))
    document = html5lib.HTMLParser(namespaceHTMLElements=False).parse(html)
    parents = {child: parent for parent in document.iter() for child in parent}
    tables = list(document.iter("table"))
    assert tables and all(parents[table].get("class") == "table-wrap" for table in tables)
    style = document.find("head/style").text
    assert re.search(r"\.table-wrap \{[^}]*display: block;[^}]*overflow-x: auto;", style)
    assert re.search(r"\bpre \{[^}]*overflow-x: auto;[^}]*white-space: pre-wrap;", style)
    assert re.search(r"\bbody \{[^}]*overflow-wrap: anywhere;", style)
    assert "@media print" in style and "prefers-color-scheme: dark" in style


FONT_FAMILIES = [
    "system-ui",
    "-apple-system",
    '"Segoe UI"',
    '"Noto Sans"',
    '"Noto Sans CJK SC"',
    '"Source Han Sans SC"',
    '"WenQuanYi Micro Hei"',
    '"PingFang SC"',
    '"Microsoft YaHei"',
    "sans-serif",
    '"Noto Color Emoji"',
    '"Apple Color Emoji"',
    '"Segoe UI Emoji"',
]


@pytest.mark.parametrize("template", ["report.html.j2", "index.html.j2"])
def test_font_stacks_reach_chinese_and_emoji_fonts(template: str) -> None:
    source = template_environment().loader.get_source(template_environment(), template)[0]
    stack = re.search(r"\bbody \{[^}]*font: 15px/1\.6 ([^;]+);", source).group(1)
    families = [family.strip() for family in stack.split(",")]
    assert [family for family in families if family in FONT_FAMILIES] == FONT_FAMILIES
    if template == "report.html.j2":
        mono = re.search(r"code, pre \{ font-family: ([^;]+);", source).group(1)
        mono_families = [family.strip() for family in mono.split(",")]
        assert {"ui-monospace", '"Noto Sans Mono CJK SC"', "monospace", '"Noto Color Emoji"'} <= set(mono_families)
        assert mono_families.index("monospace") < mono_families.index('"Noto Color Emoji"')


def test_a_long_activity_table_is_folded_and_a_short_one_open() -> None:
    """On a phone a table of many rows, open by default, runs the page for metres: only a short first
    table is shown open, in both formats; the others are folded as always."""
    report = fixed_report("en")
    rows = report.activity[0].rows
    short_html, short_md = render_html(report), render_markdown(report)
    report.activity[0].rows = [rows[0].model_copy(update={"id": f"x{n}"}) for n in range(OPEN_ROWS + 1)]
    report.activity[0].count = len(report.activity[0].rows)
    long_html, long_md = render_html(report), render_markdown(report)
    assert short_html.count("<details open>") == 1 and short_md.count("<details open>") == 1
    assert "<details open>" not in long_html and "<details open>" not in long_md
    assert long_html.count("<details>") == len(report.activity)


def test_a_table_summary_is_the_first_whole_sentence_not_cut_at_an_abbreviation() -> None:
    it = item(3002, "Combine two kernels", "- First, stop inverting sizes, i.e. pass them as is. Second, merge.")
    assert one_line(assessment(it)) == "First, stop inverting sizes, i.e. pass them as is."
