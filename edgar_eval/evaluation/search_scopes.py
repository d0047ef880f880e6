"""What the retrieval measurement searches for each golden question in each search scope, and the gold it looks for
there: the answerer's scope (the company's filings of the fiscal year asked) for every question, as the golden set
states it; the wider scopes (every filing of the company, the whole corpus) for the answerable questions that stay
fair there (golden.wider_scope_gold: `_wider_scope_gold`). In every scope the asking role searches only what it may
read.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import ANSWER, AccessPolicy
from edgar_eval.evaluation.question_sample import seeded_sample
from edgar_eval.evaluation.retrieval_hits import chance_of_hit, run_record
from edgar_eval.golden.case_schema import permitted, scope_filings
from edgar_eval.retrieval.scope import COMPANY_YEAR, CORPUS, SEARCH_SCOPES, ScopedFiling, filings_of_scope
from edgar_eval.retrieval.searches import Search


def searchable_filings(index_rows: pd.DataFrame) -> pd.DataFrame:
    """The filings a search index holds (filing_id, cik, form, fiscal_year), one row each: what any scope can search."""
    return cast(pd.DataFrame, index_rows.drop_duplicates("filing_id")[["filing_id", "cik", "form", "fiscal_year"]])


@dataclass(frozen=True)
class ScopedCase:
    question_id: str
    question: str
    search_scope: str
    expected_route: str
    searched: list[str]  # the filings searched: the scope's, less those the asking role may not read
    gold_chunk_ids: list[str]
    gold_filing_ids: list[str]
    gold_pages: list[str]


def corpus_scope_eligible(golden: pd.DataFrame, wider_gold: pd.DataFrame) -> pd.DataFrame:
    """The golden questions the corpus scope can measure: answerable, and no fairness rule failed in that scope."""
    fair = wider_gold[(wider_gold.search_scope == CORPUS) & wider_gold.rule.isna()]
    return cast(pd.DataFrame, golden[(golden.expected_route == ANSWER) & golden.question_id.isin(fair.question_id)])


def corpus_scope_sample(golden: pd.DataFrame, wider_gold: pd.DataFrame, size: int, seed: int) -> frozenset[str] | None:
    """The questions the corpus scope measures once more than `size` are eligible (corpus_scope_eligible): a seeded
    sample of `size` of them (question_sample.seeded_sample); None while the scope measures every one. Drawn from the
    whole golden set, never from a shard's or a replica's part of it, so every step that searches the corpus scope
    measures the same questions."""
    eligible = corpus_scope_eligible(golden, wider_gold)
    if len(eligible) <= size:
        return None
    return frozenset(seeded_sample(eligible, size, seed).question_id)


def scoped_cases(
    golden: pd.DataFrame,
    wider_gold: pd.DataFrame,
    filings: pd.DataFrame,
    policy: AccessPolicy,
    scopes: Sequence[str] = SEARCH_SCOPES,
    corpus_sample: Collection[str] | None = None,
) -> Iterator[ScopedCase]:
    """Each golden question in each of `scopes` it is measured in, scope by scope in SEARCH_SCOPES order, questions
    in `golden`'s order. `filings`: the searchable filings (filing_id, cik, form, fiscal_year), one row each.
    `corpus_sample`: the questions the corpus scope measures (corpus_scope_sample; None: every fair one)."""
    wanted = [scope for scope in SEARCH_SCOPES if scope in scopes]
    known = scope_filings(filings)
    listed = [ScopedFiling(f.filing_id, f.cik, f.form, int(f.fiscal_year)) for f in known.values()]
    fair = wider_gold[wider_gold.rule.isna()].set_index(["question_id", "search_scope"])
    for scope in wanted:
        for case in iter_rows(golden):
            if scope == COMPANY_YEAR:  # as the golden set states it, unanswerable questions included
                searched, gold = list(case.permitted_filing_ids), case
            elif case.expected_route != ANSWER or (case.question_id, scope) not in fair.index:
                continue
            elif scope == CORPUS and corpus_sample is not None and case.question_id not in corpus_sample:
                continue
            else:
                filing_ids = filings_of_scope(scope, listed, case.cik, int(case.fiscal_year))
                searched, gold = permitted(filing_ids, case.role, policy, known), fair.loc[(case.question_id, scope)]
            yield ScopedCase(
                question_id=case.question_id,
                question=case.question,
                search_scope=scope,
                expected_route=case.expected_route,
                searched=searched,
                gold_chunk_ids=list(gold.gold_chunk_ids),
                gold_filing_ids=list(gold.gold_filing_ids),
                gold_pages=list(gold.gold_pages),
            )


def search_runs(
    index_rows: pd.DataFrame,
    retrievers: Mapping[str, Search],
    cases: Iterable[ScopedCase],
    vectors: Mapping[str, np.ndarray],
    depths: Sequence[int],
) -> Iterator[dict]:
    """Each case searched by each retriever at each depth (its own search), over `index_rows` (the rows the
    retrievers index): the chunks found, hits against the case's gold and the IR metrics, or the error (counted as an
    error, never as a miss)."""
    # the three columns a hit needs, once: cutting every column of the found rows out per search was a fifth of it
    chunk_ids, filing_ids = index_rows.chunk_id.to_numpy(), index_rows.filing_id.to_numpy()
    pages = index_rows.pages.to_numpy()
    chunks_in = pd.Series(filing_ids).value_counts().to_dict()  # what a random ranking of a scope draws from
    chunks_on: dict[str, set[int]] = {}
    for row, (filing_id, spanned) in enumerate(zip(filing_ids, pages)):
        for page in spanned:
            chunks_on.setdefault(f"{filing_id}#{page}", set()).add(row)
    for case in cases:
        searched = set(case.searched)
        pool = sum(chunks_in.get(f, 0) for f in searched)
        on_gold_pages = set().union(
            *(chunks_on.get(p, set()) for p in case.gold_pages if p.split("#", 1)[0] in searched)
        )
        in_gold_filings = sum(chunks_in.get(f, 0) for f in set(case.gold_filing_ids) & searched)
        for retriever, search in retrievers.items():
            for depth in depths:
                error, hits = None, []
                try:
                    hits = search(vectors[case.question_id], case.question, case.searched, depth)
                except (ValueError, RuntimeError) as exc:
                    error = f"{type(exc).__name__}: {exc}"
                rows = [h.row for h in hits]
                found_chunks, found_filings = [str(c) for c in chunk_ids[rows]], [str(f) for f in filing_ids[rows]]
                yield {
                    "question_id": case.question_id,
                    "search_scope": case.search_scope,
                    "retriever": retriever,
                    "k": depth,
                    "expected_route": case.expected_route,
                    "searched_filings": len(case.searched),
                    "chunk_ids": found_chunks,
                    "error": error,
                    "page_hit_chance": chance_of_hit(pool, len(on_gold_pages), depth),
                    "document_hit_chance": chance_of_hit(pool, in_gold_filings, depth),
                    **run_record(
                        found_chunks,
                        found_filings,
                        [list(p) for p in pages[rows]],
                        case.gold_chunk_ids,
                        case.gold_filing_ids,
                        case.gold_pages,
                        depth,
                    ),
                }
