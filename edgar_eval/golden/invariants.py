"""What a golden set must never hold, read as a person would: one checker for the blocking asset check on
`golden_questions` and for the real-corpus test.

1. One wording in one scope has one expected route (never both answerable and unanswerable).
2. Nothing in an absent-concept question's scope might answer it (golden.might_answer: no row, heading or sentence
   with a figure holds its distinctive words).
3. Nothing in the company's filings might answer an other-year question for its year.
"""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden.might_answer import ScopeText, ScopeTexts, nearest


def _normalised(question: str) -> str:
    return " ".join(question.lower().replace("\u2019", "'").split()).rstrip("?")


def contradictions(
    golden: pd.DataFrame, text_of: dict[str, str], filings_of_company: dict[str, list[str]], limit: int = 5
) -> list[str]:
    """Up to `limit` contradictions, each one line naming the question and what contradicts it; [] when none."""
    found: list[str] = []
    routes = golden.assign(
        text=golden.question.map(_normalised), scope=golden.scope_filing_ids.map(lambda s: tuple(sorted(s)))
    )
    clashes = routes.groupby(["text", "scope"]).expected_route.nunique()
    found += [f"{text!r} in {list(scope)} has two expected routes" for (text, scope) in clashes[clashes > 1].index]
    read = ScopeTexts(text_of)

    def scope_of(filing_ids) -> list[ScopeText]:
        return read.of(sorted(filing_ids))

    for case in iter_rows(cast(pd.DataFrame, golden[golden.kind == "absent_concept"])):
        near = nearest(scope_of(case.scope_filing_ids), case.concept)
        if near is not None:
            found.append(f"absent concept {case.question!r}: {near.describe()}")
    for case in iter_rows(cast(pd.DataFrame, golden[golden.kind == "other_year"])):
        near = nearest(scope_of(filings_of_company.get(case.cik, [])), case.concept, int(case.fiscal_year))
        if near is not None:
            found.append(f"other year {case.question!r}: for {case.fiscal_year}, {near.describe()}")
    return found[:limit]
