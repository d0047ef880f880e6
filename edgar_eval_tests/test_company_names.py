"""One resolver of company names, as people write them, for the questions, the route gate and the report; the
relevance model's name feature, a gate under test against the other-company twins the resolver names, does not use
it."""

import pandas as pd
import pytest

from edgar_eval.answering.relevance import relevance_features
from edgar_eval.corpus.company_names import companies_named, company_aliases, display_name
from edgar_eval.golden.admission import build_gate_corpus
from edgar_eval.report.markdown import md_cell

# (registrant as filed, ticker) -> the forms a question may use
REGISTRANTS = {
    "0001018724": ("AMAZON.COM, INC.", "AMZN"),
    "0000021344": ("COCA COLA CO", "KO"),
    "0000051143": ("INTERNATIONAL BUSINESS MACHINES CORPORATION", "IBM"),
    "0001326801": ("Meta Platforms, Inc.", "META"),
    "0000080424": ("PROCTER & GAMBLE CO", "PG"),
    "0000200406": ("Johnson &amp; Johnson", "JNJ"),
    "0000354950": ("HOME DEPOT, INC.", "HD"),
    "0000012927": ("THE BOEING COMPANY", "BA"),
    "0000100885": ("UNION PACIFIC CORP", "UNP"),
    "0000320193": ("Apple Inc.", "AAPL"),
}
ALIASES = {cik: company_aliases(name, ticker) for cik, (name, ticker) in REGISTRANTS.items()}


@pytest.mark.parametrize(
    "question,cik",
    [
        ("What was Amazon's total revenue for fiscal 2024?", "0001018724"),
        ("What was Amazon.com's net income for fiscal 2024?", "0001018724"),
        ("What was AMZN's operating income in 2024?", "0001018724"),
        ("What was Coca-Cola's net income for fiscal 2024?", "0000021344"),
        ("What was Coca Cola's net income for fiscal 2024?", "0000021344"),
        ("What was IBM's total revenue for fiscal 2024?", "0000051143"),
        ("What was International Business Machines' revenue in 2024?", "0000051143"),
        ("What did Meta spend on research and development in fiscal 2024?", "0001326801"),
        ("What was Meta Platforms' revenue in 2024?", "0001326801"),
        ("What were P&G's net sales for fiscal 2025?", "0000080424"),
        ("What were Procter & Gamble's net sales for fiscal 2025?", "0000080424"),
        ("What were Procter and Gamble's net sales for fiscal 2025?", "0000080424"),
        ("What was J&J's net income in 2024?", "0000200406"),
        ("What was Johnson & Johnson's net income in 2024?", "0000200406"),
        ("What were Home Depot's net sales for fiscal 2024?", "0000354950"),
        ("What were The Home Depot's net sales for fiscal 2024?", "0000354950"),
        ("What was Boeing's net loss for the quarter ended June 30, 2025?", "0000012927"),
        ("What was Union Pacific's operating revenue in 2024?", "0000100885"),
    ],
)
def test_a_question_names_the_company_people_mean(question, cik):
    assert companies_named(question, ALIASES) == [cik]


@pytest.mark.parametrize(
    "text",
    [
        "What was the company's revenue for fiscal 2024?",
        "The metadata of home improvement projects grew.",
        "We pay dividends (pg 12) on common stock.",  # a lower-case "pg" is no ticker
        "Union membership and international sales rose.",  # generic words of a name name nothing alone
    ],
)
def test_ordinary_words_name_no_company(text):
    assert companies_named(text, ALIASES) == []


def test_display_names_are_text_not_html():
    assert display_name("Johnson &amp; Johnson") == "Johnson & Johnson"
    assert display_name("PROCTER & GAMBLE CO") == "Procter & Gamble"
    assert display_name("AMAZON.COM, INC.") == "Amazon.com" and display_name("THE BOEING COMPANY") == "Boeing"
    assert md_cell("Johnson & Johnson") == "Johnson & Johnson"
    assert md_cell("&lt;script&gt;") == "&amp;lt;script&amp;gt;"  # an entity in filing text stays text


def test_the_route_gate_uses_the_resolver_and_the_relevance_features_do_not():
    filings = pd.DataFrame(
        [
            {
                "filing_id": f"f{k}",
                "path": f"f{k}.htm",
                "cik": cik,
                "form": "10-K",
                "filed": "2025-01-01",
                "period_end": "2024-12-31",
                "company": name,
                "ticker": ticker,
            }
            for k, (cik, (name, ticker)) in enumerate(REGISTRANTS.items())
        ]
    )
    texts = pd.DataFrame({"filing_id": filings.filing_id, "text": ["Some text."] * len(filings)})
    corpus = build_gate_corpus(filings, texts, pd.DataFrame(columns=["filing_id", "notes_start"]))
    assert corpus.companies_named("What was IBM's revenue in 2024?") == ["0000051143"]
    assert corpus.companies_named("What were P&G's net sales in fiscal 2025?") == ["0000080424"]
    # the name feature looks for the question's capitalised words in the passages, without the resolver
    present = relevance_features(
        "What was Amazon's revenue in 2024?", ["AMAZON.COM, INC. revenue 2024 | 637,959 |"], [0.8]
    )
    absent = relevance_features("What was Amazon's revenue in 2024?", ["Apple Inc. revenue 2024 | 391,035 |"], [0.8])
    assert present["name_present"] == 1.0 and absent["name_present"] == 0.0
    # so a name the resolver knows in other words is the feature's miss, which the per-kind AUROC reports
    spelled_out = ["INTERNATIONAL BUSINESS MACHINES CORPORATION revenue 2024 | 62,753 |"]
    assert relevance_features("What was IBM's revenue in 2024?", spelled_out, [0.8])["name_present"] == 0.0


@pytest.mark.parametrize(
    "registrant, written",
    [
        ("MERCK & CO., INC.", "Merck & Co."),  # was "Merck &": cut at the ampersand
        ("AT&T INC.", "AT&T"),  # was "At&t"
        ("3M CO", "3M"),  # was "3m"
        ("CLEVELAND-CLIFFS INC.", "Cleveland-Cliffs"),  # was "Cleveland-cliffs"
        ("BRISTOL-MYERS SQUIBB COMPANY", "Bristol-Myers Squibb"),
        ("COSTCO WHOLESALE CORP /NEW", "Costco Wholesale"),  # EDGAR's successor mark
        ("PROGRESSIVE CORP/OH/", "Progressive"),  # EDGAR's state mark
        ("WALT DISNEY CO/", "Walt Disney"),
        ("McDONALD\u2019S CORPORATION", "McDonald\u2019s"),
        ("BANK OF AMERICA CORP /DE/", "Bank of America"),
        ("PROCTER & GAMBLE CO", "Procter & Gamble"),
        ("Merck & Co., Inc.", "Merck & Co."),
    ],
)
def test_a_name_filed_in_capitals_is_written_as_the_company_writes_it(registrant, written):
    """Issue 60: questions named "Merck &", "At&t", "3m" and "Cleveland-cliffs"."""
    assert display_name(registrant) == written
