"""BM25 over chunk texts (bm25s), scoped to filings exactly like the dense index.

Tokenisation, the same for chunks and queries (`TOKENISATION` names it; it is part of `INDEX_ID`):
- lower-cased;
- tokens are the matches of ``(?u)\\b\\w\\w+\\b`` (scikit-learn's CountVectorizer pattern): runs of two or
  more word characters, so single letters and digits are dropped, "10-K" gives "10" and "$1,234.5" gives "234";
- bm25s's English stopword list removed (33 words, Lucene's classic English stop set);
- stemmed with the Snowball English (Porter2) stemmer of PyStemmer, so "revenues" and "revenue" meet.
A query term repeated in the query counts once per occurrence, as in bm25s and Lucene.

Scoring is bm25s's "lucene" variant, k1=1.5, b=0.75: sum over query terms of
idf * tf / (tf + k1 * (1 - b + b * len / avg_len)), idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
N, df and avg_len are those of the whole indexed corpus, not of the scope, so a chunk's score does not depend
on which other filings are in scope (as with cosine). Every idf is positive, so a score of 0 means no query
term occurs in the chunk: such chunks are never returned.
"""

from __future__ import annotations

import functools
import hashlib
from importlib.metadata import version
from typing import TYPE_CHECKING, Sequence, cast

import bm25s
import numpy as np
import Stemmer
from bm25s.stopwords import STOPWORDS_EN
from scipy import sparse

from edgar_eval.retrieval.dense import SCORE_DECIMALS, Hit
from edgar_eval.retrieval.fingerprint import IndexFingerprint
from edgar_eval.retrieval.scope import RecentScopes, RowsByFiling

if TYPE_CHECKING:
    from bm25s.tokenization import Tokenized

TOKEN_PATTERN = r"(?u)\b\w\w+\b"
STOPWORDS: tuple[str, ...] = tuple(STOPWORDS_EN)
STEMMER = "english"  # PyStemmer's Snowball English (Porter2)
K1 = 1.5
B = 0.75
METHOD = "lucene"

_STOPWORDS_DIGEST = hashlib.sha256("\n".join(STOPWORDS).encode()).hexdigest()[:8]
TOKENISATION = (
    f"lower;pattern={TOKEN_PATTERN};stopwords=bm25s-en/{len(STOPWORDS)}/{_STOPWORDS_DIGEST};"
    f"stemmer=snowball-{STEMMER}/PyStemmer-{version('PyStemmer')}"
)
INDEX_ID = f"bm25s-{bm25s.__version__};{METHOD};k1={K1};b={B};{TOKENISATION}"


def index_fingerprint(chunk_size: int, chunk_overlap: int) -> IndexFingerprint:
    """The fingerprint of a BM25 index of chunks cut at this size and overlap."""
    return IndexFingerprint(INDEX_ID, "none", chunk_size, chunk_overlap)


def _tokenise(texts: list[str], stemmer: Stemmer.Stemmer, return_ids: bool):
    return bm25s.tokenize(
        texts,
        lower=True,
        token_pattern=TOKEN_PATTERN,
        stopwords=list(STOPWORDS),
        stemmer=stemmer,
        return_ids=return_ids,
        show_progress=False,
        allow_empty=True,
    )


_QUERY_STEMMER = Stemmer.Stemmer(STEMMER)


@functools.lru_cache(maxsize=65536)
def _query_tokens(query: str) -> tuple[str, ...]:
    """A query's tokens, kept per query text: the measurement searches each question in every scope with every
    retriever at every depth, and tokenising it again each time was a tenth of a search."""
    return tuple(cast(list[list[str]], _tokenise([query], _QUERY_STEMMER, return_ids=False))[0])


class BM25Index:
    def __init__(self, retriever: bm25s.BM25 | None, filing_ids: list[str]) -> None:
        self._retriever = retriever
        self.filing_ids = np.asarray(filing_ids, dtype=object)
        self._scope = RowsByFiling(filing_ids)
        self._scope_postings: RecentScopes[sparse.csc_array] = RecentScopes()
        self._by_chunk: sparse.csr_array | None = None
        self._by_term: sparse.csc_array | None = None
        if retriever is not None:
            # bm25s keeps each term's precomputed scores by term (its postings); by chunk, a scoped search reads the
            # rows of its scope only instead of scoring every chunk of the corpus and keeping the scope's
            stored = retriever.scores
            self._by_term = sparse.csc_array(
                (stored["data"], stored["indices"], stored["indptr"]),
                shape=(stored["num_docs"], len(stored["indptr"]) - 1),
            )
            self._by_term.sort_indices()
            self._by_chunk = self._by_term.tocsr()

    @classmethod
    def build(cls, texts: list[str], filing_ids: list[str]) -> "BM25Index":
        """Index chunk `texts`; row i is the chunk of filing `filing_ids[i]`, as in the dense index."""
        if len(texts) != len(filing_ids):
            raise ValueError(f"{len(texts)} chunk texts do not match {len(filing_ids)} chunk rows")
        tokenised = cast("Tokenized", _tokenise(list(texts), Stemmer.Stemmer(STEMMER), return_ids=True))
        if not tokenised.vocab:  # no chunk has a single token: nothing can ever match
            return cls(None, filing_ids)
        retriever = bm25s.BM25(k1=K1, b=B, method=METHOD, dtype="float64", backend="numpy")
        retriever.index(tokenised, show_progress=False)
        return cls(retriever, filing_ids)

    @classmethod
    def of_tokens(cls, token_ids: list[list[int]], vocab: dict[str, int], filing_ids: list[str]) -> "BM25Index":
        """Index chunks already tokenised (`ChunkTokens`): row i holds token ids `token_ids[i]` of `vocab`, a
        vocabulary that may hold terms no row has. The same index, score for score, as `build` of the rows' texts: a
        term no row has scores no row (its idf is never added) and a query term outside the rows finds nothing either
        way; N, each term's document count and the mean length are counted over these rows alone."""
        if len(token_ids) != len(filing_ids):
            raise ValueError(f"{len(token_ids)} tokenised chunks do not match {len(filing_ids)} chunk rows")
        if not any(token_ids):  # no row has a single token: nothing can ever match (as `build` finds no vocabulary)
            return cls(None, filing_ids)
        retriever = bm25s.BM25(k1=K1, b=B, method=METHOD, dtype="float64", backend="numpy")
        retriever.index((token_ids, dict(vocab)), show_progress=False)  # bm25s adds to the vocabulary it is given
        return cls(retriever, filing_ids)

    @property
    def fingerprint_id(self) -> str:
        return INDEX_ID

    def query_tokens(self, query: str) -> list[str]:
        """The query as the index sees it (after lower-casing, stopwords and stemming)."""
        return list(_query_tokens(query))

    def _scores(self, token_ids: list[int], rows: np.ndarray, scope: tuple[str, ...] | None = None) -> np.ndarray:
        """BM25 of these chunk rows for the query's terms: each term's precomputed scores added in the query's term
        order, as bm25s's `get_scores_from_ids` adds them for every chunk (the same sums, bit for bit). `scope`: the
        filings the rows are of, to keep their postings for the next search of the same scope."""
        assert self._by_chunk is not None and self._by_term is not None
        # a search of the whole corpus reads the postings as they are: cutting every row out again is most of its cost
        everything = len(rows) == len(self.filing_ids)
        if everything:
            in_scope = self._by_term
        elif scope is None:
            in_scope = self._by_chunk[rows].tocsc()
        else:
            by_chunk = self._by_chunk
            in_scope = self._scope_postings.get(scope, lambda: by_chunk[rows].tocsc())
        starts, ends = in_scope.indptr[token_ids], in_scope.indptr[np.asarray(token_ids) + 1]
        scores = np.zeros(len(rows), dtype=in_scope.dtype)
        if len(token_ids):
            at = np.concatenate([in_scope.indices[a:b] for a, b in zip(starts, ends)])
            np.add.at(scores, at, np.concatenate([in_scope.data[a:b] for a, b in zip(starts, ends)]))
        return scores

    def search(self, query: str, scope: list[str], k: int) -> list[Hit]:
        """Top k chunks of the filings in `scope` that share a term with the query; no other filing's chunk can come
        back."""
        if self._retriever is None or k <= 0:
            return []
        vocab = self._retriever.vocab_dict
        token_ids = [vocab[t] for t in self.query_tokens(query) if t and t in vocab]
        allowed = self._scope.rows(scope)
        if not token_ids or allowed.size == 0:
            return []
        raw = self._scores(token_ids, allowed, tuple(scope))
        matched = raw > 0
        allowed, scores = allowed[matched], np.round(raw[matched], SCORE_DECIMALS)
        order = np.lexsort((allowed, -scores))[:k]
        return [Hit(int(allowed[i]), float(scores[i]), rank + 1) for rank, i in enumerate(order)]


class ChunkTokens:
    """Every chunk of an index tokenised once, as ids of one vocabulary, keyed by chunk id: an index of any of those
    chunks, in any order (the noise band's replicas leave companies out and reorder rows), is built from them without
    tokenising each replica's texts again, which is most of an index's build. Tokenised on first use (a dense-only
    search never needs it); the texts are not held after."""

    def __init__(self, chunk_ids: Sequence[str], texts: Sequence[str]) -> None:
        if len(chunk_ids) != len(texts):
            raise ValueError(f"{len(chunk_ids)} chunk ids do not match {len(texts)} texts")
        self._chunk_ids: Sequence[str] | None = chunk_ids
        self._texts: Sequence[str] | None = texts
        self._ids: dict[str, list[int]] = {}
        self._vocab: dict[str, int] = {}

    def index(self, chunk_ids: list[str], filing_ids: list[str]) -> BM25Index:
        """The BM25 index of these chunks, row i the chunk `chunk_ids[i]` of filing `filing_ids[i]`."""
        if self._texts is not None and self._chunk_ids is not None:
            tokenised = cast("Tokenized", _tokenise(list(self._texts), Stemmer.Stemmer(STEMMER), return_ids=True))
            self._ids = dict(zip(self._chunk_ids, tokenised.ids))
            if len(self._ids) != len(tokenised.ids):
                raise ValueError("chunk ids must be distinct, one per text")
            self._vocab, self._chunk_ids, self._texts = dict(tokenised.vocab), None, None
        return BM25Index.of_tokens([self._ids[chunk] for chunk in chunk_ids], self._vocab, filing_ids)
