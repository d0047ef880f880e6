"""The corpus section: per filing, the facts the parser dropped and why."""

from __future__ import annotations

import pandas as pd

from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.domain.versioning import content_version
from edgar_eval.golden.fairness import STATEMENTS_ELSEWHERE
from edgar_eval.report.markdown import Provenance, ReportTable

FACTS_DROPPED_NAMED = 5  # a filing's dropped facts are named with their reasons up to this many


def _facts_dropped(filings: pd.DataFrame, dropped: pd.DataFrame) -> tuple[list[str], str]:
    """The Corpus table's `facts dropped` cell per filing (how many, and each with its reason when few) and the
    note that gives the total."""
    groups = dict(iter_groups(dropped.groupby("filing_id", sort=True))) if len(dropped) else {}
    cells = []
    for filing_id in filings.filing_id:
        rows = groups.get(filing_id)
        if rows is None:
            cells.append("0")
        elif len(rows) > FACTS_DROPPED_NAMED:
            cells.append(f"{len(rows)} (each with its reason in fact_rejections)")
        else:
            named = (f"{r.concept}{f' (id {r.fact_id})' if r.fact_id else ''}: {r.reason}" for r in iter_rows(rows))
            cells.append(f"{len(rows)}: " + "; ".join(named))
    note = (
        f"Facts dropped: {len(dropped)} in total, from {len(groups)} of the {len(filings)} filings. A fact the parser "
        "cannot read (a number word or format it does not know, no digits, an unreadable scale or context date) is "
        "dropped with its reason and the filing read without it; each is a row of asset `fact_rejections` (data "
        f"version `{content_version(dropped.reset_index(drop=True))}`), named here when a filing drops at most "
        f"{FACTS_DROPPED_NAMED}."
    )
    return cells, note


def corpus_table(
    filings: pd.DataFrame, rejections: pd.DataFrame, fact_rejections: pd.DataFrame, partitions: str
) -> ReportTable:
    """Per filing (``filings`` in the report's order): its company, form, period, whether its statements are in it,
    the facts the parser dropped and its sha256."""
    elsewhere = rejections[(rejections.rule == STATEMENTS_ELSEWHERE) & (rejections.concept == "")]
    statements = dict(zip(elsewhere.filing_id, elsewhere.detail))
    facts_dropped, facts_dropped_note = _facts_dropped(filings, fact_rejections)
    table = pd.DataFrame(
        {
            "filing": filings.filing_id,
            "company": filings.company,
            "form": filings.form,
            "fiscal year": filings.fiscal_year,
            "period end": filings.period_end,
            "statements": [
                f"not in the filing: {statements[f]} (no absent question)" if f in statements else "in the filing"
                for f in filings.filing_id
            ],
            "facts dropped": facts_dropped,
            "sha256": filings.sha256,
        }
    )
    return ReportTable(
        "Corpus",
        table,
        Provenance("filings", content_version(filings.reset_index(drop=True)), partitions),
        note=facts_dropped_note,
    )
