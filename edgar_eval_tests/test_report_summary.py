"""The report leads with its result: a Summary first, a table of contents whose links reach every section in the
Markdown and the HTML, plots beside the tables they draw, and every summary figure the one its detail section prints.

`check_report_leads_with_its_summary` reads a whole built report; test_pipeline.py runs it on the demo corpus's."""

from __future__ import annotations

import math
import re
from html.parser import HTMLParser
from typing import cast

import pandas as pd

from edgar_eval.answering.tuned_filings import TUNED_FILINGS
from edgar_eval.evaluation.search_scopes import corpus_scope_sample
from edgar_eval.report.experiment_tables import false_answers_by_kind_table
from edgar_eval.report.html import render_html
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import Provenance, ReportTable, heading_anchor, heading_anchors, render_report
from edgar_eval.report.reader_tables import readers_table
from edgar_eval.report.readme import report_table
from edgar_eval.report.release_tables import release_table
from edgar_eval.report.retrieval_tables import noise_tables, scope_tables
from edgar_eval.report.summary import NOT_IN_INPUTS, SUMMARY, summary_table
from edgar_eval.report.svg import interval_bars_svg
from edgar_eval.stats.proportions import wilson


class _Html(HTMLParser):
    """The ids of the h2 headings in order, the in-page links of the contents, and the tags in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.h2_ids: list[str | None] = []
        self.h2_text: list[str] = []
        self.links: list[str] = []
        self.tags: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attributes = dict(attrs)
        if tag == "h2":
            self.h2_ids.append(attributes.get("id"))
            self.h2_text.append("")
            self._in_h2 = True
        if tag == "a":
            self.links.append(str(attributes.get("href")))

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        if self._in_h2:
            self.h2_text[-1] += data


def _parse_html(html: str) -> _Html:
    parser = _Html()
    parser.feed(html)
    parser.close()
    return parser


def _markdown_sections(markdown: str) -> list[str]:
    return re.findall(r"^## (.*)$", markdown, re.M)


def _markdown_contents(markdown: str) -> list[tuple[str, str]]:
    """(link text, anchor) of each contents bullet."""
    block = markdown.split("\nContents:\n", 1)[1].split("\n\n<a id=", 1)[0]
    return re.findall(r"^- \[(.*)\]\(#([^)]*)\)$", block, re.M)


def _unescape(markdown_text: str) -> str:
    """A Markdown title as a reader sees it (md_cell's backslash escapes and &amp; undone)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown_text).replace("&amp;", "&")


def check_contents(markdown: str, html: str) -> None:
    """Every `## ` section is listed in the contents, in order, and each link lands on its section's anchor: an
    explicit `<a id>` right above the heading (GitHub's own anchor for it too) and an h2 id in the HTML."""
    sections = _markdown_sections(markdown)
    contents = _markdown_contents(markdown)
    assert [text for text, _ in contents] == sections
    anchors = [anchor for _, anchor in contents]
    assert anchors == heading_anchors([_unescape(s) for s in sections]) and len(set(anchors)) == len(anchors)
    for section, anchor in zip(sections, anchors):
        assert f'<a id="{anchor}"></a>\n\n## {section}\n' in markdown, section
    assert markdown.count("<a id=") == len(sections)

    parsed = _parse_html(html)
    assert parsed.h2_ids == anchors  # the same anchors, so one link works in both
    assert [_unescape(s) for s in sections] == parsed.h2_text
    assert parsed.links == [f"#{anchor}" for anchor in anchors]  # the only links: the contents, to every section


def _summary_rows(markdown: str) -> list[dict[str, str]]:
    return report_table(markdown, SUMMARY)


def _detail(markdown: str, title: str) -> list[dict[str, str]]:
    assert f"\n## {title}\n" in markdown, title
    section = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^<a id=|^## |\Z)", markdown, re.M | re.S)
    assert section is not None
    lines = [line for line in section.group(1).splitlines() if line.startswith("|")]
    split = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
    return [dict(zip(split[0], row)) for row in split[2:]]


def _kind_column(row: dict[str, str], kind: str) -> str:
    return next(value for header, value in row.items() if header.split(" ")[0] == kind)


def check_summary_figures(markdown: str) -> int:
    """Each summary row's figure and interval against the cell its detail section prints; returns the rows checked."""
    checked = 0
    for row in _summary_rows(markdown):
        finding, figure, wilson, detail = row["finding"], row["figure"], row["interval"], row["detail"]
        if detail == NOT_IN_INPUTS:
            assert figure.startswith("not in this run's inputs"), row
            continue
        rows = _detail(markdown, detail)
        if finding == "Release decision":
            assert detail == f"Release decision: {figure}"
        elif finding == "Rules fired":
            assert figure == "none" and all(r["fired"] == "no" for r in rows)
        elif rule := re.fullmatch(r"Rule fired: (.*) \(forces (.*)\)", finding):
            assert [r["evidence"] for r in rows if r["rule"] == rule[1] and r["fired"] == "yes"] == [figure], row
            assert [r["forces"] for r in rows if r["rule"] == rule[1]] == [rule[2]]
        elif detail.startswith("Confirmatory decisions") and (
            exact := re.fullmatch(
                r"(H\d+)(?: \(primary\))?: (\S+) - (\S+), .*? \((confirmatory|exploratory[^)]*)\): (.*)", finding
            )
        ):  # protocol v5: the decision its data give, its effect and recall cost, as the decisions table states them
            (decided,) = [
                r for r in rows if (r["hypothesis"], r["comparison"]) == (exact[1], f"{exact[2]} - {exact[3]}")
            ]
            assert decided["decision its data give"] == exact[5], row
            assert (decided["effect"], decided["recall cost"]) == (figure, wilson), row
            assert (decided["here"] == "confirmatory") == (exact[4] == "confirmatory"), row
        elif hypothesis := re.fullmatch(r"(H\d+)(?: \(primary\))?: (\S+) - (\S+), (.*?): (.*)", finding):
            matches = [
                r
                for r in rows
                if r["status"] == "confirmatory"
                and r["hypothesis"] == hypothesis[1]
                and r["comparison"] == f"{hypothesis[2]} - {hypothesis[3]}"
                and r["metric"] == hypothesis[4]
            ]
            assert len(matches) == 1, row
            assert matches[0]["difference"] == figure and matches[0]["decision"] == hypothesis[5], row
            assert matches[0]["interval"] == wilson, row
        elif endpoint := re.fullmatch(
            r"Primary endpoint \((H\d+)\): false-answer rate on (\S+), arm (\S+) .*", finding
        ):
            (arm_row,) = [r for r in rows if r["arm"] == endpoint[3]]
            count = re.fullmatch(r"(\d+/\d+) \((.*)\)", figure)
            assert count is not None, row
            assert _kind_column(arm_row, endpoint[2]) == f"{count[1]} ({count[2]}; {wilson})", row
        elif reader := re.fullmatch(r"Reader accuracy on answerable questions: (.*)", finding):
            (reader_row,) = [r for r in rows if r["reader"] == reader[1] and r.get("documents", "all") == "all"]
            assert (reader_row["right"], reader_row["right Wilson 95%"]) == (figure, wilson), row
        elif hit := re.fullmatch(
            r"Page hit at K = (\d+): (\S+), the answerer's scope \((\S+)\); a random ranking (.*)", finding
        ):
            (hit_row,) = [r for r in rows if (r["scope"], r["retriever"], r["K"]) == (hit[3], hit[2], hit[1])]
            assert (hit_row["page hit"], hit_row["page Wilson 95%"], hit_row["page hit by chance"]) == (
                figure,
                wilson,
                hit[4],
            ), row
        elif finding == "Confirmatory hypotheses":
            # a run the protocol does not register: every hypothesis row says so
            decided = [r["decision"] for r in rows if r["hypothesis"]]
            assert decided and all(d == f"not decided here: {figure.split(': ', 1)[1]}" for d in decided), row
        elif finding == "Arms D, E and F":
            assert figure.startswith("equal A, C and B on every question") and not [r for r in rows if r["arm"] == "D"]
        else:
            raise AssertionError(f"a summary row the test does not know: {row}")
        checked += 1
    return checked


def check_report_leads_with_its_summary(markdown: str, html: str) -> None:
    """The whole report: Summary first, the contents, the plots beside their tables, each summary figure its
    detail's."""
    sections = _markdown_sections(markdown)
    assert sections[0] == SUMMARY
    assert markdown.index("\n## Summary\n") < markdown.index("\nContents:\n") < markdown.index(f"\n## {sections[1]}\n")
    check_contents(markdown, html)
    findings = [row["finding"] for row in _summary_rows(markdown)]
    for start in ("Release decision", "Primary endpoint", "Reader accuracy", "Page hit"):
        assert any(f.startswith(start) for f in findings), start
    assert check_summary_figures(markdown) >= 6
    assert "\nWhat this run cannot conclude:\n" in markdown.split("\n## ", 2)[1]
    # each plot in the section of the table it draws, not after the receipt
    for plot, section in (
        # the primary kind's rate per arm (never one pooled over the kinds), beside the per-kind table
        ("False-answer rate on absent-concept questions by arm", "False-answer rate per unanswerable kind ("),
        ("Risk against coverage per gate score", "Abstention gate quality ("),
    ):
        at = html.index(f"<h3>{plot}</h3>")
        opening = html.rindex("<h2", 0, at)
        assert html[opening:].split(">", 1)[1].startswith(section), plot
        assert html.index("<figure>", at) < html.find("<h2", at)
    assert html.index("<h3>") > html.index('id="summary"') and html.rindex("<h2") > html.rindex("<h3>")
    assert sections[-1] == "Run receipt" and "<h3>" not in html[html.rindex("<h2") :]


def test_heading_anchors_are_github_s():
    assert heading_anchor("Release decision: human review") == "release-decision-human-review"
    assert (
        heading_anchor("Frozen pattern set pattern-gates/1@33c07af7555b")
        == "frozen-pattern-set-pattern-gates133c07af7555b"
    )
    assert heading_anchor("Decision rule under simulation at this split's companies (protocol v3)") == (
        "decision-rule-under-simulation-at-this-splits-companies-protocol-v3"
    )
    assert heading_anchor("Rerank: what the answerer would read (reranker lexical-figure/1)") == (
        "rerank-what-the-answerer-would-read-reranker-lexical-figure1"
    )
    assert heading_anchor("<script>") == "script" and heading_anchor("&<>") == "section"
    assert heading_anchors(["Arms", "Arms", "arms-1", "Arms"]) == ["arms", "arms-1", "arms-1-1", "arms-2"]


def _table(title: str, figures: tuple[tuple[str, str], ...] = ()) -> ReportTable:
    return ReportTable(
        title,
        pd.DataFrame({"x": ["<b>1</b>"]}),
        Provenance("asset", "0123456789abcdef", "upstream"),
        note="A note.",
        figures=figures,
    )


def _bars() -> str:
    return interval_bars_svg(["A"], [0.1], [0.05], [0.2], "FAR", "false-answer rate")


def test_contents_link_every_section_in_both_renderings_and_keep_titles_inert():
    hostile = 'Arms <script>alert(1)</script> [x](javascript:1) "q"'
    tables = [_table("Summary"), _table(hostile, (("FAR by arm <img>", _bars()),)), _table("Arms"), _table("Arms")]
    markdown = render_report("t", ["Intro."], tables, contents_after=1)
    html = render_html("t", ["Intro."], tables, [], contents_after=1)
    check_contents(markdown, html)
    assert _markdown_sections(markdown)[0] == "Summary"
    assert markdown.index("## Summary") < markdown.index("Contents:") < markdown.index("## Arms \\<script\\>")
    assert (
        '- [Arms \\<script\\>alert(1)\\</script\\> \\[x\\](javascript:1) "q"](#arms-scriptalert1script-xjavascript1-q)'
        in (markdown)
    )
    without_anchors = re.sub(r'^<a id="[a-z0-9_-]+"></a>$', "", markdown, flags=re.M)
    assert not re.search(r"(?<!\\)<", without_anchors)  # the anchors are the only raw HTML
    lowered = html.lower()
    assert "<script" not in lowered and "<img" not in lowered and "javascript:1" not in _parse_html(html).links
    assert _parse_html(html).links == ["#summary", "#arms-scriptalert1script-xjavascript1-q", "#arms", "#arms-1"]
    # the plot of the second table sits in its section, after its source line, before the next heading
    at = html.index("<h3>FAR by arm &lt;img&gt;</h3>")
    assert html.rindex('<p class="source">', 0, at) > html.index('id="arms-scriptalert1script-xjavascript1-q"')
    assert at < html.index("<figure>", at) < html.index('<h2 id="arms">')
    assert "FAR by arm" not in markdown  # the Markdown draws no plots


def test_no_contents_unless_asked():
    tables = [_table("Summary"), _table("Arms")]
    assert "<a id=" not in render_report("t", [], tables) and "Contents:" not in render_report("t", [], tables)
    html = render_html("t", [], tables, [])
    assert "<nav" not in html and "<h2>Summary</h2>" in html


def _inputs(**frames) -> ReportInputs:
    empty = pd.DataFrame()
    base = dict(
        corpus_name="demo",
        filings=empty,
        left_out={},
        golden=empty,
        golden_set=empty,
        rejections=empty,
        retrieval=empty,
        slices=empty,
        arms=empty,
        comparisons=empty,
        gates=empty,
        gate_differences=empty,
        determinism=empty,
        latency=empty,
        costs=empty,
        mutations=empty,
        generations=empty,
        risk_curves={},
        index_fingerprint="{}",
        settings={"top_k": 30, "answer_retriever": "hybrid"},
    )
    return ReportInputs(**{**base, **frames})


def test_a_summary_of_nothing_says_so_in_words():
    summary = summary_table(_inputs(), [])
    assert summary.title == SUMMARY
    assert list(summary.frame.finding) == [
        "Release decision",
        "Confirmatory hypotheses",
        "Primary endpoint",
        "Reader accuracy",
        "Page hit in the answerer's scope",
    ]
    assert all(f.startswith("not in this run's inputs") for f in summary.frame.figure)
    assert set(summary.frame.detail) == {NOT_IN_INPUTS} and set(summary.frame.interval) == {""}
    assert summary.after[-1] == "- Nothing flagged by the checks above."


def _rate_rows(arms: dict[str, int], kind: str, n: int) -> list[dict]:
    rows = []
    for arm, k in arms.items():
        interval = wilson(k, n)
        low, high = interval.low, interval.high
        rows.append(
            {
                "arm": arm,
                "gates": {"A": "no gate", "E": "period guard + relevance"}[arm],
                "kind": kind,
                "split": "eval",
                "companies": 9,
                "false_answer_rate": k / n,
                "false_answer_rate_k": k,
                "false_answer_rate_n": n,
                "false_answer_rate_low": low,
                "false_answer_rate_high": high,
            }
        )
    return rows


def test_summary_figures_are_the_detail_tables_figures():
    """Constructed inputs: the summary's release rows, primary endpoint per arm and reader accuracy against the
    release, per-kind and Readers tables built from the same inputs."""
    checks = pd.DataFrame(
        {
            "rule": ["deny_not_denied", "exit_share_below(answer)", "unsupported_claim"],
            "decision": ["hold", "investigate", "investigate"],
            "fired": [False, True, True],
            "evidence": ["0 of 2 cases exited otherwise", "answer exit share 0.515 against 0.700", "10 of 740"],
            "version": "release-v2",
        }
    )
    rates = pd.DataFrame(
        _rate_rows({"A": 7, "E": 1}, "absent_concept", 47) + _rate_rows({"A": 0, "E": 0}, "other_year", 32)
    )
    comparisons = pd.DataFrame(
        [
            {
                "status": "confirmatory",
                "hypothesis": "H2",
                "metric": "false_answer_rate",
                "kind": "absent_concept",
                "arm": "E",
                "baseline": "A",
                "difference": -6 / 47,
                "low": -0.3,
                "high": 0.01,
                "confidence": 0.99,
                "interval_method": "studentized",
                "decision": "not confirmed: the false-answer rate is not shown to fall",
                "mde_basis": "simulated",
                "minimum_detectable_effect": math.nan,
                "design_effect": math.nan,
                "companies": 9,
            }
        ]
    )
    readers = pd.DataFrame(
        {
            "reader": ["table-reader/1", "table-reader/1"],
            "documents": ["all", "1"],
            "gold_chunk_retrieved": [374, 311],
            "questions": [462, 375],
            "right": [191, 191],
            "right_share": [191 / 462, 191 / 375],
            "right_low": [0.369, 0.459],
            "right_high": [0.459, 0.560],
            "right_when_gold_retrieved": [0.511, 0.614],
            "wrong": [49, 49],
            "declined": [222, 135],
        }
    )
    generations = pd.DataFrame({"generator_id": ["table-reader/1"]})
    inputs = _inputs(
        filings=pd.DataFrame({"sha256": sorted(TUNED_FILINGS["demo"])}),  # the demo's own filings: in-sample
        release=checks,
        false_answers_by_kind=rates,
        comparisons=comparisons,
        readers=readers,
        generations=generations,
        design_power=pd.DataFrame({"hypothesis": ["H2", "H2"], "truth": [-0.025, -0.3], "power": [0.05, 0.447]}),
    )
    by_kind = false_answers_by_kind_table(inputs)
    assert by_kind is not None
    details = [release_table(checks), by_kind, readers_table(inputs)]
    summary = summary_table(inputs, details)
    rows = {str(r["finding"]): r for r in summary.frame.to_dict("records")}
    assert rows["Release decision"]["figure"] == "investigate" == details[0].title.split(": ")[1]
    fired = cast(pd.DataFrame, details[0].frame[details[0].frame.fired == "yes"])
    assert [(f, r["figure"]) for f, r in rows.items() if f.startswith("Rule fired")] == [
        (f"Rule fired: {r['rule']} (forces {r['forces']})", r["evidence"]) for r in fired.to_dict("records")
    ]
    column = next(c for c in by_kind.frame.columns if c.startswith("absent_concept"))
    for arm, gates in (("A", "no gate"), ("E", "period guard + relevance")):
        row = rows[f"Primary endpoint (H2): false-answer rate on absent_concept, arm {arm} ({gates})"]
        cell = by_kind.frame.set_index("arm").loc[arm, column]
        assert cell == f"{row['figure'][:-1]}; {row['interval']})" and row["detail"] == by_kind.title
    assert (
        rows["Primary endpoint (H2): false-answer rate on absent_concept, arm A (no gate)"]["figure"] == "7/47 (14.9%)"
    )
    reader = rows["Reader accuracy on answerable questions: table-reader/1 (in-sample) (the arms read this one)"]
    detail = details[2].frame.iloc[0]
    assert (
        (reader["figure"], reader["interval"])
        == (detail["right"], detail["right Wilson 95%"])
        == ("41.3% (191/462)", "36.9% to 45.9%")
    )
    assert sum(f.startswith("Reader accuracy") for f in rows) == 1  # the all-questions row only
    (hypothesis,) = [r for f, r in rows.items() if f.startswith("H2 (primary)")]
    assert (hypothesis["figure"], hypothesis["interval"]) == (
        "-12.8 points",
        "-30.0 points to +1.0 points (99%, studentized)",
    )
    assert rows["Page hit in the answerer's scope"]["detail"] == NOT_IN_INPUTS
    cannot = "\n".join(summary.after)
    assert "In-sample: the arms read `table-reader/1`" in cannot
    assert "resample 9 companies, fewer than 20" in cannot
    assert (
        "H2 (E - A) is not decided by this run: not confirmed: the false-answer rate is not shown to fall; "
        "under-powered" in cannot
    )
    assert "H2 44.7% at -30.0 points" in cannot
    assert "No arm gave a false answer on other_year (32 questions)" in cannot and "on absent_concept" not in cannot


def test_no_fired_rule_is_said():
    checks = pd.DataFrame({"rule": ["r"], "decision": ["hold"], "fired": [False], "evidence": ["e"], "version": "v"})
    summary = summary_table(_inputs(release=checks), [release_table(checks)])
    first = summary.frame.iloc[:2]
    assert list(first.finding) == ["Release decision", "Rules fired"] and list(first.figure) == ["release", "none"]
    assert set(first.detail) == {"Release decision: release"}


def test_the_noise_bands_say_when_they_measured_a_sample_and_how_large():
    """Under the sample's size every band measures every question and the report says nothing new (the committed
    reports' notes stay as they are); beyond it each band's note names the sample and the questions it came from."""
    noise = pd.DataFrame({"replica": [0], "left_out": [["c1"]], "questions": [90]})

    def notes(golden_questions: int) -> list[str]:
        inputs = _inputs(
            golden=pd.DataFrame({"question_id": [f"q{i}" for i in range(golden_questions)]}),
            filings=pd.DataFrame({"cik": ["c1"], "company": ["One Inc"]}),
            noise=noise,
            answer_noise_band=pd.DataFrame(
                {
                    "figure": ["answer_accuracy"],
                    "arm": ["A"],
                    "replicas": [5],
                    "questions": [40],
                    "band_low": [0.0],
                    "band_high": [0.5],
                }
            ),
            settings={"top_k": 30, "answer_retriever": "hybrid", "noise_questions": 100},
        )
        return [table.note for table in noise_tables(inputs)]

    assert len(notes(100)) == 2 and not any("seeded sample" in note for note in notes(100))
    sampled = notes(3_000)
    assert len(sampled) == 2 and all(
        "a seeded sample of 100 of the 3000 golden questions (setting noise_questions)" in n for n in sampled
    )


def test_the_corpus_scope_says_when_it_measured_a_sample_and_of_how_many():
    """While every question fair in the corpus scope is measured the notes say nothing new (the committed reports stay
    as they are); beyond the setting's size the wider-scope table counts the sample and its note names the sample and
    what it is of; a run that did not search the corpus scope says nothing of it."""
    fair, unfair = [f"q{i}" for i in range(30)], ["q30", "q31"]

    def tables(size: int, scopes: list[str] | None = None) -> list[ReportTable]:
        inputs = _inputs(
            golden=pd.DataFrame(
                {"question_id": [*fair, *unfair, "q32"], "expected_route": ["answer"] * 32 + ["no_answer"]}
            ),
            scope_gold=pd.DataFrame(
                {
                    "question_id": [*fair, *unfair],
                    "search_scope": "corpus",
                    "rule": [None] * 30 + ["printed_with_other_meanings"] * 2,
                    "other_company_pages": [1] * 20 + [0] * 12,
                }
            ),
            settings={
                "top_k": 30,
                "answer_retriever": "hybrid",
                "corpus_scope_questions": size,
                "golden_seed": 7,
                "search_scopes": scopes or ["company_year", "company", "corpus"],
            },
        )
        return scope_tables(inputs)

    every = tables(30)
    assert "seeded sample" not in every[0].note and list(every[0].frame["answerable questions measured"]) == [
        "30 of 32"
    ]
    sampled = tables(10)[0]
    assert "a seeded sample of 10 of the 30 questions fair there (setting corpus_scope_questions)" in sampled.note
    assert list(sampled.frame["answerable questions measured"]) == ["10 of 32 (a seeded sample of the 30 fair there)"]
    distractors = sampled.frame["measured questions whose figure another company prints"].iloc[0]
    golden = pd.DataFrame({"question_id": fair, "expected_route": "answer"})
    gold = pd.DataFrame({"question_id": fair, "search_scope": "corpus", "rule": None})
    drawn = corpus_scope_sample(golden, gold, 10, seed=7)
    assert drawn is not None and int(distractors.split()[0]) == len(drawn & set(fair[:20])) < 10, (
        "distractors counted over the sample, not over the 20 of all 30"
    )
    assert "seeded sample" not in tables(10, ["company_year", "company"])[0].note, "no corpus scope searched"
