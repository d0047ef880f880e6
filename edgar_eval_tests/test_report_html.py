"""The HTML report and its SVG figures: untrusted text stays text, figures are well-formed and byte-stable."""

import math
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import cast

import pandas as pd
import pytest

from edgar_eval.report.html import CONTENT_SECURITY_POLICY, check_svg, render_html
from edgar_eval.report.markdown import Provenance, ReportTable, md_cell
from edgar_eval.report.svg import (
    HEIGHT,
    INTERVAL_BARS_BOX,
    RISK_COVERAGE_BOX,
    WIDTH,
    interval_bars_svg,
    nice_ceiling,
    risk_coverage_svg,
    scale,
)
from edgar_eval.stats.risk_coverage import risk_coverage

SVG = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "p",
    "ul",
    "li",
    "code",
    "div",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "figure",
    "svg",
    "g",
    "rect",
    "line",
    "polyline",
    "circle",
    "text",
}
HOSTILE = ["<script>alert(1)</script>", "</table>", "<img src=x onerror=alert(1)>"]


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += attrs

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def _parse(html: str) -> _Tags:
    parser = _Tags()
    parser.feed(html)
    parser.close()
    return parser


def _arms_figure() -> str:
    return interval_bars_svg(
        ["A", "B", "C"],
        [0.169, 0.0, 0.05],
        [0.099, 0.0, 0.01],
        [0.273, 0.051, 0.12],
        "False-answer rate by arm",
        "false-answer rate",
    )


def _hostile_report() -> str:
    frame = pd.DataFrame({"arm": ["A", "B", "C"], "<b>gates</b>": HOSTILE, "FAR": ["16.9%", None, float("nan")]})
    tables = [
        ReportTable(
            "Arms <script>x</script>",
            frame,
            Provenance("arm_statistics", "034aa68d1a4ba701", "</p><script>alert(2)</script>"),
            note="FAR: answers `<img src=y>` given <iframe src=z>.",
        ),
        ReportTable("Empty", pd.DataFrame(), Provenance("retrieval_slices", "b37bfd6e763cc3f8", "retriever_rankings")),
    ]
    preface = [
        "Evaluation of the `demo<script>` corpus.",
        "",
        "- a bullet <iframe src=https://evil.example>",
        "- second `code & <b>`",
    ]
    return render_html("Report <script>alert(0)</script>", preface, tables, [("FAR by arm <img>", _arms_figure())])


def test_untrusted_text_renders_as_text():
    html = _hostile_report()
    lowered = html.lower()
    for tag in ("<script", "<img", "<iframe", "<b>"):
        assert tag not in lowered
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<td>&lt;/table&gt;</td>" in html
    assert html.count("</table>") == 1  # the one real table; the empty one has no columns
    parsed = _parse(html)
    assert set(parsed.tags) <= ALLOWED_TAGS, set(parsed.tags) - ALLOWED_TAGS
    assert parsed.tags.count("table") == 1 and parsed.tags.count("td") == 9 and parsed.tags.count("th") == 3
    assert not [name for name, _ in parsed.attributes if name.startswith("on") or name in {"src", "href"}]
    text = "".join(parsed.text)
    for hostile in HOSTILE:
        assert hostile in text  # shown to the reader verbatim
    assert "<iframe src=https://evil.example>" in text and "</p><script>alert(2)</script>" in text


def test_document_is_self_contained_and_forbids_scripts():
    html = _hostile_report()
    assert html.startswith("<!DOCTYPE html>\n")
    assert (
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY.replace(chr(39), "&#x27;")}">'
        in html
    )
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY and "script-src 'none'" in CONTENT_SECURITY_POLICY
    assert not re.search(r"<[^>]*\b(src|href)\s*=|url\(|@import|<link", html, re.IGNORECASE)
    addresses = {value for _, value in _parse(html).attributes if value and "://" in value}
    assert addresses == {"http://www.w3.org/2000/svg"}  # the SVG namespace only
    assert html == _hostile_report()


def test_preface_bullets_code_and_provenance():
    corpus = "R&D | <Co>"
    preface = [
        f"Evaluation of the {md_cell(corpus)} corpus, index `bm25;pattern=(?u)\\b\\w\\w+\\b`.",
        "",
        "- first `x & y`",
        "- second",
        "",
        "After.",
    ]
    table = ReportTable(
        "Corpus",
        pd.DataFrame({"filing": ["f-1"], "n": [3]}),
        Provenance("filings", "0942065216a7ebed", "15 filing partitions"),
        note="Counted once (edgar_eval/golden/fairness.py).",
    )
    html = render_html("edgar-eval report: demo", preface, [table], [])
    assert (
        "<p>Evaluation of the R&amp;D | &lt;Co&gt; corpus, index <code>bm25;pattern=(?u)\\b\\w\\w+\\b</code>.</p>\n"
        "<ul>\n<li>first <code>x &amp; y</code></li>\n<li>second</li>\n</ul>\n<p>After.</p>"
    ) in html
    assert "<p>Counted once (edgar_eval/golden/fairness.py).</p>" in html
    assert (
        '<p class="source">Source: asset <code>filings</code>, data version <code>0942065216a7ebed</code>, '
        "read from 15 filing partitions.</p>"
    ) in html
    assert "<thead><tr><th>filing</th><th>n</th></tr></thead>" in html and "<tr><td>f-1</td><td>3</td></tr>" in html
    assert html.index("<h1>edgar-eval report: demo</h1>") < html.index("<h2>Corpus</h2>")


def test_figures_follow_tables_under_their_titles():
    table = ReportTable("Arms", pd.DataFrame({"arm": ["A"]}), Provenance("arm_statistics", "v", "arm_outcomes"))
    curve = risk_coverage_svg({"cosine": ([0.5, 1.0], [0.0, 0.2])}, "Risk against coverage")
    html = render_html("t", [], [table], [("FAR by arm", _arms_figure()), ("Risk & coverage", curve)])
    assert html.index("<h2>Arms</h2>") < html.index("<h2>FAR by arm</h2>") < html.index("<h2>Risk &amp; coverage</h2>")
    assert f"<h2>FAR by arm</h2>\n<figure>\n{_arms_figure().strip()}\n</figure>" in html


@pytest.mark.parametrize(
    "svg",
    [
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><rect onload="alert(1)"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink"><a '
        'x:href="javascript:1"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://evil.example/x)"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>',
        '<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg"/>',
        "<svg><rect></svg>",
        "<html/>",
    ],
)
def test_figures_that_could_run_code_are_refused(svg):
    with pytest.raises(ValueError):
        render_html("t", [], [], [("f", svg)])


def _curves() -> dict:
    dense = risk_coverage([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], [0, 0, 1, 0, 1, 1])
    return {
        "cosine & relevance <gate>": (dense.coverage, dense.risk),
        "period guard": ([0.25, 0.5, 0.75, 1.0], [0.0, 0.0, 0.1, 0.2]),
    }


def test_svgs_are_well_formed_and_byte_stable():
    for make in (
        lambda: risk_coverage_svg(_curves(), "Risk & <coverage>"),
        _arms_figure,
        lambda: interval_bars_svg(
            ["R&D", "<x>"], [float("nan"), 0.2], [0.1, float("nan")], [0.3, float("nan")], "a&b", "<rate>"
        ),
        lambda: risk_coverage_svg({}, "none"),
        lambda: interval_bars_svg([], [], [], [], "none", "rate"),
    ):
        first, second = make(), make()
        assert first == second
        root = ET.fromstring(first)
        assert root.tag == SVG + "svg" and root.get("viewBox") == f"0 0 {WIDTH} {HEIGHT}"
        assert check_svg(first) == first
        for name, value in root.attrib.items() | {kv for e in root.iter() for kv in e.attrib.items()}:
            if re.fullmatch(r"-?[\d.]+", value):
                assert re.fullmatch(r"\d+(\.\d\d)?", value), (name, value)  # fixed decimals, no negative zero


def test_labels_are_escaped():
    svg = risk_coverage_svg(_curves(), "Risk & <coverage>")
    assert "cosine &amp; relevance &lt;gate&gt;" in svg and "Risk &amp; &lt;coverage&gt;" in svg and "<gate>" not in svg
    texts = ["".join(e.itertext()) for e in ET.fromstring(svg).iter(SVG + "title")]
    assert "cosine & relevance <gate>" in texts and "Risk & <coverage>" in texts
    bars = interval_bars_svg(["R&D", "<x>"], [0.1, 0.2], [0.0, 0.1], [0.3, 0.4], "a&b", "rate <%>")
    assert "R&amp;D" in bars and "&lt;x&gt;" in bars and "rate &lt;%&gt;" in bars and "<x>" not in bars
    assert ET.fromstring(interval_bars_svg(["\x00\x1f"], [0.1], [0.0], [0.2], "ctl\x07", "r")) is not None


def test_nan_estimate_omits_the_bar_with_a_note():
    svg = interval_bars_svg(
        ["A", "D & E", "F"],
        [0.1, float("nan"), 0.2],
        [0.05, float("nan"), 0.1],
        [0.2, float("nan"), float("nan")],
        "FAR",
        "false-answer rate",
    )
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}rect[@class='bar']")) == 2
    assert len(root.findall(f".//{SVG}line[@class='whisker']")) == 1  # F has no interval
    notes = ["".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == "note"]
    assert "n/a: no estimate for D & E." in notes and "No interval for F." in notes
    assert all(
        math.isfinite(float(v))
        for e in root.iter()
        for k, v in e.attrib.items()
        if k in {"x", "y", "width", "height", "y1", "y2"}
    )


def test_curve_points_land_inside_the_plot_box():
    curves = _curves()
    root = ET.fromstring(risk_coverage_svg(curves, "Risk against coverage"))
    lines = root.findall(f".//{SVG}polyline[@class='curve']")
    assert len(lines) == 2
    box = RISK_COVERAGE_BOX
    top, _ = nice_ceiling(max(max(risk) for _, risk in curves.values()))
    assert top == pytest.approx(0.5)  # the largest risk, 1/2, is already a round top
    for line, (coverage, risk) in zip(lines, curves.values()):
        points = [tuple(map(float, p.split(","))) for p in cast(str, line.get("points")).split()]
        assert len(points) == len(coverage)
        for (x, y), (c, r) in zip(points, zip(coverage, risk)):
            assert box.left <= x <= box.right and box.top <= y <= box.bottom
            assert x == pytest.approx(scale(c, 0, 1, box.left, box.right), abs=0.005)
            assert y == pytest.approx(scale(r, 0, top, box.bottom, box.top), abs=0.005)
    last = points[-1]
    assert last == (box.right, pytest.approx(scale(0.2, 0, top, box.bottom, box.top), abs=0.005))


def test_curve_input_is_checked():
    with pytest.raises(ValueError):
        risk_coverage_svg({"a": ([0.5, 1.0], [0.1])}, "t")
    with pytest.raises(ValueError):
        risk_coverage_svg({"a": ([1.5], [0.1])}, "t")
    svg = risk_coverage_svg({"one": ([1.0], [0.25]), "none": ([float("nan")], [0.1])}, "t")
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}circle")) == 1
    assert "No points to draw for none." in svg


def test_whisker_spans_low_to_high_upward():
    labels, est, low, high = ["A", "B"], [0.169, 0.05], [0.099, 0.01], [0.273, 0.12]
    root = ET.fromstring(interval_bars_svg(labels, est, low, high, "FAR", "false-answer rate"))
    box = INTERVAL_BARS_BOX
    top, step = nice_ceiling(0.273)
    assert (top, step) == (pytest.approx(0.3), pytest.approx(0.1))
    whiskers = root.findall(f".//{SVG}line[@class='whisker']")
    bars = root.findall(f".//{SVG}rect[@class='bar']")
    slot = (box.right - box.left) / len(labels)
    for i, (whisker, bar) in enumerate(zip(whiskers, bars)):
        y_low, y_high = float(cast(str, whisker.get("y1"))), float(cast(str, whisker.get("y2")))
        assert y_low == pytest.approx(scale(low[i], 0, top, box.bottom, box.top), abs=0.005)
        assert y_high == pytest.approx(scale(high[i], 0, top, box.bottom, box.top), abs=0.005)
        assert box.top <= y_high < y_low <= box.bottom  # higher values sit higher on the page
        centre = box.left + slot * (i + 0.5)
        assert (
            float(cast(str, whisker.get("x1")))
            == float(cast(str, whisker.get("x2")))
            == pytest.approx(centre, abs=0.005)
        )
        assert float(cast(str, bar.get("x"))) + float(cast(str, bar.get("width"))) / 2 == pytest.approx(
            centre, abs=0.01
        )
        assert float(cast(str, bar.get("y"))) == pytest.approx(scale(est[i], 0, top, box.bottom, box.top), abs=0.005)
        assert float(cast(str, bar.get("y"))) + float(cast(str, bar.get("height"))) == pytest.approx(
            box.bottom, abs=0.01
        )
    values = ["".join(e.itertext()) for e in root.iter(SVG + "text") if e.get("class") == "value"]
    assert values == ["16.9%", "5.0%"]
    ticks = [
        "".join(e.itertext()) for e in cast(ET.Element, root.find(f".//{SVG}g[@class='y-axis']")).iter(SVG + "text")
    ][:-1]
    assert ticks == ["0%", "10%", "20%", "30%"]


def test_bar_input_is_checked():
    with pytest.raises(ValueError):
        interval_bars_svg(["A"], [0.1, 0.2], [0.0], [0.3], "t", "r")
    with pytest.raises(ValueError):
        interval_bars_svg(["A"], [0.1], [0.3], [0.2], "t", "r")
    with pytest.raises(ValueError):
        interval_bars_svg(["A"], [-0.1], [0.0], [0.2], "t", "r")


@pytest.mark.parametrize(
    ("value", "top", "step"),
    [
        (0.0, 0.05, 0.01),
        (0.05, 0.05, 0.01),
        (0.051, 0.06, 0.02),
        (0.273, 0.3, 0.1),
        (0.5, 0.5, 0.1),
        (0.51, 0.6, 0.2),
        (1.0, 1.0, 0.2),
        (3.2, 4.0, 1.0),
    ],
)
def test_axis_top_is_a_round_ceiling(value, top, step):
    assert nice_ceiling(value) == (pytest.approx(top), pytest.approx(step))
