import json
import math
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from edgar_eval.retrieval.bm25 import (
    INDEX_ID,
    K1,
    STOPWORDS,
    TOKENISATION,
    B,
    BM25Index,
    ChunkTokens,
    index_fingerprint,
)
from edgar_eval.retrieval.dense import DenseIndex, Hit
from edgar_eval.retrieval.fingerprint import IndexMismatch, check_fingerprint
from edgar_eval.retrieval.hybrid import RRF_K, HybridRetriever, rrf_fuse

CHUNKS = [
    "Net sales increased 8% driven by higher revenue from services.",  # 0
    "The Company recorded a goodwill impairment charge of $1.2 billion.",  # 1
    "Research and development expenses rose as headcount grew.",  # 2
    "Goodwill is tested for impairment annually in the fourth quarter.",  # 3
    "The of and a to in is it.",  # 4 stopwords only
    "Risk factors include competition, supply chain disruption and litigation.",  # 5
]
FILINGS = ["f1", "f1", "f2", "f2", "f3", "f3"]
VOCAB = [f"w{i}" for i in range(30)]


def _random_corpus(rng, n_rows, n_filings):
    weights = 1.0 / np.arange(1, len(VOCAB) + 1)
    weights /= weights.sum()
    texts = []
    for _ in range(n_rows):
        length = int(rng.integers(0, 12))
        words = list(rng.choice(VOCAB, size=length, p=weights))
        if rng.random() < 0.2:
            words += ["the", "of", "and"]
        texts.append(" ".join(words))
    filing_ids = [f"f{int(i)}" for i in rng.integers(0, n_filings, size=n_rows)]
    return texts, filing_ids


def _reference_scores(texts, query_words):
    """Lucene BM25 written out by hand, over the whole corpus (the random corpora need no stemming)."""
    docs = [[w for w in t.lower().split() if w not in STOPWORDS] for t in texts]
    n, avg_len = len(docs), sum(map(len, docs)) / len(docs)
    df = Counter(w for d in docs for w in set(d))
    scores = np.zeros(n)
    for i, doc in enumerate(docs):
        tf = Counter(doc)
        for w in query_words:
            if tf[w]:
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                scores[i] += idf * tf[w] / (tf[w] + K1 * (1 - B + B * len(doc) / avg_len))
    return scores


def test_bm25_scope_never_leaks_and_hits_are_the_top_scoped_matches():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(40):
        n_rows = int(rng.integers(5, 120))
        texts, filing_ids = _random_corpus(rng, n_rows, int(rng.integers(1, 7)))
        index = BM25Index.build(texts, filing_ids)
        for _ in range(15):
            query_words = list(rng.choice(VOCAB, size=int(rng.integers(1, 5))))
            scope = sorted({f"f{int(i)}" for i in rng.integers(0, 8, size=int(rng.integers(0, 4)))})
            k = int(rng.integers(1, n_rows + 5))
            hits = index.search(" ".join(query_words + ["the", "unseenword"]), scope, k)
            reference = _reference_scores(texts, query_words)
            eligible = [r for r in range(n_rows) if filing_ids[r] in scope and reference[r] > 0]
            assert all(filing_ids[h.row] in scope for h in hits)
            assert len(hits) == min(k, len(eligible))
            assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
            assert all(h.score > 0 and h.score == pytest.approx(reference[h.row], abs=1e-5) for h in hits)
            for a, b in zip(hits, hits[1:]):
                assert a.score > b.score or (a.score == b.score and a.row < b.row)
            returned = {h.row for h in hits}
            if hits:
                assert all(reference[r] <= hits[-1].score + 1e-5 for r in eligible if r not in returned)
            checked += bool(hits)
    assert checked > 200


def test_exact_term_ranks_its_chunk_first_and_stemming_matches_word_forms():
    index = BM25Index.build(CHUNKS, FILINGS)
    everything = ["f1", "f2", "f3"]
    assert index.search("goodwill impairment charge", everything, 3)[0].row == 1
    assert index.search("litigation", everything, 3)[0].row == 5
    assert [h.row for h in index.search("revenues", everything, 3)] == [0]
    assert index.query_tokens("The Revenues of 10-K") == ["revenu", "10"]


def test_chunks_without_a_query_term_never_come_back():
    index = BM25Index.build(CHUNKS, FILINGS)
    everything = ["f1", "f2", "f3"]
    assert sorted(h.row for h in index.search("impairment", everything, 10)) == [1, 3]
    assert [h.row for h in index.search("impairment", ["f2", "f3"], 10)] == [3]
    assert index.search("the of and", everything, 10) == []
    assert index.search("xylophone", everything, 10) == []
    assert index.search("impairment", ["f9"], 10) == []
    assert index.search("impairment", everything, 0) == []
    assert BM25Index.build([], []).search("impairment", ["f1"], 5) == []
    assert BM25Index.build(["the of", ""], ["f1", "f1"]).search("the", ["f1"], 5) == []
    with pytest.raises(ValueError, match="do not match"):
        BM25Index.build(["a b"], ["f1", "f2"])


def test_bm25_ties_are_broken_by_row():
    index = BM25Index.build(["alpha beta", "gamma delta", "alpha beta", "alpha beta"], ["a", "a", "b", "a"])
    hits = index.search("alpha", ["a", "b"], 5)
    assert [h.row for h in hits] == [0, 2, 3] and len({h.score for h in hits}) == 1
    assert [h.row for h in index.search("alpha", ["a"], 5)] == [0, 3]


_DETERMINISM_SCRIPT = """
import json, numpy as np
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.hybrid import HybridRetriever
rng = np.random.default_rng(5)
words = ["revenue", "revenues", "goodwill", "impairment", "lease", "leases", "tax", "taxes", "segment", "debt"]
texts = [" ".join(rng.choice(words, size=int(rng.integers(1, 9)))) for _ in range(300)]
filings = [f"f{i % 4}" for i in range(300)]
vectors = rng.normal(size=(300, 8)).astype(np.float32)
vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
from edgar_eval.retrieval.dense import DenseIndex
bm25 = BM25Index.build(texts, filings)
hybrid = HybridRetriever(DenseIndex(vectors, filings), bm25)
out = [[(h.row, h.score, h.rank) for h in bm25.search(q, ["f0", "f2"], 20)] for q in ("revenues tax", "leases debt goodwill")]
out.append([(h.row, h.score, h.rank) for h in hybrid.search(vectors[7], "impairment segment", ["f1", "f2", "f3"], 25)])
print(json.dumps(out))
"""  # noqa: E501


def test_results_are_identical_across_processes_with_different_hash_seeds():
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _DETERMINISM_SCRIPT],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for seed in ("0", "4242")
    ]
    outputs = [json.loads(run.communicate(timeout=60)[0]) for run in runs]
    assert all(run.returncode == 0 for run in runs)
    assert outputs[0] == outputs[1] and all(outputs[0])


def test_fingerprint_names_the_tokenisation_and_refuses_another():
    assert TOKENISATION in INDEX_ID and r"(?u)\b\w\w+\b" in TOKENISATION and "stemmer=snowball-english" in TOKENISATION
    assert BM25Index.build(CHUNKS, FILINGS).fingerprint_id == INDEX_ID
    built = index_fingerprint(1000, 200)
    check_fingerprint(built, type(built).from_json(built.as_json()), "bm25 index")
    other = type(built)(INDEX_ID.replace("stemmer=snowball-english", "stemmer=none"), "none", 1000, 200)
    with pytest.raises(IndexMismatch, match="embedder_id"):
        check_fingerprint(built, other, "bm25 index")


def _hits(rows):
    return [Hit(row, 0.0, rank) for rank, row in enumerate(rows, start=1)]


def test_rrf_arithmetic_on_a_hand_made_example():
    fused = rrf_fuse([_hits([3, 1, 2]), _hits([1, 4])], k=10)
    assert [h.row for h in fused] == [1, 3, 4, 2] and [h.rank for h in fused] == [1, 2, 3, 4]
    assert [h.score for h in fused] == [float(Fraction(1, 62) + Fraction(1, 61)), 1 / 61, 1 / 62, 1 / 63]
    # equal fused scores tie by row, whichever retriever put them there
    assert [h.row for h in rrf_fuse([_hits([9, 2]), _hits([2, 9])], k=2)] == [2, 9]
    assert [h.row for h in rrf_fuse([_hits([5]), _hits([2])], k=5)] == [2, 5]
    assert [h.row for h in rrf_fuse([_hits([3, 1, 2]), _hits([1, 4])], k=2)] == [1, 3]
    assert rrf_fuse([_hits([1]), _hits([])], k=3, rrf_k=0)[0].score == 1.0
    with pytest.raises(ValueError, match="twice"):
        rrf_fuse([_hits([1, 1])], k=3)


def _placed(positions, filler_start):
    """A 50-long ranking holding row r at rank p for each {r: p}, distinct filler rows elsewhere."""
    filler = iter(range(filler_start, filler_start + 50))
    by_rank = {p: r for r, p in positions.items()}
    return _hits([by_rank.get(rank, next(filler)) for rank in range(1, 51)])


def test_rrf_orders_on_exact_scores_not_on_float_noise():
    # 1/66 + 1/99 == 1/72 + 1/88 exactly, but the float sums differ in the last bit (the first is larger):
    # the tie must still go to the lower row.
    fused = rrf_fuse([_placed({9: 6, 2: 12}, 1000), _placed({9: 39, 2: 28}, 2000)], k=50)
    assert 1 / 66 + 1 / 99 != 1 / 72 + 1 / 88 and Fraction(1, 66) + Fraction(1, 99) == Fraction(1, 72) + Fraction(1, 88)
    rows = [h.row for h in fused]
    assert rows.index(2) + 1 == rows.index(9)
    # 1/89 + 1/109 and 1/97 + 1/99 differ by about 2e-8, below the 6 decimals scores are shown at; still ordered
    fused = rrf_fuse([_placed({4: 29, 3: 37}, 1000), _placed({4: 49, 3: 39}, 2000)], k=50)
    exact = {4: Fraction(1, 89) + Fraction(1, 109), 3: Fraction(1, 97) + Fraction(1, 99)}
    assert 0 < abs(exact[4] - exact[3]) < 1e-7
    rows = [h.row for h in fused]
    first, second = sorted(exact, key=lambda r: -exact[r])
    assert rows.index(first) + 1 == rows.index(second)


def _fraction_rrf(rankings, k, rrf_k):
    """RRF as its definition reads: the sum of the fractions 1 / (rrf_k + rank), ordered on them, ties by row."""
    fused = {}
    for ranking in rankings:
        for hit in ranking:
            fused[hit.row] = fused.get(hit.row, Fraction(0)) + Fraction(1, rrf_k + hit.rank)
    order = sorted(fused, key=lambda row: (-fused[row], row))[: max(k, 0)]
    return [Hit(row, float(fused[row]), rank) for rank, row in enumerate(order, start=1)]


def test_rrf_is_the_fraction_sum_of_its_definition_row_rank_and_float_score():
    """The fused order, ranks and float scores are those of the exact fractions, on rankings drawn to tie often
    (few rows, shallow and deep lists, three retrievers at times, rrf_k from 0)."""
    rng = np.random.default_rng(17)
    for _ in range(3000):
        rows = int(rng.integers(1, 40))
        rankings = [
            _hits([int(r) for r in rng.permutation(rows)[: int(rng.integers(0, rows + 1))]])
            for _ in range(int(rng.integers(1, 4)))
        ]
        k, rrf_k = int(rng.integers(0, 45)), int(rng.choice([0, 1, 2, 60, int(rng.integers(0, 200))]))
        assert rrf_fuse(rankings, k, rrf_k) == _fraction_rrf(rankings, k, rrf_k)
    with pytest.raises(ValueError, match="ranks count from 1, got 0"):
        rrf_fuse([[Hit(3, 0.0, 0)]], k=3)


class _Stub:
    """A retriever whose full ranking is fixed; records the depth it was searched to."""

    def __init__(self, ranking, n_rows):
        self.ranking, self.depths = ranking, []
        self.filing_ids = np.asarray(["f"] * n_rows, dtype=object)

    def search(self, query, scope, k):
        self.depths.append(k)
        return _hits(self.ranking[:k])


def test_each_pool_is_k_deep_so_top_30_of_k50_is_not_the_k30_result():
    shared = 500  # ranked 40th by both retrievers
    dense_rows = list(range(0, 39)) + [shared] + list(range(39, 60))
    sparse_rows = list(range(100, 139)) + [shared] + list(range(139, 160))
    dense, sparse = _Stub(dense_rows, 600), _Stub(sparse_rows, 600)
    hybrid = HybridRetriever(dense, sparse)
    k30 = hybrid.search(np.zeros(2), "q", ["f"], 30)
    k50 = hybrid.search(np.zeros(2), "q", ["f"], 50)
    assert dense.depths == [30, 50] and sparse.depths == [30, 50]
    assert shared not in {h.row for h in k30}
    assert k50[0].row == shared and k50[0].score == pytest.approx(2 / (RRF_K + 40))
    assert [h.row for h in k50[:30]] != [h.row for h in k30]
    assert len(k30) == 30 and len(k50) == 50


def test_hybrid_scope_never_leaks_and_fuses_the_k_deep_lists():
    rng = np.random.default_rng(17)
    for _ in range(15):
        n_rows = int(rng.integers(20, 150))
        texts, filing_ids = _random_corpus(rng, n_rows, 5)
        vectors = rng.normal(size=(n_rows, 8)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        dense, bm25 = DenseIndex(vectors, filing_ids), BM25Index.build(texts, filing_ids)
        hybrid = HybridRetriever(dense, bm25)
        for _ in range(10):
            scope = sorted({f"f{int(i)}" for i in rng.integers(0, 7, size=2)})
            k, query_vector, query_text = (
                int(rng.integers(1, 40)),
                vectors[int(rng.integers(n_rows))],
                " ".join(rng.choice(VOCAB, 3)),
            )
            hits = hybrid.search(query_vector, query_text, scope, k)
            assert all(filing_ids[h.row] in scope for h in hits) and len(hits) <= k
            assert hits == rrf_fuse([dense.search(query_vector, scope, k), bm25.search(query_text, scope, k)], k)
            assert hits == hybrid.search(query_vector, query_text, scope, k)


def test_hybrid_refuses_indexes_over_different_chunk_rows():
    vectors = np.eye(3, dtype=np.float32)
    with pytest.raises(ValueError, match="same chunk rows"):
        HybridRetriever(DenseIndex(vectors, ["a", "a", "b"]), BM25Index.build(["x1", "x2", "x3"], ["a", "b", "b"]))


def test_a_scoped_search_scores_its_rows_bit_for_bit_as_bm25s_scores_the_whole_corpus():
    """The scoped sums are bm25s's own, not close to them: a report's ties and ranks cannot move."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        texts, filing_ids = _random_corpus(rng, int(rng.integers(5, 150)), int(rng.integers(1, 9)))
        index = BM25Index.build(texts, filing_ids)
        if index._retriever is None:
            continue
        for _ in range(10):
            query = " ".join(rng.choice(VOCAB, size=int(rng.integers(1, 6))))  # repeated words too
            vocab = index._retriever.vocab_dict
            token_ids = [vocab[t] for t in index.query_tokens(query) if t in vocab]
            scope = [f"f{int(i)}" for i in rng.integers(0, 10, size=int(rng.integers(1, 5)))]
            rows = np.flatnonzero(np.isin(np.asarray(filing_ids, dtype=object), np.asarray(scope, dtype=object)))
            if not token_ids or rows.size == 0:
                continue
            whole_corpus = index._retriever.get_scores_from_ids(token_ids)[rows]
            assert np.array_equal(index._scores(token_ids, rows), whole_corpus)


def test_an_index_of_some_chunks_from_the_corpus_tokens_is_the_index_of_their_texts_hit_for_hit():
    """A replica of the index (rows left out, the rest reordered) built from the whole corpus's tokens gives every
    search exactly what an index built from the replica's own texts gives: the same scores to the last bit, so the
    same hits, ranks and ties, including a query whose only term is in the rows left out, and a replica none of whose
    rows has a token. Building one leaves the shared vocabulary as it was for the next."""
    rng = np.random.default_rng(11)
    compared = 0
    for trial in range(40):
        texts, filing_ids = _random_corpus(rng, int(rng.integers(5, 120)), int(rng.integers(1, 8)))
        if trial == 0:
            texts = [*texts, "the of and", "w29only"]  # a row of stopwords only and a term no other row has
            filing_ids = [*filing_ids, "f0", "f0"]
        chunk_ids = [f"c{i}" for i in range(len(texts))]
        tokens = ChunkTokens(chunk_ids, texts)
        tokens.index(chunk_ids[:1], filing_ids[:1])
        vocabulary = dict(tokens._vocab)
        for _ in range(4):
            kept = rng.permutation(len(texts))[: int(rng.integers(1, len(texts) + 1))]
            if trial == 0:
                kept = kept[kept != len(texts) - 1]  # the unique term's row left out
            replica = [int(i) for i in kept]
            own = BM25Index.build([texts[i] for i in replica], [filing_ids[i] for i in replica])
            shared = tokens.index([chunk_ids[i] for i in replica], [filing_ids[i] for i in replica])
            for _ in range(8):
                query = " ".join(rng.choice([*VOCAB, "w29only"], size=int(rng.integers(1, 5))))
                scope = sorted({filing_ids[i] for i in replica})
                if rng.random() < 0.5:
                    scope = scope[: int(rng.integers(1, len(scope) + 1))]
                assert shared.search(query, scope, 20) == own.search(query, scope, 20), (trial, query, scope)
                compared += 1
            assert tokens._vocab == vocabulary
    assert compared == 40 * 4 * 8
    empty = ChunkTokens(["a", "b", "c"], ["the of", "and", "w1 w2"])
    assert empty.index(["a", "b"], ["f1", "f1"]).search("w1 of", ["f1"], 5) == []  # no row has a token
    assert empty.index(["c", "a"], ["f1", "f2"]).search("w1", ["f1", "f2"], 5)[0].row == 0
    with pytest.raises(ValueError, match="distinct"):
        ChunkTokens(["a", "a"], ["x", "y"]).index(["a"], ["f1"])
    with pytest.raises(ValueError, match="2 chunk ids do not match 1 texts"):
        ChunkTokens(["a", "b"], ["x"])


def test_the_rows_of_a_scope_are_its_filings_rows_ascending_and_nothing_else():
    from edgar_eval.retrieval.scope import RowsByFiling

    filing_ids = ["b", "a", "b", "c", "a", "b"]
    rows = RowsByFiling(filing_ids)
    assert rows.rows(["b"]).tolist() == [0, 2, 5]
    assert rows.rows(["c", "a", "a"]).tolist() == [1, 3, 4]  # ascending, each row once
    assert rows.rows(["nowhere"]).tolist() == []
    assert rows.rows([]).tolist() == []
    assert RowsByFiling([]).rows(["a"]).tolist() == []


def _company_rows(texts: list[str], seed: int = 0):
    """Chunk rows of three companies (two filings of c1, one each of c2 and c3), their rows interleaved."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    filings = ["a1", "b1", "a2", "c1", "a1", "b1", "c1", "a2"][: len(texts)]
    company = {"a1": "c1", "a2": "c1", "b1": "c2", "c1": "c3"}
    return pd.DataFrame(
        {
            "chunk_id": [f"k{i}" for i in range(len(texts))],
            "filing_id": filings,
            "cik": [company[f] for f in filings],
            "text": texts,
            "embedding": [rng.normal(size=4).astype(np.float32) for _ in texts],
        }
    )


COMPANY_TEXTS = [
    "goodwill impairment charge recorded",
    "revenue grew and goodwill rose",
    "goodwill tested annually for impairment",
    "revenue revenue revenue goodwill",
    "impairment of goodwill in the quarter",
    "segment revenue and goodwill",
    "goodwill goodwill impairment",
    "revenue recognised over time",
]


@pytest.mark.parametrize("retriever", ["bm25", "hybrid"])
def test_a_company_s_search_is_ranked_by_its_own_chunks_and_another_company_s_filings_do_not_move_it(retriever):
    from edgar_eval.retrieval.searches import searches

    rows = _company_rows(COMPANY_TEXTS)
    own = rows[rows.cik == "c1"]
    dense = DenseIndex(np.stack(rows.embedding.to_numpy()), rows.filing_id.tolist())
    search = searches(rows, dense, RRF_K, (retriever,))[retriever]
    query, vector = "goodwill impairment revenue", np.ones(4, dtype=np.float32)
    found = search(vector, query, ["a1", "a2"], 3)
    # the same search over an index of that company's rows alone, its rows mapped back
    alone = BM25Index.build(own.text.tolist(), own.filing_id.tolist())
    if retriever == "bm25":
        expected = [(int(own.index[h.row]), h.score) for h in alone.search(query, ["a1", "a2"], 3)]
        assert [(h.row, h.score) for h in found] == expected
    # over the whole corpus's statistics the ranking differs: the test can tell the two apart
    whole = BM25Index.build(rows.text.tolist(), rows.filing_id.tolist()).search(query, ["a1", "a2"], 3)
    assert [h.score for h in whole] != [h.score for h in alone.search(query, ["a1", "a2"], 3)]
    # another company's chunks rewritten: the first company's rankings are exactly the same
    edited = rows.assign(text=rows.text.where(rows.cik == "c1", "goodwill goodwill goodwill goodwill"))
    again = searches(edited, dense, RRF_K, (retriever,))[retriever](vector, query, ["a1", "a2"], 3)
    assert [(h.row, h.score, h.rank) for h in again] == [(h.row, h.score, h.rank) for h in found]
    # the corpus scope ranks by every chunk: the whole index's ranking
    if retriever == "bm25":
        every = sorted(set(rows.filing_id))
        assert [(h.row, h.score) for h in search(vector, query, every, 5)] == [
            (h.row, h.score)
            for h in BM25Index.build(rows.text.tolist(), rows.filing_id.tolist()).search(query, every, 5)
        ]
        # two companies' filings: by the two companies' chunks
        pair = rows[rows.cik.isin(["c1", "c2"])]
        two = BM25Index.build(pair.text.tolist(), pair.filing_id.tolist()).search(query, ["a1", "b1"], 4)
        assert [(h.row, h.score) for h in search(vector, query, ["a1", "b1"], 4)] == [
            (int(pair.index[h.row]), h.score) for h in two
        ]
    assert search(vector, query, ["unknown"], 3) == []
