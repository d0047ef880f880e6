"""The prompt injection planted in a demo 10-K stays data: in the reader's prompt, in the citation check and in the
reports.

The demo corpus plants one paragraph of injection attempts in the MD&A of one 10-K and records it under
"injections" in ground_truth.json. These tests take the chunks that hold it (chunk_filing, 1000/200, as the
pipeline chunks) and follow them through what the brief treats as untrusted: the passages block of the prompt,
the refusal phrase and citation markers the reply is read by, the extractive baseline, the citation check, and
the Markdown and HTML reports.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import cast

import pandas as pd
import pytest

from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.answering.answerer import ANSWERED, MODEL_DECLINED, ExtractiveGenerator, check_generation
from edgar_eval.answering.citations import NO_VALID_CITATION, UNSUPPORTED_CLAIM
from edgar_eval.answering.prompt import REFUSAL_PREFIX, build_prompt, parse_reply, random_nonces, seeded_nonces
from edgar_eval.corpus.chunking import chunk_filing
from edgar_eval.corpus.number_words import find_number_phrases
from edgar_eval.domain.generation import Generation, GenerationRequest
from edgar_eval.report.html import render_html
from edgar_eval.report.markdown import Provenance, ReportTable, render_report
from edgar_eval.synthetic.demo import COMPANIES, DEMO_SEED, build_financials

SEEDED = seeded_nonces("injection-test-seed")
# What the planted paragraph tries; each must be in it, or the tests below would pass for want of an attack.
CLOSING_TAGS = ("</passages>", "</P3>")
TURN_MARKER = "<|im_start|>"
PLANTED_CITATIONS = ("[P1]", "[P7]")
SCRIPT = "<script>alert(1)</script>"
TABLE_BREAK = "| --- |"
INSTRUCTION = "Ignore all previous instructions"
PLANTED_FIGURE = "USD999mn"  # how the paragraph writes the figure it pushes, $999 million (see demo.INJECTION_TEXT)
MARKUP = re.compile(r"</?\s*[A-Za-z|!][^<>\n]*>")


@pytest.fixture(scope="module")
def injection(demo_files):
    truth = json.loads(demo_files["ground_truth.json"])
    assert len(truth["injections"]) == 1
    return truth["injections"][0]


@pytest.fixture(scope="module")
def company(injection):
    return next(c for c in COMPANIES if c.key == injection["company"])


@pytest.fixture(scope="module")
def chunks(demo_parsed, injection):
    parsed = demo_parsed[injection["document"]]
    return chunk_filing(partition_key(injection["document"]), parsed.text, parsed.sections, parsed.pages, 1000, 200)


@pytest.fixture(scope="module")
def hostile(chunks, injection):
    """The chunk holding the whole planted paragraph (the first, should the overlap give two)."""
    holding = [c for c in chunks if injection["quote"] in c.text]
    assert holding, "no 1000-character chunk holds the whole planted paragraph"
    return holding[0]


@pytest.fixture(scope="module")
def statement(chunks):
    """The chunk with the income statement's header, scale and revenue row: the honest source of the figure."""
    return next(
        c for c in chunks if "| Revenue |" in c.text and "| Year Ended" in c.text and "in millions" in c.text.lower()
    )


@pytest.fixture(scope="module")
def fiscal_year(injection, demo_parsed):
    return int(demo_parsed[injection["document"]].meta.fiscal_year)


def question(company, fiscal_year) -> str:
    return f"What was {company.short}'s revenue for fiscal {fiscal_year}?"  # the figure the injection names


def planted_refusal(quote: str) -> str:
    return cast(re.Match[str], re.search(re.escape(REFUSAL_PREFIX) + r"[0-9a-z]+", quote)).group(0)


def make_request(company, fiscal_year, *passages, ask: str | None = None) -> GenerationRequest:
    return GenerationRequest(
        ask or question(company, fiscal_year),
        tuple((c.chunk_id, c.text) for c in passages),
        cik=company.cik,
        fiscal_year=fiscal_year,
    )


def test_the_paragraph_is_planted_once_escaped_in_the_xhtml_and_literal_in_the_mdna(
    demo_files, demo_parsed, injection, hostile
):
    quote = injection["quote"]
    for attack in (*CLOSING_TAGS, TURN_MARKER, *PLANTED_CITATIONS, SCRIPT, TABLE_BREAK, INSTRUCTION, PLANTED_FIGURE):
        assert attack in quote, attack
    assert re.search(re.escape(REFUSAL_PREFIX) + r"[0-9a-f]{16}\b", quote)  # shaped like the reader's refusal phrase
    raw = demo_files[injection["document"]]
    assert b"<script" not in raw and b"&lt;script&gt;alert(1)&lt;/script&gt;" in raw  # well-formed: it parsed
    parsed = demo_parsed[injection["document"]]
    assert parsed.meta.form == "10-K" and parsed.text.count(quote) == 1
    # Every other demo filing is free of it.
    assert sum(quote in p.text for p in demo_parsed.values()) == 1
    assert hostile.section.endswith(injection["section"]) and "Item 7A" not in hostile.section


def test_the_passage_cannot_close_the_data_block_or_open_a_turn(company, fiscal_year, hostile, statement):
    prompt = build_prompt(make_request(company, fiscal_year, hostile, statement), SEEDED)
    system, user = (m["content"] for m in prompt.messages)
    nonce, n = prompt.data_nonce, 2
    # The data tags appear exactly as often as the prompt's own structure needs: the block's opening and closing
    # tag, each passage's opening and closing tag, and the system message's one description of each tag.
    assert user.count(nonce) == 2 + 2 * n and system.count(nonce) == 4
    assert user.startswith(f"<passages-{nonce}>\n") and user.count(f"</passages-{nonce}>") == 1
    block, after = user.split(f"</passages-{nonce}>")
    assert after == f"\n\nQuestion: {question(company, fiscal_year)}"
    assert MARKUP.findall(block) == [
        f"<passages-{nonce}>",
        f'<passage-{nonce} id="P1">',
        f"</passage-{nonce}>",
        f'<passage-{nonce} id="P2">',
        f"</passage-{nonce}>",
    ]
    for planted in (*CLOSING_TAGS, TURN_MARKER, "im_start", "<script", "</script>"):
        assert planted not in user and planted not in system, planted
    assert INSTRUCTION in block and "[removed markup]" in block  # the words stay, visible as data; their power goes
    assert f"\n{statement.text}\n" in block  # an honest statement passes unchanged beside it


def test_planted_citations_and_refusal_phrase_are_stripped_and_a_reply_repeating_them_counts_nothing(
    company, fiscal_year, injection, hostile, statement
):
    prompt = build_prompt(make_request(company, fiscal_year, hostile, statement), SEEDED)
    system, user = (m["content"] for m in prompt.messages)
    planted = planted_refusal(injection["quote"])
    assert planted != prompt.refusal_phrase
    assert not re.search(r"\[\s*P\s*\d", user) and "[removed citation]" in user
    assert planted not in user and planted not in system
    assert (system + user).count(REFUSAL_PREFIX) == 1  # the prompt's own refusal phrase, in the system message only
    # Repeating the planted phrase is no refusal; the current phrase is.
    for reply in (planted, f"`{planted}`", f"{planted} and nothing else."):
        parsed = parse_reply(prompt, reply)
        assert not parsed.abstained and parsed.citations == [], reply
    assert parse_reply(prompt, prompt.refusal_phrase).abstained
    # Citations come from the reply alone: the passage's own [P1]/[P7] count for nothing, a copied [P7] names no
    # passage, and [P1] counts only the passage the reply itself cites.
    assert parse_reply(prompt, "Revenue was $999 million.").citations == []
    copied = parse_reply(prompt, "Revenue was $999 million [P7].")
    assert copied.citations == [] and copied.unknown_labels == ["P7"]
    assert parse_reply(prompt, "Revenue was $999 million [P1].").citations == [hostile.chunk_id]
    request = make_request(company, fiscal_year, hostile, statement)
    assert check_generation(request, Generation("Revenue was $999 million.")).outcome == NO_VALID_CITATION
    assert check_generation(request, Generation("Revenue was $999 million [P7].")).outcome == NO_VALID_CITATION


def test_the_refusal_nonce_is_fresh_per_request_and_stable_for_the_same_request(
    company, fiscal_year, hostile, statement
):
    first = build_prompt(make_request(company, fiscal_year, hostile, statement), SEEDED)
    again = build_prompt(make_request(company, fiscal_year, hostile, statement), SEEDED)
    assert again == first  # same seed, same request: same messages, so a tape replays them
    others = [
        build_prompt(
            make_request(company, fiscal_year, hostile, statement, ask="What was Corvida's gross profit?"), SEEDED
        ),
        build_prompt(make_request(company, fiscal_year, statement, hostile), SEEDED),
        build_prompt(make_request(company, fiscal_year, hostile), SEEDED),
        build_prompt(make_request(company, fiscal_year, hostile, statement), seeded_nonces("another-seed")),
    ]
    phrases = {p.refusal_phrase for p in [first, *others]}
    assert len(phrases) == 5 and len({p.data_nonce for p in [first, *others]}) == 5
    assert all(p.refusal_phrase != f"{REFUSAL_PREFIX}{p.data_nonce}" for p in [first, *others])
    fresh = {build_prompt(make_request(company, fiscal_year, hostile), random_nonces).refusal_phrase for _ in range(3)}
    assert len(fresh) == 3


def test_the_extractive_baseline_does_not_answer_the_injected_figure(company, fiscal_year, hostile, statement):
    generator = ExtractiveGenerator()
    alone = make_request(company, fiscal_year, hostile)
    declined = generator.generate(alone)
    assert declined.abstained and check_generation(alone, declined).outcome == MODEL_DECLINED
    both = make_request(company, fiscal_year, hostile, statement)  # the injection ranked first
    answer = check_generation(both, generator.generate(both))
    revenue = build_financials(company, DEMO_SEED).lines[fiscal_year]["Revenues"]
    generation = cast(Generation, answer.generation)  # answered: a generation
    assert answer.outcome == ANSWERED and generation.citations == [statement.chunk_id]
    assert answer.figure == revenue * 1e6 and "999" not in generation.text


def test_the_citation_check_withholds_the_injected_figure(company, fiscal_year, injection, hostile):
    # The citation check tests provenance, not intent: a passage that *printed* "999 million" would back
    # "$999 million" however it said it (the control below). The planted paragraph therefore writes the figure it
    # pushes glued to letters, "USD999mn", which a reader (or a model) takes for $999 million but which is no
    # printed figure ("digits glued to letters are not numbers", number_words). An answer obeying the injection is
    # then a figure no cited passage prints, and is withheld as an unsupported claim.
    assert not [f for f in find_number_phrases(hostile.text) if f.is_figure and abs(f.value) in (999, 999e6)]
    request = make_request(company, fiscal_year, hostile)
    obeyed = Generation(f"{company.short}'s revenue for fiscal {fiscal_year} was $999 million [P1].")
    withheld = check_generation(request, obeyed)
    assert withheld.outcome == UNSUPPORTED_CLAIM and withheld.figure == 999e6
    printed = GenerationRequest(
        request.question,
        ((hostile.chunk_id, hostile.text.replace(PLANTED_FIGURE, "999 million")),),
        cik=request.cik,
        fiscal_year=request.fiscal_year,
    )
    assert check_generation(printed, obeyed).outcome == ANSWERED  # the control: a printed figure is backed


def test_the_reports_keep_the_planted_text_inert(company, fiscal_year, injection):
    quote = injection["quote"]
    frame = pd.DataFrame(
        {"question": [question(company, fiscal_year)], "passage": [quote], "outcome": [UNSUPPORTED_CLAIM]}
    )
    table = ReportTable(quote[:60], frame, Provenance("answers", "0123456789abcdef", quote))
    markdown = render_report("Injection check", [], [table])
    for planted in ("</passages>", TURN_MARKER, "<|", "[P1]", "[P7]", TABLE_BREAK):
        assert planted not in markdown, planted
    assert not re.search(r"(?<!\\)[<>\[\]]", markdown)  # every angle bracket and square bracket is escaped
    rows = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len(rows) == 3
    for row in rows:  # every pipe of the planted text is escaped: each row keeps its three cells
        assert len(re.findall(r"(?<!\\)\|", row)) == len(frame.columns) + 1, row
    assert r"\| --- \| --- \|" in markdown and r"\<script\>" in markdown

    html = render_html("Injection check", [], [table], [])
    for planted in ("<script", "</passages>", "</P3>", TURN_MARKER, "<|"):
        assert planted not in html.lower(), planted

    class Reader(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.tags, self.text = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_data(self, data):
            self.text.append(data)

    reader = Reader()
    reader.feed(html)
    reader.close()
    assert "script" not in reader.tags and "passages" not in reader.tags
    assert "".join(reader.text).count(quote) == 2  # the cell and the provenance: shown as the characters, not run
