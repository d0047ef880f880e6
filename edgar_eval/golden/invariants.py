"""What a golden set must never hold, read as a person would: one checker for the blocking asset check on
`golden_questions` and for the real-corpus test.

1. One wording in one scope has one expected route (never both answerable and unanswerable).
2. Nothing in an absent-concept question's scope prints it under its own label (golden.might_answer.absence_verdict
   with the label as the one name: no row, heading or sentence with a figure for the period, no sentence saying
   there is none).
3. Nothing in the company's filings might answer an other-year question for its year, nor prints the year in a
   schedule under the concept's words.
"""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden.might_answer import (
    PRINTED,
    ScopeText,
    ScopeTexts,
    absence_verdict,
    forward_schedule,
    label_name,
    nearest,
)


def _normalised(question: str) -> str:
    return " ".join(question.lower().replace("\u2019", "'").split()).rstrip("?")


def contradictions(
    golden: pd.DataFrame,
    text_of: dict[str, str],
    filings_of_company: dict[str, list[str]],
    limit: int = 5,
    body_starts: dict[str, int] | None = None,
) -> list[str]:
    """Up to `limit` contradictions, each one line naming the question and what contradicts it; [] when none.
    `body_starts`: where each filing's cover page ends (golden.might_answer.cover_page_end), as the builder reads."""
    found: list[str] = []
    routes = golden.assign(
        text=golden.question.map(_normalised), scope=golden.scope_filing_ids.map(lambda s: tuple(sorted(s)))
    )
    clashes = routes.groupby(["text", "scope"]).expected_route.nunique()
    found += [f"{text!r} in {list(scope)} has two expected routes" for (text, scope) in clashes[clashes > 1].index]
    read = ScopeTexts(text_of, None, body_starts)

    def scope_of(filing_ids) -> list[ScopeText]:
        return read.of(sorted(filing_ids))

    for case in iter_rows(cast(pd.DataFrame, golden[golden.kind == "absent_concept"])):
        name = label_name(case.concept)
        names = [name] if name is not None else []
        verdict = absence_verdict(scope_of(case.scope_filing_ids), case.concept, {int(case.fiscal_year)}, names)
        if verdict.outcome == PRINTED:
            found.append(f"absent concept {case.question!r}: {verdict.detail}")
    for case in iter_rows(cast(pd.DataFrame, golden[golden.kind == "other_year"])):
        company = scope_of(filings_of_company.get(case.cik, []))
        year = int(case.fiscal_year)
        near = nearest(company, case.concept, year) or forward_schedule(company, case.concept, year)
        if near is not None:
            found.append(f"other year {case.question!r}: for {case.fiscal_year}, {near.describe()}")
    return found[:limit]
