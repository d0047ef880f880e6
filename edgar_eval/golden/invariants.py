"""What a golden set must never hold, read as a person would: one checker for the blocking asset check on
`golden_questions` and for the real-corpus test.

1. One wording in one scope has one expected route (never both answerable and unanswerable).
2. An absent-concept question's words (its label or a synonym) are printed beside no figure of its scope.
3. An other-year question's year is printed beside none of its concept's words in the company's filings.
"""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.golden.labels import concept_words
from edgar_eval.golden.printed_words import PrintedIndex


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
    indexes: dict[tuple[str, ...], PrintedIndex] = {}

    def printed_in(filing_ids) -> PrintedIndex:
        key = tuple(sorted(filing_ids))
        if key not in indexes:
            indexes[key] = PrintedIndex.of(text_of[f] for f in key if f in text_of)
        return indexes[key]

    for case in iter_rows(cast(pd.DataFrame, golden[golden.kind == "absent_concept"])):
        printed = printed_in(case.scope_filing_ids).printed(concept_words(case.concept))
        if printed:
            found.append(f"absent concept {case.question!r}: its scope prints {printed!r} beside a figure")
    for case in iter_rows(cast(pd.DataFrame, golden[golden.kind == "other_year"])):
        printed = printed_in(filings_of_company.get(case.cik, [])).printed(
            concept_words(case.concept), int(case.fiscal_year)
        )
        if printed:
            found.append(f"other year {case.question!r}: the company's filings print {printed!r} for that year")
    return found[:limit]
