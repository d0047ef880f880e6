"""Each answerable template question's gold in the wider search scopes (every filing of the company, the whole
corpus), with the fairness rules applied again over those filings.
"""

from __future__ import annotations

import pandas as pd

from edgar_eval.golden.fairness import FairnessLimits
from edgar_eval.golden.figure_selection import _gold_in, _restated_in
from edgar_eval.golden.question_wording import _question_id
from edgar_eval.golden.template_scope import _Scope
from edgar_eval.golden.value_conflicts import CONFLICTING
from edgar_eval.retrieval.scope import COMPANY, CORPUS

WIDER_SCOPE_COLUMNS = [
    "question_id",
    "search_scope",
    "rule",
    "detail",
    "gold_filing_ids",
    "gold_chunk_ids",
    "gold_pages",
    "other_company_pages",
]


def _wider_scope_gold(selected: list[dict], scope: _Scope, limits: FairnessLimits) -> pd.DataFrame:
    """The gold of each selected answerable question in the wider search scopes, with the fairness rules applied
    again over every filing of the company: a comparative year printed in a later report is gold too, another meaning
    of the figure on a page of another year counts against it, and a restated value makes the question two questions.
    The whole corpus has the same gold and verdict: another company's page never holds this company's figure, so
    neither which pages are gold nor whether a reader can tell the figure apart within the company changes. Another
    company printing the same number is a distractor the search must rank below the gold, counted
    (`other_company_pages`), not a reason to leave the question out. A question that fails a rule in a scope is not
    measured there."""
    rows = []
    for question in selected:
        company = scope.of_company(question["cik"])
        question_id = _question_id(question["kind"], question["cik"], question["question"])
        restated = _restated_in(question, scope, company)
        if restated:
            failed, detail, gold = CONFLICTING, restated, {}
        else:
            failed, detail, gold = _gold_in(question, scope, company, limits)
        printed = question["printed"]
        printing = [f for f in scope.filings_printing(printed) if scope.filing[f].cik != question["cik"]]
        elsewhere = {f"{f}#{scope.index[f].page(o)}" for f in printing for o in scope.index[f].offsets(printed)}
        for search_scope in (COMPANY, CORPUS):
            rows.append(
                {
                    "question_id": question_id,
                    "search_scope": search_scope,
                    "rule": failed,
                    "detail": detail,
                    **{column: gold.get(column, []) for column in ("gold_filing_ids", "gold_chunk_ids", "gold_pages")},
                    "other_company_pages": len(elsewhere) if search_scope == CORPUS else 0,
                }
            )
    return pd.DataFrame(rows, columns=WIDER_SCOPE_COLUMNS)
