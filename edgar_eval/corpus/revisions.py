"""Which filings are current: an amendment (a 10-K/A or 10-Q/A) supersedes the filing it amends.

A filing is superseded when a later amendment of the same company, form and period end exists; the latest amendment
is the current revision. A superseded filing leaves search (it is no longer what the company says) and stays on disk
and in the corpus tables, so an audit can still read what was first published. Filings without an amendment are
their own current revision. "Later" is by filing date where the manifest gives one, then by partition key.
"""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_groups


def superseded_by(filings: pd.DataFrame) -> dict[str, str]:
    """Superseded filing id -> the id of its current revision. `filings`: the filings table (filing_id, cik, form,
    period_end, amendment, filed)."""
    if filings.empty or "amendment" not in filings.columns:
        return {}
    out: dict[str, str] = {}
    ordered = filings.assign(_filed=filings.filed.fillna("").astype(str)).sort_values(["_filed", "filing_id"])
    for _, revisions in iter_groups(ordered.groupby(["cik", "form", "period_end"], sort=True)):
        amendments = revisions[revisions.amendment.astype(bool)]
        if amendments.empty:
            continue
        current = str(amendments.filing_id.iloc[-1])
        out.update({str(f): current for f in revisions.filing_id if f != current})
    return dict(sorted(out.items()))


def current_only(frame: pd.DataFrame, superseded: dict[str, str]) -> pd.DataFrame:
    """The rows of `frame` (with a filing_id column) whose filing is its own current revision."""
    return cast(pd.DataFrame, frame[~frame.filing_id.isin(list(superseded))]).reset_index(drop=True)
