"""The citation check's and the judge's power: right answers with one figure mutated, checked against their
passages and judged against their golden case again, and per mutant kind the shares withheld and judged wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from edgar_eval.answering.answerer import passage_label
from edgar_eval.answering.citations import check_citations
from edgar_eval.answering.mutations import MUTANT_KINDS, figure_mutations
from edgar_eval.evaluation.judge import judge_case
from edgar_eval.stats.proportions import wilson


@dataclass(frozen=True)
class MutatedAnswer:
    """A right answer to mutate: its text, the cited passages' texts in prompt order, and its golden case."""

    question_id: str
    text: str
    passages: list[str]
    gold_value: float
    gold_answer: str
    label: str
    fiscal_year: int
    gold_figures: str = "[]"  # a two-document case's figures (golden.two_documents), judged by judge_case
    gold_direction: str = ""


MUTATION_COLUMNS = ["question_id", "kind", "mutant", "withheld", "reason", "judged_wrong"]


def citation_mutations(answers: list[MutatedAnswer]) -> pd.DataFrame:
    """The citation check's and the judge's power: each right answer with one figure changed in one of five ways
    (`edgar_eval.answering.mutations`), checked again against the passages it was generated from (withheld?) and
    judged again against its golden case (wrong?). A mutant whose new value the passage also prints is rightly
    backed (a wrong-column mutant always is): catching it is the judge's work."""
    rows = []
    for answer in answers:
        labelled = {passage_label(i): passage for i, passage in enumerate(answer.passages)}
        for kind, mutant in figure_mutations(answer.text, answer.passages):
            verdict = check_citations(mutant, labelled)
            judged = judge_case(mutant, answer)
            rows.append(
                {
                    "question_id": answer.question_id,
                    "kind": kind,
                    "mutant": mutant,
                    "withheld": not verdict.ok,
                    "reason": verdict.reason,
                    "judged_wrong": not judged.correct,
                }
            )
    return pd.DataFrame(rows, columns=MUTATION_COLUMNS)


def mutation_summary(mutations: pd.DataFrame) -> pd.DataFrame:
    """Per mutant kind (in the order of MUTANT_KINDS): mutants, the share the citation check withholds and the
    share the judge marks wrong, each with a Wilson 95% interval."""
    rows = []
    for kind in MUTANT_KINDS:
        of_kind = mutations[mutations.kind == kind]
        withheld = wilson(int(of_kind.withheld.sum()), len(of_kind))
        wrong = wilson(int(of_kind.judged_wrong.sum()), len(of_kind))
        rows.append(
            {
                "kind": kind,
                "mutants": len(of_kind),
                "answers": int(of_kind.question_id.nunique()),
                "withheld": withheld.successes,
                "withheld_share": withheld.rate,
                "withheld_low": withheld.low,
                "withheld_high": withheld.high,
                "judged_wrong": wrong.successes,
                "wrong_share": wrong.rate,
                "wrong_low": wrong.low,
                "wrong_high": wrong.high,
            }
        )
    return pd.DataFrame(rows)
