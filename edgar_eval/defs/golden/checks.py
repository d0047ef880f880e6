"""The golden set's invariant as an asset check, blocking: a golden set with a contradiction stops what reads it."""

import dagster as dg
import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.golden.invariants import contradictions
from edgar_eval.golden.might_answer import cover_page_end


@dg.asset_check(
    asset="golden_questions",
    additional_ins={"filing_text": dg.AssetIn("filing_text"), "filings": dg.AssetIn("filings")},
    blocking=True,
    description="The golden set is non-empty and free of contradictions: one wording in one scope has one expected "
    "route; an absent concept's label is printed beside no figure of its period in its scope, nor said to be none; an "
    "other-year question's year is printed beside none of its concept's words in the company's filings, nor in a "
    "schedule under them.",
)
def golden_set_consistent(
    context: dg.AssetCheckExecutionContext,
    golden_questions: pd.DataFrame,
    filing_text: PartitionedTable,
    filings: PartitionedTable,
) -> dg.AssetCheckResult:
    golden = golden_questions
    keys, _ = current_partitions(filings, (filing_text,))
    texts, recorded = filing_text.frame(keys), filings.frame(keys)
    found = contradictions(
        golden,
        dict(zip(texts.filing_id, texts.text)),
        recorded.groupby("cik").filing_id.agg(list).to_dict(),
        body_starts={r.filing_id: cover_page_end(len(r.text), r.page_ends) for r in iter_rows(texts)},
    )
    if golden.empty:
        found = ["the golden set is empty"]
    return dg.AssetCheckResult(
        passed=not found,
        description="; ".join(found) or f"{len(golden)} questions, no contradiction",
        metadata={"questions": len(golden), "contradictions": len(found)},
    )


CHECKS = [golden_set_consistent]
