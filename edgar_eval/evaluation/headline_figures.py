"""The headline figures as flat numeric entries, for the Dagster UI to plot across runs: each statistics table's rates
picked into `name -> float` (interval bounds as `name_low` and `name_high` beside them) and its question counts into
`name -> int`. The defs attach them as metadata of the asset that computed the table; the figures are the table's
own, never recomputed.

Names are stable across runs and corpora: `<figure>_arm_<arm>`, `page_hit_at_<K>_<retriever>`,
`reader_accuracy_<reader>` (the reader's id without its version, so a new version continues the series). A figure
that is undefined (no question to divide by) has no entry; its count says 0. No entry is ever NaN.

A Wilson bound of statsmodels misses its own estimate by float noise at the ends (5.6e-17 over a rate of 0 of 3,
1 - 1e-16 under 3 of 3): the bound written here is moved onto the estimate there, so `low <= value <= high` holds
exactly; elsewhere it is the table's to the bit. A company-bootstrap bound (`_cluster_low`, `_cluster_high`) is
written as the table holds it: a BCa or studentised interval need not contain the estimate.
"""

from __future__ import annotations

import math
import re
from typing import Mapping, cast

import pandas as pd

from edgar_eval.evaluation.protocol import Hypothesis, Protocol
from edgar_eval.retrieval.scope import COMPANY_YEAR

Figures = dict[str, float | int]


def slug(name: object) -> str:
    """A metadata key part: lower case, runs of anything but letters and digits as one underscore."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def _finite(value: object) -> float | None:
    number = float(cast(float, value))
    return number if math.isfinite(number) else None


def rate_entries(name: str, value: object, low: object = None, high: object = None) -> Figures:
    """`name` and, where the interval is defined, `name_low` and `name_high`, clipped onto the estimate by the float
    noise described above; nothing when the rate itself is undefined."""
    rate = _finite(value)
    if rate is None:
        return {}
    entries: Figures = {name: rate}
    bounds = None if low is None or high is None else (_finite(low), _finite(high))
    if bounds is not None and bounds[0] is not None and bounds[1] is not None:
        entries[f"{name}_low"], entries[f"{name}_high"] = min(bounds[0], rate), max(bounds[1], rate)
    return entries


def _cluster_entries(name: str, low: object, high: object) -> Figures:
    bounds = _finite(low), _finite(high)
    if bounds[0] is None or bounds[1] is None:
        return {}
    return {f"{name}_cluster_low": bounds[0], f"{name}_cluster_high": bounds[1]}


def _count(frame: pd.DataFrame, column: str) -> int:
    return int(cast(pd.Series, frame[column]).max()) if len(frame) else 0


def arm_figures(stats: pd.DataFrame) -> Figures:
    """From arm_statistics: per arm, the recall cost with its Wilson and company-bootstrap bounds and the accuracy on
    answerable questions with its Wilson bounds; the question count they divide by. No pooled false-answer rate: each
    unanswerable kind's is in `false_answer_kind_figures`."""
    figures: Figures = {"answerable_questions": _count(stats, "answer_accuracy_n")}
    for row in stats.to_dict("records"):
        arm = str(row["arm"])
        for figure in ("recall_cost", "answer_accuracy"):
            name = f"{figure}_arm_{arm}"
            entries = rate_entries(name, row[figure], row[f"{figure}_low"], row[f"{figure}_high"])
            if entries and f"{figure}_cluster_low" in row:
                entries |= _cluster_entries(name, row[f"{figure}_cluster_low"], row[f"{figure}_cluster_high"])
            figures |= entries
    return figures


PRIMARY_MARK = "Primary."


def primary_hypothesis(protocol: Protocol) -> Hypothesis | None:
    """The hypothesis the protocol registers as primary (its statement opens with "Primary.": answering-v3's H2),
    if it names one and the hypothesis reads one unanswerable kind's false-answer rate."""
    marked = [h for h in protocol.hypotheses if h.statement.startswith(PRIMARY_MARK)]
    if len(marked) != 1 or marked[0].metric != "false_answer_rate" or not marked[0].kind:
        return None
    return marked[0]


def primary_endpoint_description(protocol: Protocol) -> str:
    primary = primary_hypothesis(protocol)
    if primary is None:
        return f"none: {protocol.version} registers no primary per-kind endpoint"
    return f"false-answer rate on {primary.kind} questions, per arm ({primary.id} of {protocol.version}, " + (
        f"{protocol.split} split)"
    )


def false_answer_kind_figures(by_kind: pd.DataFrame, protocol: Protocol) -> Figures:
    """From arm_false_answers_by_kind: the primary endpoint per arm (`primary_endpoint_arm_<arm>`: the false-answer
    rate on the primary hypothesis's kind) with its Wilson bounds, and every kind's rate per arm
    (`false_answer_rate_<kind>_arm_<arm>`); the questions and companies of each kind (0 when the split holds none)."""
    primary = primary_hypothesis(protocol)
    figures: Figures = {}
    if primary is not None:
        own = cast(pd.DataFrame, by_kind[by_kind.kind == primary.kind])
        figures["primary_endpoint_questions"] = _count(own, "false_answer_rate_n")
        figures["primary_endpoint_companies"] = _count(own, "companies")
        for row in own.to_dict("records"):
            figures |= rate_entries(
                f"primary_endpoint_arm_{row['arm']}",
                row["false_answer_rate"],
                row["false_answer_rate_low"],
                row["false_answer_rate_high"],
            )
    for kind in sorted(set(by_kind.kind)):
        figures[f"{slug(kind)}_questions"] = _count(
            cast(pd.DataFrame, by_kind[by_kind.kind == kind]), "false_answer_rate_n"
        )
    for row in by_kind.sort_values(["kind", "arm"]).to_dict("records"):
        figures |= rate_entries(
            f"false_answer_rate_{slug(row['kind'])}_arm_{row['arm']}",
            row["false_answer_rate"],
            row["false_answer_rate_low"],
            row["false_answer_rate_high"],
        )
    return figures


def page_hit_figures(metrics: pd.DataFrame, search_scope: str = COMPANY_YEAR) -> Figures:
    """From retrieval_metrics: page hit at each depth per retriever in the answerer's search scope
    (`page_hit_at_<K>_<retriever>`) with its Wilson bounds, and the most questions scored at any of them."""
    own = cast(pd.DataFrame, metrics[metrics.search_scope == search_scope]) if len(metrics) else metrics
    figures: Figures = {"page_hit_questions": _count(own, "questions")}
    for row in own.sort_values(["k", "retriever"]).to_dict("records") if len(own) else []:
        if int(row["questions"]):
            figures |= rate_entries(
                f"page_hit_at_{int(row['k'])}_{slug(row['retriever'])}",
                row["page_hit_rate"],
                row["page_low"],
                row["page_high"],
            )
    return figures


DOCUMENTS: Mapping[str, str] = {"all": "", "1": "_one_document", "2": "_two_documents"}


def reader_name(reader: str) -> str:
    """A reader's id without its version ("table-reader/1" -> "table_reader")."""
    return slug(str(reader).split("/")[0])


def reader_figures(readers: pd.DataFrame) -> Figures:
    """From reader_accuracy: each reader's right answers over the answerable questions (`reader_accuracy_<reader>`,
    per filings the gold needs, `..._one_document`, `..._two_documents`, and per kind of two-document question,
    `..._<kind>`: `reader_accuracy_composing_reader_granularity`) with its Wilson bounds, and the answerable questions
    the readers read."""
    if len(readers) and "kind" in readers:
        everything = cast(pd.DataFrame, readers[(readers.documents == "all") & (readers.kind.fillna("") == "")])
    else:
        everything = cast(pd.DataFrame, readers[readers.documents == "all"]) if len(readers) else readers
    figures: Figures = {"reader_questions": _count(everything, "questions")}
    for row in readers.to_dict("records"):
        documents, kind = str(row["documents"]), str(row.get("kind") or "")
        suffix = f"_{slug(kind)}" if kind else DOCUMENTS.get(documents, f"_{slug(documents)}_documents")
        if int(row["questions"]):
            figures |= rate_entries(
                f"reader_accuracy_{reader_name(row['reader'])}{suffix}",
                row["right_share"],
                row["right_low"],
                row["right_high"],
            )
    return figures
