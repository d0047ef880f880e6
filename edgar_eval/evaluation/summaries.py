"""Tables the report prints: per-arm rates and retrieval hit rates, each with a Wilson interval."""

from __future__ import annotations

from collections.abc import Set
from typing import cast

import pandas as pd

from edgar_eval.corpus.frames import iter_groups
from edgar_eval.domain.routes import NO_ANSWER
from edgar_eval.evaluation.abstention import ARM_NAMES, ARMS
from edgar_eval.evaluation.table_expansion import ORDERS
from edgar_eval.retrieval.scope import COMPANY_YEAR, SEARCH_SCOPES
from edgar_eval.stats.bootstrap import cluster_bootstrap_ratio
from edgar_eval.stats.proportions import wilson


def _rate_columns(prefix: str, successes: int, trials: int) -> dict:
    p = wilson(successes, trials)
    return {
        f"{prefix}_n": trials,
        f"{prefix}_k": successes,
        prefix: p.rate,
        f"{prefix}_low": p.low,
        f"{prefix}_high": p.high,
    }


def _cluster_columns(prefix: str, hits, clusters, seed: int, resamples: int, method: str = "percentile") -> dict:
    """The company-cluster bootstrap interval beside the Wilson one: questions of one company are not independent."""
    interval = cluster_bootstrap_ratio(
        hits.astype(float), [1.0] * len(hits), clusters, confidence=0.95, resamples=resamples, seed=seed, method=method
    )
    return {f"{prefix}_cluster_low": interval.low, f"{prefix}_cluster_high": interval.high}


def summarise_arms(
    outcomes: pd.DataFrame, seed: int = 0, resamples: int = 10_000, method: str = "percentile"
) -> pd.DataFrame:
    """Per arm: recall cost and accuracy on answerable questions, each with a Wilson and a company-cluster bootstrap 95%
    interval (`method`: percentile, bca or studentized). No false-answer rate here: pooled over the unanswerable kinds
    it is mostly the kinds whose construction a gate re-reads (other-company, other-year); `false_answers_by_kind`
    holds one per kind. No wall-clock figure here: this table must rebuild byte for byte."""
    baseline = outcomes[outcomes.arm == "A"].set_index("question_id")
    rows = []
    for arm in ARMS:
        own = outcomes[outcomes.arm == arm].set_index("question_id")
        answerable = own[own.expected_route == "answer"]
        lost = baseline.loc[answerable.index, "correct"].to_numpy(bool) & ~answerable.correct.to_numpy(bool)
        rows.append(
            {
                "arm": arm,
                "gates": ARM_NAMES[arm],
                **_rate_columns("recall_cost", int(lost.sum()), len(answerable)),
                **_cluster_columns("recall_cost", lost, answerable.cik.to_numpy(), seed, resamples, method),
                **_rate_columns("answer_accuracy", int(answerable.correct.sum()), len(answerable)),
            }
        )
    return pd.DataFrame(rows)


def false_answers_by_kind(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per arm and unanswerable kind: the false answers, the questions and the companies holding them, with a Wilson
    95% interval. Each kind on its own line: a pooled rate is mostly whichever kind is most numerous and easiest."""
    rows = []
    unanswerable = cast(pd.DataFrame, outcomes[outcomes.expected_route == NO_ANSWER])
    for arm in ARMS:
        own = cast(pd.DataFrame, unanswerable[unanswerable.arm == arm])
        for kind, group in iter_groups(own.groupby("kind", sort=True)):
            rows.append(
                {
                    "arm": arm,
                    "gates": ARM_NAMES[arm],
                    "kind": kind,
                    "companies": int(group.cik.nunique()),
                    **_rate_columns("false_answer_rate", int(group.false_answer.sum()), len(group)),
                }
            )
    columns = ["arm", "gates", "kind", "companies"] + [
        f"false_answer_rate{suffix}" for suffix in ("_n", "_k", "", "_low", "_high")
    ]
    return pd.DataFrame(rows, columns=columns)


def answers_by_kind(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Per arm and answerable kind (one document, or each two-document kind): the right answers, the questions and
    the companies holding them, with a Wilson 95% interval."""
    rows = []
    answerable = cast(pd.DataFrame, outcomes[outcomes.expected_route != NO_ANSWER])
    answerable = cast(pd.DataFrame, answerable[answerable.expected_route == "answer"])
    for arm in ARMS:
        own = cast(pd.DataFrame, answerable[answerable.arm == arm])
        for kind, group in iter_groups(own.groupby("kind", sort=True)):
            rows.append(
                {
                    "arm": arm,
                    "gates": ARM_NAMES[arm],
                    "kind": kind,
                    "companies": int(group.cik.nunique()),
                    **_rate_columns("correct_rate", int(group.correct.sum()), len(group)),
                }
            )
    columns = ["arm", "gates", "kind", "companies"] + [
        f"correct_rate{suffix}" for suffix in ("_n", "_k", "", "_low", "_high")
    ]
    return pd.DataFrame(rows, columns=columns)


def _scope_order(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with their search scope as an ordered category: narrowest first, as SEARCH_SCOPES lists them."""
    return runs.assign(search_scope=pd.Categorical(runs.search_scope, categories=list(SEARCH_SCOPES), ordered=True))


def _chance_columns(scored: pd.DataFrame) -> dict[str, float]:
    """The mean hit a random ranking of each question's scope reaches at its depth (retrieval_hits.chance_of_hit)."""
    return {
        f"{what}_chance": float(cast(pd.Series, scored[f"{what}_hit_chance"]).mean())
        if len(scored) and f"{what}_hit_chance" in scored
        else float("nan")
        for what in ("document", "page")
    }


def retrieval_statistics(runs: pd.DataFrame) -> pd.DataFrame:
    """Per search scope, retriever and depth, over answerable questions whose search ran: document and page hit rates
    with Wilson intervals, recall@K, precision@K, MRR and nDCG@10 of the gold chunks; searches that errored apart."""
    rows = []
    answerable = _scope_order(cast(pd.DataFrame, runs[runs.expected_route == "answer"]))
    groups = answerable.groupby(["search_scope", "retriever", "k"], sort=True, observed=True)
    for (search_scope, retriever, depth), run in iter_groups(groups):
        scored = cast(pd.DataFrame, run[run.error.isna()])
        document, page = (
            wilson(int(scored.document_hit.sum()), len(scored)),
            wilson(int(scored.page_hit.sum()), len(scored)),
        )
        rows.append(
            {
                "search_scope": str(search_scope),
                "retriever": retriever,
                "k": int(depth),
                "questions": len(scored),
                "errors": int(run.error.notna().sum()),
                "document_hits": document.successes,
                "document_hit_rate": document.rate,
                "document_low": document.low,
                "document_high": document.high,
                "page_hits": page.successes,
                "page_hit_rate": page.rate,
                "page_low": page.low,
                "page_high": page.high,
                **{
                    name: float(cast(pd.Series, scored[name]).mean()) if len(scored) else float("nan")
                    for name in ("recall", "precision", "rr", "ndcg10")
                },
                **_chance_columns(scored),
            }
        )
    return pd.DataFrame(rows)


SLICES = {
    "form": "source_form",
    "statement": "statement_type",
    "page position": "page_position",
    "kind": "kind",
    "documents": "document_count",
    "company": "company",
}
FIRST_PAGE, DEEPER = "first page", "deeper"


def page_position(on_first_page: pd.Series) -> pd.Series:
    """Where an answerable question's figure is printed: its filing's first page (the cover) or deeper."""
    return on_first_page.map({True: FIRST_PAGE, False: DEEPER})


def golden_mix(golden: pd.DataFrame) -> pd.DataFrame:
    """The answerable questions' make-up before any total: their count and share per form, statement and page
    position, so a set that over-tests easy pages (the cover) or one statement shows it."""
    answerable = golden[golden.expected_route == "answer"].assign(
        page_position=lambda t: page_position(t.on_first_page)
    )
    rows = []
    facets = (
        ("documents", "document_count"),
        ("kind", "kind"),
        ("form", "source_form"),
        ("statement", "statement_type"),
        ("page position", "page_position"),
    )
    for facet, column in ((f, c) for f, c in facets if c in answerable):  # a kind-less stand-in has no kind facet
        for value, count in answerable[column].value_counts().sort_index().items():
            share = count / len(answerable)
            rows.append({"facet": facet, "value": str(value), "questions": int(count), "share": share})
    return pd.DataFrame(rows, columns=["facet", "value", "questions", "share"])


EVIDENCE_COLUMNS = ["retriever", "k", "questions", "both", "one", "none", "both_share", "both_low", "both_high"]


def evidence_filing_hits(runs: pd.DataFrame, two_document: Set[str]) -> pd.DataFrame:
    """Over the two-document questions (`two_document`: their ids) in the answerer's scope, per retriever and depth:
    how many had a gold page of both evidence filings among the passages read, of one, of none (Wilson 95% on both).
    A one-document question whose figure two filings print is not one of them: either filing answers it."""
    two = cast(
        pd.DataFrame,
        runs[
            (runs.expected_route == "answer")
            & runs.error.isna()
            & (runs.search_scope == COMPANY_YEAR)
            & (runs.evidence_filings >= 2)
            & runs.question_id.isin(sorted(two_document))
        ],
    )
    rows = []
    for (retriever, depth), group in iter_groups(two.groupby(["retriever", "k"], sort=True)):
        both = int((group.evidence_found >= group.evidence_filings).sum())
        none = int((group.evidence_found == 0).sum())
        share = wilson(both, len(group))
        rows.append(
            {
                "retriever": retriever,
                "k": int(depth),
                "questions": len(group),
                "both": both,
                "one": len(group) - both - none,
                "none": none,
                "both_share": share.rate,
                "both_low": share.low,
                "both_high": share.high,
            }
        )
    return pd.DataFrame(rows, columns=EVIDENCE_COLUMNS)


def paired_hits(before: pd.Series, after: pd.Series, before_name: str, after_name: str) -> dict[str, int]:
    """Hits of one question set under two conditions, paired: each count, and the questions lost and gained."""
    was, now = before.astype(bool).to_numpy(), after.astype(bool).to_numpy()
    return {
        before_name: int(was.sum()),
        after_name: int(now.sum()),
        "lost": int((was & ~now).sum()),
        "gained": int((~was & now).sum()),
    }


def scope_changes(runs: pd.DataFrame) -> pd.DataFrame:
    """What widening the search costs, paired: per wider search scope, retriever and depth, over the answerable
    questions measured both there and in the answerer's scope (company_year), page hits in each and the questions
    found in one only. Each scope's own table counts the questions fair there; this one compares like with like."""
    scored = cast(pd.DataFrame, runs[(runs.expected_route == "answer") & runs.error.isna()])
    keys = ["question_id", "retriever", "k"]
    narrow = scored[scored.search_scope == COMPANY_YEAR].set_index(keys).page_hit
    rows = []
    for search_scope in [s for s in SEARCH_SCOPES if s != COMPANY_YEAR and s in set(scored.search_scope)]:
        wide = scored[scored.search_scope == search_scope].set_index(keys).page_hit
        paired = pd.concat({"narrow": narrow, "wide": wide}, axis=1, join="inner").reset_index()
        for (retriever, depth), group in iter_groups(paired.groupby(["retriever", "k"], sort=True)):
            rows.append(
                {
                    "search_scope": search_scope,
                    "retriever": retriever,
                    "k": int(depth),
                    "questions": len(group),
                    **paired_hits(group.narrow, group.wide, "narrow_page_hits", "wide_page_hits"),
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "search_scope",
            "retriever",
            "k",
            "questions",
            "narrow_page_hits",
            "wide_page_hits",
            "lost",
            "gained",
        ],
    )


RERANK_COLUMNS = [
    "search_scope",
    "retriever",
    "candidates",
    "kept",
    "reranker",
    "questions",
    "page_hits_before",
    "page_hits_after",
    "lost",
    "gained",
    "chunk_hits_before",
    "chunk_hits_after",
]


def rerank_statistics(reranked: pd.DataFrame) -> pd.DataFrame:
    """Per search scope and cut (candidates reranked, passages kept): page and chunk hits among the kept passages
    before the reranker (the retriever's own first ones) and after it, paired on the same questions, with the
    questions lost and gained. No wall-clock figure: the rerank's cost per question is in stage_latency."""
    rows = []
    if reranked.empty:
        return pd.DataFrame(rows, columns=RERANK_COLUMNS)
    groups = _scope_order(reranked).groupby(["search_scope", "retriever", "candidates", "kept"], observed=True)
    for (search_scope, retriever, candidates, kept), group in iter_groups(groups):
        rows.append(
            {
                "search_scope": str(search_scope),
                "retriever": retriever,
                "candidates": int(candidates),
                "kept": int(kept),
                "reranker": str(group.reranker.iloc[0]),
                "questions": len(group),
                **paired_hits(group.page_hit_before, group.page_hit_after, "page_hits_before", "page_hits_after"),
                "chunk_hits_before": int(group.chunk_hit_before.sum()),
                "chunk_hits_after": int(group.chunk_hit_after.sum()),
            }
        )
    return pd.DataFrame(rows, columns=RERANK_COLUMNS)


EXPANSION_STAT_COLUMNS = [
    "search_scope",
    "candidates",
    "kept",
    "order",
    "questions",
    "page_hits_plain",
    "page_hits_expanded",
    "lost",
    "gained",
    "rows_read_plain",
    "rows_read_expanded",
    "mean_chars_plain",
    "mean_chars_expanded",
    "passages_expanded",
]


def expansion_statistics(expanded: pd.DataFrame) -> pd.DataFrame:
    """Per search scope, cut and order (the retriever's kept passages or the reranker's): page hits and gold rows
    read among the kept passages as they are and expanded, paired on the same questions, with the questions lost and
    gained (page hit), the mean characters read per question both ways, and how many passages the expansion changed."""
    rows = []
    if expanded.empty:
        return pd.DataFrame(rows, columns=EXPANSION_STAT_COLUMNS)
    ordered = _scope_order(expanded).assign(order=pd.Categorical(expanded.order, categories=list(ORDERS), ordered=True))
    groups = ordered.groupby(["search_scope", "candidates", "kept", "order"], observed=True, sort=True)
    for (search_scope, candidates, kept, order), group in iter_groups(groups):
        rows.append(
            {
                "search_scope": str(search_scope),
                "candidates": int(candidates),
                "kept": int(kept),
                "order": str(order),
                "questions": len(group),
                **paired_hits(group.page_hit_plain, group.page_hit_expanded, "page_hits_plain", "page_hits_expanded"),
                "rows_read_plain": int(group.row_read_plain.sum()),
                "rows_read_expanded": int(group.row_read_expanded.sum()),
                "mean_chars_plain": float(group.chars_plain.mean()),
                "mean_chars_expanded": float(group.chars_expanded.mean()),
                "passages_expanded": int(group.passages_expanded.sum()),
            }
        )
    return pd.DataFrame(rows, columns=EXPANSION_STAT_COLUMNS)


def summarise_slices(runs: pd.DataFrame) -> pd.DataFrame:
    """Page hit rate with its Wilson interval and the median rank of the first gold chunk, per slice
    (form, statement type, company) x retriever x depth, over answerable questions whose search ran in the answerer's
    scope (company_year)."""
    scored = cast(
        pd.DataFrame,
        runs[(runs.expected_route == "answer") & runs.error.isna() & (runs.search_scope == COMPANY_YEAR)],
    )
    rows = []
    for slice_name, column in ((s, c) for s, c in SLICES.items() if c in scored):
        for (value, retriever, depth), group in iter_groups(scored.groupby([column, "retriever", "k"], sort=True)):
            page = wilson(int(group.page_hit.sum()), len(group))
            found = group.first_gold_rank[group.first_gold_rank > 0]
            rows.append(
                {
                    "slice": slice_name,
                    "value": str(value),
                    "retriever": retriever,
                    "k": int(depth),
                    "questions": len(group),
                    "page_hits": page.successes,
                    "page_hit_rate": page.rate,
                    "page_low": page.low,
                    "page_high": page.high,
                    "median_gold_rank": float(found.median()) if len(found) else float("nan"),
                    **_chance_columns(group),
                }
            )
    return pd.DataFrame(rows)
