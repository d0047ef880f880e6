"""The retrieval sections: the noise band, the wider search scopes, the rerank, table-chunk expansion, retrieval
by slice and per evidence filing."""

from __future__ import annotations

from typing import cast

import pandas as pd

from edgar_eval.corpus.company_names import display_name
from edgar_eval.corpus.frames import iter_groups, iter_rows
from edgar_eval.domain.routes import ANSWER
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.noise_band import band_can_move, beyond_band
from edgar_eval.evaluation.search_scopes import corpus_scope_eligible, corpus_scope_sample
from edgar_eval.report.inputs import ReportInputs
from edgar_eval.report.markdown import Provenance, ReportTable, _ratio, _share_cell, interval, md_cell, percent
from edgar_eval.retrieval.scope import COMPANY_YEAR, CORPUS, SCOPE_WORDS, SEARCH_SCOPES


def _slice_table(slices: pd.DataFrame) -> pd.DataFrame:
    if slices.empty:
        return pd.DataFrame()
    depths = sorted(slices.k.unique())
    shallow, deep = depths[0], depths[-1]
    rows = []
    for (slice_name, value, retriever), group in iter_groups(
        slices.groupby(["slice", "value", "retriever"], sort=True)
    ):
        by_depth = group.set_index("k")
        row = {"slice": slice_name, "value": value, "retriever": retriever}
        for depth in (shallow, deep):
            own = by_depth.loc[depth]
            row[f"page hit@{depth}"] = f"{percent(own.page_hit_rate)} ({_ratio(own.page_hits, own.questions)})"
            row[f"Wilson 95% @{depth}"] = interval(own.page_low, own.page_high)
            row[f"by chance @{depth}"] = percent(own.page_chance)
        if deep != shallow:
            row["gain"] = f"{100 * (by_depth.page_hit_rate[deep] - by_depth.page_hit_rate[shallow]):+.1f} points"
        median = by_depth.median_gold_rank[deep]
        row[f"median gold rank@{deep}"] = "n/a" if pd.isna(median) else f"{median:g}"
        rows.append(row)
    return pd.DataFrame(rows)


def _bands(inputs: ReportInputs) -> dict[tuple[str, str, int], tuple[float, float]]:
    """The noise band per (scope, retriever, K), in points."""
    band = inputs.noise_band
    if band.empty:
        return {}
    return {
        (str(s), str(r), int(k)): (float(lo), float(hi))
        for s, r, k, lo, hi in zip(band.search_scope, band.retriever, band.k, band.band_low, band.band_high)
    }


def _hits_cell(hits: int, questions: int) -> str:
    """A page hit count as the report prints it: the share and the count, "93.5% (303/324)"."""
    return f"{percent(hits / questions)} ({_ratio(hits, questions)})"


def _band_words(band: tuple[float, float] | None) -> str:
    return "not measured" if band is None else f"{band[0]:+.1f} to {band[1]:+.1f} points"


def noise_tables(inputs: ReportInputs) -> list[ReportTable]:
    """Which companies each replica of the noise band left out of its index."""
    noise = inputs.noise
    if noise.empty:
        return []
    names = {cik: display_name(company) for cik, company in zip(inputs.filings.cik, inputs.filings.company)}
    replicas = noise.drop_duplicates("replica").sort_values("replica")
    table = pd.DataFrame(
        {
            "replica": replicas.replica,
            "companies left out of the index": [
                ", ".join(md_cell(names.get(cik, cik)) for cik in left) for left in replicas.left_out
            ],
            "answerable questions still measured (most, any scope)": [
                int(noise[noise.replica == replica].questions.max()) for replica in replicas.replica
            ],
        }
    )
    tables = [
        ReportTable(
            "Noise band: what a live index changes",
            table,
            Provenance("retrieval_noise", content_version(noise), "retriever_rankings over search_index"),
            note="Each replica repeats the retrieval measurement over an index a live one could be: a few companies' "
            "filings left out (this corpus has no spare filings to add, so only removal is measured) and the rest "
            "stored in another order. Its page hit is compared with the measurement's on the same questions, so the "
            "band (Retrieval, last column) is the index's effect alone. A difference inside the band is not evidence "
            'that either figure is better. Where a replica cannot move the figure, no band is printed ("none: cannot '
            "move here\"): a dense ranking within one company's filings reads no other company's chunk, so leaving "
            "companies out changes it only by breaking an exact tie; BM25 and hybrid read the whole index's "
            "statistics and move in every scope." + _sample_sentence(inputs) + _corpus_sample_sentence(inputs),
        )
    ]
    answering = inputs.answer_noise_band
    figures = {"answer_accuracy": "answer accuracy", "false_answer_rate": "false-answer rate"}
    tables.append(
        ReportTable(
            "Noise band: answering, arm A",
            pd.DataFrame(
                {
                    "figure": [figures.get(f, f) for f in answering.figure],
                    "arm": answering.arm,
                    "replicas": answering.replicas,
                    "questions (fewest)": answering.questions,
                    "noise band": [_band_words((lo, hi)) for lo, hi in zip(answering.band_low, answering.band_high)],
                }
            )
            if len(answering)
            else pd.DataFrame({"figure": ["answer accuracy, false-answer rate"], "noise band": ["not measured"]}),
            Provenance("answering_noise_band", content_version(answering), "answering_noise (the same replicas)"),
            note="Arm A (no gate) answered again over each replica of the index: every question of the companies "
            "still in it searched by the answerer's retriever and read by the generator, judged as arm A is, and "
            "compared with the measurement on the same questions. Measured for a deterministic offline generator "
            "only; the gated arms' thresholds are fitted on the measured run and are not replicated."
            + (_sample_sentence(inputs) if len(answering) else ""),
        )
    )
    return tables


def _sample_sentence(inputs: ReportInputs) -> str:
    """What a noise band measured once the golden questions outnumber the setting noise_questions: a seeded sample
    (nothing is said while the bands measure every question, or where a band was not measured)."""
    size, questions = inputs.settings.get("noise_questions"), len(inputs.golden)
    if size is None or questions <= size:
        return ""
    return (
        f" The replicas search a seeded sample of {size} of the {questions} golden questions (setting "
        "noise_questions), the same in every noise band, so the bands' cost stops growing with the number of "
        "questions (it still grows with the index); the measurement it is compared with is read on the same questions."
    )


def _corpus_sample(inputs: ReportInputs) -> tuple[frozenset[str], int] | None:
    """The questions the corpus scope measured and how many were fair there, when it measured a seeded sample
    (settings corpus_scope_questions, drawn as the measurement drew it); None while it measured every one, or was
    not searched."""
    settings, gold = inputs.settings, inputs.scope_gold
    size = settings.get("corpus_scope_questions")
    if size is None or gold.empty or CORPUS not in settings.get("search_scopes", SEARCH_SCOPES):
        return None
    sample = corpus_scope_sample(inputs.golden, gold, int(size), int(settings.get("golden_seed", 0)))
    if sample is None:
        return None
    return sample, len(corpus_scope_eligible(inputs.golden, gold))


def _corpus_sample_sentence(inputs: ReportInputs, paired: bool = False) -> str:
    """What the corpus scope measured when it measured a seeded sample (nothing is said while it measures every
    question fair there). `paired`: the table also pairs the scope with company_year."""
    sampled = _corpus_sample(inputs)
    if sampled is None:
        return ""
    sample, eligible = sampled
    return (
        f" The corpus scope is measured on a seeded sample of {len(sample)} of the {eligible} questions fair there "
        "(setting corpus_scope_questions): each of its searches reads every chunk of the corpus, so on every question "
        "its cost would grow with the square of the corpus. Its figures"
        + (", and its paired comparison with company_year, are" if paired else " here are")
        + " over the sample."
    )


def scope_tables(inputs: ReportInputs) -> list[ReportTable]:
    """How many answerable questions each wider search scope measures and why the others are not, and what widening
    costs on the questions measured in both scopes."""
    gold, changes, bands = inputs.scope_gold, inputs.scope_changes, _bands(inputs)
    if gold.empty:
        return []
    answerable = int((inputs.golden.expected_route == ANSWER).sum())
    sampled = _corpus_sample(inputs)
    rows = []
    for scope in [s for s in SEARCH_SCOPES if s in set(gold.search_scope)]:
        own = gold[gold.search_scope == scope]
        excluded = own.rule.value_counts().sort_index()
        measured = cast(pd.DataFrame, own[own.rule.isna()])
        counted = f"{len(measured)} of {answerable}"
        if scope == CORPUS and sampled is not None:
            measured = cast(pd.DataFrame, measured[measured.question_id.isin(sampled[0])])
            counted = f"{len(measured)} of {answerable} (a seeded sample of the {sampled[1]} fair there)"
        rows.append(
            {
                "scope": scope,
                "searches": SCOPE_WORDS[scope],
                "answerable questions measured": counted,
                "not measured there, by rule": ", ".join(f"{rule} {n}" for rule, n in excluded.items()) or "none",
                "measured questions whose figure another company prints": (
                    f"{int((measured.other_company_pages > 0).sum())} (distractors in this scope)"
                    if scope == CORPUS
                    else "none searched"
                ),
            }
        )
    tables = [
        ReportTable(
            "Golden questions per wider search scope",
            pd.DataFrame(rows),
            Provenance("gold_by_search_scope", content_version(gold), "golden_questions_and_rejections"),
            note="Gold follows the scope: every chunk of the company's filings that prints the figure with its meaning "
            "(a comparative year printed by a later report too). The fairness rules run again over every filing of "
            "the company: a figure printed with other meanings on more pages there, or restated by another filing of "
            "the company, is not measured in the wider scopes. Another company's page never holds the company's "
            "figure, so the whole corpus has the company's gold; another company printing the same number is a "
            "distractor the search must rank below it." + _corpus_sample_sentence(inputs, paired=True),
        )
    ]
    if len(changes):
        tables.append(
            ReportTable(
                "Retrieval when the search widens (paired)",
                pd.DataFrame(
                    {
                        "scope": changes.search_scope,
                        "retriever": changes.retriever,
                        "K": changes.k,
                        "questions in both": changes.questions,
                        "page hit, company_year": list(map(_hits_cell, changes.narrow_page_hits, changes.questions)),
                        "page hit, wider": list(map(_hits_cell, changes.wide_page_hits, changes.questions)),
                        "change": [
                            f"{100 * (w - c) / n:+.1f} points"
                            for w, c, n in zip(changes.wide_page_hits, changes.narrow_page_hits, changes.questions)
                        ],
                        "found in company_year only": changes.lost,
                        "found in the wider scope only": changes.gained,
                        "beyond the index noise band": [
                            "not measured"
                            if not bands
                            else "yes"
                            if beyond_band(
                                100 * (w - c) / n,
                                [b for b in (bands.get((COMPANY_YEAR, r, k)), bands.get((s, r, k))) if b is not None],
                            )
                            else "no (inside)"
                            for s, r, k, w, c, n in zip(
                                changes.search_scope,
                                changes.retriever,
                                changes.k,
                                changes.wide_page_hits,
                                changes.narrow_page_hits,
                                changes.questions,
                            )
                        ],
                    }
                ),
                Provenance("retrieval_scope_changes", content_version(changes), "retriever_rankings"),
                note="The same questions searched in the answerer's scope and in a wider one, so the change is the "
                "scope's and not a change of questions. Beyond the index noise band: larger than any swing a replica "
                "of either figure made (see the noise band); that is not significance, since a change of a few "
                "questions can still lie within the questions' own sampling error (the Wilson intervals above).",
            )
        )
    return tables


def rerank_tables(inputs: ReportInputs) -> list[ReportTable]:
    """The rerank stage against the retriever's own order, per scope and cut, paired on the same questions."""
    rerank = inputs.rerank
    if rerank.empty:
        return []
    bands = {
        (b.search_scope, int(b.candidates), int(b.kept)): ((b.before_low, b.before_high), (b.after_low, b.after_high))
        for b in iter_rows(inputs.rerank_noise_band)
    }

    table = pd.DataFrame(
        {
            "scope": rerank.search_scope,
            "candidates": [f"{r} top {c}" for r, c in zip(rerank.retriever, rerank.candidates)],
            "kept": rerank.kept,
            "page hit, retriever's order": list(map(_hits_cell, rerank.page_hits_before, rerank.questions)),
            "page hit, reranked": list(map(_hits_cell, rerank.page_hits_after, rerank.questions)),
            "change": [
                f"{100 * (a - b) / n:+.1f} points"
                for a, b, n in zip(rerank.page_hits_after, rerank.page_hits_before, rerank.questions)
            ],
            "lost": rerank.lost,
            "gained": rerank.gained,
            "gold chunk kept, before / after": [
                f"{b} / {a}" for b, a in zip(rerank.chunk_hits_before, rerank.chunk_hits_after)
            ],
            "beyond the index noise band": [
                _rerank_band_words(bands.get((scope, c, k)), after - before, n)
                for scope, c, k, after, before, n in zip(
                    rerank.search_scope,
                    rerank.candidates,
                    rerank.kept,
                    rerank.page_hits_after,
                    rerank.page_hits_before,
                    rerank.questions,
                )
            ],
        }
    )
    return [
        ReportTable(
            f"Rerank: what the answerer would read (reranker {md_cell(rerank.reranker.iloc[0])})",
            table,
            Provenance("rerank_metrics", content_version(rerank), "reranked_retrievals (retriever_rankings)"),
            note="Each cut reranks the answerer's retriever's top candidates and keeps the best: page hit among the "
            "kept passages in the retriever's own order (its first ones) and after the reranker, on the same "
            "answerable questions; lost and gained count the questions whose gold page left or entered the kept "
            "passages. Beyond the index noise band: the change is larger than any swing a replica of the index "
            "made of either figure (not significance). A cut that keeps the answerer's K maps to what the model "
            "reads. The rerank's cost per "
            "question is in timings.md."
            + (_sample_sentence(inputs) if len(inputs.rerank_noise_band) else "")
            + _corpus_sample_sentence(inputs),
        )
    ]


def _rerank_band_words(band, change_hits: int, questions: int) -> str:
    if band is None:
        return "not measured"
    widest = max(abs(v) for pair in band for v in pair)
    beyond = beyond_band(100 * change_hits / questions, band) if questions else False
    return f"{'yes' if beyond else 'no'} (widest swing {widest:.1f} points)"


def expansion_tables(inputs: ReportInputs) -> list[ReportTable]:
    """Table-chunk expansion against the passages read as they are, per scope, cut and order, paired."""
    expansion = inputs.expansion
    if expansion.empty:
        return []
    table = pd.DataFrame(
        {
            "scope": expansion.search_scope,
            "passages read": [
                f"{k} of {c}, {'reranked' if order == 'reranked' else 'retriever order'}"
                for order, k, c in zip(expansion.order, expansion.kept, expansion.candidates)
            ],
            "page hit, as chunked": list(map(_hits_cell, expansion.page_hits_plain, expansion.questions)),
            "page hit, expanded": list(map(_hits_cell, expansion.page_hits_expanded, expansion.questions)),
            "gained / lost": [f"{g} / {lost}" for g, lost in zip(expansion.gained, expansion.lost)],
            "gold row read, as chunked": list(map(_hits_cell, expansion.rows_read_plain, expansion.questions)),
            "gold row read, expanded": list(map(_hits_cell, expansion.rows_read_expanded, expansion.questions)),
            "characters read per question": [
                f"{plain:,.0f} to {grown:,.0f} ({100 * (grown / plain - 1):+.0f}%)" if plain else "0"
                for plain, grown in zip(expansion.mean_chars_plain, expansion.mean_chars_expanded)
            ],
        }
    )
    return [
        ReportTable(
            f"Table-chunk expansion: {inputs.expansion_rows} rows each way within a table",
            table,
            Provenance("expansion_metrics", content_version(expansion), "expanded_retrievals (reranked_retrievals)"),
            note="The kept passages of each rerank cut, in the retriever's order and in the reranker's, read as "
            "chunked and expanded: a passage with an end inside a table reaches that many rows further (never past "
            "the table) and opens with the table's scale line and header rows. Gold row read: the question's row, "
            "as its source filing prints it, lies whole in a passage read, so the figure is read with its label; a "
            "page hit does not promise that. The expansion buys what it buys with the characters in the last "
            "column; its cost per question is in timings.md." + _corpus_sample_sentence(inputs),
        )
    ]


def evidence_filing_table(evidence: pd.DataFrame) -> ReportTable:
    """Retrieval per evidence filing of the two-document questions: both found at K, one, none."""
    table = pd.DataFrame(
        {
            "retriever": evidence.retriever,
            "K": evidence.k,
            "questions": evidence.questions,
            "both filings": [
                f"{percent(v)} ({_ratio(k, n)})"
                for v, k, n in zip(evidence.both_share, evidence.both, evidence.questions)
            ],
            "both Wilson 95%": [interval(lo, hi) for lo, hi in zip(evidence.both_low, evidence.both_high)],
            "one filing": evidence.one,
            "neither": evidence.none,
        }
    )
    return ReportTable(
        "Retrieval per evidence filing (two-document questions)",
        table,
        Provenance("evidence_filing_hits", content_version(evidence), "retriever_rankings"),
        note="A two-document question (granularity, restatement, change over time, cross-company) needs a figure from "
        "each of two filings: found in both means a passage read spans a gold page of each. One filing found is the "
        "half-answer a reader then completes from memory or not at all. In the answerer's scope (`company_year`: the "
        "question's own scope, both filings' fiscal years).",
    )


def retrieval_table(inputs: ReportInputs) -> ReportTable:
    """Document and page hit, recall, precision, MRR and nDCG@10 per search scope, retriever and K, each with the
    hit a random ranking reaches and the index noise band."""
    retrieval = inputs.retrieval
    bands = _bands(inputs)
    table = pd.DataFrame(
        {
            "scope": retrieval.search_scope,
            "retriever": retrieval.retriever,
            "K": retrieval.k,
            "document hit": list(
                map(_share_cell, retrieval.document_hit_rate, retrieval.document_hits, retrieval.questions)
            ),
            "document Wilson 95%": [
                interval(lo, hi) for lo, hi in zip(retrieval.document_low, retrieval.document_high)
            ],
            "document hit by chance": [percent(v) for v in retrieval.document_chance],
            "page hit": list(map(_share_cell, retrieval.page_hit_rate, retrieval.page_hits, retrieval.questions)),
            "page Wilson 95%": [interval(lo, hi) for lo, hi in zip(retrieval.page_low, retrieval.page_high)],
            "page hit by chance": [percent(v) for v in retrieval.page_chance],
            "recall@K": [f"{v:.3f}" for v in retrieval.recall],
            "precision@K": [f"{v:.3f}" for v in retrieval.precision],
            "MRR": [f"{v:.3f}" for v in retrieval.rr],
            "nDCG@10": [f"{v:.3f}" for v in retrieval.ndcg10],
            "errors": retrieval.errors,
            "noise band": [
                _band_words(bands.get((str(s), str(r), int(k))))
                if band_can_move(str(s), str(r))
                else "none: cannot move here"
                for s, r, k in zip(retrieval.search_scope, retrieval.retriever, retrieval.k)
            ],
        }
    )
    return ReportTable(
        "Retrieval",
        table,
        Provenance("retrieval_metrics", content_version(retrieval), "retriever_rankings over search_index"),
        note="Over answerable questions, per search scope: the gold document or a gold page among the top K; "
        "recall, precision, MRR and nDCG@10 of the gold chunks (every chunk of the scope that prints the asked "
        "figure for its period). A wider scope counts the questions that stay fair there (see the next tables). "
        "By chance: the mean hit a random ranking of each question's scope reaches at K (a hypergeometric draw of "
        "K of the scope's chunks, those on a gold page or in a gold filing counting as hits), per question: "
        "the floor a hit rate stands on. In a one-filing scope the document hit is 100% by chance, and a figure "
        "printed on many pages puts the page floor high." + _corpus_sample_sentence(inputs, paired=True),
    )


def depth_tables(inputs: ReportInputs) -> list[ReportTable]:
    """What the deeper search adds per scope and retriever (none when one depth was measured)."""
    retrieval = inputs.retrieval
    depths = sorted(retrieval.k.unique())
    gain_rows = []
    if len(depths) >= 2:
        shallow, deep = depths[0], depths[-1]
        scopes = [scope for scope in SEARCH_SCOPES if scope in set(retrieval.search_scope)]
        groups = sorted(
            iter_groups(retrieval.groupby(["search_scope", "retriever"])),
            key=lambda item: (scopes.index(item[0][0]), item[0][1]),
        )
        for (scope, retriever), own in groups:
            by_depth = own.set_index("k")
            gain_rows.append(
                {
                    "scope": scope,
                    "retriever": retriever,
                    f"page hit gain, K {shallow} to "
                    f"{deep}": f"{100 * (by_depth.page_hit_rate[deep] - by_depth.page_hit_rate[shallow]):+.1f} points",
                    f"document hit gain, K {shallow} to "
                    f"{deep}": f"{100 * (by_depth.document_hit_rate[deep] - by_depth.document_hit_rate[shallow]):+.1f} "
                    "points",
                }
            )
    return (
        [
            ReportTable(
                "Retrieval depth: finding or ranking",
                pd.DataFrame(gain_rows),
                Provenance("retrieval_metrics", content_version(retrieval), "retriever_rankings over search_index"),
                note="What the deeper search adds: a gain means gold pages were found but ranked too low; "
                "no gain means they were not found at all.",
            )
        ]
        if gain_rows
        else []
    )


def slice_tables(inputs: ReportInputs) -> list[ReportTable]:
    """Retrieval by slice in the answerer's scope (none when nothing was sliced)."""
    slices = inputs.slices
    slice_table = _slice_table(slices)
    return (
        [
            ReportTable(
                "Retrieval by slice",
                slice_table,
                Provenance("retrieval_slices", content_version(slices), "retriever_rankings x golden_questions"),
                note="Page hit at each depth with its Wilson 95% interval, the gain from the shallow to the deep "
                "search, and the median rank of the first gold chunk at the deep search, per slice and retriever, "
                "in the answerer's scope (`company_year`).",
            )
        ]
        if len(slice_table)
        else []
    )
